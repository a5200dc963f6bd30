package billingtest

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/shopspring/decimal"
)

// Churn makes the fake a busy account, one that other systems write to
// between any two requests: before answering a list request, the fake
// inserts, deletes, re-keys and modifies a few rows of that list's scope
// (all invoices, the customer's invoices, the subscription product's
// items), as [WithChurn] describes. It is for tests of code that must
// cope with data changing under it, e.g. a sync job or a stable iteration.
//
// The changes are deterministic: they depend only on Seed and on the
// order and content of the list requests, so that a test run twice sees
// the same changes, and [Server.ChurnLog] says what they were.
type Churn struct {
	// Seed seeds the changes (a PCG from math/rand/v2).
	Seed int64
	// Every makes a round of changes before every Every-th list request;
	// 0 means 1, a round before every one.
	Every int
	// Inserts is the rows a round adds, each a look-alike of a row of the
	// scope (same customer and charges; new ids; balances, and the amount
	// of a charge of one, raised by up to 99.99) with a new key.
	Inserts int
	// Deletes is the rows a round removes, as [Server.DeleteInvoice]
	// does.
	Deletes int
	// Rekeys is the rows a round gives a new key (see ChurnChange.Field):
	// another instant in the same second, an instant in another row's
	// second or elsewhere in the scope's range, or a key the row had
	// before in this run. Their modifiedTimestamp becomes the clock's now.
	Rekeys int
	// Modifies is the rows a round changes in place: modifiedTimestamp
	// becomes the clock's now, and sometimes the amounts change
	// (openingArBalance and closingArBalance, or the invoice amount
	// through its taxes; an item's description).
	Modifies int
	// KeepCount pairs every delete with an insert of a look-alike of the
	// deleted row, keyed in the same second: deletes then leave the
	// number of rows of every second, and so X-Count, as they were
	// (inserts and re-keys still change it).
	KeepCount bool
	// Aim aims the changes at the range being read: when the request's
	// query has a range or match on its sort field (e.g.
	// postedTimestamp:2024-02-01T00:00:00|2024-02-01T00:00:01), the rows
	// deleted, re-keyed and modified are inside that range whenever it has
	// any, and new keys are inside it 3 times in 4 (the 4th lets a row
	// leave the range being read, or land elsewhere).
	Aim bool
}

// ChurnKind is the kind of a [ChurnChange].
type ChurnKind string

// The kinds of change [WithChurn] makes.
const (
	ChurnInsert ChurnKind = "insert"
	ChurnDelete ChurnKind = "delete"
	ChurnRekey  ChurnKind = "rekey"
	ChurnModify ChurnKind = "modify"
)

// ChurnChange is one change [WithChurn] made, as [Server.ChurnLog] reports
// it.
type ChurnChange struct {
	// Request is the list request before whose answer the change was
	// made, counted from 1 over every list request the fake accepted (a
	// 400 is not counted; a 404 for an unknown customer is).
	Request int
	// Route is that request's route.
	Route Route
	Kind  ChurnKind
	// ID is the invoice's or item's id.
	ID int64
	// Field is the key the change is described by: the request's
	// sortExpression (as the reference spells it) when it is a date churn
	// can set (createdTimestamp, effectiveTimestamp, postedTimestamp or
	// modifiedTimestamp of an invoice; createdTimestamp or
	// modifiedTimestamp of an item), else postedTimestamp for invoices and
	// createdTimestamp for items.
	Field string
	// OldKey and NewKey are Field's value before and after the change;
	// OldKey is zero for an insert and NewKey for a delete. They differ
	// for a modify only when Field is modifiedTimestamp.
	OldKey, NewKey time.Time
}

// WithChurn makes the fake apply a round of changes c describes to the
// scope of a list (the invoices, the customer's invoices or the
// subscription product's items) before answering every c.Every-th list
// request: GET /v1/Invoices, a customer's invoices, invoice summaries
// and subscription product items. The changes are made under the fake's
// lock, to invoices through the paths [Server.AddInvoice],
// [Server.DeleteInvoice] and [Server.UpdateInvoice] take (items through
// the store's item list, which [Server.AddSubscriptionProductItem] fills),
// so that the answer they come before and every later one sees them, and
// [Server.ChurnLog] records them.
//
// What a test may rely on: a row that keeps its key and keeps matching
// the filter for the whole run (one that ChurnLog never names, or names
// only in modifies that leave its key and the filtered fields alone) is
// read exactly once by a correct stable iteration; a row that changed may
// be read once, twice or not at all.
//
// Negative counts, or a negative Every, are an error. Churn is not part
// of [WithAllVariations]: those are what the reference leaves open, this
// is data changing.
func WithChurn(c Churn) Option {
	return func(cfg *config) error {
		if c.Every < 0 || c.Inserts < 0 || c.Deletes < 0 || c.Rekeys < 0 || c.Modifies < 0 {
			return fmt.Errorf("WithChurn: Every and the counts must not be negative, got %+v", c)
		}
		if c.Every == 0 {
			c.Every = 1
		}
		cfg.churn = &c
		return nil
	}
}

// ChurnLog returns the changes [WithChurn] has made so far, in the order
// made; nil without WithChurn. It keeps every change of the run.
func (s *Server) ChurnLog() []ChurnChange {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.churn == nil {
		return nil
	}
	return slices.Clone(s.churn.log)
}

// churnState is a fake's churn: its settings, its random source and what
// it did. Guarded by Server.mu.
type churnState struct {
	c        Churn
	rng      *rand.Rand
	requests int // list requests seen
	log      []ChurnChange
}

func newChurnState(c Churn) *churnState {
	return &churnState{c: c, rng: rand.New(rand.NewPCG(uint64(c.Seed), 0))}
}

// churnRow is a row of a scope with its key.
type churnRow struct {
	id  int64
	key time.Time
}

// churnScope is the rows one list reads, as churn reads and writes them.
// The caller holds s.mu for writing.
type churnScope interface {
	// keyField is the date field churn keys rows by: sorted, the
	// request's sort field ("" for none), when churn can set it, else
	// the scope's default.
	keyField(sorted string) string
	// rows are the scope's rows in ascending id order.
	rows(field string) []churnRow
	// insert adds a look-alike of row like (0: a plain row) keyed at
	// key, and reports the row added.
	insert(field string, like int64, key time.Time, rng *rand.Rand, now time.Time) (churnRow, bool)
	delete(id int64) bool
	// setKey and modify change a row and return its key afterwards.
	setKey(field string, id int64, key, now time.Time) (time.Time, bool)
	modify(field string, id int64, rng *rand.Rand, now time.Time) (time.Time, bool)
}

// sortedOn is the name of lr's sort field as the reference spells it, ""
// for the default order by id.
func sortedOn[T any](sc *filter.Schema[T], lr listRequest) string {
	if lr.SortField < 0 {
		return ""
	}
	return sc.Fields[lr.SortField].Name
}

// churnBefore makes a round of changes to scope, when one is due, before
// the answer to a list request of route sorted on sorted whose filter
// admits key on that field.
func (s *Server) churnBefore(route Route, sorted string, key *filter.TimeRange, scope churnScope) {
	if s.churn == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.churn
	ch.requests++
	if ch.requests%ch.c.Every != 0 {
		return
	}
	field := scope.keyField(sorted)
	r := &churnRound{churnState: ch, scope: scope, field: field, rows: scope.rows(field), now: s.now(),
		base: ChurnChange{Request: ch.requests, Route: route, Field: field}}
	if ch.c.Aim && field == sorted {
		r.aim = key
	}
	r.run()
}

// churnRound is one round of changes.
type churnRound struct {
	*churnState
	scope churnScope
	field string
	rows  []churnRow        // the scope's, kept up to date with the round's changes
	aim   *filter.TimeRange // the range to aim at; nil: the whole scope
	now   time.Time
	base  ChurnChange // what every change of the round shares
}

func (r *churnRound) run() {
	for range r.c.Deletes {
		i, ok := r.pickRow()
		if !ok {
			break
		}
		old := r.rows[i]
		if r.c.KeepCount {
			// Before the delete, so that there is a row to copy; a new
			// id is the largest, so i still points at old.
			key := r.newKey()
			if !old.key.IsZero() {
				key = r.inSecond(old.key)
			}
			r.insert(old.id, key)
		}
		if r.scope.delete(old.id) {
			r.rows = slices.Delete(r.rows, i, i+1)
			r.record(ChurnDelete, old.id, old.key, time.Time{})
		}
	}
	for range r.c.Inserts {
		like := int64(0)
		if i, ok := r.pickRow(); ok {
			like = r.rows[i].id
		}
		r.insert(like, r.newKey())
	}
	for range r.c.Rekeys {
		i, ok := r.pickRow()
		if !ok {
			break
		}
		row := &r.rows[i]
		if key, ok := r.scope.setKey(r.field, row.id, r.rekeyTarget(*row), r.now); ok {
			r.record(ChurnRekey, row.id, row.key, key)
			row.key = key
		}
	}
	for range r.c.Modifies {
		i, ok := r.pickRow()
		if !ok {
			break
		}
		row := &r.rows[i]
		if key, ok := r.scope.modify(r.field, row.id, r.rng, r.now); ok {
			r.record(ChurnModify, row.id, row.key, key)
			row.key = key
		}
	}
}

func (r *churnRound) insert(like int64, key time.Time) {
	row, ok := r.scope.insert(r.field, like, key, r.rng, r.now)
	if !ok {
		return
	}
	i, _ := slices.BinarySearchFunc(r.rows, row.id, func(x churnRow, id int64) int { return cmp.Compare(x.id, id) })
	r.rows = slices.Insert(r.rows, i, row)
	r.record(ChurnInsert, row.id, time.Time{}, row.key)
}

func (r *churnRound) record(kind ChurnKind, id int64, oldKey, newKey time.Time) {
	c := r.base
	c.Kind, c.ID, c.OldKey, c.NewKey = kind, id, oldKey, newKey
	r.log = append(r.log, c)
}

// pickRow picks a row to change: inside the aimed range when it has rows.
func (r *churnRound) pickRow() (int, bool) {
	if len(r.rows) == 0 {
		return 0, false
	}
	if r.aim != nil {
		var inside []int
		for i, row := range r.rows {
			if r.aim.Admits(row.key) {
				inside = append(inside, i)
			}
		}
		if len(inside) > 0 {
			return inside[r.rng.IntN(len(inside))], true
		}
	}
	return r.rng.IntN(len(r.rows)), true
}

// rekeyTarget is a new key for row: another instant in its own second, a
// key from newKey, or a key it had before in this run.
func (r *churnRound) rekeyTarget(row churnRow) time.Time {
	switch r.rng.IntN(3) {
	case 1:
		if k := r.newKey(); !k.Equal(row.key) { // a tie with itself moves nothing
			return k
		}
	case 2:
		if k, ok := r.earlierKey(row); ok {
			return k
		}
	}
	if row.key.IsZero() {
		return r.newKey()
	}
	return r.inSecond(row.key)
}

// earlierKey is a key row had before in this run, other than its key now.
func (r *churnRound) earlierKey(row churnRow) (time.Time, bool) {
	var keys []time.Time
	for _, c := range r.log {
		if c.ID == row.id && c.Field == r.field && !c.OldKey.IsZero() && !c.OldKey.Equal(row.key) {
			keys = append(keys, c.OldKey)
		}
	}
	if len(keys) == 0 {
		return time.Time{}, false
	}
	return keys[r.rng.IntN(len(keys))], true
}

// newKey is a key for an inserted or moved row, in window: one an
// existing row has (a tie), another instant of an existing row's second,
// or any instant of the window.
func (r *churnRound) newKey() time.Time {
	lo, hi := r.window()
	var keys []time.Time
	for _, row := range r.rows {
		if !row.key.IsZero() && !row.key.Before(lo) && row.key.Before(hi) {
			keys = append(keys, row.key)
		}
	}
	mode := r.rng.IntN(3)
	if len(keys) == 0 {
		mode = 2
	}
	switch mode {
	case 0:
		return keys[r.rng.IntN(len(keys))]
	case 1:
		return r.inSecond(keys[r.rng.IntN(len(keys))])
	}
	ticks := max(int64(hi.Sub(lo)/100), 1)
	return lo.Add(time.Duration(r.rng.Int64N(ticks)) * 100)
}

// window is where new keys go: the aimed range 3 times in 4, its open
// sides closed by the scope's; else the whole seconds the scope's keys
// span (the clock's second when there are none).
func (r *churnRound) window() (lo, hi time.Time) {
	for _, row := range r.rows {
		if row.key.IsZero() {
			continue
		}
		if lo.IsZero() || row.key.Before(lo) {
			lo = row.key
		}
		if hi.IsZero() || row.key.After(hi) {
			hi = row.key
		}
	}
	if lo.IsZero() {
		lo, hi = r.now, r.now
	}
	lo, hi = lo.Truncate(time.Second), hi.Truncate(time.Second).Add(time.Second)
	if r.aim == nil || r.rng.IntN(4) == 0 {
		return lo, hi
	}
	if r.aim.HasLo {
		lo = r.aim.Lo
	}
	if r.aim.HasHi {
		hi = r.aim.Hi
	}
	if !hi.After(lo) { // a range beside the scope's keys: one second of it
		if r.aim.HasLo {
			return lo, lo.Add(time.Second)
		}
		return hi.Add(-time.Second), hi
	}
	return lo, hi
}

// inSecond is a random instant of t's second, in the 100 ns ticks the
// service's timestamps hold, so that the wire shows every difference.
func (r *churnRound) inSecond(t time.Time) time.Time {
	return t.Truncate(time.Second).Add(time.Duration(r.rng.Int64N(10_000_000)) * 100)
}

// invoiceChurn is the invoices of one customer, or all (customerID 0).
type invoiceChurn struct {
	s          *Server
	customerID int64
}

func (c invoiceChurn) keyField(sorted string) string {
	switch sorted {
	case "createdTimestamp", "effectiveTimestamp", "postedTimestamp", "modifiedTimestamp":
		return sorted
	}
	return "postedTimestamp"
}

// invoiceKey is inv's date field.
func invoiceKey(inv *Invoice, field string) time.Time {
	switch field {
	case "createdTimestamp":
		return inv.CreatedTimestamp
	case "effectiveTimestamp":
		return inv.EffectiveTimestamp
	case "modifiedTimestamp":
		return inv.ModifiedTimestamp
	}
	return inv.PostedTimestamp
}

// setInvoiceKey sets inv's date field.
func setInvoiceKey(inv *Invoice, field string, t time.Time) {
	switch field {
	case "createdTimestamp":
		inv.CreatedTimestamp = t
	case "effectiveTimestamp":
		inv.EffectiveTimestamp = t
	case "modifiedTimestamp":
		inv.ModifiedTimestamp = t
	default:
		inv.PostedTimestamp = t
	}
}

func (c invoiceChurn) rows(field string) []churnRow {
	page := c.s.store.invoices.Query(context.Background(), &filter.Request{Customer: c.customerID, SortField: -1, Size: math.MaxInt, KeyField: field})
	return mapped(page.Items, func(h filter.Hit) churnRow { return churnRow{id: h.ID, key: h.Key} })
}

func (c invoiceChurn) insert(field string, like int64, key time.Time, rng *rand.Rand, now time.Time) (churnRow, bool) {
	st := c.s.store
	var inv Invoice
	switch old := st.invoices.Get(like); {
	case old != nil:
		inv = *old
	case c.customerID != 0:
		inv.CustomerID = c.customerID
	case len(st.customers) > 0:
		ids := slices.Sorted(maps.Keys(st.customers)) // sorted: map order is random
		inv.CustomerID = ids[rng.IntN(len(ids))]
	}
	inv.ID, inv.InvoiceNumber = 0, 0
	for i := range inv.Charges {
		inv.Charges[i].ID = 0
	}
	// Another invoice has balances and an amount of its own, as a live
	// account's do: copies of one row would make a group no filter on
	// amounts can tell apart.
	// (Drawn from the key, not the seeded source, so that the changes a
	// seed makes stay what they were.)
	d := decimal.New(1+(key.UnixNano()/1000+like*7919)%9999, -2)
	inv.OpeningArBalance, inv.ClosingArBalance = inv.OpeningArBalance.Add(d), inv.ClosingArBalance.Add(d)
	if len(inv.Charges) > 0 && inv.Charges[0].Quantity.Equal(decimal.NewFromInt(1)) {
		inv.Charges[0].UnitPrice = inv.Charges[0].UnitPrice.Add(d)
		inv.Charges[0].Amount = inv.Charges[0].Amount.Add(d)
	}
	inv.ModifiedTimestamp = now // written now, unless modifiedTimestamp is the key
	setInvoiceKey(&inv, field, key)
	id, err := c.s.addInvoiceLocked(inv)
	if err != nil {
		return churnRow{}, false // an unknown customer: a 404 follows
	}
	return churnRow{id: id, key: invoiceKey(st.invoices.Get(id), field)}, true
}

func (c invoiceChurn) delete(id int64) bool { return c.s.deleteInvoiceLocked(id) }

func (c invoiceChurn) setKey(field string, id int64, key, now time.Time) (time.Time, bool) {
	return c.update(field, id, func(inv *Invoice) {
		inv.ModifiedTimestamp = now
		setInvoiceKey(inv, field, key)
	})
}

func (c invoiceChurn) modify(field string, id int64, rng *rand.Rand, now time.Time) (time.Time, bool) {
	return c.update(field, id, func(inv *Invoice) {
		inv.ModifiedTimestamp = now
		switch rng.IntN(3) {
		case 0: // a payment elsewhere on the account moves its balances
			d := cents(rng)
			if rng.IntN(2) == 0 {
				d = d.Neg()
			}
			inv.OpeningArBalance, inv.ClosingArBalance = inv.OpeningArBalance.Add(d), inv.ClosingArBalance.Add(d)
		case 1: // a tax correction; UpdateInvoice spreads it only over one instalment
			if len(inv.PaymentSchedules) == 1 {
				inv.TotalTaxes = inv.TotalTaxes.Add(cents(rng))
			}
		}
	})
}

// update changes invoice id as UpdateInvoice does and returns its key.
func (c invoiceChurn) update(field string, id int64, change func(*Invoice)) (time.Time, bool) {
	if err := c.s.updateInvoiceLocked(id, change); err != nil {
		return time.Time{}, false
	}
	return invoiceKey(c.s.store.invoices.Get(id), field), true
}

// cents is a random amount from 0.01 to 99.99.
func cents(rng *rand.Rand) decimal.Decimal {
	return decimal.New(1+rng.Int64N(9999), -2)
}

// itemChurn is the items of one subscription product.
type itemChurn struct {
	s         *Server
	productID int64
}

func (c itemChurn) keyField(sorted string) string {
	if sorted == "modifiedTimestamp" {
		return sorted
	}
	return "createdTimestamp"
}

// itemKey is the date field of it, and where it is kept.
func itemKey(it *billing.SubscriptionProductItem, field string) *billing.Timestamp {
	if field == "modifiedTimestamp" {
		return &it.ModifiedDate
	}
	return &it.CreatedDate
}

func (c itemChurn) rows(field string) []churnRow {
	items := c.s.store.items[c.productID]
	out := make([]churnRow, len(items))
	for i := range items {
		out[i] = churnRow{id: items[i].ID, key: itemKey(&items[i], field).Time}
	}
	slices.SortFunc(out, func(a, b churnRow) int { return cmp.Compare(a.id, b.id) })
	return out
}

// item returns the stored item id.
func (c itemChurn) item(id int64) *billing.SubscriptionProductItem {
	items := c.s.store.items[c.productID]
	for i := range items {
		if items[i].ID == id {
			return &items[i]
		}
	}
	return nil
}

func (c itemChurn) insert(field string, like int64, key time.Time, _ *rand.Rand, now time.Time) (churnRow, bool) {
	if !c.s.store.products[c.productID] {
		return churnRow{}, false // adding would make an unknown product known
	}
	it := billing.SubscriptionProductItem{SubscriptionProductID: c.productID, Name: "Item"}
	if l := c.item(like); l != nil {
		it = *l
	}
	it.ID = 0
	it.ModifiedDate = billing.NewTimestamp(now)
	*itemKey(&it, field) = billing.NewTimestamp(key)
	id, err := c.s.addSubscriptionProductItemLocked(it)
	if err != nil {
		return churnRow{}, false
	}
	return churnRow{id: id, key: itemKey(c.item(id), field).Time}, true
}

func (c itemChurn) delete(id int64) bool {
	items := c.s.store.items[c.productID]
	i := slices.IndexFunc(items, func(it billing.SubscriptionProductItem) bool { return it.ID == id })
	if i < 0 {
		return false
	}
	c.s.store.items[c.productID] = slices.Delete(items, i, i+1)
	return true
}

func (c itemChurn) setKey(field string, id int64, key, now time.Time) (time.Time, bool) {
	it := c.item(id)
	if it == nil {
		return time.Time{}, false
	}
	it.ModifiedDate = billing.NewTimestamp(now)
	*itemKey(it, field) = billing.NewTimestamp(key)
	return itemKey(it, field).Time, true
}

func (c itemChurn) modify(field string, id int64, rng *rand.Rand, now time.Time) (time.Time, bool) {
	it := c.item(id)
	if it == nil {
		return time.Time{}, false
	}
	it.ModifiedDate = billing.NewTimestamp(now)
	if rng.IntN(2) == 0 {
		it.Description = fmt.Sprintf("%s (revised %s)", it.Description, cents(rng))
	}
	return itemKey(it, field).Time, true
}

package billing_test

// A small list server for the stable-iteration scenarios, written from the
// API reference alone (sections 4.0, 4.1, 4.4, 7 and 8): GET /v1/Invoices
// and GET /v1/customers/{id}/invoiceSummaries, with pageSize, pageNumber,
// sortExpression and sortOrder, `;`-joined range conditions in query, the
// paging headers, and a Date header from a clock the test controls. What
// the reference leaves open (page cap, order of items with equal keys,
// X-PageSize when a page is capped) is configurable per scenario, and so
// are a request budget and a hook that changes the data before answers.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// lsItem is one invoice of the list server; the summaries endpoint lists
// the same items (by customer) as invoice summaries.
type lsItem struct {
	ID         int64
	CustomerID int64
	Posted     time.Time
	Modified   time.Time
	Opening    decimal.Decimal // openingArBalance
	Closing    decimal.Decimal // closingArBalance
	Amount     decimal.Decimal // invoiceAmount
}

// lsTie is the order the server gives items with equal sort keys.
type lsTie int

const (
	lsTieIDAsc    lsTie = iota // ascending id
	lsTieIDDesc                // descending id
	lsTieRandom                // a new seeded order on every request
	lsTieShifting              // a seeded order that changes every TieEvery requests
)

func (t lsTie) String() string {
	return [...]string{"ascending id", "descending id", "random per request", "shifting"}[t]
}

// lsConfig configures a list server.
type lsConfig struct {
	Cap          int   // most items on a page (and the default page size); 0 means 1000
	EchoPageSize bool  // X-PageSize echoes the size asked for, not the capped one
	Tie          lsTie // order of equal keys
	TieSeed      uint64
	TieEvery     int // requests per order, for lsTieShifting; 0 means 3
	Digits       int // fractional digits of timestamps on the wire, 0..7
	// Budget, if positive, is how many requests are answered: later ones
	// get BudgetStatus (0 means 500), so a runaway iteration ends.
	Budget       int
	BudgetStatus int
	Clock        time.Time     // the clock at the first request
	ClockStep    time.Duration // how far the clock moves on each later request
	// Mutate, if set, is called under the server's lock before each
	// request is answered (after it was read), with its number from 1.
	Mutate func(reqNo int, st *lsState)
	Seed   uint64 // seeds st.Rand
}

// lsRequest is the list request being answered, as the server read it.
type lsRequest struct {
	Summaries  bool // the invoice summaries endpoint
	Customer   int64
	PageNumber int
	PageSize   int    // as asked; 0 when not given
	SortField  string // canonical field name, "" without a sort
	Conds      []lsCond
}

// TimeLower is the lower bound of the request's range on a date field,
// and whether it has one.
func (r lsRequest) TimeLower(field string) (time.Time, bool) {
	var lo time.Time
	ok := false
	for _, c := range r.Conds {
		if c.Field == field && c.has[0] && (!ok || c.t[0].After(lo)) {
			lo, ok = c.t[0], true
		}
	}
	return lo, ok
}

// lsCond is one range condition of `query`.
type lsCond struct {
	Field string // canonical name
	// has tells which bounds are given, low ([0]) and high ([1]); t holds
	// them for a date field, d for a decimal one.
	has [2]bool
	t   [2]time.Time
	d   [2]decimal.Decimal
}

// lsState is the server's data, handed to the mutator under the lock.
type lsState struct {
	cfg     *lsConfig
	items   []*lsItem // insertion order, so that picks are deterministic
	byID    map[int64]*lsItem
	nextID  int64
	Now     time.Time  // the server's clock
	Rand    *rand.Rand // seeded with lsConfig.Seed
	Req     lsRequest  // the request about to be answered
	ReqNo   int
	Frozen  bool           // the mutator is not called
	touched map[int64]bool // inserted, deleted, re-keyed or moved on a split field by a mutation
	ever    map[int64]bool // every id that ever existed
	history map[int64][]string
}

// lsServer is the server; its handler serves the two endpoints.
type lsServer struct {
	*httptest.Server
	Key string

	mu   sync.Mutex
	st   *lsState
	reqs int
	over int      // requests refused for the budget
	log  []string // one line per answered list request, for reports
}

func newListServer(t testing.TB, cfg lsConfig) *lsServer {
	t.Helper()
	if cfg.Cap == 0 {
		cfg.Cap = 1000
	}
	if cfg.TieEvery == 0 {
		cfg.TieEvery = 3
	}
	if cfg.BudgetStatus == 0 {
		cfg.BudgetStatus = http.StatusInternalServerError
	}
	if cfg.Clock.IsZero() {
		cfg.Clock = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	}
	s := &lsServer{Key: "ls-key-5b21", st: &lsState{
		byID: map[int64]*lsItem{}, nextID: 1000, Now: cfg.Clock,
		Rand: rand.New(rand.NewPCG(cfg.Seed, 0x5eed)), touched: map[int64]bool{}, ever: map[int64]bool{},
		history: map[int64][]string{},
	}}
	s.st.cfg = &cfg
	s.Server = httptest.NewServer(s)
	t.Cleanup(s.Server.Close)
	return s
}

// Seed adds items before a run, unmarked; an item with ID 0 gets the next
// id. It returns the ids.
func (s *lsServer) Seed(items ...lsItem) []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]int64, 0, len(items))
	for _, it := range items {
		ids = append(ids, s.st.add(it))
	}
	return ids
}

// Requests is the number of requests the server received.
func (s *lsServer) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs
}

// OverBudget is the number of requests refused for the budget.
func (s *lsServer) OverBudget() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.over
}

// With runs f on the state under the lock.
func (s *lsServer) With(f func(st *lsState)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.st)
}

// ---------------------------------------------------------------------------
// State helpers (the mutator's vocabulary)
// ---------------------------------------------------------------------------

// trunc cuts t to the precision the server keeps: its wire digits, so that
// what it sorts on is what clients read.
func (st *lsState) trunc(t time.Time) time.Time {
	unit := time.Duration(1)
	for range 9 - st.cfg.Digits {
		unit *= 10
	}
	return t.UTC().Truncate(unit)
}

func (st *lsState) add(it lsItem) int64 {
	if it.ID == 0 {
		st.nextID++
		it.ID = st.nextID
	} else if it.ID > st.nextID {
		st.nextID = it.ID
	}
	if _, dup := st.byID[it.ID]; dup {
		panic(fmt.Sprintf("list server: id %d added twice", it.ID))
	}
	it.Posted, it.Modified = st.trunc(it.Posted), st.trunc(it.Modified)
	if it.Modified.IsZero() {
		it.Modified = it.Posted
	}
	p := &it
	st.items = append(st.items, p)
	st.byID[it.ID] = p
	st.ever[it.ID] = true
	return it.ID
}

// Get returns the item with the id, or nil.
func (st *lsState) Get(id int64) *lsItem { return st.byID[id] }

// Len is the number of items.
func (st *lsState) Len() int { return len(st.items) }

// mark records a mutation of the item, for the test's reports.
func (st *lsState) mark(id int64, format string, a ...any) {
	st.touched[id] = true
	st.history[id] = append(st.history[id], fmt.Sprintf("request %d: ", st.ReqNo)+fmt.Sprintf(format, a...))
}

// Insert adds an item (marked as touched) and returns its id.
func (st *lsState) Insert(it lsItem) int64 {
	id := st.add(it)
	st.mark(id, "inserted at %s", st.stamp(st.byID[id].Posted))
	return id
}

// Delete removes the item.
func (st *lsState) Delete(id int64) {
	if _, ok := st.byID[id]; !ok {
		return
	}
	delete(st.byID, id)
	st.items = slices.DeleteFunc(st.items, func(it *lsItem) bool { return it.ID == id })
	st.mark(id, "deleted")
}

// Rekey moves the item's postedTimestamp to t.
func (st *lsState) Rekey(id int64, t time.Time) {
	if it := st.byID[id]; it != nil {
		from := it.Posted
		it.Posted = st.trunc(t)
		st.mark(id, "posted %s -> %s", st.stamp(from), st.stamp(it.Posted))
	}
}

// Resplit changes the item's opening and closing balances.
func (st *lsState) Resplit(id int64, opening, closing decimal.Decimal) {
	if it := st.byID[id]; it != nil {
		it.Opening, it.Closing = opening, closing
		st.mark(id, "balances -> %s, %s", opening, closing)
	}
}

// Modify sets the item's modifiedTimestamp to the clock's now.
func (st *lsState) Modify(id int64) {
	if it := st.byID[id]; it != nil {
		from := it.Modified
		it.Modified = st.trunc(st.Now)
		st.mark(id, "modified %s -> %s", st.stamp(from), st.stamp(it.Modified))
	}
}

// Pick returns a uniformly chosen item (from st.Rand) among those pred
// accepts, or nil.
func (st *lsState) Pick(pred func(*lsItem) bool) *lsItem {
	var c []*lsItem
	for _, it := range st.items {
		if pred == nil || pred(it) {
			c = append(c, it)
		}
	}
	if len(c) == 0 {
		return nil
	}
	return c[st.Rand.IntN(len(c))]
}

// Touched returns the ids that mutations touched, sorted.
func (s *lsServer) Touched() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]int64, 0, len(s.st.touched))
	for id := range s.st.touched {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// History is what mutations did to the item, in order.
func (s *lsServer) History(id int64) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.st.history[id])
}

// IDs returns the ids of the items pred accepts, in insertion order.
func (s *lsServer) IDs(pred func(*lsItem) bool) []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []int64
	for _, it := range s.st.items {
		if pred == nil || pred(it) {
			ids = append(ids, it.ID)
		}
	}
	return ids
}

// Existed reports whether the id ever existed.
func (s *lsServer) Existed(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.ever[id]
}

// ---------------------------------------------------------------------------
// Handler
// ---------------------------------------------------------------------------

// lsError is the reference's error body (section 7).
type lsError struct {
	ErrorID        int      `json:"ErrorId"`
	HTTPStatusCode int      `json:"HttpStatusCode"`
	Errors         []lsPair `json:"Errors"`
}

type lsPair struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

func lsWriteError(w http.ResponseWriter, status int, key, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(lsError{ErrorID: 9000 + status, HTTPStatusCode: status, Errors: []lsPair{{key, msg}}})
}

func (s *lsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, cfg := s.st, s.st.cfg
	s.reqs++
	st.ReqNo = s.reqs
	if s.reqs > 1 {
		st.Now = st.Now.Add(cfg.ClockStep)
	}
	w.Header().Set("Date", st.Now.UTC().Format(http.TimeFormat))
	if cfg.Budget > 0 && s.reqs > cfg.Budget {
		s.over++
		lsWriteError(w, cfg.BudgetStatus, "Api Error", fmt.Sprintf("request budget of %d exhausted", cfg.Budget))
		return
	}
	if r.Header.Get("Authorization") != "Basic "+s.Key {
		lsWriteError(w, http.StatusUnauthorized, "Api Error", "unauthorized")
		return
	}
	if r.Method != http.MethodGet {
		lsWriteError(w, http.StatusMethodNotAllowed, "Api Error", "method not allowed")
		return
	}
	req, status, msg := lsParse(r)
	if status != 0 {
		lsWriteError(w, status, "Api Error", msg)
		return
	}
	st.Req = req
	if cfg.Mutate != nil && !st.Frozen {
		cfg.Mutate(s.reqs, st)
	}
	s.log = append(s.log, fmt.Sprintf("request %d: %s?%s -> %s", s.reqs, r.URL.Path, r.URL.RawQuery, s.answer(w, req)))
}

// LastRequests returns the last n lines of the request log.
func (s *lsServer) LastRequests(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log[max(0, len(s.log)-n):])
}

// lsFields are the range filters each endpoint accepts (sections 4.1 and
// 4.4, of those the scenarios use), by lower-case name; time says a date
// range.
var lsFields = map[bool]map[string]struct {
	name string
	time bool
	sort bool
}{
	false: { // invoices
		"postedtimestamp":  {"postedTimestamp", true, true},
		"openingarbalance": {"openingArBalance", false, false},
		"closingarbalance": {"closingArBalance", false, false},
	},
	true: { // invoice summaries
		"postedtimestamp":   {"postedTimestamp", true, true},
		"modifiedtimestamp": {"modifiedTimestamp", true, true},
		"invoiceamount":     {"invoiceAmount", false, false},
	},
}

// lsParse reads the path and the shared list controls; status is 0 when
// they are valid.
func lsParse(r *http.Request) (req lsRequest, status int, msg string) {
	path := strings.TrimSuffix(strings.ToLower(r.URL.Path), "/")
	switch {
	case path == "/v1/invoices":
	case strings.HasPrefix(path, "/v1/customers/") && strings.HasSuffix(path, "/invoicesummaries"):
		idText := strings.TrimSuffix(strings.TrimPrefix(path, "/v1/customers/"), "/invoicesummaries")
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil || id <= 0 {
			return req, http.StatusNotFound, "customer not found"
		}
		req.Summaries, req.Customer = true, id
	default:
		return req, http.StatusNotFound, "not found"
	}
	q := r.URL.Query()
	bad := func(format string, a ...any) (lsRequest, int, string) {
		return req, http.StatusBadRequest, fmt.Sprintf(format, a...)
	}
	for name := range q {
		switch name {
		case "pageSize", "pageNumber", "query", "sortExpression", "sortOrder":
			if len(q[name]) != 1 {
				return bad("%s given %d times", name, len(q[name]))
			}
		default:
			return bad("unknown parameter %s", name)
		}
	}
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return bad("pageSize %q is not valid", v)
		}
		req.PageSize = n
	}
	if v := q.Get("pageNumber"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return bad("pageNumber %q is not valid", v)
		}
		req.PageNumber = n
	}
	fields := lsFields[req.Summaries]
	expr, order := q.Get("sortExpression"), q.Get("sortOrder")
	switch {
	case expr == "" && order != "":
		return bad("sortOrder without sortExpression")
	case expr != "":
		f, ok := fields[strings.ToLower(expr)]
		if !ok || !f.sort {
			return bad("cannot sort on %q", expr)
		}
		if order != "" && !strings.EqualFold(order, "Ascending") {
			return bad("sortOrder %q is not supported", order)
		}
		req.SortField = f.name
	}
	if text := q.Get("query"); text != "" {
		for _, part := range strings.Split(text, ";") {
			name, value, ok := strings.Cut(part, ":")
			if !ok {
				return bad("query: %q is not name:value", part)
			}
			f, ok := fields[strings.ToLower(name)]
			if !ok {
				return bad("query: unknown filter %q", name)
			}
			lo, hi, ok := strings.Cut(value, "|")
			if !ok || strings.Contains(hi, "|") {
				return bad("query: %s: %q is not a range", name, value)
			}
			c := lsCond{Field: f.name}
			for i, raw := range []string{lo, hi} {
				b, err := url.PathUnescape(raw)
				if err != nil {
					return bad("query: %s: bad escape in %q", name, raw)
				}
				if b == "" {
					continue
				}
				if f.time {
					t, err := lsParseDate(b)
					if err != nil {
						return bad("query: %s: %q is not a date", name, b)
					}
					c.has[i], c.t[i] = true, t
				} else {
					d, err := decimal.NewFromString(b)
					if err != nil {
						return bad("query: %s: %q is not a decimal", name, b)
					}
					c.has[i], c.d[i] = true, d
				}
			}
			req.Conds = append(req.Conds, c)
		}
	}
	return req, 0, ""
}

// lsParseDate reads YYYY-MM-DD (midnight) or YYYY-MM-DDTHH:MM:SS, UTC.
func lsParseDate(s string) (time.Time, error) {
	if len(s) == len(time.DateOnly) {
		return time.Parse(time.DateOnly, s)
	}
	return time.Parse("2006-01-02T15:04:05", s)
}

func (it *lsItem) timeOf(field string) time.Time {
	if field == "modifiedTimestamp" {
		return it.Modified
	}
	return it.Posted
}

func (it *lsItem) decimalOf(field string) decimal.Decimal {
	switch field {
	case "openingArBalance":
		return it.Opening
	case "closingArBalance":
		return it.Closing
	}
	return it.Amount
}

func (c lsCond) match(it *lsItem) bool {
	switch c.Field {
	case "postedTimestamp", "modifiedTimestamp":
		v := it.timeOf(c.Field)
		return (!c.has[0] || !v.Before(c.t[0])) && (!c.has[1] || v.Before(c.t[1]))
	}
	v := it.decimalOf(c.Field)
	return (!c.has[0] || v.GreaterThanOrEqual(c.d[0])) && (!c.has[1] || v.LessThan(c.d[1]))
}

// lsMix is splitmix64: the seeded tie orders hash ids with it.
func lsMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// answer writes the page and returns a line about it for the log.
func (s *lsServer) answer(w http.ResponseWriter, req lsRequest) string {
	st, cfg := s.st, s.st.cfg
	var all, matched []*lsItem
	for _, it := range st.items {
		if req.Summaries && it.CustomerID != req.Customer {
			continue
		}
		all = append(all, it)
		ok := true
		for _, c := range req.Conds {
			if !c.match(it) {
				ok = false
				break
			}
		}
		if ok {
			matched = append(matched, it)
		}
	}
	var tie func(a, b *lsItem) int
	switch cfg.Tie {
	case lsTieIDAsc:
		tie = func(a, b *lsItem) int { return compareInt(a.ID, b.ID) }
	case lsTieIDDesc:
		tie = func(a, b *lsItem) int { return compareInt(b.ID, a.ID) }
	case lsTieRandom, lsTieShifting:
		epoch := uint64(st.ReqNo)
		if cfg.Tie == lsTieShifting {
			epoch = uint64((st.ReqNo - 1) / cfg.TieEvery)
		}
		salt := lsMix(cfg.TieSeed ^ lsMix(epoch))
		tie = func(a, b *lsItem) int {
			ha, hb := lsMix(salt^uint64(a.ID)), lsMix(salt^uint64(b.ID))
			if ha != hb {
				if ha < hb {
					return -1
				}
				return 1
			}
			return compareInt(a.ID, b.ID)
		}
	}
	if req.SortField == "" {
		slices.SortFunc(matched, func(a, b *lsItem) int { return compareInt(a.ID, b.ID) })
	} else {
		slices.SortFunc(matched, func(a, b *lsItem) int {
			if c := a.timeOf(req.SortField).Compare(b.timeOf(req.SortField)); c != 0 {
				return c
			}
			return tie(a, b)
		})
	}
	asked := req.PageSize
	if asked == 0 {
		asked = cfg.Cap
	}
	size := min(asked, cfg.Cap)
	start := min(req.PageNumber*size, len(matched))
	end := min(start+size, len(matched))
	page := matched[start:end]

	h := w.Header()
	total := len(matched)
	pages := (total + size - 1) / size
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Count", strconv.Itoa(total))
	h.Set("X-MaxCount", strconv.Itoa(len(all)))
	h.Set("X-CurrentPage", strconv.Itoa(req.PageNumber))
	if end < total {
		h.Set("X-NextPage", strconv.Itoa(req.PageNumber+1))
	} else {
		h.Set("X-NextPage", "-1")
	}
	h.Set("X-PreviousPage", strconv.Itoa(req.PageNumber-1)) // -1 for none
	if cfg.EchoPageSize {
		h.Set("X-PageSize", strconv.Itoa(asked))
	} else {
		h.Set("X-PageSize", strconv.Itoa(size))
	}
	// The reference calls X-MaxPageIndex the total number of pages.
	h.Set("X-MaxPageIndex", strconv.Itoa(pages))
	if req.SortField != "" {
		h.Set("X-SortOrder", "Ascending")
		h.Set("X-SortExpression", req.SortField)
	}
	body := make([]any, 0, len(page))
	for _, it := range page {
		if req.Summaries {
			body = append(body, st.summaryJSON(it))
		} else {
			body = append(body, st.invoiceJSON(it))
		}
	}
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(body)
	line := fmt.Sprintf("X-Count %d, %d items", total, len(page))
	if len(page) > 0 {
		f, l := page[0], page[len(page)-1]
		key := req.SortField
		if key == "" {
			key = "postedTimestamp"
		}
		line += fmt.Sprintf(" from %d@%s to %d@%s", f.ID, st.stamp(f.timeOf(key)), l.ID, st.stamp(l.timeOf(key)))
	}
	return line
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// stamp writes t with the configured number of fractional digits.
func (st *lsState) stamp(t time.Time) string {
	s := t.UTC().Format("2006-01-02T15:04:05")
	if d := st.cfg.Digits; d > 0 {
		frac := t.Nanosecond()
		for range 9 - d {
			frac /= 10
		}
		s += fmt.Sprintf(".%0*d", d, frac)
	}
	return s
}

type lsInvoiceJSON struct {
	ID                 int64       `json:"id"`
	URI                string      `json:"uri"`
	InvoiceNumber      int64       `json:"invoiceNumber"`
	CustomerID         int64       `json:"customerId"`
	EffectiveTimestamp string      `json:"effectiveTimestamp"`
	PostedTimestamp    string      `json:"postedTimestamp"`
	ModifiedTimestamp  string      `json:"modifiedTimestamp"`
	Charges            []struct{}  `json:"charges"`
	InvoiceAmount      json.Number `json:"invoiceAmount"`
	OpeningArBalance   json.Number `json:"openingArBalance"`
	ClosingArBalance   json.Number `json:"closingArBalance"`
}

type lsSummaryJSON struct {
	ID                 int64       `json:"id"`
	URI                string      `json:"uri"`
	CustomerID         int64       `json:"customerId"`
	CustomerName       string      `json:"customerName"`
	InvoiceNumber      string      `json:"invoiceNumber"`
	InvoiceStatus      string      `json:"invoiceStatus"`
	EffectiveTimestamp string      `json:"effectiveTimestamp"`
	PostedTimestamp    string      `json:"postedTimestamp"`
	ModifiedTimestamp  string      `json:"modifiedTimestamp"`
	InvoiceAmount      json.Number `json:"invoiceAmount"`
	Currency           string      `json:"currency"`
	Unsettled          bool        `json:"unsettled"`
}

func (st *lsState) invoiceJSON(it *lsItem) lsInvoiceJSON {
	return lsInvoiceJSON{
		ID: it.ID, URI: "/v1/Invoices/" + strconv.FormatInt(it.ID, 10), InvoiceNumber: it.ID, CustomerID: it.CustomerID,
		EffectiveTimestamp: st.stamp(it.Posted), PostedTimestamp: st.stamp(it.Posted), ModifiedTimestamp: st.stamp(it.Modified),
		Charges:       []struct{}{},
		InvoiceAmount: json.Number(it.Amount.String()), OpeningArBalance: json.Number(it.Opening.String()), ClosingArBalance: json.Number(it.Closing.String()),
	}
}

func (st *lsState) summaryJSON(it *lsItem) lsSummaryJSON {
	return lsSummaryJSON{
		ID: it.ID, URI: "/v1/invoiceSummaries/" + strconv.FormatInt(it.ID, 10), CustomerID: it.CustomerID, CustomerName: "Ada",
		InvoiceNumber: strconv.FormatInt(it.ID, 10), InvoiceStatus: "Due",
		EffectiveTimestamp: st.stamp(it.Posted), PostedTimestamp: st.stamp(it.Posted), ModifiedTimestamp: st.stamp(it.Modified),
		InvoiceAmount: json.Number(it.Amount.String()), Currency: "USD", Unsettled: true,
	}
}

package billing_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"iter"
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

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// stableBase is the first posting second of seeded invoices.
var stableBase = time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC)

// stableSeconds is how many invoices each second of a seeded account
// holds: a billing run of 40 in one second, and seconds with a few.
var stableSeconds = []int{3, 1, 40, 2, 0, 5, 17, 1, 9}

// stableFake is a fake with one customer whose invoices (all unsettled)
// are posted per stableSeconds, at varied fractions of each second, and
// inserted in shuffled order so that ids do not follow the posting time.
func stableFake(t testing.TB) (*billingtest.Server, int64, []int64) {
	t.Helper()
	return stableFakeWith(t, billingtest.Customer{FirstName: "Ada"})
}

// stableFakeWith is stableFake with the given customer and more options
// for the fake.
func stableFakeWith(t testing.TB, customer billingtest.Customer, opts ...billingtest.Option) (*billingtest.Server, int64, []int64) {
	t.Helper()
	srv, cust := fakeWithCustomer(t, customer, append([]billingtest.Option{stableClock()}, opts...)...)
	var ids []int64
	for _, p := range stablePostings() {
		ids = append(ids, addInvoice(t, srv, cust, p))
	}
	return srv, cust, ids
}

// stableClock stops the fake's clock an hour after stableBase, after
// every posting of the seeded invoices.
func stableClock() billingtest.Option {
	clock := stableBase.Add(time.Hour)
	return billingtest.WithClock(func() time.Time { return clock })
}

// stablePostings are the instants of stableSeconds's items, at varied
// fractions of each second (some share the same instant exactly: ties
// broken by id), shuffled so that ids do not follow the time.
func stablePostings() []time.Time {
	var posted []time.Time
	for s, n := range stableSeconds {
		for k := range n {
			frac := time.Duration((k*7919)%10) * 100 * time.Millisecond
			posted = append(posted, stableBase.Add(time.Duration(s)*time.Second+frac))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(posted), func(i, j int) { posted[i], posted[j] = posted[j], posted[i] })
	return posted
}

// addInvoice adds an unsettled invoice of cust posted at posted, the
// next of invoiceSeed's.
func addInvoice(t testing.TB, srv *billingtest.Server, cust int64, posted time.Time) int64 {
	t.Helper()
	id, err := invoiceSeed.add(srv, leakFixture{customer: cust}, srv.Counts()["invoices"], posted)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// seat is the charge of the k-th invoice a test adds: one seat at a price
// of its own, from 10.00 up.
func seat(k int) billingtest.Charge {
	price := decimal.New(int64(1000+k*7919%10000), -2)
	return billingtest.Charge{Name: "Seat", Quantity: decimal.NewFromInt(1), UnitPrice: price, Amount: price}
}

// mutation is a change made from the loop body after a given yield; it
// returns the ids it put out of the guarantee (deleted, taken out of the
// filter).
type mutation func(t testing.TB, srv *billingtest.Server, cust int64, last billing.Invoice, r *rand.Rand, victims []int64) []int64

var (
	insertBefore = func(t testing.TB, srv *billingtest.Server, cust int64, last billing.Invoice, _ *rand.Rand, _ []int64) []int64 {
		addInvoice(t, srv, cust, last.PostedTimestamp.Add(-1500*time.Millisecond))
		return nil
	}
	insertAmong = func(t testing.TB, srv *billingtest.Server, cust int64, last billing.Invoice, r *rand.Rand, _ []int64) []int64 {
		sec := last.PostedTimestamp.Truncate(time.Second)
		addInvoice(t, srv, cust, sec.Add(time.Duration(r.IntN(10))*100*time.Millisecond))
		return nil
	}
	insertAfter = func(t testing.TB, srv *billingtest.Server, cust int64, last billing.Invoice, _ *rand.Rand, _ []int64) []int64 {
		addInvoice(t, srv, cust, last.PostedTimestamp.Add(2*time.Second))
		return nil
	}
	deleteOne = func(t testing.TB, srv *billingtest.Server, _ int64, _ billing.Invoice, r *rand.Rand, victims []int64) []int64 {
		v := victims[r.IntN(len(victims))]
		srv.DeleteInvoice(v)
		return []int64{v}
	}
	changeOther = func(t testing.TB, srv *billingtest.Server, _ int64, _ billing.Invoice, r *rand.Rand, victims []int64) []int64 {
		v := victims[r.IntN(len(victims))]
		_ = srv.UpdateInvoice(v, func(inv *billingtest.Invoice) { inv.Notes = "changed" })
		return nil
	}
	takeOut = func(t testing.TB, srv *billingtest.Server, _ int64, _ billing.Invoice, r *rand.Rand, victims []int64) []int64 {
		v := victims[r.IntN(len(victims))]
		_ = srv.UpdateInvoice(v, func(inv *billingtest.Invoice) { inv.ClosingArBalance = decimal.NewFromInt(-1) })
		return []int64{v}
	}
)

// inFilter is the filter the guarantee tests use, so that takeOut can
// take items out of it.
var inFilter = billing.InvoiceFilter{ClosingArBalance: query.AtLeast(decimal.Zero)}

// checkExactlyOnce fails unless every protected id was yielded exactly
// once and no id twice.
func checkExactlyOnce(t testing.TB, got []int64, protected []int64) {
	t.Helper()
	count := map[int64]int{}
	for _, id := range got {
		count[id]++
		if count[id] > 1 {
			t.Fatalf("id %d yielded twice", id)
		}
	}
	for _, id := range protected {
		if count[id] != 1 {
			t.Fatalf("protected id %d yielded %d times (of %d yielded)", id, count[id], len(got))
		}
	}
}

// splitVictims keeps every third id as a possible victim of mutations and
// the rest protected.
func splitVictims(ids []int64) (protected, victims []int64) {
	for i, id := range ids {
		if i%3 == 0 {
			victims = append(victims, id)
		} else {
			protected = append(protected, id)
		}
	}
	return protected, victims
}

func TestStableExactlyOnceUnderChanges(t *testing.T) {
	t.Parallel()
	all := []mutation{insertBefore, insertAmong, insertAfter, deleteOne, changeOther, takeOut}
	cases := []struct {
		name     string
		pageSize int
		muts     []mutation
	}{
		{"quiet, default page", 0, nil},
		{"quiet, pages of 2", 2, nil},
		{"quiet, pages of 7", 7, nil},
		{"inserts before, pages of 7", 7, []mutation{insertBefore}},
		{"inserts among, pages of 3", 3, []mutation{insertAmong}},
		{"inserts among, pages of 7", 7, []mutation{insertAmong}},
		{"inserts after, pages of 7", 7, []mutation{insertAfter}},
		{"deletions, pages of 2", 2, []mutation{deleteOne}},
		{"deletions, pages of 7", 7, []mutation{deleteOne}},
		{"other fields, pages of 5", 5, []mutation{changeOther}},
		{"taken out of the filter, pages of 7", 7, []mutation{takeOut}},
		{"everything, pages of 2", 2, all},
		{"everything, pages of 4", 4, all},
		{"everything, pages of 7", 7, all},
		{"everything, pages of 50", 50, all},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, cust, ids := stableFake(t)
			protected, victims := splitVictims(ids)
			c := srv.Client()
			r := rand.New(rand.NewPCG(uint64(tc.pageSize), uint64(len(tc.muts))))
			var cur billing.Cursor
			params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: tc.pageSize}, Filter: inFilter}
			var got []int64
			for inv, err := range c.Invoices.All(context.Background(), params, billing.Stable(&cur)) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, inv.ID)
				// Mutations stop after as many yields as there were items, or
				// inserts after the current item would never let it end.
				if len(tc.muts) > 0 && len(got) <= len(ids) {
					m := tc.muts[r.IntN(len(tc.muts))]
					m(t, srv, cust, inv, r, victims)
				}
			}
			checkExactlyOnce(t, got, protected)
			if len(tc.muts) == 0 && len(got) != len(ids) {
				t.Fatalf("quiet run yielded %d of %d", len(got), len(ids))
			}
		})
	}
}

// writeOffAll runs the classic loop: every unsettled summary of the
// customer is written off as it is yielded.
func writeOffAll(t *testing.T, c *billing.Client, cust int64, opts ...billing.IterOption) int {
	t.Helper()
	unsettled := true
	params := &billing.ListInvoiceSummariesParams{ListOptions: billing.ListOptions{PageSize: 7}, Filter: billing.InvoiceSummaryFilter{Unsettled: &unsettled}}
	n := 0
	for s, err := range c.InvoiceSummaries.All(context.Background(), cust, params, opts...) {
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Invoices.WriteOff(context.Background(), &billing.WriteOffParams{InvoiceID: s.ID, Amount: &s.OutstandingBalance}); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

func TestStableWriteOffLoopWritesOffEverything(t *testing.T) {
	t.Parallel()
	srv, cust, ids := stableFake(t)
	c := srv.Client()
	var cur billing.Cursor
	if n := writeOffAll(t, c, cust, billing.Stable(&cur)); n != len(ids) {
		t.Fatalf("wrote off %d of %d", n, len(ids))
	}
	for _, id := range ids {
		if s, _ := srv.InvoiceSummary(id); !s.OutstandingBalance.IsZero() {
			t.Fatalf("invoice %d still has %s outstanding", id, s.OutstandingBalance)
		}
	}
}

// TestPageNumberWriteOffLoopSkips documents why stable mode exists: the
// same loop paging by number never sees about half of the invoices.
func TestPageNumberWriteOffLoopSkips(t *testing.T) {
	t.Parallel()
	srv, cust, ids := stableFake(t)
	n := writeOffAll(t, srv.Client(), cust)
	if n >= len(ids) || n > len(ids)*2/3 {
		t.Fatalf("page-number loop wrote off %d of %d; expected it to skip many", n, len(ids))
	}
	t.Logf("page-number iteration wrote off %d of %d invoices", n, len(ids))
}

// stableRun reads up to limit items (all with limit < 0) with cur and
// returns their ids.
func stableRun(t *testing.T, seq iter.Seq2[billing.Invoice, error], limit int) []int64 {
	t.Helper()
	var got []int64
	if limit == 0 {
		return nil
	}
	for inv, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, inv.ID)
		if len(got) == limit {
			break
		}
	}
	return got
}

func TestStableResumesAfterEveryItem(t *testing.T) {
	t.Parallel()
	total := 0
	for _, n := range stableSeconds {
		total += n
	}
	for _, pageSize := range []int{2, 7, 0} {
		for stop := 0; stop <= total; stop += 3 {
			t.Run(fmt.Sprintf("pages of %d, stop after %d", pageSize, stop), func(t *testing.T) {
				t.Parallel()
				srv, cust, ids := stableFake(t)
				protected, victims := splitVictims(ids)
				c := srv.Client()
				params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: pageSize}, Filter: inFilter}
				var cur billing.Cursor
				got := stableRun(t, c.Invoices.All(context.Background(), params, billing.Stable(&cur)), stop)
				text, err := cur.MarshalText()
				if err != nil {
					t.Fatal(err)
				}
				// The account changes while the job is down.
				r := rand.New(rand.NewPCG(uint64(stop), 9))
				last := billing.Invoice{PostedTimestamp: billing.NewTimestamp(stableBase.Add(4 * time.Second))}
				for _, m := range []mutation{insertBefore, insertAmong, deleteOne, takeOut} {
					m(t, srv, cust, last, r, victims)
				}
				var resumed billing.Cursor
				if err := resumed.UnmarshalText(text); err != nil {
					t.Fatal(err)
				}
				got = append(got, stableRun(t, c.Invoices.All(context.Background(), params, billing.Stable(&resumed)), -1)...)
				checkExactlyOnce(t, got, protected)
			})
		}
	}
}

func TestStablePagesMoveTheCursorPastEachPage(t *testing.T) {
	t.Parallel()
	srv, _, ids := stableFake(t)
	c := srv.Client()
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 4}}
	var got []int64
	var cur billing.Cursor
	for {
		var saved []byte
		n := 0
		for p, err := range c.Invoices.Pages(context.Background(), params, billing.Stable(&cur)) {
			if err != nil {
				t.Fatal(err)
			}
			for _, inv := range p.Items {
				got = append(got, inv.ID)
			}
			if saved, err = cur.MarshalText(); err != nil {
				t.Fatal(err)
			}
			n++
			break // killed after each page
		}
		if n == 0 {
			break
		}
		cur = billing.Cursor{}
		if err := cur.UnmarshalText(saved); err != nil {
			t.Fatal(err)
		}
	}
	checkExactlyOnce(t, got, ids)
	if len(got) != len(ids) {
		t.Fatalf("got %d of %d", len(got), len(ids))
	}
}

func TestStableOnEveryEndpoint(t *testing.T) {
	t.Parallel()
	srv, cust := fakeWithCustomer(t, billingtest.Customer{FirstName: "Ada"}, stableClock())
	// Every collection the table's list rows read, at stablePostings;
	// every list endpoint in pages of 3.
	f := leakFixture{customer: cust, product: 777, pageSize: 3}
	seeded := map[string][]int64{}
	for _, seed := range listSeeds() {
		for i, at := range stablePostings() {
			id, err := seed.add(srv, f, i, at)
			if err != nil {
				t.Fatalf("%s: %v", seed.name, err)
			}
			seeded[seed.name] = append(seeded[seed.name], id)
		}
	}
	c := srv.Client()
	ctx := context.Background()
	collectIDs := func(t *testing.T, seq iter.Seq2[int64, error]) []int64 {
		var got []int64
		for id, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, id)
		}
		return got
	}
	// Stable mode yields what a plain read of the same static fake
	// yields, exactly once, and that is the collection the row seeds.
	for _, op := range apiOperations() {
		if op.list == nil || len(op.list.missing) > 0 {
			continue // TestOperationTableCoversTheSDK reports the row
		}
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			var cur billing.Cursor
			got := collectIDs(t, op.list.all(ctx, c, f, billing.Stable(&cur)))
			want := collectIDs(t, op.list.all(ctx, c, f))
			if ids := seeded[op.list.seed.name]; !sameSet(want, ids) {
				t.Fatalf("a plain read yields %d ids, not the %d %s seeded", len(want), len(ids), op.list.seed.name)
			}
			if len(got) != len(want) {
				t.Errorf("%d items, want %d", len(got), len(want))
			}
			checkExactlyOnce(t, got, want)
		})
	}
}

// sameSet reports whether a and b hold the same ids, in any order.
func sameSet(a, b []int64) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// TestStableModifiedKeyRedeliversChanged: under modifiedTimestamp an item
// changed during the run comes again, after its change, exactly once more.
func TestStableModifiedKeyRedeliversChanged(t *testing.T) {
	t.Parallel()
	srv, cust, ids := stableFake(t)
	c := srv.Client()
	var cur billing.Cursor
	params := &billing.ListInvoiceSummariesParams{ListOptions: billing.ListOptions{PageSize: 5}}
	count := map[int64]int{}
	var changed []int64
	for s, err := range c.InvoiceSummaries.All(context.Background(), cust, params, billing.StableBy(&cur, "modifiedTimestamp")) {
		if err != nil {
			t.Fatal(err)
		}
		count[s.ID]++
		if count[s.ID] == 1 && len(count)%10 == 0 {
			// The fake's clock is an hour after every posting: the change
			// moves the item to the end of the key range.
			if err := srv.UpdateInvoice(s.ID, func(inv *billingtest.Invoice) { inv.Notes = "changed" }); err != nil {
				t.Fatal(err)
			}
			changed = append(changed, s.ID)
		}
	}
	if len(changed) == 0 {
		t.Fatal("nothing changed")
	}
	for _, id := range ids {
		want := 1
		if slices.Contains(changed, id) {
			want = 2
		}
		if count[id] != want {
			t.Fatalf("id %d yielded %d times, want %d", id, count[id], want)
		}
	}
	// A second run from the saved cursor is an incremental sync: nothing
	// changed since, so it yields only what is at the last second again
	// not, and nothing at all.
	for s, err := range c.InvoiceSummaries.All(context.Background(), cust, params, billing.StableBy(&cur, "modifiedTimestamp")) {
		if err != nil {
			t.Fatal(err)
		}
		t.Fatalf("incremental run yielded %d, nothing changed", s.ID)
	}
}

func TestStableRejectsMisuse(t *testing.T) {
	t.Parallel()
	srv, cust, _ := stableFake(t)
	c := srv.Client()
	ctx := context.Background()
	used := func(t *testing.T) billing.Cursor {
		var cur billing.Cursor
		stableRun(t, c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 3}}, billing.Stable(&cur)), 2)
		return cur
	}
	firstErr := func(seq iter.Seq2[billing.Invoice, error]) error {
		for _, err := range seq {
			if err != nil {
				return err
			}
		}
		return nil
	}
	cases := []struct {
		name string
		run  func(t *testing.T) error
	}{
		{"cursor of another endpoint", func(t *testing.T) error {
			cur := used(t)
			return firstErr(c.Invoices.AllByCustomer(ctx, cust, nil, billing.Stable(&cur)))
		}},
		{"cursor of another filter", func(t *testing.T) error {
			cur := used(t)
			return firstErr(c.Invoices.All(ctx, &billing.ListInvoicesParams{Filter: inFilter}, billing.Stable(&cur)))
		}},
		{"cursor of another key", func(t *testing.T) error {
			cur := used(t)
			return firstErr(c.Invoices.All(ctx, nil, billing.StableBy(&cur, "effectiveTimestamp")))
		}},
		{"descending sort", func(t *testing.T) error {
			var cur billing.Cursor
			return firstErr(c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "postedTimestamp", Order: query.Descending}}}, billing.Stable(&cur)))
		}},
		{"sort on another field", func(t *testing.T) error {
			var cur billing.Cursor
			return firstErr(c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "effectiveTimestamp"}}}, billing.Stable(&cur)))
		}},
		{"key the items do not carry", func(t *testing.T) error {
			var cur billing.Cursor
			return firstErr(c.Invoices.All(ctx, nil, billing.StableBy(&cur, "createdTimestamp")))
		}},
		{"key that is no date", func(t *testing.T) error {
			var cur billing.Cursor
			return firstErr(c.Invoices.All(ctx, nil, billing.StableBy(&cur, "erpId")))
		}},
		{"page number", func(t *testing.T) error {
			var cur billing.Cursor
			return firstErr(c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageNumber: 2}}, billing.Stable(&cur)))
		}},
		{"pages of one", func(t *testing.T) error {
			var cur billing.Cursor
			return firstErr(c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 1}}, billing.Stable(&cur)))
		}},
		{"nil cursor", func(t *testing.T) error {
			return firstErr(c.Invoices.All(ctx, nil, billing.Stable(nil)))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.run(t)
			var ve *billing.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a ValidationError", err)
			}
		})
	}
	t.Run("ascending sort on the key is fine", func(t *testing.T) {
		t.Parallel()
		var cur billing.Cursor
		if err := firstErr(c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "PostedTimestamp"}}}, billing.Stable(&cur))); err != nil {
			t.Fatal(err)
		}
	})
}

func TestStableMergesTheCallersKeyRange(t *testing.T) {
	t.Parallel()
	srv, _, _ := stableFake(t)
	c := srv.Client()
	from, to := stableBase.Add(2*time.Second), stableBase.Add(7*time.Second)
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 4}, Filter: billing.InvoiceFilter{PostedTimestamp: query.TimeRange{From: from, To: to}}}
	want := stableRun(t, c.Invoices.All(context.Background(), params), -1)
	var cur billing.Cursor
	got := stableRun(t, c.Invoices.All(context.Background(), params, billing.Stable(&cur)), -1)
	if len(got) != len(want) {
		t.Fatalf("stable: %d items, page-number: %d", len(got), len(want))
	}
	checkExactlyOnce(t, got, want)
	for _, r := range srv.Requests() {
		if q := r.Query.Get("query"); strings.Count(q, "postedTimestamp:") != 1 {
			t.Fatalf("query %q: want one range on postedTimestamp", q)
		}
	}
}

func TestCursorTextRejectsTampering(t *testing.T) {
	t.Parallel()
	srv, _, _ := stableFake(t)
	var cur billing.Cursor
	stableRun(t, srv.Client().Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 3}}, billing.Stable(&cur)), 5)
	good, err := cur.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	var back billing.Cursor
	if err := back.UnmarshalText(good); err != nil {
		t.Fatalf("round trip: %v", err)
	}
	if again, _ := back.MarshalText(); string(again) != string(good) {
		t.Fatalf("round trip changed the text:\n%s\n%s", good, again)
	}
	for _, bad := range []string{"", "bc1.", "bc2." + string(good[4:]), string(good[:len(good)-3]), string(good) + "!", "bc1.e30x", "bc1.eyJpIjpbLTFdfQ", "bc1.eyJ4IjoxfQ"} {
		var c billing.Cursor
		err := c.UnmarshalText([]byte(bad))
		var ve *billing.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%q: got %v, want a ValidationError", bad, err)
		}
	}
}

func FuzzCursorUnmarshal(f *testing.F) {
	f.Add([]byte("bc1.eyJwIjoiL3YxL0ludm9pY2VzIn0"))
	f.Add([]byte("bc1.e30"))
	f.Add([]byte("bc1.eyJwIjoiL3YxL0ludm9pY2VzIiwiZiI6IjAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwIiwiayI6InBvc3RlZFRpbWVzdGFtcCIsInMiOnRydWUsInQiOjE3MDAwMDAwMDAsImkiOlsxLDJdLCJuIjoyfQ"))
	f.Fuzz(func(t *testing.T, text []byte) {
		var c billing.Cursor
		if err := c.UnmarshalText(text); err != nil {
			return
		}
		out, err := c.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var again billing.Cursor
		if err := again.UnmarshalText(out); err != nil {
			t.Fatalf("re-decoding %q: %v", out, err)
		}
	})
}

// TestStablePrefetchWindowsYieldWhatSequentialYields: with Prefetch, the
// windows (the first one starting from page 0, read before the windows
// were placed) keep every guarantee of the sequential iteration,
// whatever changes while they are read, and resume from any cursor.
func TestStablePrefetchWindowsYieldWhatSequentialYields(t *testing.T) {
	t.Parallel()
	all := []mutation{insertBefore, insertAmong, insertAfter, deleteOne, changeOther, takeOut}
	for _, size := range []int{2, 4, 7, 50, 100} {
		for _, n := range []int{2, 3, 8} {
			for _, stop := range []int{-1, 0, 30, 61} {
				t.Run(fmt.Sprintf("pages of %d, prefetch %d, resumed after %d", size, n, stop), func(t *testing.T) {
					t.Parallel()
					stablePrefetchRun(t, size, n, stop, all)
				})
			}
		}
	}
}

// stablePrefetchRun iterates a fresh stableFake with Stable and
// Prefetch(n) in pages of size, first up to stop items and then on from
// the cursor's text (stop < 0: in one go), making two of muts after each
// item, and checks that every protected invoice came exactly once, in
// key order.
func stablePrefetchRun(t *testing.T, size, n, stop int, muts []mutation) {
	t.Helper()
	srv, cust, ids := stableFake(t)
	protected, victims := splitVictims(ids)
	c := srv.Client()
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: size}, Filter: inFilter}
	var cur billing.Cursor
	var got []int64
	if stop >= 0 {
		got = stableRun(t, c.Invoices.All(context.Background(), params, billing.Stable(&cur), billing.Prefetch(n)), stop)
		text, _ := cur.MarshalText()
		cur = billing.Cursor{}
		if err := cur.UnmarshalText(text); err != nil {
			t.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(uint64(size*100+n), uint64(stop+1)))
	var last time.Time
	for inv, err := range c.Invoices.All(context.Background(), params, billing.Stable(&cur), billing.Prefetch(n)) {
		if err != nil {
			t.Fatal(err)
		}
		if inv.PostedTimestamp.Before(last.Truncate(time.Second)) {
			t.Fatalf("invoice %d posted %v after one posted %v", inv.ID, inv.PostedTimestamp, last)
		}
		last = inv.PostedTimestamp.Time
		got = append(got, inv.ID)
		if len(got) <= len(ids) {
			for range 2 {
				muts[r.IntN(len(muts))](t, srv, cust, inv, r, victims)
			}
		}
	}
	checkExactlyOnce(t, got, protected)
}

// TestStableRefusesAServerThatIgnoresTheKey: a server that drops the range
// filter or the sort cannot be paged by key; the iterator says so instead
// of looping or skipping.
func TestStableRefusesAServerThatIgnoresTheKey(t *testing.T) {
	t.Parallel()
	for _, drop := range []string{"query", "sortExpression"} {
		t.Run("without "+drop, func(t *testing.T) {
			t.Parallel()
			srv, _, _ := stableFake(t)
			c := clientThroughRewriter(t, srv, func(q url.Values) {
				q.Del(drop)
				if drop == "sortExpression" {
					q.Del("sortOrder")
				}
			})
			var cur billing.Cursor
			var last error
			n := 0
			for _, err := range c.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 5}}, billing.Stable(&cur)) {
				if err != nil {
					last = err
					break
				}
				n++
			}
			if !errors.Is(last, billing.ErrPagination) {
				t.Fatalf("after %d items: %v, want ErrPagination", n, last)
			}
		})
	}
}

// TestStableFollowsAServerThatCapsPages: a server whose pages are smaller
// than asked for (X-PageSize says so) moves page numbers to other
// positions; sequential and prefetched stable iterations adapt to its
// size and still yield every item exactly once. (Under a cap of c, paging
// inside one second can move on from every position short of the least
// common multiple of 2..c: 60 for 5, past the 40 items of the longest
// second here. Under a cap of 3, one that reaches position 6 inside a
// second is stuck, and the iterator says so with ErrPagination.)
func TestStableFollowsAServerThatCapsPages(t *testing.T) {
	t.Parallel()
	const limit = 5
	for _, n := range []int{0, 2, 8} {
		t.Run(fmt.Sprint("prefetch ", n), func(t *testing.T) {
			t.Parallel()
			srv, _, ids := stableFake(t)
			asked := map[string]bool{}
			var mu sync.Mutex
			c := clientThroughRewriter(t, srv, func(q url.Values) {
				if size, err := strconv.Atoi(q.Get("pageSize")); err == nil && size > limit {
					mu.Lock()
					asked[q.Get("pageSize")] = true
					mu.Unlock()
					q.Set("pageSize", strconv.Itoa(limit))
				}
			})
			opts := []billing.IterOption{billing.Stable(new(billing.Cursor))}
			if n > 0 {
				opts = append(opts, billing.Prefetch(n))
			}
			params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 7}, Filter: inFilter}
			got := stableRun(t, c.Invoices.All(context.Background(), params, opts...), -1)
			checkExactlyOnce(t, got, ids)
			if len(got) != len(ids) {
				t.Fatalf("yielded %d of %d", len(got), len(ids))
			}
			if !asked["7"] {
				t.Fatal("no page of 7 was asked for: the cap was never met")
			}
		})
	}
}

// clientThroughRewriter is a client of srv whose requests' query strings
// pass through rewrite on their way: a server that changes what it is
// asked.
func clientThroughRewriter(t *testing.T, srv *billingtest.Server, rewrite func(url.Values)) *billing.Client {
	t.Helper()
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		rewrite(q)
		r.URL.RawQuery = q.Encode()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c, err := billing.NewClient(srv.APIKey(), billing.WithBaseURL(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStablePrefetchOnShortLists: lists of no page, part of one, and a
// few pages, where the first requests of a prefetched stable iteration
// (page 0 and the starts of the next windows) find the end, or nothing
// at all, yield every item once, in key order.
func TestStablePrefetchOnShortLists(t *testing.T) {
	t.Parallel()
	const size = 5
	for _, total := range []int{0, 1, size - 1, size, size + 1, 2*size + 1, 9*size + 2} {
		for _, n := range []int{2, 8} {
			t.Run(fmt.Sprintf("%d invoices, prefetch %d", total, n), func(t *testing.T) {
				t.Parallel()
				srv, cust := fakeWithCustomer(t, billingtest.Customer{FirstName: "Ada"})
				var want []int64
				for i := range total {
					// Two invoices a second, so that pages end inside one.
					want = append(want, addInvoice(t, srv, cust, stableBase.Add(time.Duration(i/2)*time.Second)))
				}
				params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: size}}
				got := stableRun(t, srv.Client().Invoices.All(context.Background(), params, billing.Stable(new(billing.Cursor)), billing.Prefetch(n)), -1)
				// The fake breaks ties by id, and ids grow with the posting
				// times here: key order is the order of want.
				if !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
		}
	}
}

// TestCursorTextJSON checks how a cursor's JSON is read: strictly, one
// value and nothing after it (encoding/json's Decoder let a stray ] or }
// through), names matched as encoding/json matches them.
func TestCursorTextJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		json string
		ok   bool
	}{
		{`{}`, true},
		{`{} `, true},
		{`{"p":"/v1/Invoices","F":"0123456789abcdef0123456789abcdef"}`, true},
		{`{}]`, false},
		{`{}}`, false},
		{`{} {}`, false},
		{`{"x":1}`, false},
		{`{"t":"1"}`, false},
		{``, false},
	} {
		text := "bc1." + base64.RawURLEncoding.EncodeToString([]byte(tt.json))
		var c billing.Cursor
		err := c.UnmarshalText([]byte(text))
		var ve *billing.ValidationError
		if tt.ok && err != nil || !tt.ok && !errors.As(err, &ve) {
			t.Errorf("%q: %v, want ok = %v (or a *ValidationError)", tt.json, err, tt.ok)
		}
	}
}

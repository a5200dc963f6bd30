package billingtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/billingtest/internal/scale"
	"github.com/shopspring/decimal"
)

// randomQuery draws list parameters for the list of all invoices from r:
// sorts on the date fields and a text field in both directions, and up
// to three conditions whose values come from the account's own keys
// (bounds on a stored instant and on either side of it, whole days,
// ties), amounts of several exponents, customer conditions and nulls.
func randomQuery(r *rand.Rand, keys []time.Time) url.Values {
	v := url.Values{}
	sorts := []string{"", "postedTimestamp", "createdTimestamp", "effectiveTimestamp", "poNumber", "PostedTimestamp"}
	if s := sorts[r.IntN(len(sorts))]; s != "" {
		v.Set("sortExpression", s)
		if r.IntN(3) > 0 {
			v.Set("sortOrder", []string{"Ascending", "Descending", "descending"}[r.IntN(3)])
		}
	}
	at := func() string {
		t := keys[r.IntN(len(keys))]
		switch r.IntN(4) {
		case 0:
			return t.Format(time.DateOnly)
		case 1:
			return t.Add(time.Second).Format("2006-01-02T15:04:05")
		case 2:
			return t.Format("2006-01-02T15:04:05.000000000Z")
		}
		return t.Format("2006-01-02T15:04:05")
	}
	amount := func() string {
		return []string{"100", "100.00", "1e2", "0", "-3.5", "0.001", "250.5", "99999999999999999999.5", "1E+3", "-100"}[r.IntN(10)]
	}
	dates := []string{"postedTimestamp", "createdTimestamp", "effectiveTimestamp"}
	var conds []string
	for range r.IntN(4) {
		var c string
		switch r.IntN(9) {
		case 0, 1:
			lo, hi := at(), at()
			if lo > hi {
				lo, hi = hi, lo
			}
			if r.IntN(4) == 0 {
				lo = ""
			} else if r.IntN(4) == 0 {
				hi = ""
			}
			c = dates[r.IntN(3)] + ":" + lo + "|" + hi
		case 2:
			c = dates[r.IntN(3)] + ":" + []string{at(), "[empty]", "1500-01-01|", "|2300-01-01", "2300-01-01|"}[r.IntN(5)]
		case 3, 4:
			lo, hi := amount(), amount()
			if r.IntN(3) == 0 {
				lo = ""
			} else if r.IntN(3) == 0 {
				hi = ""
			}
			c = []string{"closingArBalance", "openingArBalance"}[r.IntN(2)] + ":" + lo + "|" + hi
		case 5:
			c = "closingArBalance:" + amount()
		case 6:
			c = "Customer.Status:" + []string{"Active", "active,Hold", "Cancelled", "[empty]"}[r.IntN(4)]
		case 7:
			c = "Customer.Arbalance:" + amount() + "|"
		default:
			c = []string{"poNumber:[empty]", "poNumber:PO*", "customerId:1|5000", "Customer.AccountStatus:Good"}[r.IntN(4)]
		}
		conds = append(conds, c)
	}
	if len(conds) > 0 {
		v.Set("query", strings.Join(conds, ";"))
	}
	v.Set("pageSize", []string{"1", "7", "50", "100", "1000"}[r.IntN(5)])
	return v
}

// checkAgainstPlain compares, for n random queries, the page the scale
// store serves (indexes, packed conditions, remembered matches) with the
// plain store's over the same invoices: the same rows in the same order,
// the same counts. It asks for the first page, a page in the middle and one past
// the end.
func checkAgainstPlain(t *testing.T, srv *Server, r *rand.Rand, n int, phase string) {
	t.Helper()
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	if _, ok := srv.store.invoices.invoiceStore.(*scale.Store); !ok {
		t.Fatalf("%s: store %T, want the scale store", phase, srv.store.invoices.invoiceStore)
	}
	ref := plainCopy(srv)
	var keys []time.Time
	for i := range 50 {
		inv := srv.store.invoices.At(r.IntN(srv.store.invoices.Len()))
		keys = append(keys, [...]time.Time{inv.PostedTimestamp, inv.CreatedTimestamp, inv.EffectiveTimestamp}[i%3])
	}
	// The same filters in every phase, so that a phase finds the
	// matches the phase before remembered, if they were not dropped.
	fixed := []url.Values{
		{"query": {"postedTimestamp:2024-07-01|2025-10-01;Customer.Status:Active;closingArBalance:100|"},
			"sortExpression": {"postedTimestamp"}, "sortOrder": {"Descending"}, "pageSize": {"100"}},
		{"query": {"createdTimestamp:2024-01-01|;closingArBalance:100|"}, "sortExpression": {"createdTimestamp"}, "pageSize": {"50"}},
	}
	for i := range n + len(fixed) {
		var v url.Values
		if i < len(fixed) {
			v = fixed[i]
		} else {
			v = randomQuery(r, keys)
		}
		for _, pageOf := range []func(count, size int) int{
			func(int, int) int { return 0 },
			func(count, size int) int { return count / size / 2 },
			func(count, size int) int { return count/size + 1 },
		} {
			lr, _, err := parseListRequest(v, invoiceSchema, false)
			if err != nil {
				t.Fatalf("%s: %v: %v", phase, v, err)
			}
			all := summarize(ref.Query(context.Background(), &lr.Request))
			lr.Page = pageOf(all.Count, lr.Size)
			want := summarize(ref.Query(context.Background(), &lr.Request))
			got := summarize(srv.store.invoices.Query(context.Background(), &lr.Request))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %v page %d:\n got %+v\nwant %+v", phase, v, lr.Page, got, want)
			}
		}
	}
}

// unpackable gives inv values the packed record cannot hold, so that it
// is kept whole and the filters read it through the general getters.
func unpackable(r *rand.Rand) func(*Invoice) {
	return func(inv *Invoice) {
		switch r.IntN(3) {
		case 0:
			inv.ClosingArBalance = decimal.RequireFromString("123456789012345678901.25")
		case 1:
			inv.PostedTimestamp = inv.PostedTimestamp.In(time.FixedZone("X", 3600))
		default:
			inv.EffectiveTimestamp = time.Date(1600, 1, 2, 3, 4, 5, 0, time.UTC)
		}
	}
}

// TestIndexedListsAnswerAsPlainScan is the differential test of the two
// invoice stores: over a generated account made irregular (ties,
// missing dates, records kept whole, amounts of other exponents), and
// after each kind of change (update, delete, add, a new customer's
// invoice, churn between list requests), every random query's page from
// the scale store equals the plain store's.
func TestIndexedListsAnswerAsPlainScan(t *testing.T) {
	t.Parallel()
	srv := newHandlerWith(t, "scale",
		WithGenerated(GenerateOptions{Seed: 29, Invoices: 1500}),
		WithChurn(Churn{Seed: 5, Inserts: 3, Deletes: 2, Rekeys: 3, Modifies: 2}),
	)
	r := rand.New(rand.NewPCG(29, 1))
	pick := func() int64 { all := invoiceIDs(srv); return all[r.IntN(len(all))] }
	update := func(change func(*Invoice)) {
		t.Helper()
		if err := srv.UpdateInvoice(pick(), change); err != nil {
			t.Fatal(err)
		}
	}
	var tie time.Time
	update(func(inv *Invoice) { tie = inv.PostedTimestamp })
	for range 40 { // billing runs: many invoices posted in one second
		update(func(inv *Invoice) { inv.PostedTimestamp, inv.CreatedTimestamp = tie, tie })
	}
	for range 5 {
		update(func(inv *Invoice) { inv.PostedTimestamp = time.Time{} })
		update(func(inv *Invoice) { inv.ClosingArBalance = decimal.New(1, 2) })          // 1e2, equal to 100
		update(func(inv *Invoice) { inv.ClosingArBalance = decimal.New(100000, -3) })    // 100.000
		update(func(inv *Invoice) { inv.OpeningArBalance = decimal.New(-35, -1) })       // -3.5
		update(func(inv *Invoice) { inv.ClosingArBalance = decimal.New(2505, -1) })      // 250.5
		update(func(inv *Invoice) { inv.OpeningArBalance = decimal.New(1, -3) })         // 0.001
		update(func(inv *Invoice) { inv.ClosingArBalance = decimal.New(999999999, 10) }) // aligns past an int64
		update(unpackable(r))
	}
	checkAgainstPlain(t, srv, r, 150, "updated")

	for range 30 {
		srv.DeleteInvoice(pick())
	}
	checkAgainstPlain(t, srv, r, 50, "deleted")

	for range 30 {
		srv.mu.RLock()
		inv := *srv.store.invoices.Get(pick())
		srv.mu.RUnlock()
		inv.ID, inv.InvoiceNumber, inv.Charges, inv.PaymentSchedules = 0, 0, nil, nil
		inv.PostedTimestamp = tie.Add(time.Duration(r.IntN(3)) * time.Second)
		if _, err := srv.AddInvoice(inv); err != nil {
			t.Fatal(err)
		}
	}
	checkAgainstPlain(t, srv, r, 50, "added")

	// Two new customers, one with an id beyond those a filter's memo of
	// customer conditions keeps in a slice.
	for _, c := range []Customer{
		{CompanyName: "Late", Status: billing.CustomerStatusHold},
		{ID: 1 << 40, CompanyName: "Far", Status: billing.CustomerStatusActive},
		{ID: 1<<40 + 7, CompanyName: "Farther", Status: billing.CustomerStatusCancelled},
	} {
		cust, err := srv.AddCustomer(c)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			inv := Invoice{CustomerID: cust, PostedTimestamp: tie.Add(time.Duration(i) * time.Hour), ClosingArBalance: decimal.New(150, 0)}
			if _, err := srv.AddInvoice(inv); err != nil {
				t.Fatal(err)
			}
		}
	}
	checkAgainstPlain(t, srv, r, 50, "new customer")

	// Churn changes the account before list requests; after each, the
	// indexed answer must follow.
	for i := range 20 {
		q := "/v1/Invoices?pageSize=50&sortExpression=postedTimestamp&sortOrder=" + []string{"Ascending", "Descending"}[i%2]
		req := httptest.NewRequest(http.MethodGet, "http://fake"+q, nil)
		req.Header.Set("Authorization", "Basic "+DefaultAPIKey)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", q, w.Code, w.Body)
		}
		checkAgainstPlain(t, srv, r, 5, "churn "+strconv.Itoa(i))
	}
}

// FuzzIndexedListsAnswerAsPlainScan is the differential test driven by
// the fuzzer's seeds: each seed draws queries over a small account.
func FuzzIndexedListsAnswerAsPlainScan(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed)
	}
	srv, err := NewHandler(WithGenerated(GenerateOptions{Seed: 31, Invoices: 400}))
	if err != nil {
		f.Fatal(err)
	}
	srv.store.invoices.scaleAt = 0
	srv.store.invoices.fit(srv.store.invoices.Len())
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkAgainstPlain(t, srv, rand.New(rand.NewPCG(seed, 2)), 10, fmt.Sprint("seed ", seed))
	})
}

// TestFilteredPageCostFollowsRange counts the rows a filtered page sorted
// on its range field visits: the page, and the first time a filter is
// asked for the rows of its key range, however many invoices the account
// has, where the plain scan visits every invoice.
// The range holds the same number of invoices in a small and a ten times
// larger account.
func TestFilteredPageCostFollowsRange(t *testing.T) {
	t.Parallel()
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = []int{2_000, 20_000}
	}
	const inRange = 1000
	for _, n := range sizes {
		srv := newHandlerWith(t, "scale", WithGenerated(GenerateOptions{Seed: 1, Invoices: n}))
		srv.mu.RLock()
		ref := plainCopy(srv)
		posted := make([]time.Time, 0, n)
		for i := range n {
			posted = append(posted, ref.invs[i].PostedTimestamp)
		}
		slices.SortFunc(posted, time.Time.Compare)
		// A range of exactly inRange invoices: each bound the first
		// invoice of its second, outside a billing run's ties.
		sec := func(i int) int64 { return posted[i].Unix() }
		j := n / 3
		for sec(j) == sec(j-1) || sec(j+inRange) == sec(j+inRange-1) {
			j++
		}
		from := posted[j].Truncate(time.Second)
		to := posted[j+inRange].Truncate(time.Second)
		keys := 0 // the invoices posted in [from, to)
		for _, at := range posted {
			if !at.Before(from) && at.Before(to) {
				keys++
			}
		}
		if keys != inRange {
			t.Fatalf("%d invoices: %d in the range, want %d", n, keys, inRange)
		}
		bounds := "postedTimestamp:" + from.Format(time.RFC3339Nano)[:19] + "|" + to.Format(time.RFC3339Nano)[:19]
		const page = 100
		for _, c := range []struct {
			query   string
			visited int
		}{
			{bounds, page}, // the range alone: the page
			// The range, to count the matches, and the page of them.
			{bounds + ";closingArBalance:100|;Customer.Status:Active", keys + page},
			// The same filter again: its matches are remembered.
			{bounds + ";closingArBalance:100|;Customer.Status:Active", page},
		} {
			v := url.Values{"query": {c.query}, "sortExpression": {"postedTimestamp"}, "sortOrder": {"Descending"},
				"pageSize": {strconv.Itoa(page)}, "pageNumber": {"2"}}
			lr, _, err := parseListRequest(v, invoiceSchema, false)
			if err != nil {
				t.Fatal(err)
			}
			got := srv.store.invoices.Query(context.Background(), &lr.Request)
			if got.Visited != c.visited {
				t.Errorf("%d invoices, %s: visited %d rows, want %d", n, c.query, got.Visited, c.visited)
			}
			plain := ref.Query(context.Background(), &lr.Request)
			if plain.Visited != n {
				t.Errorf("%d invoices: the plain store visited %d rows", n, plain.Visited)
			}
			if g, w := summarize(got), summarize(plain); !reflect.DeepEqual(g, w) {
				t.Errorf("%d invoices, %s:\n got %+v\nwant %+v", n, c.query, g, w)
			}
		}
		srv.mu.RUnlock()
	}
}

// TestCutShortScanIsNotRemembered checks that the matches of a request
// whose client has gone, whose scan the context cut short, do not answer
// the next request with the same filter.
func TestCutShortScanIsNotRemembered(t *testing.T) {
	t.Parallel()
	srv := newHandlerWith(t, "scale", WithGenerated(GenerateOptions{Seed: 2, Invoices: 3 * filter.CheckEvery}))
	v := url.Values{"query": {"postedTimestamp:2000-01-01|;closingArBalance:0|"}, "sortExpression": {"postedTimestamp"}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	lr, _, err := parseListRequest(v, invoiceSchema, false)
	if err != nil {
		t.Fatal(err)
	}
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	cut := srv.store.invoices.Query(ctx, &lr.Request)
	got := summarize(srv.store.invoices.Query(context.Background(), &lr.Request))
	want := summarize(plainCopy(srv).Query(context.Background(), &lr.Request))
	if cut.Count >= want.Count {
		t.Fatalf("the cancelled scan counted %d of %d matches: it was not cut short", cut.Count, want.Count)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after a cut-short scan:\n got %+v\nwant %+v", got, want)
	}
}

// TestIndexedListsUnderConcurrentWrites asks filtered, sorted pages from
// several goroutines while another changes invoices: each answer must be
// whole (as many items as X-Count leaves for the page), and the race
// detector must find nothing in the indexes and their remembered matches.
func TestIndexedListsUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
	srv := newHandlerWith(t, "scale", WithGenerated(GenerateOptions{Seed: 4, Invoices: 600}))
	filters := []string{
		"postedTimestamp:2024-01-01|;closingArBalance:100|;Customer.Status:Active",
		"postedTimestamp:2024-07-01|2025-10-01;Customer.Status:Active,Hold",
		"createdTimestamp:2023-01-01|",
	}
	ids := invoiceIDs(srv)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 40 {
			_ = srv.UpdateInvoice(ids[i*7%len(ids)], func(inv *Invoice) { inv.PostedTimestamp = inv.PostedTimestamp.Add(time.Hour) })
		}
	}()
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for i := range 30 {
				f := filters[(g+i)%len(filters)]
				q := "/v1/Invoices?pageSize=20&pageNumber=1&sortExpression=postedTimestamp&sortOrder=Descending&query=" + url.QueryEscape(f)
				req := httptest.NewRequest(http.MethodGet, "http://fake"+q, nil)
				req.Header.Set("Authorization", "Basic "+DefaultAPIKey)
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, req)
				var items []json.RawMessage
				if err := json.Unmarshal(w.Body.Bytes(), &items); w.Code != http.StatusOK || err != nil {
					errs <- fmt.Errorf("%s: status %d, %v", f, w.Code, err)
					return
				}
				count, _ := strconv.Atoi(w.Header().Get("X-Count"))
				if want := min(20, max(0, count-20)); len(items) != want {
					errs <- fmt.Errorf("%s: %d items with X-Count %d, want %d", f, len(items), count, want)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	<-done
}

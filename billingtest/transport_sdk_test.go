package billingtest_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/jarcoal/httpmock"
)

// sdkTwins returns a listening fake and an in-process one, both seeded
// with a busy enough account on a clock of their own, so that they hold
// the same data; both close when the test ends.
func sdkTwins(t *testing.T) (sock, in *billingtest.Server) {
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	opts := []billingtest.Option{
		billingtest.WithClock(func() time.Time { return now }),
		billingtest.WithGenerated(billingtest.GenerateOptions{Seed: 11, Invoices: 700}),
	}
	sock = billingtest.NewServer(opts...)
	t.Cleanup(sock.Close)
	in = billingtest.NewInProcess(opts...)
	t.Cleanup(in.Close)
	return sock, in
}

// someCustomers returns the ids of seven of the fake's customers.
func someCustomers(t *testing.T, srv *billingtest.Server) query.Ints {
	t.Helper()
	all := srv.Customers()
	if len(all) < 70 {
		t.Fatalf("%d customers generated", len(all))
	}
	var ids query.Ints
	for i := 0; len(ids) < 7; i += 10 {
		ids = append(ids, all[i].ID)
	}
	return ids
}

// listRun is what one way of reading lists yields, whole.
type listRun struct {
	Invoices []billing.Invoice
	Cursor   string
	Count    int
}

// readLists reads the account through c as the SDK's users do: a stable
// iteration with prefetching over a date range, a filtered and sorted
// page-number iteration, one filtered page and a count.
// customers names the customers the filters pick.
func readLists(t *testing.T, c *billing.Client, customers query.Ints) map[string]listRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runs := map[string]listRun{}

	var cur billing.Cursor
	var stable listRun
	params := &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{PageSize: 40},
		Filter:      billing.InvoiceFilter{PostedTimestamp: query.TimeRange{From: time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC), DateOnly: true}},
	}
	for inv, err := range c.Invoices.All(ctx, params, billing.Stable(&cur), billing.Prefetch(4)) {
		if err != nil {
			t.Fatalf("stable iteration: %v", err)
		}
		stable.Invoices = append(stable.Invoices, inv)
	}
	text, err := cur.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	stable.Cursor = string(text)
	runs["stable"] = stable

	var sorted listRun
	params = &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{PageSize: 25, Sort: query.Sort{Field: "poNumber", Order: query.Descending}},
		Filter:      billing.InvoiceFilter{PoNumber: query.StartsWith("PO")},
	}
	for inv, err := range c.Invoices.All(ctx, params) {
		if err != nil {
			t.Fatalf("sorted iteration: %v", err)
		}
		sorted.Invoices = append(sorted.Invoices, inv)
	}
	runs["sorted"] = sorted

	page, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{PageSize: 5, PageNumber: 1},
		Filter:      billing.InvoiceFilter{CustomerID: customers},
	})
	if err != nil {
		t.Fatalf("filtered list: %v", err)
	}
	runs["filtered page"] = listRun{Invoices: page.Items}

	n, err := c.Invoices.Count(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{CustomerID: customers[:3]}})
	if err != nil {
		t.Fatalf("count: %v", err)
	}
	runs["count"] = listRun{Count: n}
	return runs
}

// The SDK reads the same from a fake served in process as from one over
// its socket: stable iteration, filters, sorting, paging and counts.
func TestSDKReadsTheSameInProcess(t *testing.T) {
	t.Parallel()
	sock, in := sdkTwins(t)

	customers := someCustomers(t, sock)
	want := readLists(t, sock.Client(), customers)
	got := readLists(t, in.Client(), customers)
	for name, w := range want {
		if len(w.Invoices) == 0 && w.Count == 0 {
			t.Errorf("%s: the socket run read nothing; the comparison would prove nothing", name)
		}
		if !reflect.DeepEqual(got[name], w) {
			t.Errorf("%s: in process read %d invoices (count %d, cursor %q), the socket %d (count %d, cursor %q)",
				name, len(got[name].Invoices), got[name].Count, got[name].Cursor, len(w.Invoices), w.Count, w.Cursor)
		}
	}
}

// An httpmock transport whose no-responder is the fake's Transport serves
// every request it has no responder for from the fake, whatever the base
// URL; a responder registered for one route still wins.
func TestFakeAsHTTPMockNoResponder(t *testing.T) {
	t.Parallel()
	sock, in := sdkTwins(t)

	const base = "https://billing.example.com"
	mt := httpmock.NewMockTransport()
	mt.RegisterNoResponder(in.Transport().RoundTrip)
	mt.RegisterResponder(http.MethodGet, base+"/v1/Invoices/424242", httpmock.NewStringResponder(200, `{"id":424242}`))
	c, err := billing.NewClient(in.APIKey(), billing.WithBaseURL(base), billing.WithHTTPClient(&http.Client{Transport: mt}))
	if err != nil {
		t.Fatal(err)
	}

	customers := someCustomers(t, sock)
	got := readLists(t, c, customers)
	want := readLists(t, sock.Client(), customers)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("through httpmock the fake answered other lists than over its socket")
	}
	inv, err := c.Invoices.Get(context.Background(), 424242, nil)
	if err != nil || inv.ID != 424242 {
		t.Errorf("registered responder: %+v, %v", inv, err)
	}
	served := len(in.Requests())
	info := mt.GetCallCountInfo()
	wantInfo := map[string]int{"NO_RESPONDER": served, "GET " + base + "/v1/Invoices/424242": 1}
	if served == 0 || !reflect.DeepEqual(info, wantInfo) || mt.GetTotalCallCount() != served+1 {
		t.Errorf("calls %v (total %d), want %v with the fake's %d requests", info, mt.GetTotalCallCount(), wantInfo, served)
	}
}

package billingtest

import (
	"context"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestKeyIndexAnswersAsRunListDoes checks the scale store's key index
// against the plain store: for ascending and descending sorts on every date field of the list of all
// invoices, with key ranges, exact matches, other conditions and pages
// past the end, both give the same rows in the same order and the same
// counts.
func TestKeyIndexAnswersAsRunListDoes(t *testing.T) {
	t.Parallel()
	srv := newHandlerWith(t, "scale", WithGenerated(GenerateOptions{Seed: 7, Invoices: 3000}))
	ids := invoiceIDs(srv)
	// Billing runs post many invoices in one second (ties); one invoice
	// loses its posting date (a missing key).
	if err := srv.UpdateInvoice(ids[10], func(inv *Invoice) { inv.PostedTimestamp = time.Time{} }); err != nil {
		t.Fatal(err)
	}
	mid := srv.store.invoices.At(1500).PostedTimestamp.UTC().Truncate(time.Second)
	// And one is posted exactly on a bound below.
	if err := srv.UpdateInvoice(ids[20], func(inv *Invoice) { inv.PostedTimestamp = mid }); err != nil {
		t.Fatal(err)
	}
	ref := plainCopy(srv)
	sec := mid.Format("2006-01-02T15:04:05")
	next := mid.Add(time.Second).Format("2006-01-02T15:04:05")
	day := mid.Format(time.DateOnly)
	queries := []string{
		"",
		"postedTimestamp:" + sec + "|",
		"postedTimestamp:|" + sec,
		"postedTimestamp:" + sec + "|" + next,
		"postedTimestamp:" + day + "|" + next + ";postedTimestamp:" + sec + "|",
		"postedTimestamp:" + day + "|",
		"postedTimestamp:[empty]",
		"postedTimestamp:0001-01-01|0001-01-01",
		"postedTimestamp:" + sec + "|;closingArBalance:100|",
		"poNumber:[empty];createdTimestamp:" + day + "|",
	}
	for _, field := range []string{"postedTimestamp", "createdTimestamp", "effectiveTimestamp"} {
		for _, q := range queries {
			for _, p := range []struct {
				order        string
				number, size int
			}{{"Ascending", 0, 1000}, {"Ascending", 1, 7}, {"Ascending", 3, 100}, {"Ascending", 400, 10},
				{"Descending", 0, 1000}, {"Descending", 1, 7}, {"Descending", 3, 100}, {"Descending", 299, 10}, {"Descending", 400, 10}} {
				v := url.Values{"sortExpression": {field}, "sortOrder": {p.order}, "query": {q}, "pageNumber": {strconv.Itoa(p.number)}, "pageSize": {strconv.Itoa(p.size)}}
				lr, _, err := parseListRequest(v, invoiceSchema, false)
				if err != nil {
					t.Fatalf("%v: %v", v, err)
				}
				want := ref.Query(context.Background(), &lr.Request)
				got := srv.store.invoices.Query(context.Background(), &lr.Request)
				if w, g := summarize(want), summarize(got); !reflect.DeepEqual(w, g) {
					t.Errorf("%v: index differs from the plain store:\n got %+v\nwant %+v", v, g, w)
				}
			}
		}
	}
}

// TestKeyIndexFollowsWrites checks that every kind of write reaches the
// next keyed page: an index built before it must not answer after it.
func TestKeyIndexFollowsWrites(t *testing.T) {
	t.Parallel()
	srv := newHandlerWith(t, "scale", WithGenerated(GenerateOptions{Seed: 3, Invoices: 200}))
	page := func() []int64 {
		t.Helper()
		lr, _, err := parseListRequest(url.Values{"sortExpression": {"postedTimestamp"}, "pageSize": {"1000"}}, invoiceSchema, false)
		if err != nil {
			t.Fatal(err)
		}
		srv.mu.RLock()
		defer srv.mu.RUnlock()
		want := summarize(plainCopy(srv).Query(context.Background(), &lr.Request))
		got := summarize(srv.store.invoices.Query(context.Background(), &lr.Request))
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("index is stale:\n got %+v\nwant %+v", got, want)
		}
		return got.IDs
	}
	ids := invoiceIDs(srv)
	first := ids[0]
	writes := []struct {
		name  string
		write func() error
	}{
		{"UpdateInvoice", func() error {
			return srv.UpdateInvoice(first, func(inv *Invoice) { inv.PostedTimestamp = inv.PostedTimestamp.Add(500 * 24 * time.Hour) })
		}},
		{"DeleteInvoice", func() error { srv.DeleteInvoice(ids[1]); return nil }},
		{"AddInvoice", func() error {
			inv := *srv.store.invoices.Get(ids[2])
			inv.ID, inv.Charges, inv.PaymentSchedules = 0, nil, nil
			inv.PostedTimestamp = inv.PostedTimestamp.Add(-400 * 24 * time.Hour)
			_, err := srv.AddInvoice(inv)
			return err
		}},
	}
	for _, w := range writes {
		before := page()
		if err := w.write(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if after := page(); slices.Equal(before, after) {
			t.Errorf("%s: the keyed page did not change", w.name)
		}
	}
}

package billing_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/jarcoal/httpmock"
)

// pagedServer serves total invoices (ids 1..total) in pages of size,
// with the headers chosen by mode.
func pagedServer(w *wire, total, size int, headers func(page, last int) []string) {
	w.onResponder("GET", "/v1/Invoices", func(r *http.Request) (*http.Response, error) {
		page, _ := strconv.Atoi(r.URL.Query().Get("pageNumber"))
		last := (total+size-1)/size - 1
		var ids []string
		for id := page*size + 1; id <= min(total, (page+1)*size); id++ {
			ids = append(ids, fmt.Sprintf(`{"id":%d}`, id))
		}
		resp := httpmock.NewStringResponse(200, "["+strings.Join(ids, ",")+"]")
		h := headers(page, last)
		for i := 0; i+1 < len(h); i += 2 {
			resp.Header.Set(h[i], h[i+1])
		}
		return resp, nil
	})
}

func TestIteratorStopsOnLastPage(t *testing.T) {
	t.Parallel()
	all := func(page, last int) []string {
		prev := page - 1
		return []string{"X-CurrentPage", strconv.Itoa(page), "X-NextPage", strconv.Itoa(min(page+1, last)),
			"X-PreviousPage", strconv.Itoa(prev), "X-Count", "10", "X-PageSize", "4", "X-MaxPageIndex", strconv.Itoa(last)}
	}
	tests := []struct {
		name    string
		headers func(page, last int) []string
	}{
		{"all nine headers", all},
		{"only X-NextPage, equal to current on the last page", func(page, last int) []string {
			return []string{"X-NextPage", strconv.Itoa(min(page+1, last))}
		}},
		{"only X-NextPage, -1 on the last page", func(page, last int) []string {
			next := page + 1
			if page == last {
				next = -1
			}
			return []string{"X-NextPage", strconv.Itoa(next)}
		}},
		{"only X-Count", func(page, last int) []string { return []string{"X-Count", "10", "X-PageSize", "4"} }},
		{"X-MaxPageIndex as a page count", func(page, last int) []string {
			return []string{"X-CurrentPage", strconv.Itoa(page), "X-MaxPageIndex", strconv.Itoa(last + 1), "X-Count", "10", "X-PageSize", "4"}
		}},
		{"no headers: a short page is the last", func(page, last int) []string { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			pagedServer(w, 10, 4, tt.headers)
			ids, err := collect(t, w.client.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 4}}))
			if err != nil {
				t.Fatal(err)
			}
			if want := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; fmt.Sprint(ids) != fmt.Sprint(want) {
				t.Errorf("ids = %v, want %v", ids, want)
			}
			if w.sent() != 3 {
				t.Errorf("requests = %d, want 3", w.sent())
			}
		})
	}
}

func TestIteratorStopsOnEmptyPage(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	// The server always claims another page follows, but runs out of items.
	pagedServer(w, 8, 4, func(page, last int) []string { return []string{"X-NextPage", strconv.Itoa(page + 1)} })
	ids, err := collect(t, w.client.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 4}}))
	if err != nil || len(ids) != 8 {
		t.Fatalf("ids = %v, err = %v", ids, err)
	}
	if w.sent() != 3 {
		t.Errorf("requests = %d, want 3 (the third is empty)", w.sent())
	}
}

func TestIteratorRefusesAPageThatDoesNotAdvance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply func(r *http.Request) *http.Response
	}{
		{"server answers page 0 whatever is asked", func(r *http.Request) *http.Response {
			resp := httpmock.NewStringResponse(200, `[{"id":1},{"id":2}]`)
			resp.Header.Set("X-CurrentPage", "0")
			resp.Header.Set("X-NextPage", "1")
			return resp
		}},
		{"no headers and the same full page each time", func(r *http.Request) *http.Response {
			return httpmock.NewStringResponse(200, `[{"id":1},{"id":2}]`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.onResponder("GET", "/v1/Invoices", func(r *http.Request) (*http.Response, error) { return tt.reply(r), nil })
			ids, err := collect(t, w.client.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 2}}))
			if !errors.Is(err, billing.ErrPagination) {
				t.Fatalf("err = %v, want ErrPagination", err)
			}
			if len(ids) != 2 || w.sent() != 2 {
				t.Errorf("ids = %v after %d requests", ids, w.sent())
			}
		})
	}
}

func TestIteratorYieldsErrorOnceAndStops(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	calls := 0
	w.onResponder("GET", "/v1/Invoices", func(r *http.Request) (*http.Response, error) {
		calls++
		if calls == 2 {
			return httpmock.NewStringResponse(500, errorBody(500, "Api Error", "boom")), nil
		}
		resp := httpmock.NewStringResponse(200, `[{"id":1}]`)
		resp.Header.Set("X-NextPage", strconv.Itoa(calls))
		return resp, nil
	})
	var errs, items int
	for _, err := range w.client.Invoices.All(context.Background(), nil) {
		if err != nil {
			errs++
			if !errors.Is(err, billing.ErrServer) {
				t.Errorf("err = %v", err)
			}
			continue // a caller that ignores the error must still see the sequence end
		}
		items++
	}
	if errs != 1 || items != 1 {
		t.Errorf("errors = %d, items = %d; want 1 and 1", errs, items)
	}
}

func TestIteratorBreakStopsFetching(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	pagedServer(w, 100, 10, func(page, last int) []string { return []string{"X-NextPage", strconv.Itoa(page + 1), "X-Count", "100"} })
	n := 0
	for _, err := range w.client.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 10}}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 15 {
			break
		}
	}
	if w.sent() != 2 {
		t.Errorf("requests = %d, want 2", w.sent())
	}
}

func TestIteratorChecksContextBetweenPages(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	pagedServer(w, 100, 10, func(page, last int) []string { return []string{"X-NextPage", strconv.Itoa(page + 1)} })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got error
	n := 0
	for _, err := range w.client.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 10}}) {
		if err != nil {
			got = err
			break
		}
		if n++; n == 10 {
			cancel()
		}
	}
	if !errors.Is(got, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", got)
	}
	if w.sent() != 1 {
		t.Errorf("requests = %d, want 1", w.sent())
	}
}

func TestIteratorCopiesParams(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	pagedServer(w, 6, 2, func(page, last int) []string { return []string{"X-NextPage", strconv.Itoa(page + 1), "X-Count", "6"} })
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageNumber: 1, PageSize: 2}}
	seq := w.client.Invoices.All(context.Background(), params)
	params.PageSize = 100 // must not affect the iterator built before
	var ids []int64
	for inv, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, inv.ID)
	}
	if fmt.Sprint(ids) != "[3 4 5 6]" {
		t.Errorf("ids = %v, want [3 4 5 6] (from page 1)", ids)
	}
	if params.PageNumber != 1 {
		t.Errorf("the caller's params were changed: %+v", params.ListOptions)
	}
}

func TestPagesYieldsFirstPageEvenWhenEmpty(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on("GET", "/v1/Invoices", 200, `[]`, "X-Count", "0", "X-MaxCount", "50")
	var pages []*billing.Page[billing.Invoice]
	for p, err := range w.client.Invoices.Pages(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	if len(pages) != 1 || pages[0].Count != 0 || pages[0].MaxCount != 50 {
		t.Errorf("pages = %+v", pages)
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on("GET", "/v1/Invoices", 200, `[{"id":1}]`, "X-Count", "12345")
	n, err := w.client.Invoices.Count(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageNumber: 3, PageSize: 500}})
	if err != nil || n != 12345 {
		t.Fatalf("Count = %d, %v", n, err)
	}
	if q := w.last().Query; q.Get("pageSize") != "1" || q.Get("pageNumber") != "0" {
		t.Errorf("query = %v, want pageSize=1 pageNumber=0", q)
	}

	w2 := newWire(t)
	w2.on("GET", "/v1/Invoices", 200, `[]`)
	if _, err := w2.client.Invoices.Count(context.Background(), nil); err == nil {
		t.Error("Count without X-Count succeeded")
	}
}

func TestNilContextIterator(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	//lint:ignore SA1012 the guard against a nil context is what is tested
	for _, err := range w.client.Invoices.All(nil, nil) {
		assertValidation(t, err, "ctx")
	}
	if w.sent() != 0 {
		t.Error("sent with a nil context")
	}
}

// TestPagingHeadersThroughAnInProcessHandler: a transport that serves the
// fake's Handler in process with httptest.ResponseRecorder hands the SDK
// the header map as the fake wrote it (X-CurrentPage, as the reference
// spells it, not Go's X-Currentpage). The SDK still reads every paging
// header, and iteration works.
func TestPagingHeadersThroughAnInProcessHandler(t *testing.T) {
	t.Parallel()
	srv, err := billingtest.NewHandler(billingtest.WithGenerated(billingtest.GenerateOptions{Seed: 1, Invoices: 25}))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, r)
		return w.Result(), nil
	})}
	c, err := billing.NewClient(srv.APIKey(), billing.WithBaseURL("http://127.0.0.1"), billing.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageNumber: 1, PageSize: 10}})
	if err != nil {
		t.Fatal(err)
	}
	want := billing.PageInfo{Count: 25, MaxCount: 25, CurrentPage: 1, NextPage: 2, PreviousPage: 0, PageSize: 10, MaxPageIndex: 3, SortOrder: "Ascending", SortExpression: "id"}
	if p.PageInfo != want {
		t.Errorf("PageInfo = %+v\nwant %+v", p.PageInfo, want)
	}
	n := countAll(t, c.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 10}}, billing.Prefetch(2)))
	if n != 25 {
		t.Errorf("iterated %d invoices, want 25", n)
	}
}

package billingtest_test

// Pagination edge cases (reference section 4.0) through the SDK's List,
// Pages, All and Count against the fake, on all four list endpoints.

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// ptPage is one page of any list endpoint reduced to what the paging tests
// compare: the ids in order, the nine decoded X-* headers and HasNext.
type ptPage struct {
	ids                                  []int64
	count, maxCount, current, next, prev int
	size, maxPageIndex                   int
	order                                query.Order
	sortExpr                             string
	hasNext                              bool
	// itemsNull is true when the body was null rather than an array; the
	// fake always sends an array, [] when empty.
	itemsNull bool
}

// project reduces a typed page to a ptPage.
func project[T any](p *billing.Page[T], id func(T) int64) ptPage {
	return ptPage{
		ids: ids(p.Items, id), count: p.Count, maxCount: p.MaxCount, current: p.CurrentPage, next: p.NextPage,
		prev: p.PreviousPage, size: p.PageSize, maxPageIndex: p.MaxPageIndex, order: p.SortOrder, sortExpr: p.SortExpression,
		hasNext: p.HasNext(), itemsNull: p.Items == nil,
	}
}

// projectPages maps an SDK page iterator to ptPages.
func projectPages[T any](seq iter.Seq2[*billing.Page[T], error], id func(T) int64) iter.Seq2[ptPage, error] {
	return func(yield func(ptPage, error) bool) {
		for p, err := range seq {
			if err != nil {
				yield(ptPage{}, err)
				return
			}
			if !yield(project(p, id), nil) {
				return
			}
		}
	}
}

// projectItems maps an SDK item iterator to ids.
func projectItems[T any](seq iter.Seq2[T, error], id func(T) int64) iter.Seq2[int64, error] {
	return func(yield func(int64, error) bool) {
		for it, err := range seq {
			if !yield(id(it), err) || err != nil {
				return
			}
		}
	}
}

// ptQuery is a list request of the tests: the shared controls, and whether
// to add the endpoint's filter that matches nothing.
type ptQuery struct {
	opts    billing.ListOptions
	nothing bool
	// ropts are passed to the SDK call, e.g. a tag from tagged.
	ropts []billing.RequestOption
}

// ptEndpoint is one SDK list endpoint seen through ptPage, so that one
// table runs on all four.
type ptEndpoint struct {
	name  string
	path  string // the request path, to count requests
	list  func(ctx context.Context, q ptQuery) (ptPage, error)
	pages func(ctx context.Context, q ptQuery) iter.Seq2[ptPage, error]
	all   func(ctx context.Context, q ptQuery) iter.Seq2[int64, error]
	count func(ctx context.Context, q ptQuery) (int, error)
}

// ptFixture is a fake holding n invoices of one customer and n items of
// one subscription product, ids ascending in the order added.
type ptFixture struct {
	srv      *billingtest.Server
	c        *billing.Client
	customer int64
	product  int64
	invoices []int64
	items    []int64
}

// ptSeed starts the fixture with n invoices and n items, the invoices in
// the store that store chooses.
func ptSeed(t *testing.T, n int, store billingtest.Option) *ptFixture {
	t.Helper()
	srv := newFake(t, store)
	m := must(t)
	f := &ptFixture{srv: srv, c: srv.Client()}
	f.customer = m(srv.AddCustomer(billingtest.Customer{FirstName: "Pat", LastName: "Pager"}))
	f.product = 424242
	for i := range n {
		f.invoices = append(f.invoices, m(srv.AddInvoice(ptInvoice(f.customer, i, ""))))
		f.items = append(f.items, m(srv.AddSubscriptionProductItem(billingtest.SubscriptionProductItem{
			SubscriptionProductID: f.product, Name: fmt.Sprintf("item %02d", i), Reference: billing.ItemReference{Value: fmt.Sprint(i)},
		})))
	}
	return f
}

// eachStore runs body as a subtest against each of the fake's invoice
// stores, with the option that chooses it: the plain store of an ordinary
// account and the scale store of a large one answer alike.
func eachStore(t *testing.T, body func(t *testing.T, store billingtest.Option)) {
	for _, c := range []struct {
		name  string
		store billingtest.Option
	}{{"plain", billingtest.WithPlainStore()}, {"scale", billingtest.WithScaleStore()}} {
		t.Run(c.name, func(t *testing.T) { body(t, c.store) })
	}
}

// ptInvoice is invoice number i of a customer: one charge of i+1 dollars.
func ptInvoice(customer int64, i int, po string) billingtest.Invoice {
	amount := decimal.NewFromInt(int64(i + 1))
	return billingtest.Invoice{
		CustomerID: customer, PoNumber: po, PostedTimestamp: day(2024, 1, 1).Add(time.Duration(i) * time.Hour),
		Charges: []billingtest.Charge{{Name: "Line", Quantity: decimal.NewFromInt(1), UnitPrice: amount, Amount: amount}},
	}
}

// endpoints returns the four list endpoints over the fixture's client.
func (f *ptFixture) endpoints() []ptEndpoint {
	const noSuchNumber = 999999999
	invoices := func(q ptQuery) *billing.ListInvoicesParams {
		p := &billing.ListInvoicesParams{ListOptions: q.opts}
		if q.nothing {
			p.Filter.InvoiceNumber = query.Ints{noSuchNumber}
		}
		return p
	}
	byCustomer := func(q ptQuery) *billing.ListCustomerInvoicesParams {
		p := &billing.ListCustomerInvoicesParams{ListOptions: q.opts}
		if q.nothing {
			p.Filter.InvoiceNumber = query.Ints{noSuchNumber}
		}
		return p
	}
	summaries := func(q ptQuery) *billing.ListInvoiceSummariesParams {
		p := &billing.ListInvoiceSummariesParams{ListOptions: q.opts}
		if q.nothing {
			p.Filter.InvoiceNumber = query.Ints{noSuchNumber}
		}
		return p
	}
	items := func(q ptQuery) *billing.ListSubscriptionItemsParams {
		p := &billing.ListSubscriptionItemsParams{ListOptions: q.opts}
		if q.nothing {
			p.Filter.Name = query.Equals("no such item")
		}
		return p
	}
	inv, sums, sp := f.c.Invoices, f.c.InvoiceSummaries, f.c.SubscriptionItems
	return []ptEndpoint{
		{
			name: "Invoices", path: "/v1/Invoices",
			list: func(ctx context.Context, q ptQuery) (ptPage, error) {
				p, err := inv.List(ctx, invoices(q), q.ropts...)
				if err != nil {
					return ptPage{}, err
				}
				return project(p, invoiceID), nil
			},
			pages: func(ctx context.Context, q ptQuery) iter.Seq2[ptPage, error] {
				return projectPages(inv.Pages(ctx, invoices(q), billing.EachRequest(q.ropts...)), invoiceID)
			},
			all: func(ctx context.Context, q ptQuery) iter.Seq2[int64, error] {
				return projectItems(inv.All(ctx, invoices(q), billing.EachRequest(q.ropts...)), invoiceID)
			},
			count: func(ctx context.Context, q ptQuery) (int, error) { return inv.Count(ctx, invoices(q), q.ropts...) },
		},
		{
			name: "CustomerInvoices", path: fmt.Sprintf("/v1/Customers/%d/Invoices/", f.customer),
			list: func(ctx context.Context, q ptQuery) (ptPage, error) {
				p, err := inv.ListByCustomer(ctx, f.customer, byCustomer(q), q.ropts...)
				if err != nil {
					return ptPage{}, err
				}
				return project(p, invoiceID), nil
			},
			pages: func(ctx context.Context, q ptQuery) iter.Seq2[ptPage, error] {
				return projectPages(inv.PagesByCustomer(ctx, f.customer, byCustomer(q), billing.EachRequest(q.ropts...)), invoiceID)
			},
			all: func(ctx context.Context, q ptQuery) iter.Seq2[int64, error] {
				return projectItems(inv.AllByCustomer(ctx, f.customer, byCustomer(q), billing.EachRequest(q.ropts...)), invoiceID)
			},
			count: func(ctx context.Context, q ptQuery) (int, error) {
				return inv.CountByCustomer(ctx, f.customer, byCustomer(q), q.ropts...)
			},
		},
		{
			name: "InvoiceSummaries", path: fmt.Sprintf("/v1/customers/%d/invoiceSummaries", f.customer),
			list: func(ctx context.Context, q ptQuery) (ptPage, error) {
				p, err := sums.List(ctx, f.customer, summaries(q), q.ropts...)
				if err != nil {
					return ptPage{}, err
				}
				return project(p, summaryID), nil
			},
			pages: func(ctx context.Context, q ptQuery) iter.Seq2[ptPage, error] {
				return projectPages(sums.Pages(ctx, f.customer, summaries(q), billing.EachRequest(q.ropts...)), summaryID)
			},
			all: func(ctx context.Context, q ptQuery) iter.Seq2[int64, error] {
				return projectItems(sums.All(ctx, f.customer, summaries(q), billing.EachRequest(q.ropts...)), summaryID)
			},
			count: func(ctx context.Context, q ptQuery) (int, error) {
				return sums.Count(ctx, f.customer, summaries(q), q.ropts...)
			},
		},
		{
			name: "SubscriptionItems", path: fmt.Sprintf("/v1/subscriptionProducts/%d/items", f.product),
			list: func(ctx context.Context, q ptQuery) (ptPage, error) {
				p, err := sp.List(ctx, f.product, items(q), q.ropts...)
				if err != nil {
					return ptPage{}, err
				}
				return project(p, itemID), nil
			},
			pages: func(ctx context.Context, q ptQuery) iter.Seq2[ptPage, error] {
				return projectPages(sp.Pages(ctx, f.product, items(q), billing.EachRequest(q.ropts...)), itemID)
			},
			all: func(ctx context.Context, q ptQuery) iter.Seq2[int64, error] {
				return projectItems(sp.All(ctx, f.product, items(q), billing.EachRequest(q.ropts...)), itemID)
			},
			count: func(ctx context.Context, q ptQuery) (int, error) {
				return sp.Count(ctx, f.product, items(q), q.ropts...)
			},
		},
	}
}

// seeded returns the ids an endpoint lists, in id order.
func (f *ptFixture) seeded(e ptEndpoint) []int64 {
	if e.name == "SubscriptionItems" {
		return f.items
	}
	return f.invoices
}

// collect drains an id iterator, failing t on an error.
func collect(t *testing.T, seq iter.Seq2[int64, error]) []int64 {
	t.Helper()
	var out []int64
	for id, err := range seq {
		if err != nil {
			t.Fatalf("iteration failed after %d ids: %v", len(out), err)
		}
		out = append(out, id)
	}
	return out
}

// collectPages drains a page iterator, failing t on an error.
func collectPages(t *testing.T, seq iter.Seq2[ptPage, error]) []ptPage {
	t.Helper()
	var out []ptPage
	for p, err := range seq {
		if err != nil {
			t.Fatalf("iteration failed after %d pages: %v", len(out), err)
		}
		out = append(out, p)
	}
	return out
}

// requestsTo counts the requests the fake recorded on path.
func requestsTo(srv *billingtest.Server, path string) []billingtest.Request {
	var out []billingtest.Request
	for _, r := range srv.Requests() {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// wantPage compares a page with the expected one, headers and ids.
func wantPage(t *testing.T, what string, got, want ptPage) {
	t.Helper()
	if !equalIDs(got.ids, want.ids) {
		t.Errorf("%s: ids %v, want %v", what, got.ids, want.ids)
	}
	got.ids, want.ids = nil, nil
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: headers\n got %+v\nwant %+v", what, got, want)
	}
}

// expectedPage is page n of size s over all (c rows), as section 4.0 and
// the fake's documented choices describe it.
func expectedPage(all []int64, n, s, maxCount int) ptPage {
	c := len(all)
	pages := (c + s - 1) / s
	lo, hi := min(n*s, c), min((n+1)*s, c)
	next := -1
	if n+1 < pages {
		next = n + 1
	}
	return ptPage{
		ids: all[lo:hi], count: c, maxCount: maxCount, current: n, next: next, prev: n - 1,
		size: s, maxPageIndex: pages, order: query.Ascending, sortExpr: "id", hasNext: n+1 < pages,
	}
}

// TestPaginationPageSizes iterates 23 rows of every list endpoint with page
// sizes around the edges: every id exactly once, in order, with one request
// per page and no extra one, and Count equal to X-Count.
func TestPaginationPageSizes(t *testing.T) {
	t.Parallel()
	eachStore(t, testPaginationPageSizes)
}

func testPaginationPageSizes(t *testing.T, store billingtest.Option) {
	const n = 23
	ctx := context.Background()
	f := ptSeed(t, n, store)
	for _, e := range f.endpoints() {
		seeded := f.seeded(e)
		for _, size := range []int{1, 5, 10, 23, 24, 1000} {
			t.Run(fmt.Sprintf("%s/size%d", e.name, size), func(t *testing.T) {
				q := ptQuery{opts: billing.ListOptions{PageSize: size}}
				if got := collect(t, e.all(ctx, q)); !equalIDs(got, seeded) {
					t.Errorf("All: %v, want %v", got, seeded)
				}

				tag, sent := tagged(t, f.srv)
				q.ropts = []billing.RequestOption{tag}
				pages := collectPages(t, e.pages(ctx, q))
				wantPages := (n + size - 1) / size
				if len(pages) != wantPages {
					t.Fatalf("Pages yielded %d pages, want %d", len(pages), wantPages)
				}
				for i, p := range pages {
					wantPage(t, fmt.Sprintf("page %d", i), p, expectedPage(seeded, i, size, n))
				}
				// One request per page and no extra one: the last page is
				// known from its headers. (sent fails on any other count.)
				reqs := sent(wantPages)
				slices.SortFunc(reqs, func(a, b billingtest.Request) int { return a.Time.Compare(b.Time) })
				for _, r := range reqs {
					if r.Path != e.path || r.Query.Get("pageSize") != fmt.Sprint(size) {
						t.Errorf("request %s?%s", r.Path, r.Query.Encode())
					}
				}

				tag, sent = tagged(t, f.srv)
				q.ropts = []billing.RequestOption{tag}
				c, err := e.count(ctx, q)
				if err != nil || c != n {
					t.Errorf("Count = %d, %v; want %d", c, err, n)
				}
				if r := sent(1)[0]; r.Query.Get("pageSize") != "1" || r.Query.Get("pageNumber") != "0" {
					t.Errorf("Count sent %s, want one request of pageSize 1", r.Query.Encode())
				}
			})
		}
	}
}

// TestPaginationHeaders checks the nine headers, as billing.Page decodes
// them, on the first, a middle, the last, an empty and an out-of-range page.
func TestPaginationHeaders(t *testing.T) {
	t.Parallel()
	eachStore(t, testPaginationHeaders)
}

func testPaginationHeaders(t *testing.T, store billingtest.Option) {
	const n, size = 23, 5
	ctx := context.Background()
	f := ptSeed(t, n, store)
	for _, e := range f.endpoints() {
		seeded := f.seeded(e)
		cases := []struct {
			name string
			q    ptQuery
			want ptPage
		}{
			{"first", ptQuery{opts: billing.ListOptions{PageSize: size}}, expectedPage(seeded, 0, size, n)},
			{"middle", ptQuery{opts: billing.ListOptions{PageSize: size, PageNumber: 2}}, expectedPage(seeded, 2, size, n)},
			{"last", ptQuery{opts: billing.ListOptions{PageSize: size, PageNumber: 4}}, expectedPage(seeded, 4, size, n)},
			// Nothing matches: X-Count 0 but X-MaxCount the endpoint's rows,
			// no pages, no next or previous page.
			{"empty", ptQuery{opts: billing.ListOptions{PageSize: size}, nothing: true},
				ptPage{ids: nil, count: 0, maxCount: n, current: 0, next: -1, prev: -1, size: size, maxPageIndex: 0, order: query.Ascending, sortExpr: "id"}},
			// Past the end: the page asked for, empty, and no next page.
			{"out of range", ptQuery{opts: billing.ListOptions{PageSize: size, PageNumber: 10}},
				ptPage{ids: nil, count: n, maxCount: n, current: 10, next: -1, prev: 9, size: size, maxPageIndex: 5, order: query.Ascending, sortExpr: "id"}},
			{"just past the end", ptQuery{opts: billing.ListOptions{PageSize: size, PageNumber: 5}},
				ptPage{ids: nil, count: n, maxCount: n, current: 5, next: -1, prev: 4, size: size, maxPageIndex: 5, order: query.Ascending, sortExpr: "id"}},
		}
		for _, tc := range cases {
			t.Run(e.name+"/"+tc.name, func(t *testing.T) {
				got, err := e.list(ctx, tc.q)
				if err != nil {
					t.Fatal(err)
				}
				wantPage(t, tc.name, got, tc.want)
			})
		}
		t.Run(e.name+"/iterating from past the end", func(t *testing.T) {
			tag, sent := tagged(t, f.srv)
			q := ptQuery{opts: billing.ListOptions{PageSize: size, PageNumber: 10}, ropts: []billing.RequestOption{tag}}
			pages := collectPages(t, e.pages(ctx, q))
			if len(pages) != 1 || len(pages[0].ids) != 0 || pages[0].hasNext {
				t.Errorf("Pages from page 10: %+v, want one empty last page", pages)
			}
			if ids := collect(t, e.all(ctx, q)); len(ids) != 0 {
				t.Errorf("All from page 10: %v", ids)
			}
			sent(2) // one request per iteration, none after the empty page
		})
		t.Run(e.name+"/iterating from a middle page", func(t *testing.T) {
			q := ptQuery{opts: billing.ListOptions{PageSize: size, PageNumber: 3}}
			if got := collect(t, e.all(ctx, q)); !equalIDs(got, seeded[15:]) {
				t.Errorf("All from page 3: %v, want %v", got, seeded[15:])
			}
		})
	}
}

// TestPaginationPageSizeCap asks for pages above the maximum: the fake cuts
// them to 1,000 (the reference's floor for the maximum), says so in
// X-PageSize, and the SDK still reads every row exactly once.
func TestPaginationPageSizeCap(t *testing.T) {
	t.Parallel()
	eachStore(t, testPaginationPageSizeCap)
}

func testPaginationPageSizeCap(t *testing.T, store billingtest.Option) {
	const n = 1003
	ctx := context.Background()
	srv := newFake(t, store)
	m := must(t)
	cust := m(srv.AddCustomer(billingtest.Customer{FirstName: "Max"}))
	var seeded []int64
	for i := range n {
		seeded = append(seeded, m(srv.AddInvoice(ptInvoice(cust, i, ""))))
	}
	c := srv.Client()
	for _, size := range []int{1000, 1001, 5000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			params := &billing.ListInvoiceSummariesParams{ListOptions: billing.ListOptions{PageSize: size}}
			page, err := c.InvoiceSummaries.List(ctx, cust, params)
			if err != nil {
				t.Fatal(err)
			}
			got := project(page, summaryID)
			want := ptPage{ids: seeded[:billingtest.MaxPageSize], count: n, maxCount: n, current: 0, next: 1, prev: -1,
				size: billingtest.MaxPageSize, maxPageIndex: 2, order: query.Ascending, sortExpr: "id", hasNext: true}
			wantPage(t, "first page", got, want)
			if size != 5000 {
				return // reading every row once is enough
			}

			tag, sent := tagged(t, srv)
			var all []int64
			for s, err := range c.InvoiceSummaries.All(ctx, cust, params, tag) {
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, s.ID)
			}
			if !equalIDs(all, seeded) {
				t.Errorf("All: %d ids, want the %d seeded in order", len(all), n)
			}
			pages := map[string]bool{}
			for _, r := range sent(2) {
				pages[r.Query.Get("pageNumber")] = true
			}
			if !pages["0"] || !pages["1"] {
				t.Errorf("pages read: %v, want 0 and 1", pages)
			}
		})
	}
	// The list of all invoices is cut the same way.
	page, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 5000, PageNumber: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(page.Items, invoiceID); !equalIDs(got, seeded[1000:]) || page.PageSize != 1000 || page.HasNext() {
		t.Errorf("page 1 of size 5000: %v, X-PageSize %d, hasNext %v", got, page.PageSize, page.HasNext())
	}
}

// ptClass is the class of a string in the reference's sort order (4.0,
// rule 7): null or empty first, then digits, then letters; other leading
// characters between digits and letters (the fake's documented choice).
func ptClass(s string) int {
	if s == "" {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s)
	switch {
	case unicode.IsDigit(r):
		return 1
	case unicode.IsLetter(r):
		return 3
	}
	return 2
}

// ptRow is an invoice id and its poNumber.
type ptRow struct {
	id int64
	po string
}

// ptExpectedOrder sorts rows by poNumber as the reference says strings sort
// (case-insensitively within a class), Descending reversing it, and ties in
// ascending id in both directions, so that pages cannot overlap.
func ptExpectedOrder(rows []ptRow, desc bool) []int64 {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b ptRow) int {
		c := cmp.Or(cmp.Compare(ptClass(a.po), ptClass(b.po)), strings.Compare(strings.ToLower(a.po), strings.ToLower(b.po)))
		if desc {
			c = -c
		}
		return cmp.Or(c, cmp.Compare(a.id, b.id))
	})
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.id
	}
	return out
}

// TestPaginationSortedIteration sorts by poNumber, with nulls, duplicates,
// digits, letters in both cases and punctuation, in both orders and with
// page sizes that cut runs of equal values: every id exactly once, no id on
// two pages, in the reference's order.
func TestPaginationSortedIteration(t *testing.T) {
	t.Parallel()
	eachStore(t, testPaginationSortedIteration)
}

func testPaginationSortedIteration(t *testing.T, store billingtest.Option) {
	ctx := context.Background()
	srv := newFake(t, store)
	m := must(t)
	cust := m(srv.AddCustomer(billingtest.Customer{FirstName: "Sol"}))
	pos := []string{"", "abc", "10", "9", "Zeta", "", "#7", "2b", "ABC", "b", "10", "_x", "a", "100", "Beta", "", "abc", "9", "zeta", "-1"}
	var rows []ptRow
	for i, po := range pos {
		rows = append(rows, ptRow{id: m(srv.AddInvoice(ptInvoice(cust, i, po))), po: po})
	}
	c := srv.Client()
	for _, order := range []query.Order{query.Ascending, query.Descending} {
		want := ptExpectedOrder(rows, order == query.Descending)
		// Rule 7 itself, ascending: nulls, then digits, then letters.
		if order == query.Ascending {
			byID := map[int64]string{}
			for _, r := range rows {
				byID[r.id] = r.po
			}
			for i := 1; i < len(want); i++ {
				if ptClass(byID[want[i-1]]) > ptClass(byID[want[i]]) {
					t.Fatalf("expected order breaks rule 7 at %d", i)
				}
			}
		}
		for _, size := range []int{1, 2, 3, 7, 100} {
			t.Run(fmt.Sprintf("%s/size%d", order, size), func(t *testing.T) {
				opts := billing.ListOptions{PageSize: size, Sort: query.Sort{Field: "poNumber", Order: order}}
				seen := map[int64]int{}
				var got []int64
				for p, err := range c.Invoices.Pages(ctx, &billing.ListInvoicesParams{ListOptions: opts}) {
					if err != nil {
						t.Fatal(err)
					}
					if p.SortExpression != "poNumber" || p.SortOrder != order || p.Count != len(rows) {
						t.Errorf("page %d: X-SortExpression %q, X-SortOrder %q, X-Count %d", p.CurrentPage, p.SortExpression, p.SortOrder, p.Count)
					}
					for _, inv := range p.Items {
						if prev, dup := seen[inv.ID]; dup {
							t.Errorf("invoice %d on pages %d and %d", inv.ID, prev, p.CurrentPage)
						}
						seen[inv.ID] = p.CurrentPage
						got = append(got, inv.ID)
					}
				}
				if !equalIDs(got, want) {
					t.Errorf("order\n got %v\nwant %v", got, want)
				}
				// The customer's list sorts the same way.
				byCustomer := collect(t, projectItems(c.Invoices.AllByCustomer(ctx, cust, &billing.ListCustomerInvoicesParams{ListOptions: opts}), invoiceID))
				if !equalIDs(byCustomer, want) {
					t.Errorf("by customer\n got %v\nwant %v", byCustomer, want)
				}
			})
		}
	}

	// Sorting on a date with ties: every invoice posted at one of two
	// instants; ties go by ascending id in both directions.
	t.Run("date with ties", func(t *testing.T) {
		srv := newFake(t, store)
		cust := m(srv.AddCustomer(billingtest.Customer{FirstName: "Tie"}))
		var early, late []int64
		for i := range 9 {
			inv := ptInvoice(cust, i, "")
			inv.PostedTimestamp = day(2024, 1, 1+i%2)
			id := m(srv.AddInvoice(inv))
			if i%2 == 0 {
				early = append(early, id)
			} else {
				late = append(late, id)
			}
		}
		c := srv.Client()
		for _, tc := range []struct {
			order query.Order
			want  []int64
		}{
			{query.Ascending, append(slices.Clone(early), late...)},
			{query.Descending, append(slices.Clone(late), early...)},
		} {
			opts := billing.ListOptions{PageSize: 2, Sort: query.Sort{Field: "postedTimestamp", Order: tc.order}}
			got := collect(t, projectItems(c.InvoiceSummaries.All(ctx, cust, &billing.ListInvoiceSummariesParams{ListOptions: opts}), summaryID))
			if !equalIDs(got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.order, got, tc.want)
			}
		}
	})
}

// TestPaginationFilteredIteration iterates a filtered list: only matching
// rows, each once, X-Count the matches and X-MaxCount all rows.
func TestPaginationFilteredIteration(t *testing.T) {
	t.Parallel()
	eachStore(t, testPaginationFilteredIteration)
}

func testPaginationFilteredIteration(t *testing.T, store billingtest.Option) {
	ctx := context.Background()
	srv := newFake(t, store)
	m := must(t)
	ada := m(srv.AddCustomer(billingtest.Customer{FirstName: "Ada"}))
	bob := m(srv.AddCustomer(billingtest.Customer{FirstName: "Bob"}))
	var adas, evens []int64
	for i := range 30 {
		cust := ada
		if i%2 == 1 {
			cust = bob
		}
		po := fmt.Sprintf("ODD-%02d", i)
		if i%3 == 0 {
			po = fmt.Sprintf("EVEN-%02d", i)
		}
		id := m(srv.AddInvoice(ptInvoice(cust, i, po)))
		if cust == ada {
			adas = append(adas, id)
			if i%3 == 0 {
				evens = append(evens, id)
			}
		}
	}
	c := srv.Client()
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 4}, Filter: billing.InvoiceFilter{CustomerID: query.Ints{ada}}}
	if got := collect(t, projectItems(c.Invoices.All(ctx, params), invoiceID)); !equalIDs(got, adas) {
		t.Errorf("All with customerId: %v, want %v", got, adas)
	}
	for p, err := range c.Invoices.Pages(ctx, params) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Count != 15 || p.MaxCount != 30 || p.MaxPageIndex != 4 {
			t.Errorf("page %d: X-Count %d, X-MaxCount %d, X-MaxPageIndex %d; want 15, 30, 4", p.CurrentPage, p.Count, p.MaxCount, p.MaxPageIndex)
		}
	}
	if n, err := c.Invoices.Count(ctx, params); err != nil || n != 15 {
		t.Errorf("Count = %d, %v", n, err)
	}

	// A filter and a sort together, on the customer's list.
	want := slices.Clone(evens)
	slices.Reverse(want) // EVEN-nn descending is id descending here
	cparams := &billing.ListCustomerInvoicesParams{
		ListOptions: billing.ListOptions{PageSize: 2, Sort: query.Sort{Field: "poNumber", Order: query.Descending}},
		Filter:      billing.CustomerInvoiceFilter{PoNumber: query.StartsWith("even")},
	}
	if got := collect(t, projectItems(c.Invoices.AllByCustomer(ctx, ada, cparams), invoiceID)); !equalIDs(got, want) {
		t.Errorf("filtered and sorted: %v, want %v", got, want)
	}
	if n, err := c.Invoices.CountByCustomer(ctx, ada, cparams); err != nil || n != len(evens) {
		t.Errorf("CountByCustomer = %d, %v; want %d", n, err, len(evens))
	}
}

// TestPaginationConcurrentAdds iterates while another goroutine adds
// invoices, paced by the iteration so that adds land between page reads:
// the iteration ends once the adds stop, never repeats an id, and sees
// every invoice that existed when it began. (New ids sort last, so an
// offset-paged iteration keeps finding the added rows; as long as adds
// keep pace with reads it cannot end, which is why they are capped.)
func TestPaginationConcurrentAdds(t *testing.T) {
	t.Parallel()
	eachStore(t, testPaginationConcurrentAdds)
}

func testPaginationConcurrentAdds(t *testing.T, store billingtest.Option) {
	const n, adds, size = 23, 150, 5
	f := ptSeed(t, n, store)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	tick := make(chan struct{})
	var wg sync.WaitGroup
	added := 0
	wg.Go(func() {
		for range tick {
			if _, err := f.srv.AddInvoice(ptInvoice(f.customer, n+added, "")); err != nil {
				t.Error(err)
				return
			}
			if added++; added == adds {
				return
			}
		}
	})
	var got []int64
	ticks := 0
	for inv, err := range f.c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: size}}) {
		if err != nil {
			t.Fatalf("iteration failed after %d: %v", len(got), err)
		}
		got = append(got, inv.ID)
		if ticks < adds {
			select {
			case tick <- struct{}{}: // one add per invoice read, done while reading on
			case <-ctx.Done():
			}
			ticks++
		}
	}
	close(tick)
	wg.Wait()

	if ctx.Err() != nil {
		t.Fatal("the iteration did not end in time")
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("ids not strictly ascending at %d: %d after %d (a repeat or a step back)", i, got[i], got[i-1])
		}
	}
	if len(got) < n || !equalIDs(got[:n], f.invoices) {
		t.Errorf("the %d invoices present at the start were not all seen first: %v", n, got)
	}
	if len(got) <= n {
		t.Errorf("no invoice added during the iteration was seen (%d added): the adds did not interleave", added)
	}
	if maxReqs := (n+adds+size-1)/size + 1; len(requestsTo(f.srv, "/v1/Invoices")) > maxReqs {
		t.Errorf("%d requests for at most %d rows", len(requestsTo(f.srv, "/v1/Invoices")), n+adds)
	}
	t.Logf("saw %d invoices; %d were added during the iteration", len(got), added)
}

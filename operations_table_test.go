package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"iter"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// apiOperation describes one operation of the SDK, once: every
// per-operation test reads it from apiOperations. The leak,
// iterator-stop and concurrency tests send call (and, for a list, its
// iterators and count) to a fake seeded by leakServer; FuzzDecodeResponses
// sends fuzz, to answers from memory; the secrets sweep,
// the byte-order-mark test and TestOperationOfEveryMethod run sweep, the
// operation's methods as the sweep calls them, with how each fails.
// TestOperationTableCoversTheSDK fails when an operation the SDK declares
// has no row, or a row lacks a piece its operation needs.
type apiOperation struct {
	name  string            // Operation.Name: "Service.Method"
	route billingtest.Route // the fake's route the operation calls
	call  func(ctx context.Context, c *billing.Client, f leakFixture) error
	// fuzz calls the operation for FuzzDecodeResponses, returning the
	// decoded result, or for the PDF the stream.
	fuzz func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error)
	list *listOperation // set for a list endpoint, nil otherwise
	// sweep holds a sweepOp for each method that sends the operation (for
	// a list: List, All, Pages and Count), named "Service.Method"; its
	// route is the row's.
	sweep []sweepOp
}

// listOperation is what a list endpoint adds: its iterators and count,
// read as the ids they yield so that every list is driven the same way.
type listOperation struct {
	seed       listSeed // the collection of the fake the endpoint reads
	all, pages func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error]
	count      func(ctx context.Context, c *billing.Client, f leakFixture) (int, error)
	missing    []string // the pieces listOf was given as nil
}

// listOf describes a list endpoint of items of type T: seed fills the
// collection it reads, id gives an item's id, all, pages and count call
// the endpoint's iterators and Count. A piece given as nil (a seed without
// add) is recorded in missing, for TestOperationTableCoversTheSDK to
// report, and not called.
func listOf[T any](seed listSeed, id func(T) int64,
	all func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[T, error],
	pages func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[*billing.Page[T], error],
	count func(ctx context.Context, c *billing.Client, f leakFixture) (int, error),
) *listOperation {
	l := &listOperation{seed: seed, count: count}
	if seed.add == nil {
		l.missing = append(l.missing, "seed")
	}
	if id == nil {
		l.missing = append(l.missing, "id")
	}
	if all == nil {
		l.missing = append(l.missing, "all")
	}
	if pages == nil {
		l.missing = append(l.missing, "pages")
	}
	if count == nil {
		l.missing = append(l.missing, "count")
	}
	if len(l.missing) > 0 {
		return l
	}
	l.all = func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error] {
		return itemIDs(all(ctx, c, f, opts...), id)
	}
	l.pages = func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error] {
		return pageIDs(pages(ctx, c, f, opts...), id)
	}
	return l
}

// itemIDs and pageIDs flatten an iterator of items or of pages into the
// ids it yields.
func itemIDs[T any](seq iter.Seq2[T, error], id func(T) int64) iter.Seq2[int64, error] {
	return func(yield func(int64, error) bool) {
		for it, err := range seq {
			if err != nil {
				yield(0, err)
				return
			}
			if !yield(id(it), nil) {
				return
			}
		}
	}
}

func pageIDs[T any](seq iter.Seq2[*billing.Page[T], error], id func(T) int64) iter.Seq2[int64, error] {
	return func(yield func(int64, error) bool) {
		for p, err := range seq {
			if err != nil {
				yield(0, err)
				return
			}
			for _, it := range p.Items {
				if !yield(id(it), nil) {
					return
				}
			}
		}
	}
}

// listSeed is a collection of the fake that list rows read: add puts its
// i-th item under f's parents (f.customer, f.product), posted or created
// at at (the zero time: the fake's clock), and returns the id the rows'
// iterators yield for it. Rows that read the same collection share its
// listSeed, so that leakServer and TestStableOnEveryEndpoint, which seed
// every collection of the table (listSeeds), seed it once.
type listSeed struct {
	name string
	add  func(srv *billingtest.Server, f leakFixture, i int, at time.Time) (int64, error)
}

var (
	// invoiceSeed is a customer's invoices: Invoices.List,
	// Invoices.ListByCustomer and InvoiceSummaries.List read them.
	// Amounts and balances differ from invoice to invoice, as a real
	// account's do: stable iteration splits a second larger than a page
	// on them.
	invoiceSeed = listSeed{"invoices", func(srv *billingtest.Server, f leakFixture, i int, at time.Time) (int64, error) {
		balance := decimal.New(int64(i*7919%100000), -2)
		return srv.AddInvoice(billingtest.Invoice{
			CustomerID: f.customer, PostedTimestamp: at, ModifiedTimestamp: at,
			OpeningArBalance: balance, ClosingArBalance: balance.Add(decimal.NewFromInt(10)),
			Charges: []billingtest.Charge{seat(i)},
		})
	}}
	// itemSeed is a subscription product's items.
	itemSeed = listSeed{"subscription items", func(srv *billingtest.Server, f leakFixture, i int, at time.Time) (int64, error) {
		return srv.AddSubscriptionProductItem(billingtest.SubscriptionProductItem{SubscriptionProductID: f.product, Name: fmt.Sprint("item ", i), CreatedDate: at})
	}}
)

// listSeeds are the collections the table's list rows read, each once, in
// the table's order.
func listSeeds() []listSeed {
	var seeds []listSeed
	for _, op := range apiOperations() {
		if op.list != nil && op.list.seed.add != nil && !slices.ContainsFunc(seeds, func(s listSeed) bool { return s.name == op.list.seed.name }) {
			seeds = append(seeds, op.list.seed)
		}
	}
	return seeds
}

func invoiceID(v billing.Invoice) int64              { return v.ID }
func summaryID(v billing.InvoiceSummary) int64       { return v.ID }
func itemID(v billing.SubscriptionProductItem) int64 { return v.ID }

// listOpts are the list options of the table's iterators: pages of
// f.pageSize, leakPageSize when it is 0.
func listOpts(f leakFixture) billing.ListOptions {
	if f.pageSize == 0 {
		return billing.ListOptions{PageSize: leakPageSize}
	}
	return billing.ListOptions{PageSize: f.pageSize}
}

// leakOp is one operation as one call.
type leakOp struct {
	name  string
	route billingtest.Route
	call  func(ctx context.Context, c *billing.Client, f leakFixture) error
}

// leakOps are the operations of the table, each as one call.
func leakOps() []leakOp {
	var ops []leakOp
	for _, op := range apiOperations() {
		if op.call != nil {
			ops = append(ops, leakOp{op.name, op.route, op.call})
		}
	}
	return ops
}

// leakIterator is one iterator of a list endpoint; count is set on the
// All iterators, to the endpoint's Count.
type leakIterator struct {
	name  string
	route billingtest.Route
	seq   func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error]
	count func(ctx context.Context, c *billing.Client, f leakFixture) (int, error)
}

// leakIterators are the All and Pages iterators of the list endpoints of
// the table, named as the methods ("Invoices.AllByCustomer").
func leakIterators() []leakIterator {
	var its []leakIterator
	for _, op := range apiOperations() {
		if op.list == nil || len(op.list.missing) > 0 {
			continue
		}
		its = append(its,
			leakIterator{strings.Replace(op.name, ".List", ".All", 1), op.route, op.list.all, op.list.count},
			leakIterator{strings.Replace(op.name, ".List", ".Pages", 1), op.route, op.list.pages, nil})
	}
	return its
}

// sweepOps are the sweep's operations of every row, routed as the row.
func sweepOps() []sweepOp {
	var ops []sweepOp
	for _, op := range apiOperations() {
		for _, s := range op.sweep {
			s.route = op.route
			ops = append(ops, s)
		}
	}
	return ops
}

// httpMethods maps the net/http constants the SDK's operations name to
// their methods.
var httpMethods = map[string]string{
	"MethodGet": http.MethodGet, "MethodPost": http.MethodPost, "MethodPut": http.MethodPut,
	"MethodPatch": http.MethodPatch, "MethodDelete": http.MethodDelete,
}

// declaredOperations reads the package's source and returns every
// Operation it declares (a composite literal billing.Operation{Name: ...}),
// keyed by name. A method given as an expression (Client.Do's
// req.Method) is left empty.
func declaredOperations(t *testing.T) map[string]billing.Operation {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	ops := map[string]billing.Operation{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "Operation" {
				return true
			}
			var op billing.Operation
			for _, el := range lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				key, _ := kv.Key.(*ast.Ident)
				var value string
				switch v := kv.Value.(type) {
				case *ast.BasicLit:
					value, _ = strconv.Unquote(v.Value)
				case *ast.SelectorExpr:
					value = httpMethods[v.Sel.Name]
				}
				switch {
				case key == nil:
				case key.Name == "Name":
					op.Name = value
				case key.Name == "Method":
					op.Method = value
				case key.Name == "PathTemplate":
					op.PathTemplate = value
				}
			}
			if op.Name != "" {
				ops[op.Name] = op
			}
			return true
		})
	}
	return ops
}

// TestOperationTableCoversTheSDK checks apiOperations against the
// package's source: a row for every Operation the SDK declares and none
// for another; a call and a sweep for each, the sweep's first method the
// operation's own; and for a list endpoint (an operation that an All,
// Pages or Count method sends, by its "API:" line) every piece of its
// list, and none on another operation; and README.md's table of
// operations for each.
func TestOperationTableCoversTheSDK(t *testing.T) {
	t.Parallel()
	declared := declaredOperations(t)
	if len(declared) == 0 {
		t.Fatal("no Operation declared in the package's source: the reader is broken")
	}
	listRoutes := map[string]bool{}
	for method, route := range documentedRoutes(t) {
		_, name, _ := strings.Cut(method, ".")
		if strings.HasPrefix(name, "All") || strings.HasPrefix(name, "Pages") || strings.HasPrefix(name, "Count") {
			listRoutes[route] = true
		}
	}
	rows := map[string]apiOperation{}
	for _, op := range apiOperations() {
		if _, dup := rows[op.name]; dup {
			t.Errorf("%s: two rows", op.name)
		}
		rows[op.name] = op
	}
	for _, name := range slices.Sorted(maps.Keys(declared)) {
		op, ok := rows[name]
		if !ok {
			t.Errorf("%s: declared by the SDK, no row in apiOperations", name)
			continue
		}
		if op.route == "" || op.call == nil || op.fuzz == nil {
			t.Errorf("%s: the row has no route, call or fuzz", name)
		}
		// The fake names each route as the SDK does, so that code matching
		// one against the other by string (faults, request logs) finds it.
		if name != "Client.Do" && string(op.route) != declared[name].Route() {
			t.Errorf("%s: the fake's route is %q, the SDK's %q", name, op.route, declared[name].Route())
		}
		if len(op.sweep) == 0 {
			t.Errorf("%s: the row has no sweep", name)
		} else if first, _, _ := strings.Cut(op.sweep[0].name, "/"); first != name {
			t.Errorf("%s: the sweep's first method is %s, want the operation's own", name, op.sweep[0].name)
		}
		for _, s := range op.sweep {
			if s.run == nil {
				t.Errorf("%s: sweep %s has no run", name, s.name)
			}
		}
		isList := listRoutes[declared[name].Route()]
		switch {
		case isList && op.list == nil:
			t.Errorf("%s: a list endpoint, the row has no list (listOf)", name)
		case isList && len(op.list.missing) > 0:
			t.Errorf("%s: the row's list lacks %s", name, strings.Join(op.list.missing, ", "))
		case !isList && op.list != nil:
			t.Errorf("%s: not a list endpoint, the row has a list", name)
		}
	}
	for name := range rows {
		if _, ok := declared[name]; !ok {
			t.Errorf("%s: a row for an operation the SDK does not declare", name)
		}
	}
	// README.md's table of operations names each one's method.
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(declared)) {
		if name != "Client.Do" && !strings.Contains(string(readme), "| `c."+name+"`") {
			t.Errorf("%s: not in README.md's table of operations", name)
		}
	}
}

// TestListOfReportsMissingPieces checks that a list row built without a
// piece is reported, not called: the table test names what is missing.
func TestListOfReportsMissingPieces(t *testing.T) {
	t.Parallel()
	all := func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[billing.Invoice, error] {
		return c.Invoices.All(ctx, nil, opts...)
	}
	pages := func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[*billing.Page[billing.Invoice], error] {
		return c.Invoices.Pages(ctx, nil, opts...)
	}
	count := func(ctx context.Context, c *billing.Client, f leakFixture) (int, error) {
		return c.Invoices.Count(ctx, nil)
	}
	tests := []struct {
		name string
		list *listOperation
		want []string
	}{
		{"complete", listOf(invoiceSeed, invoiceID, all, pages, count), nil},
		{"no seed", listOf(listSeed{name: "invoices"}, invoiceID, all, pages, count), []string{"seed"}},
		{"no id", listOf(invoiceSeed, nil, all, pages, count), []string{"id"}},
		{"no iterators", listOf(invoiceSeed, invoiceID, nil, nil, count), []string{"all", "pages"}},
		{"no count", listOf(invoiceSeed, invoiceID, all, pages, nil), []string{"count"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if d := diff(tc.want, tc.list.missing); d != "" {
				t.Errorf("missing (-want +got):\n%s", d)
			}
			if complete := tc.list.all != nil && tc.list.pages != nil; complete != (tc.want == nil) {
				t.Errorf("iterators set = %v, want %v", complete, tc.want == nil)
			}
		})
	}
}

// apiOperations is the table: every operation of the SDK, once.
func apiOperations() []apiOperation {
	return []apiOperation{
		{
			name: "Invoices.List", route: billingtest.RouteInvoicesList,
			fuzz: func(ctx context.Context, c *billing.Client, _ fuzzIDs) (any, io.ReadCloser, error) {
				r, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 10}})
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				return errOf(c.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: leakPageSize}}))
			},
			list: listOf(invoiceSeed, invoiceID,
				func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[billing.Invoice, error] {
					return c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: listOpts(f)}, opts...)
				},
				func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[*billing.Page[billing.Invoice], error] {
					return c.Invoices.Pages(ctx, &billing.ListInvoicesParams{ListOptions: listOpts(f)}, opts...)
				},
				func(ctx context.Context, c *billing.Client, f leakFixture) (int, error) {
					return c.Invoices.Count(ctx, nil)
				}),
			sweep: []sweepOp{
				{
					name: "Invoices.List",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListInvoicesParams{ListOptions: sweepListOptions(in), Filter: billing.InvoiceFilter{PoNumber: query.StartsWith("PO-"), Raw: in.raw}}
						r, err := c.Invoices.List(ctx, p, opts...)
						return sweepOutcome{[]any{p}, r, err}
					},
					fails: []sweepFail{sweepRefusedQuery, sweepBadPage},
				},
				{
					name: "Invoices.All",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListInvoicesParams{ListOptions: sweepListOptions(in)}
						r, err := sweepAll(c.Invoices.All(ctx, p, billing.EachRequest(opts...)))
						return sweepOutcome{[]any{p}, r, err}
					},
					fails: []sweepFail{sweepBadSort},
				},
				{
					name: "Invoices.Pages",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListInvoicesParams{ListOptions: sweepListOptions(in), Filter: billing.InvoiceFilter{Raw: in.raw}}
						r, err := sweepPages(c.Invoices.Pages(ctx, p, billing.EachRequest(opts...)))
						return sweepOutcome{[]any{p}, r, err}
					},
					fails: []sweepFail{sweepRefusedQuery, sweepBadPage},
				},
				{
					name: "Invoices.Count",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListInvoicesParams{ListOptions: sweepListOptions(in)}
						r, err := c.Invoices.Count(ctx, p, opts...)
						return sweepOutcome{[]any{p}, r, err}
					},
					fails: []sweepFail{sweepBadSort},
				},
			},
		},
		{
			name: "Invoices.ListByCustomer", route: billingtest.RouteInvoicesListByCustomer,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				r, err := c.Invoices.ListByCustomer(ctx, ids.customer, &billing.ListCustomerInvoicesParams{ShowTrackedItems: true})
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				return errOf(c.Invoices.ListByCustomer(ctx, f.customer, nil))
			},
			list: listOf(invoiceSeed, invoiceID,
				func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[billing.Invoice, error] {
					return c.Invoices.AllByCustomer(ctx, f.customer, &billing.ListCustomerInvoicesParams{ListOptions: listOpts(f)}, opts...)
				},
				func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[*billing.Page[billing.Invoice], error] {
					return c.Invoices.PagesByCustomer(ctx, f.customer, &billing.ListCustomerInvoicesParams{ListOptions: listOpts(f)}, opts...)
				},
				func(ctx context.Context, c *billing.Client, f leakFixture) (int, error) {
					return c.Invoices.CountByCustomer(ctx, f.customer, nil)
				}),
			sweep: []sweepOp{
				{
					name: "Invoices.ListByCustomer",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListCustomerInvoicesParams{ListOptions: sweepListOptions(in), ShowTrackedItems: true, Filter: billing.CustomerInvoiceFilter{Raw: in.raw}}
						r, err := c.Invoices.ListByCustomer(ctx, in.customer, p, opts...)
						return sweepOutcome{[]any{in.customer, p}, r, err}
					},
					fails: []sweepFail{sweepNoCustomer, sweepRefusedQuery, sweepZeroCustomer},
				},
				{
					name: "Invoices.AllByCustomer",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListCustomerInvoicesParams{ListOptions: sweepListOptions(in)}
						r, err := sweepAll(c.Invoices.AllByCustomer(ctx, in.customer, p, billing.EachRequest(opts...)))
						return sweepOutcome{[]any{in.customer, p}, r, err}
					},
					fails: []sweepFail{sweepNoCustomer, sweepZeroCustomer},
				},
				{
					name: "Invoices.PagesByCustomer",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListCustomerInvoicesParams{ListOptions: sweepListOptions(in)}
						r, err := sweepPages(c.Invoices.PagesByCustomer(ctx, in.customer, p, billing.EachRequest(opts...)))
						return sweepOutcome{[]any{in.customer, p}, r, err}
					},
					fails: []sweepFail{sweepNoCustomer, sweepBadSort},
				},
				{
					name: "Invoices.CountByCustomer",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListCustomerInvoicesParams{ListOptions: sweepListOptions(in)}
						r, err := c.Invoices.CountByCustomer(ctx, in.customer, p, opts...)
						return sweepOutcome{[]any{in.customer, p}, r, err}
					},
					fails: []sweepFail{sweepNoCustomer, sweepZeroCustomer},
				},
			},
		},
		{
			name: "Invoices.Get", route: billingtest.RouteInvoicesGet,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				r, err := c.Invoices.Get(ctx, ids.invoice, &billing.GetInvoiceParams{GroupCharges: ids.invoice%2 == 1})
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				return errOf(c.Invoices.Get(ctx, f.invoice, &billing.GetInvoiceParams{GroupCharges: true}))
			},
			sweep: []sweepOp{
				{
					name: "Invoices.Get",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.GetInvoiceParams{GroupCharges: true, ShowTrackedItems: true}
						r, err := c.Invoices.Get(ctx, in.invoice, p, opts...)
						return sweepOutcome{[]any{in.invoice, p}, r, err}
					},
					fails: []sweepFail{
						{"404", http.StatusNotFound, func(fx sweepFixture, in *sweepIn) { in.invoice = fx.unknownInvoice }},
						{"validation", 0, func(_ sweepFixture, in *sweepIn) { in.invoice = 0 }},
					},
				},
			},
		},

		{
			name: "InvoiceSummaries.List", route: billingtest.RouteInvoiceSummariesList,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				r, err := c.InvoiceSummaries.List(ctx, ids.customer, nil)
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				return errOf(c.InvoiceSummaries.List(ctx, f.customer, nil))
			},
			list: listOf(invoiceSeed, summaryID,
				func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[billing.InvoiceSummary, error] {
					return c.InvoiceSummaries.All(ctx, f.customer, &billing.ListInvoiceSummariesParams{ListOptions: listOpts(f)}, opts...)
				},
				func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[*billing.Page[billing.InvoiceSummary], error] {
					return c.InvoiceSummaries.Pages(ctx, f.customer, &billing.ListInvoiceSummariesParams{ListOptions: listOpts(f)}, opts...)
				},
				func(ctx context.Context, c *billing.Client, f leakFixture) (int, error) {
					return c.InvoiceSummaries.Count(ctx, f.customer, nil)
				}),
			sweep: []sweepOp{
				{
					name: "InvoiceSummaries.List",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListInvoiceSummariesParams{ListOptions: sweepListOptions(in), Filter: billing.InvoiceSummaryFilter{Raw: in.raw}}
						r, err := c.InvoiceSummaries.List(ctx, in.customer, p, opts...)
						return sweepOutcome{[]any{in.customer, p}, r, err}
					},
					fails: []sweepFail{sweepNoCustomer, sweepRefusedQuery, sweepBadSort},
				},
				{
					name: "InvoiceSummaries.All",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListInvoiceSummariesParams{ListOptions: sweepListOptions(in)}
						r, err := sweepAll(c.InvoiceSummaries.All(ctx, in.customer, p, billing.EachRequest(opts...)))
						return sweepOutcome{[]any{in.customer, p}, r, err}
					},
					fails: []sweepFail{sweepNoCustomer, sweepBadSort},
				},
				{
					name: "InvoiceSummaries.Pages",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListInvoiceSummariesParams{ListOptions: sweepListOptions(in)}
						r, err := sweepPages(c.InvoiceSummaries.Pages(ctx, in.customer, p, billing.EachRequest(opts...)))
						return sweepOutcome{[]any{in.customer, p}, r, err}
					},
					fails: []sweepFail{sweepNoCustomer, sweepZeroCustomer},
				},
				{
					name: "InvoiceSummaries.Count",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListInvoiceSummariesParams{ListOptions: sweepListOptions(in)}
						r, err := c.InvoiceSummaries.Count(ctx, in.customer, p, opts...)
						return sweepOutcome{[]any{in.customer, p}, r, err}
					},
					fails: []sweepFail{sweepNoCustomer, sweepBadSort},
				},
			},
		},
		{
			name: "DraftInvoices.PDF", route: billingtest.RouteDraftInvoicesPDF,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				rc, err := c.DraftInvoices.PDF(ctx, ids.draft, &billing.DraftPDFParams{ShowTrackedItems: true})
				return nil, rc, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				rc, err := c.DraftInvoices.PDF(ctx, f.draft, nil)
				if err != nil {
					return err
				}
				defer rc.Close()
				_, err = io.Copy(io.Discard, rc)
				return err
			},
			sweep: []sweepOp{
				{
					name: "DraftInvoices.PDF",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.DraftPDFParams{ShowTrackedItems: true}
						rc, err := c.DraftInvoices.PDF(ctx, in.draft, p, opts...)
						if err != nil {
							return sweepOutcome{[]any{in.draft, p}, rc, err}
						}
						n, err := io.Copy(io.Discard, rc)
						if cerr := rc.Close(); err == nil {
							err = cerr
						}
						if err == nil && n == 0 {
							err = errors.New("empty PDF")
						}
						return sweepOutcome{[]any{in.draft, p}, rc, err}
					},
					fails: []sweepFail{
						{"404", http.StatusNotFound, func(fx sweepFixture, in *sweepIn) { in.draft = fx.unknownDraft }},
						{"validation", 0, func(_ sweepFixture, in *sweepIn) { in.draft = -5 }},
					},
				},
			},
		},
		{
			name: "Invoices.WriteOff", route: billingtest.RouteInvoicesWriteOff,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				amount := ids.amount
				r, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: ids.invoice, Amount: &amount, Reference: "fuzz"})
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				return errOf(c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: f.invoice, Amount: &f.balance}))
			},
			sweep: []sweepOp{
				{
					name: "Invoices.WriteOff", write: true,
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.WriteOffParams{InvoiceID: in.invoice, Amount: in.amount, Reference: "WO-S1"}
						r, err := c.Invoices.WriteOff(ctx, p, opts...)
						return sweepOutcome{[]any{p}, r, err}
					},
					fails: []sweepFail{
						{"400 partial", http.StatusBadRequest, func(_ sweepFixture, in *sweepIn) { one := decimal.RequireFromString("1"); in.amount = &one }},
						{"404", http.StatusNotFound, func(fx sweepFixture, in *sweepIn) { in.invoice = fx.unknownInvoice }},
						{"validation", 0, func(_ sweepFixture, in *sweepIn) { neg := decimal.RequireFromString("-1"); in.amount = &neg }},
					},
				},
			},
		},
		{
			name: "PaymentMethods.ReplaceCreditCard", route: billingtest.RoutePaymentMethodsReplaceCreditCard,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				r, err := c.PaymentMethods.ReplaceCreditCard(ctx, &billing.ReplaceCreditCardParams{
					ID: ids.card, CustomerID: ids.customer, CardNumber: fuzzCard, CVV: fuzzCVV,
					FirstName: "Ada", LastName: "Lovelace", ExpirationMonth: 7, ExpirationYear: 29,
				})
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				_, err := c.PaymentMethods.ReplaceCreditCard(ctx, &billing.ReplaceCreditCardParams{
					ID: f.card, CustomerID: f.payer, CardNumber: "4111111111111111", CVV: "123", ExpirationMonth: 12, ExpirationYear: 30,
				})
				return err
			},
			sweep: []sweepOp{
				sweepCardOp("PaymentMethods.ReplaceCreditCard/card1", sweepCard1, sweepCVV1,
					func(fx sweepFixture) int64 { return fx.card1 }, func(fx sweepFixture) int64 { return fx.customer },
					sweepFail{"400 deleted", http.StatusBadRequest, func(fx sweepFixture, in *sweepIn) { in.card = fx.deletedCard }}),
				sweepCardOp("PaymentMethods.ReplaceCreditCard/card2", sweepCard2, sweepCVV2,
					func(fx sweepFixture) int64 { return fx.card2 }, func(fx sweepFixture) int64 { return fx.customer2 },
					sweepFail{"400 replaced", http.StatusBadRequest, func(fx sweepFixture, in *sweepIn) { in.card = fx.replacedCard }}),
			},
		},
		{
			name: "PaymentMethods.CreateWalletAgreement", route: billingtest.RoutePaymentMethodsCreateWalletAgreement,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				r, err := c.PaymentMethods.CreateWalletAgreement(ctx, billing.WalletProvider(ids.provider), &billing.WalletAgreementParams{
					Token: "EC-FUZZ", CustomerID: ids.customer, Source: billing.PaymentSourceManual,
				})
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				return errOf(c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{Token: "tok-1", CustomerID: f.payer, Source: billing.PaymentSourceManual}))
			},
			sweep: []sweepOp{
				{
					name: "PaymentMethods.CreateWalletAgreement", write: true,
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.WalletAgreementParams{
							Token: "EC-SWEEP", CustomerID: in.customer, Source: in.source,
							PaymentCollectOptions: &billing.PaymentCollectOptions{CollectionAmount: decimal.RequireFromString("2")},
						}
						r, err := c.PaymentMethods.CreateWalletAgreement(ctx, billing.WalletProvider(in.provider), p, opts...)
						return sweepOutcome{[]any{in.provider, p}, r, err}
					},
					fails: []sweepFail{
						{"400 source", http.StatusBadRequest, func(_ sweepFixture, in *sweepIn) { in.source = "Bogus" }},
						{"404 provider", http.StatusNotFound, func(_ sweepFixture, in *sweepIn) { in.provider = "Venmo" }},
						{"validation", 0, func(_ sweepFixture, in *sweepIn) { in.provider = "Pay/pal" }},
					},
				},
			},
		},
		{
			name: "SalesTrackingCodes.Create", route: billingtest.RouteSalesTrackingCodesCreate,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				r, err := c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{
					Type: ids.codeType, Code: ids.code, Name: "Fuzz", Description: "seed",
				})
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				return errOf(c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType2, Code: "LEAK", Name: "Leak check"}))
			},
			sweep: []sweepOp{
				{
					name: "SalesTrackingCodes.Create", write: true,
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.CreateSalesTrackingCodeParams{Type: in.codeType, Code: in.code, Name: "Sweep", Description: "d", Email: "s@sweep.example"}
						r, err := c.SalesTrackingCodes.Create(ctx, p, opts...)
						return sweepOutcome{[]any{p}, r, err}
					},
					fails: []sweepFail{
						{"409 duplicate", http.StatusConflict, func(fx sweepFixture, in *sweepIn) { in.codeType, in.code = fx.existingCodeType, fx.existingCode }},
						{"400 type", http.StatusBadRequest, func(_ sweepFixture, in *sweepIn) { in.codeType = "Sales Tracking Code 6" }},
						{"validation", 0, func(_ sweepFixture, in *sweepIn) { in.code = "" }},
					},
				},
			},
		},
		{
			name: "SubscriptionItems.List", route: billingtest.RouteSubscriptionItemsList,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				r, err := c.SubscriptionItems.List(ctx, ids.product, nil)
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				return errOf(c.SubscriptionItems.List(ctx, f.product, nil))
			},
			list: listOf(itemSeed, itemID,
				func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[billing.SubscriptionProductItem, error] {
					return c.SubscriptionItems.All(ctx, f.product, &billing.ListSubscriptionItemsParams{ListOptions: listOpts(f)}, opts...)
				},
				func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[*billing.Page[billing.SubscriptionProductItem], error] {
					return c.SubscriptionItems.Pages(ctx, f.product, &billing.ListSubscriptionItemsParams{ListOptions: listOpts(f)}, opts...)
				},
				func(ctx context.Context, c *billing.Client, f leakFixture) (int, error) {
					return c.SubscriptionItems.Count(ctx, f.product, nil)
				}),
			sweep: []sweepOp{
				{
					name: "SubscriptionItems.List",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListSubscriptionItemsParams{ListOptions: sweepListOptions(in), Filter: billing.SubscriptionProductItemFilter{Raw: in.raw}}
						r, err := c.SubscriptionItems.List(ctx, in.product, p, opts...)
						return sweepOutcome{[]any{in.product, p}, r, err}
					},
					fails: []sweepFail{sweepNoProduct, sweepRefusedQuery, sweepZeroProduct},
				},
				{
					name: "SubscriptionItems.All",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListSubscriptionItemsParams{ListOptions: sweepListOptions(in)}
						r, err := sweepAll(c.SubscriptionItems.All(ctx, in.product, p, billing.EachRequest(opts...)))
						return sweepOutcome{[]any{in.product, p}, r, err}
					},
					fails: []sweepFail{sweepNoProduct, sweepZeroProduct},
				},
				{
					name: "SubscriptionItems.Pages",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListSubscriptionItemsParams{ListOptions: sweepListOptions(in)}
						r, err := sweepPages(c.SubscriptionItems.Pages(ctx, in.product, p, billing.EachRequest(opts...)))
						return sweepOutcome{[]any{in.product, p}, r, err}
					},
					fails: []sweepFail{sweepNoProduct, sweepBadSort},
				},
				{
					name: "SubscriptionItems.Count",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.ListSubscriptionItemsParams{ListOptions: sweepListOptions(in)}
						r, err := c.SubscriptionItems.Count(ctx, in.product, p, opts...)
						return sweepOutcome{[]any{in.product, p}, r, err}
					},
					fails: []sweepFail{sweepNoProduct, sweepZeroProduct},
				},
			},
		},
		{
			name: "Bulk.PreviewPriceChange", route: billingtest.RouteBulkPreviewPriceChange,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				r, err := c.Bulk.PreviewPriceChange(ctx, ids.plan, &billing.BulkPriceChangeParams{SelectAll: true})
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				return errOf(c.Bulk.PreviewPriceChange(ctx, f.plan, &billing.BulkPriceChangeParams{SelectAll: true}))
			},
			sweep: []sweepOp{
				{
					name: "Bulk.PreviewPriceChange",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						p := &billing.BulkPriceChangeParams{SelectAll: true, Query: billing.SubscriberFilter{CompanyName: query.StartsWith("Sweep")}}
						if in.queryAndOptions {
							p.FilterOptions = &billing.BulkFilterOptions{Intervals: []billing.Interval{billing.IntervalMonthly}}
						}
						r, err := c.Bulk.PreviewPriceChange(ctx, in.plan, p, opts...)
						return sweepOutcome{[]any{in.plan, p}, r, err}
					},
					fails: []sweepFail{
						{"404", http.StatusNotFound, func(fx sweepFixture, in *sweepIn) { in.plan = fx.unknownPlan }},
						{"validation", 0, func(_ sweepFixture, in *sweepIn) { in.queryAndOptions = true }},
					},
				},
			},
		},
		{
			name: "Bulk.Process", route: billingtest.RouteBulkProcess,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				r, err := c.Bulk.Process(ctx, ids.job)
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				return errOf(c.Bulk.Process(ctx, f.job))
			},
			sweep: []sweepOp{
				{
					name: "Bulk.Process", write: true,
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						r, err := c.Bulk.Process(ctx, in.job, opts...)
						return sweepOutcome{[]any{in.job}, r, err}
					},
					fails: []sweepFail{
						{"409 not validated", http.StatusConflict, func(fx sweepFixture, in *sweepIn) { in.job = fx.unvalidatedJob }},
						{"409 processed", http.StatusConflict, func(fx sweepFixture, in *sweepIn) { in.job = fx.processedJob }},
						{"404", http.StatusNotFound, func(fx sweepFixture, in *sweepIn) { in.job = fx.unknownJb }},
						{"validation", 0, func(_ sweepFixture, in *sweepIn) { in.job = 0 }},
					},
				},
			},
		},
		{
			name: "Client.Do", route: billingtest.RouteInvoicesGet,
			fuzz: func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error) {
				var out json.RawMessage
				r, err := c.Do(ctx, &billing.Request{Method: http.MethodGet, Path: "/v1/Invoices/" + strconv.FormatInt(ids.invoice, 10)}, &out)
				return r, nil, err
			},
			call: func(ctx context.Context, c *billing.Client, f leakFixture) error {
				var out json.RawMessage
				_, err := c.Do(ctx, &billing.Request{Method: http.MethodGet, Path: "/v1/Invoices/" + strconv.FormatInt(f.invoice, 10)}, &out)
				return err
			},
			sweep: []sweepOp{
				{
					name: "Client.Do",
					run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
						req := &billing.Request{Method: http.MethodGet, Path: "/v1/Invoices/" + strconv.FormatInt(in.invoice, 10)}
						var out json.RawMessage
						r, err := c.Do(ctx, req, &out, opts...)
						if err != nil {
							return sweepOutcome{[]any{req}, r, err}
						}
						return sweepOutcome{[]any{req, string(out)}, r, err}
					},
					fails: []sweepFail{
						{"404", http.StatusNotFound, func(fx sweepFixture, in *sweepIn) { in.invoice = fx.unknownInvoice }},
					},
				},
			},
		}}
}

package billing_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/shopspring/decimal"
)

// Every operation and every iterator, run to the end, broken off, cancelled
// and failed, leaves no goroutine behind (verifyNoLeaks, from
// prefetch_test.go, checks when the test and its servers are done). Run
// under -race, these tests also check that nothing the SDK shares between
// goroutines is touched without synchronisation.

// leakItems is how many items each list holds: four pages of leakPageSize.
const (
	leakItems    = 40
	leakPageSize = 10
)

// leakFixture is what the operations act on.
type leakFixture struct {
	customer, invoice, draft, card, job, plan, product int64
	balance                                            decimal.Decimal
}

// leakServer starts a fake (closed before verifyNoLeaks checks, which the
// caller registered first) seeded with lists of leakItems and one of each
// thing the writes act on.
func leakServer(t *testing.T) (*billingtest.Server, leakFixture) {
	t.Helper()
	srv := billingtest.NewServer()
	t.Cleanup(srv.Close)
	var f leakFixture
	var firstErr error
	must := func(id int64, err error) int64 {
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return id
	}
	f.customer = must(srv.AddCustomer(billingtest.Customer{FirstName: "Grace", LastName: "Hopper"}))
	for i := range leakItems {
		amount := decimal.NewFromInt(int64(10 + i))
		id := must(srv.AddInvoice(billingtest.Invoice{CustomerID: f.customer, Charges: []billingtest.Charge{
			{Name: "Plan", Quantity: decimal.NewFromInt(1), UnitPrice: amount, Amount: amount},
		}}))
		if i == 0 {
			f.invoice = id
		}
	}
	f.draft = must(srv.AddDraftInvoice(billingtest.DraftInvoice{CustomerID: f.customer, Lines: []billingtest.DraftLine{
		{Description: "Plan", Quantity: decimal.NewFromInt(1), Amount: decimal.NewFromInt(99)},
	}}))
	f.card = must(srv.AddCreditCard(billingtest.CreditCard{CustomerID: f.customer, Last4: "0004", CardType: "Visa", ExpirationMonth: 1, ExpirationYear: 27}))
	f.job = must(srv.AddBulkJob(billingtest.BulkJob{Type: "PriceChange", Validated: true}))
	f.plan = 900
	sub := must(srv.AddSubscription(billingtest.Subscription{CustomerID: f.customer, PlanID: f.plan, Name: "Gold", Products: []billingtest.SubscriptionProduct{
		{PlanProductID: 901, ProductID: 902, Name: "Seat", Price: decimal.NewFromInt(10), PlanPrice: decimal.NewFromInt(12)},
	}}))
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	s, _ := srv.Subscription(sub)
	f.product = s.Products[0].ID
	for i := range leakItems {
		must(srv.AddSubscriptionProductItem(billingtest.SubscriptionProductItem{SubscriptionProductID: f.product, Name: fmt.Sprintf("item %d", i)}))
	}
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	inv, _ := srv.Invoice(f.invoice)
	f.balance = inv.OutstandingBalance
	return srv, f
}

// leakClient is a client of the fake that retries once, without waiting
// long.
func leakClient(srv *billingtest.Server) *billing.Client {
	return srv.Client(billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second}))
}

// leakClientFailingAfterFirst is leakClient on a transport that answers
// every request after the first with a 500 and the API's error body, on a
// connection pool of its own, emptied before the leak check.
func leakClientFailingAfterFirst(t *testing.T, srv *billingtest.Server) *billing.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return srv.Client(
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second}),
		billing.WithHTTPClient(&http.Client{Transport: &failingAfterFirst{next: tr}}),
	)
}

// failingAfterFirst passes the first request to next and answers every
// later one with a 500 itself, whichever goroutine sends it and whenever:
// which requests fail does not depend on scheduling.
type failingAfterFirst struct {
	next http.RoundTripper
	sent atomic.Int32
}

func (f *failingAfterFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.sent.Add(1) == 1 {
		return f.next.RoundTrip(r)
	}
	if r.Body != nil {
		_ = r.Body.Close()
	}
	body := errorBody(http.StatusInternalServerError, "Api Error", "failing after the first request")
	return &http.Response{
		Status: "500 Internal Server Error", StatusCode: http.StatusInternalServerError,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       r,
	}, nil
}

// The twelve operations of the API, each as one call.
var leakOps = []struct {
	name  string
	route billingtest.Route
	call  func(ctx context.Context, c *billing.Client, f leakFixture) error
}{
	{"Invoices.List", billingtest.RouteInvoicesList, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		_, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: leakPageSize}})
		return err
	}},
	{"Invoices.ListByCustomer", billingtest.RouteInvoicesListByCustomer, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		_, err := c.Invoices.ListByCustomer(ctx, f.customer, nil)
		return err
	}},
	{"Invoices.Get", billingtest.RouteInvoicesGet, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		_, err := c.Invoices.Get(ctx, f.invoice, &billing.GetInvoiceParams{GroupCharges: true})
		return err
	}},
	{"InvoiceSummaries.List", billingtest.RouteInvoiceSummariesList, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		_, err := c.InvoiceSummaries.List(ctx, f.customer, nil)
		return err
	}},
	{"DraftInvoices.PDF", billingtest.RouteDraftInvoicesPDF, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		rc, err := c.DraftInvoices.PDF(ctx, f.draft, nil)
		if err != nil {
			return err
		}
		defer rc.Close()
		_, err = io.Copy(io.Discard, rc)
		return err
	}},
	{"Invoices.WriteOff", billingtest.RouteInvoicesWriteOff, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		_, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: f.invoice, Amount: &f.balance})
		return err
	}},
	{"PaymentMethods.ReplaceCreditCard", billingtest.RoutePaymentMethodsReplaceCreditCard, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		_, err := c.PaymentMethods.ReplaceCreditCard(ctx, &billing.ReplaceCreditCardParams{
			ID: f.card, CustomerID: f.customer, CardNumber: "4111111111111111", CVV: "123", ExpirationMonth: 12, ExpirationYear: 30,
		})
		return err
	}},
	{"PaymentMethods.CreateWalletAgreement", billingtest.RoutePaymentMethodsCreateWalletAgreement, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		_, err := c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{Token: "tok-1", CustomerID: f.customer, Source: billing.PaymentSourceManual})
		return err
	}},
	{"SalesTrackingCodes.Create", billingtest.RouteSalesTrackingCodesCreate, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		_, err := c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType2, Code: "LEAK", Name: "Leak check"})
		return err
	}},
	{"SubscriptionItems.List", billingtest.RouteSubscriptionItemsList, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		_, err := c.SubscriptionItems.List(ctx, f.product, nil)
		return err
	}},
	{"Bulk.PreviewPriceChange", billingtest.RouteBulkPreviewPriceChange, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		_, err := c.Bulk.PreviewPriceChange(ctx, f.plan, &billing.BulkPriceChangeParams{SelectAll: true})
		return err
	}},
	{"Bulk.Process", billingtest.RouteBulkProcess, func(ctx context.Context, c *billing.Client, f leakFixture) error {
		_, err := c.Bulk.Process(ctx, f.job)
		return err
	}},
}

// Each operation succeeds, fails with a server error, loses its
// connection, gets a cut-off answer and is cancelled while waiting: none
// leaves a goroutine behind.
func TestNoLeaksOperations(t *testing.T) {
	scenarios := []struct {
		name  string
		fault *billingtest.Fault
		// ctxTimeout, when set, ends the call's context after this long.
		ctxTimeout time.Duration
		check      func(t *testing.T, err error)
	}{
		{name: "success", check: func(t *testing.T, err error) {
			if err != nil {
				t.Fatal(err)
			}
		}},
		{name: "server error", fault: &billingtest.Fault{Status: 500, Times: 5}, check: func(t *testing.T, err error) {
			if !errors.Is(err, billing.ErrServer) {
				t.Fatalf("err = %v, want ErrServer", err)
			}
		}},
		{name: "dropped connection", fault: &billingtest.Fault{Drop: billingtest.DropBeforeApply, Times: 5}, check: func(t *testing.T, err error) {
			var reqErr *billing.RequestError
			if !errors.As(err, &reqErr) {
				t.Fatalf("err = %v (%T), want a *billing.RequestError", err, err)
			}
		}},
		{name: "cut-off answer", fault: &billingtest.Fault{Truncate: true, Times: 5}, check: func(t *testing.T, err error) {
			if err == nil {
				t.Fatal("a cut-off answer gave no error")
			}
		}},
		{name: "cancelled while waiting", fault: &billingtest.Fault{Delay: 10 * time.Second}, ctxTimeout: 50 * time.Millisecond, check: func(t *testing.T, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want context.DeadlineExceeded", err)
			}
		}},
	}
	for _, op := range leakOps {
		for _, sc := range scenarios {
			t.Run(op.name+"/"+sc.name, func(t *testing.T) {
				verifyNoLeaks(t)
				srv, f := leakServer(t)
				if sc.fault != nil {
					if err := srv.InjectFault(op.route, *sc.fault); err != nil {
						t.Fatal(err)
					}
				}
				ctx := context.Background()
				if sc.ctxTimeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, sc.ctxTimeout)
					defer cancel()
				}
				sc.check(t, noHang(t, func() error { return op.call(ctx, leakClient(srv), f) }))
			})
		}
	}
}

// The PDF stream, closed half read or cancelled half read, lets its
// connection go.
func TestNoLeaksPDFStreamAbandoned(t *testing.T) {
	for _, cancelFirst := range []bool{false, true} {
		t.Run(fmt.Sprint("cancelled=", cancelFirst), func(t *testing.T) {
			verifyNoLeaks(t)
			srv, f := leakServer(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rc, err := leakClient(srv).DraftInvoices.PDF(ctx, f.draft, nil)
			if err != nil {
				t.Fatal(err)
			}
			var b [16]byte
			if _, err := io.ReadFull(rc, b[:]); err != nil || string(b[:5]) != "%PDF-" {
				t.Fatalf("read %q, %v", b, err)
			}
			if cancelFirst {
				cancel()
			}
			if err := rc.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

// itemIDs and pageIDs flatten an iterator of items or of pages into the
// ids it yields, so that every iterator can be driven the same way.
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

func invoiceID(v billing.Invoice) int64              { return v.ID }
func summaryID(v billing.InvoiceSummary) int64       { return v.ID }
func itemID(v billing.SubscriptionProductItem) int64 { return v.ID }
func listOpts(pageNumber int) billing.ListOptions {
	return billing.ListOptions{PageNumber: pageNumber, PageSize: leakPageSize}
}

// leakIterators are the All and Pages iterators of the four list
// endpoints, and their Count.
var leakIterators = []struct {
	name  string
	route billingtest.Route
	seq   func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error]
	count func(ctx context.Context, c *billing.Client, f leakFixture) (int, error)
}{
	{"Invoices.All", billingtest.RouteInvoicesList,
		func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error] {
			return itemIDs(c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: listOpts(0)}, opts...), invoiceID)
		},
		func(ctx context.Context, c *billing.Client, f leakFixture) (int, error) {
			return c.Invoices.Count(ctx, nil)
		}},
	{"Invoices.Pages", billingtest.RouteInvoicesList,
		func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error] {
			return pageIDs(c.Invoices.Pages(ctx, &billing.ListInvoicesParams{ListOptions: listOpts(0)}, opts...), invoiceID)
		}, nil},
	{"Invoices.AllByCustomer", billingtest.RouteInvoicesListByCustomer,
		func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error] {
			return itemIDs(c.Invoices.AllByCustomer(ctx, f.customer, &billing.ListCustomerInvoicesParams{ListOptions: listOpts(0)}, opts...), invoiceID)
		},
		func(ctx context.Context, c *billing.Client, f leakFixture) (int, error) {
			return c.Invoices.CountByCustomer(ctx, f.customer, nil)
		}},
	{"Invoices.PagesByCustomer", billingtest.RouteInvoicesListByCustomer,
		func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error] {
			return pageIDs(c.Invoices.PagesByCustomer(ctx, f.customer, &billing.ListCustomerInvoicesParams{ListOptions: listOpts(0)}, opts...), invoiceID)
		}, nil},
	{"InvoiceSummaries.All", billingtest.RouteInvoiceSummariesList,
		func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error] {
			return itemIDs(c.InvoiceSummaries.All(ctx, f.customer, &billing.ListInvoiceSummariesParams{ListOptions: listOpts(0)}, opts...), summaryID)
		},
		func(ctx context.Context, c *billing.Client, f leakFixture) (int, error) {
			return c.InvoiceSummaries.Count(ctx, f.customer, nil)
		}},
	{"InvoiceSummaries.Pages", billingtest.RouteInvoiceSummariesList,
		func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error] {
			return pageIDs(c.InvoiceSummaries.Pages(ctx, f.customer, &billing.ListInvoiceSummariesParams{ListOptions: listOpts(0)}, opts...), summaryID)
		}, nil},
	{"SubscriptionItems.All", billingtest.RouteSubscriptionItemsList,
		func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error] {
			return itemIDs(c.SubscriptionItems.All(ctx, f.product, &billing.ListSubscriptionItemsParams{ListOptions: listOpts(0)}, opts...), itemID)
		},
		func(ctx context.Context, c *billing.Client, f leakFixture) (int, error) {
			return c.SubscriptionItems.Count(ctx, f.product, nil)
		}},
	{"SubscriptionItems.Pages", billingtest.RouteSubscriptionItemsList,
		func(ctx context.Context, c *billing.Client, f leakFixture, opts ...billing.IterOption) iter.Seq2[int64, error] {
			return pageIDs(c.SubscriptionItems.Pages(ctx, f.product, &billing.ListSubscriptionItemsParams{ListOptions: listOpts(0)}, opts...), itemID)
		}, nil},
}

// Each iterator, sequential and with Prefetch(8), run to the end, broken
// off after one item, cancelled after one item and failing after one item:
// it stops as told, yields an error at most once, and leaves no goroutine
// behind.
func TestNoLeaksIterators(t *testing.T) {
	type run struct {
		ids    []int64
		errs   []error
		cancel context.CancelFunc
		stable bool // pages hold only the items not yielded before
	}
	scenarios := []struct {
		name string
		// after is called with the first id yielded; it returns false to
		// break out of the loop.
		after func(srv *billingtest.Server, route billingtest.Route, r *run) bool
		check func(t *testing.T, r *run)
		// client, when set, replaces leakClient.
		client func(t *testing.T, srv *billingtest.Server) *billing.Client
	}{
		{"to the end", func(*billingtest.Server, billingtest.Route, *run) bool { return true }, func(t *testing.T, r *run) {
			if len(r.errs) != 0 || len(r.ids) != leakItems {
				t.Fatalf("%d ids, errors %v; want %d ids", len(r.ids), r.errs, leakItems)
			}
			for i := 1; i < len(r.ids); i++ {
				if r.ids[i] <= r.ids[i-1] {
					t.Fatalf("ids out of order at %d: %v", i, r.ids)
				}
			}
		}, nil},
		{"early break", func(*billingtest.Server, billingtest.Route, *run) bool { return false }, func(t *testing.T, r *run) {
			if len(r.errs) != 0 || len(r.ids) != 1 {
				t.Fatalf("%d ids, errors %v; want 1 id", len(r.ids), r.errs)
			}
		}, nil},
		{"cancelled", func(_ *billingtest.Server, _ billingtest.Route, r *run) bool { r.cancel(); return true }, func(t *testing.T, r *run) {
			if len(r.errs) != 1 || !errors.Is(r.errs[0], context.Canceled) {
				t.Fatalf("errors %v, want context.Canceled once", r.errs)
			}
			if len(r.ids) >= leakItems {
				t.Fatalf("%d ids after cancelling at the first", len(r.ids))
			}
		}, nil},
		// Every request after the first fails (failingAfterFirst). Not a
		// fault injected once the first item is yielded: a prefetching
		// iteration may have read every page by then, and whether any
		// request met the fault would depend on scheduling.
		{"server error", func(*billingtest.Server, billingtest.Route, *run) bool { return true }, func(t *testing.T, r *run) {
			if len(r.errs) != 1 || !errors.Is(r.errs[0], billing.ErrServer) {
				t.Fatalf("errors %v, want ErrServer once", r.errs)
			}
			if r.stable && len(r.ids) >= leakItems || !r.stable && len(r.ids) != leakPageSize {
				t.Fatalf("%d ids before the error, want the first page's %d (in stable mode, not all %d)", len(r.ids), leakPageSize, leakItems)
			}
		}, leakClientFailingAfterFirst},
	}
	for _, it := range leakIterators {
		for _, mode := range []struct {
			name   string
			opts   func() []billing.IterOption
			stable bool
		}{
			{"sequential", func() []billing.IterOption { return nil }, false},
			{"prefetch 8", func() []billing.IterOption { return []billing.IterOption{billing.Prefetch(8)} }, false},
			{"stable", func() []billing.IterOption { return []billing.IterOption{billing.Stable(new(billing.Cursor))} }, true},
			{"stable prefetch 8", func() []billing.IterOption {
				return []billing.IterOption{billing.Stable(new(billing.Cursor)), billing.Prefetch(8)}
			}, true},
		} {
			for _, sc := range scenarios {
				t.Run(it.name+"/"+mode.name+"/"+sc.name, func(t *testing.T) {
					verifyNoLeaks(t)
					srv, f := leakServer(t)
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					r := &run{cancel: cancel, stable: mode.stable}
					c := leakClient(srv)
					if sc.client != nil {
						c = sc.client(t, srv)
					}
					noHang(t, func() error {
						for id, err := range it.seq(ctx, c, f, mode.opts()...) {
							if err != nil {
								r.errs = append(r.errs, err)
								continue // an iterator yields an error once, then stops
							}
							r.ids = append(r.ids, id)
							if len(r.ids) == 1 && !sc.after(srv, it.route, r) {
								break
							}
						}
						return nil
					})
					sc.check(t, r)
				})
			}
		}
	}
}

// Count succeeds, fails and is cancelled without leaking.
func TestNoLeaksCount(t *testing.T) {
	for _, it := range leakIterators {
		if it.count == nil {
			continue
		}
		t.Run(it.name, func(t *testing.T) {
			verifyNoLeaks(t)
			srv, f := leakServer(t)
			c := leakClient(srv)
			n, err := it.count(context.Background(), c, f)
			if err != nil || n != leakItems {
				t.Fatalf("Count = %d, %v; want %d", n, err, leakItems)
			}
			if err := srv.InjectFault(it.route, billingtest.Fault{Status: 503, Times: 2}); err != nil {
				t.Fatal(err)
			}
			if _, err := it.count(context.Background(), c, f); !errors.Is(err, billing.ErrServer) {
				t.Errorf("Count with 503s: err = %v, want ErrServer", err)
			}
			if err := srv.InjectFault(it.route, billingtest.Fault{Delay: 10 * time.Second}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			if _, err := it.count(ctx, c, f); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Count cancelled: err = %v, want context.DeadlineExceeded", err)
			}
		})
	}
}

// One client used from many goroutines at once, for every operation and
// iterator: the client is documented as safe for concurrent use, and the
// race detector checks that it is.
func TestClientSharedAcrossGoroutines(t *testing.T) {
	verifyNoLeaks(t)
	srv, f := leakServer(t)
	c := leakClient(srv)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 4 {
		for _, op := range leakOps {
			wg.Go(func() {
				// Writes after the first of each kind are refused by the
				// fake's rules (a replaced card, a duplicate code): only
				// transport-level failures count here.
				err := op.call(context.Background(), c, f)
				var reqErr *billing.RequestError
				var decErr *billing.DecodeError
				if errors.As(err, &reqErr) || errors.As(err, &decErr) {
					errs <- fmt.Errorf("%s #%d: %w", op.name, i, err)
				}
			})
		}
		for _, it := range leakIterators {
			wg.Go(func() {
				n := 0
				for _, err := range it.seq(context.Background(), c, f, billing.Prefetch(4)) {
					if err != nil {
						errs <- fmt.Errorf("%s #%d: %w", it.name, i, err)
						return
					}
					n++
				}
				if n != leakItems {
					errs <- fmt.Errorf("%s #%d: %d items, want %d", it.name, i, n, leakItems)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// CaptureResponse on an iterator that prefetches: every page's request
// stores its answer in the same Response. Under -race this shows whether
// those stores are synchronised.
func TestCaptureResponseWithPrefetchIsRaceFree(t *testing.T) {
	verifyNoLeaks(t)
	srv, _ := leakServer(t)
	var resp billing.Response
	n := 0
	for _, err := range leakClient(srv).Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: listOpts(0)}, billing.Prefetch(8), billing.CaptureResponse(&resp)) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != leakItems || resp.StatusCode != 200 {
		t.Errorf("%d items, captured status %d", n, resp.StatusCode)
	}
}

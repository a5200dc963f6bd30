package billing_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/shopspring/decimal"
)

// A write reaches the service at most once: the SDK does not retry it once
// it may have been applied, and net/http does not replay it beneath the
// SDK. When the change may have been applied without an answer, the error
// matches ErrOutcomeUnknown. (The retry rule for each status is tested in
// retry_test.go; redirects of writes in redirects_test.go.)

// writeFixture is what the writes act on, seeded into a fresh fake.
type writeFixture struct {
	customer, invoice, card, job int64
	balance                      decimal.Decimal // the invoice's outstanding balance, the write-off amount
}

func seedWriteFixture(t *testing.T, srv *billingtest.Server) writeFixture {
	t.Helper()
	var f writeFixture
	must := seeded(t)
	f.customer = must(srv.AddCustomer(billingtest.Customer{FirstName: "Ada", LastName: "Lovelace"}))
	price := decimal.RequireFromString("120.50")
	f.invoice = must(srv.AddInvoice(billingtest.Invoice{CustomerID: f.customer, Charges: []billingtest.Charge{
		{Name: "Plan", Quantity: decimal.NewFromInt(1), UnitPrice: price, Amount: price},
	}}))
	f.card = must(srv.AddCreditCard(billingtest.CreditCard{CustomerID: f.customer, Last4: "0004", CardType: "Visa", ExpirationMonth: 1, ExpirationYear: 27, IsDefault: true}))
	f.job = must(srv.AddBulkJob(billingtest.BulkJob{Type: "PriceChange", Validated: true}))
	inv, _ := srv.Invoice(f.invoice)
	if f.balance = inv.OutstandingBalance; !f.balance.IsPositive() {
		t.Fatalf("the seeded invoice has no balance to write off: %s", f.balance)
	}
	return f
}

// A write under test: how to send it once, which route and request it is,
// and how many times the fake shows it applied.
type writeUnderTest struct {
	name         string
	route        billingtest.Route
	method, path string
	// operation names the events the fake records for each applied write.
	operation string
	do        func(ctx context.Context, c *billing.Client, f writeFixture) error
	// applied counts the changes the fake's state shows.
	applied func(srv *billingtest.Server, f writeFixture) int
}

const doubleWriteCode = "NO-DOUBLE-1"

var writesUnderTest = []writeUnderTest{
	{
		name: "write-off", route: billingtest.RouteInvoicesWriteOff, method: "POST", path: "/v1/invoices/writeoff", operation: "invoice.writeoff",
		do: func(ctx context.Context, c *billing.Client, f writeFixture) error {
			return errOf(c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: f.invoice, Amount: &f.balance}))
		},
		applied: func(srv *billingtest.Server, f writeFixture) int {
			inv, _ := srv.Invoice(f.invoice)
			// Each write-off adds the whole balance to the total.
			return int(inv.TotalWriteoffs.Div(f.balance).IntPart())
		},
	},
	{
		name: "replace card", route: billingtest.RoutePaymentMethodsReplaceCreditCard, method: "PUT", path: "/v1/paymentMethods/creditCard", operation: "paymentMethod.replaced",
		do: func(ctx context.Context, c *billing.Client, f writeFixture) error {
			_, err := c.PaymentMethods.ReplaceCreditCard(ctx, &billing.ReplaceCreditCardParams{
				ID: f.card, CustomerID: f.customer, CardNumber: "4111 1111 1111 1111", CVV: "123",
				FirstName: "Ada", LastName: "Lovelace", ExpirationMonth: 12, ExpirationYear: 30,
			})
			return err
		},
		applied: func(srv *billingtest.Server, f writeFixture) int {
			n := 0
			for _, c := range srv.CreditCards() {
				if c.OriginalPaymentMethodID == f.card {
					n++ // one replacement card per time the write was applied
				}
			}
			if old, _ := srv.CreditCard(f.card); (old.ReplacedBy != 0) != (n > 0) {
				return -1 // the old card and its replacements disagree
			}
			return n
		},
	},
	{
		name: "wallet agreement", route: billingtest.RoutePaymentMethodsCreateWalletAgreement, method: "POST", path: "/v1/Paypal", operation: "paymentMethod.created",
		do: func(ctx context.Context, c *billing.Client, f writeFixture) error {
			_, err := c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{
				Baid: "B-7XK12345", CustomerID: f.customer, Source: billing.PaymentSourceAutomatic,
			})
			return err
		},
		applied: func(srv *billingtest.Server, f writeFixture) int {
			n := 0
			for _, w := range srv.WalletMethods() {
				if w.CustomerID == f.customer && w.Baid == "B-7XK12345" {
					n++
				}
			}
			return n
		},
	},
	{
		name: "tracking code", route: billingtest.RouteSalesTrackingCodesCreate, method: "POST", path: "/v1/salesTrackingCodes", operation: "salesTrackingCode.created",
		do: func(ctx context.Context, c *billing.Client, f writeFixture) error {
			_, err := c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{
				Type: billing.TrackingCodeType1, Code: doubleWriteCode, Name: "No double writes",
			})
			return err
		},
		applied: func(srv *billingtest.Server, f writeFixture) int {
			n := 0
			for _, c := range srv.SalesTrackingCodes() {
				if strings.EqualFold(c.Code, doubleWriteCode) {
					n++
				}
			}
			return n
		},
	},
	{
		name: "bulk process", route: billingtest.RouteBulkProcess, method: "POST", path: "/v1/BulkApi/Process", operation: "bulkJob.processed",
		do: func(ctx context.Context, c *billing.Client, f writeFixture) error {
			return errOf(c.Bulk.Process(ctx, f.job))
		},
		applied: func(srv *billingtest.Server, f writeFixture) int {
			if j, _ := srv.BulkJob(f.job); j.Processed {
				return 1
			}
			return 0
		},
	},
}

// TestWritesAreNeverDoubled sends each write once through a client whose
// policy would retry (MaxRetries 3) while the fake fails it in every way it
// can, before and after applying it, and checks the fake: the change is
// applied at most once, the write is sent again only after a 429 (which
// the server answers without acting), and when the change may have been
// applied without an answer, the error matches ErrOutcomeUnknown.
func TestWritesAreNeverDoubled(t *testing.T) {
	t.Parallel()
	const either = -1 // applied or not: at most once is all the client can promise
	faults := []struct {
		name  string
		fault billingtest.Fault
		// timeout is the client's per-attempt timeout.
		timeout time.Duration
		// wantApplied is 0 or 1, or either.
		wantApplied  int
		wantRequests int
		// wantErr: nil for success; else the error must match it.
		wantErr     error
		wantUnknown bool
		wantTimeout bool
	}{
		{name: "dropped before applied", fault: billingtest.Fault{Drop: billingtest.DropBeforeApply},
			wantApplied: 0, wantRequests: 1, wantErr: billing.ErrOutcomeUnknown, wantUnknown: true},
		{name: "dropped after applied", fault: billingtest.Fault{Drop: billingtest.DropAfterApply},
			wantApplied: 1, wantRequests: 1, wantErr: billing.ErrOutcomeUnknown, wantUnknown: true},
		{name: "answer truncated", fault: billingtest.Fault{Truncate: true},
			wantApplied: 1, wantRequests: 1, wantErr: billing.ErrOutcomeUnknown, wantUnknown: true},
		// A 5xx does not prove that nothing was done (a gateway may give
		// up while the service goes on), so the SDK says so even when, as
		// here, the fake answered before applying.
		{name: "503", fault: billingtest.Fault{Status: http.StatusServiceUnavailable},
			wantApplied: 0, wantRequests: 1, wantErr: billing.ErrServer, wantUnknown: true},
		{name: "500", fault: billingtest.Fault{Status: http.StatusInternalServerError},
			wantApplied: 0, wantRequests: 1, wantErr: billing.ErrServer, wantUnknown: true},
		{name: "429 once, then retried", fault: billingtest.Fault{Status: http.StatusTooManyRequests, RetryAfter: time.Second},
			wantApplied: 1, wantRequests: 2},
		{name: "no answer within the timeout", fault: billingtest.Fault{Delay: 10 * time.Second}, timeout: 300 * time.Millisecond,
			wantApplied: either, wantRequests: 1, wantErr: billing.ErrOutcomeUnknown, wantUnknown: true, wantTimeout: true},
	}
	for _, w := range writesUnderTest {
		for _, ft := range faults {
			t.Run(w.name+"/"+ft.name, func(t *testing.T) {
				t.Parallel() // the 429's wait and the timeouts overlap
				srv := billingtest.NewServer()
				t.Cleanup(srv.Close)
				f := seedWriteFixture(t, srv)
				if err := srv.InjectFault(w.route, ft.fault); err != nil {
					t.Fatal(err)
				}
				timeout := ft.timeout
				if timeout == 0 {
					timeout = 20 * time.Second
				}
				c := contractClient(t, srv,
					billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRetryAfter: 5 * time.Second}),
					billing.WithTimeout(timeout),
				)

				var err error
				returned := make(chan struct{})
				go func() {
					defer close(returned)
					err = w.do(context.Background(), c, f)
				}()
				select {
				case <-returned:
				case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
					t.Fatal("the write has not returned after 30s")
				}
				// Close waits for the fake's handlers, so that a request
				// still being handled (the delayed one) is counted.
				srv.Close()

				requests := 0
				for _, r := range srv.Requests() {
					if r.Method == w.method && r.Path == w.path {
						requests++
					}
				}
				events := 0
				for _, e := range srv.Events() {
					if e.Operation == w.operation && e.Kind == billingtest.EventWebhook {
						events++
					}
				}
				applied := w.applied(srv, f)

				if applied < 0 || applied > 1 || events > 1 {
					t.Fatalf("DOUBLE WRITE: the fake shows the change applied %d times (%d events) after %d requests; err = %v", applied, events, requests, err)
				}
				if applied != events {
					t.Errorf("the fake's state shows %d changes but it recorded %d events", applied, events)
				}
				if ft.wantApplied != either && applied != ft.wantApplied {
					t.Errorf("applied %d times, want %d (err = %v)", applied, ft.wantApplied, err)
				}
				if requests != ft.wantRequests {
					t.Errorf("the fake received %d requests for %s %s, want %d", requests, w.method, w.path, ft.wantRequests)
				}

				if ft.wantErr == nil {
					if err != nil {
						t.Fatalf("err = %v, want success after the retry", err)
					}
					return
				}
				if !errors.Is(err, ft.wantErr) {
					t.Fatalf("err = %v (%T), want it to match %v", err, err, ft.wantErr)
				}
				if got := errors.Is(err, billing.ErrOutcomeUnknown); got != ft.wantUnknown {
					t.Errorf("errors.Is(err, ErrOutcomeUnknown) = %v, want %v: %v", got, ft.wantUnknown, err)
				}
				if ft.wantUnknown {
					// The message tells a person reading a log to check first.
					if !strings.Contains(err.Error(), "applied") {
						t.Errorf("the error does not say the change may have been applied: %v", err)
					}
					var reqErr *billing.RequestError
					var decErr *billing.DecodeError
					var apiErr *billing.APIError
					switch {
					case errors.As(err, &apiErr):
						if !apiErr.OutcomeUnknown || apiErr.StatusCode != ft.fault.Status || apiErr.Method != w.method {
							t.Errorf("APIError = %+v", apiErr)
						}
					case errors.As(err, &reqErr):
						if reqErr.Attempts != 1 || !reqErr.OutcomeUnknown || reqErr.Method != w.method || reqErr.Path != w.path {
							t.Errorf("RequestError = %+v", reqErr)
						}
					case errors.As(err, &decErr):
						if !decErr.Applied || decErr.StatusCode != http.StatusOK {
							t.Errorf("DecodeError = %+v", decErr)
						}
					default:
						t.Errorf("err is %T, want an *APIError, a *RequestError or a *DecodeError", err)
					}
				} else {
					var apiErr *billing.APIError
					if !errors.As(err, &apiErr) || apiErr.StatusCode != ft.fault.Status {
						t.Errorf("err = %v, want an *APIError with status %d", err, ft.fault.Status)
					}
				}
				if ft.wantTimeout {
					var netErr net.Error
					if !errors.Is(err, context.DeadlineExceeded) && !(errors.As(err, &netErr) && netErr.Timeout()) {
						t.Errorf("err = %v, want a timeout", err)
					}
				}
			})
		}
	}
}

// writeOp is a write that takes request options.
type writeOp struct {
	name string
	call func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error
}

// everyWrite is each of the five writes, and Client.Do writes with and
// without a body.
func everyWrite() []writeOp {
	do := func(method string, body any) writeOp {
		name := "Do " + method
		if body == nil {
			name += " without body"
		}
		return writeOp{name, func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error {
			return errOf(c.Do(ctx, &billing.Request{Method: method, Path: "/v1/Customers/42", Body: body}, nil, opts...))
		}}
	}
	return []writeOp{
		{"WriteOff", func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error {
			return errOf(c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7, Amount: billing.Ptr(decimal.NewFromInt(5))}, opts...))
		}},
		{"ReplaceCreditCard", func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error {
			p := secParams()
			_, err := c.PaymentMethods.ReplaceCreditCard(ctx, &p, opts...)
			return err
		}},
		{"CreateWalletAgreement", func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error {
			return errOf(c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{Baid: "B-7XK12345", CustomerID: 42, Source: billing.PaymentSourceAutomatic}, opts...))
		}},
		{"SalesTrackingCodes.Create", func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error {
			return errOf(c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "SPRING", Name: "Spring"}, opts...))
		}},
		{"Bulk.Process", func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error {
			return errOf(c.Bulk.Process(ctx, 910602, opts...))
		}},
		do(http.MethodPost, map[string]int{"id": 1}), do(http.MethodPost, nil),
		do(http.MethodPut, map[string]int{"id": 1}), do(http.MethodPatch, nil), do(http.MethodDelete, nil),
	}
}

// A write reaches the wire at most once per SDK attempt, whatever headers
// the caller adds. With an Idempotency-Key or X-Idempotency-Key header,
// net/http deems a POST or PUT replayable and, when a reused keep-alive
// connection drops before the answer, sends it again beneath the SDK's
// retry rule. The server here applies the write, then closes the reused
// connection without answering: the write must be applied once, not
// retried (its headers were written), and its error must say that the
// outcome is unknown.
func TestWritesAreNeverReplayedByNetHTTP(t *testing.T) {
	t.Parallel()
	headers := []string{"Idempotency-Key", "X-Idempotency-Key", "X-Correlation-Id"}
	for _, op := range everyWrite() {
		for _, header := range headers {
			t.Run(op.name+"/"+header, func(t *testing.T) {
				t.Parallel()
				var (
					applied  atomic.Int32
					mu       sync.Mutex
					readFrom string // the connection of the warm-up read
					wroteOn  string // the connection the write first came on
				)
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodGet {
						mu.Lock()
						readFrom = r.RemoteAddr
						mu.Unlock()
						w.Header().Set("Content-Type", "application/json")
						_, _ = io.WriteString(w, `{"id":7}`)
						return
					}
					_, _ = io.Copy(io.Discard, r.Body)
					if applied.Add(1) > 1 {
						w.Header().Set("Content-Type", "application/json")
						_, _ = io.WriteString(w, `{}`)
						return
					}
					mu.Lock()
					wroteOn = r.RemoteAddr
					mu.Unlock()
					// Applied; the connection drops before the answer.
					conn, _, err := w.(http.Hijacker).Hijack()
					if err == nil {
						_ = conn.Close()
					}
				}))
				t.Cleanup(srv.Close)
				// One connection at most, so that the write cannot go on a
				// new one while the read's is on its way back to the pool.
				tr := http.DefaultTransport.(*http.Transport).Clone()
				tr.MaxConnsPerHost = 1
				t.Cleanup(tr.CloseIdleConnections)
				c := hostileClient(t, srv.URL, billing.WithHTTPClient(&http.Client{Transport: tr}),
					billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}))
				ctx := context.Background()
				// A read first, so that the write goes on a reused connection.
				if _, err := c.Invoices.Get(ctx, 7, nil); err != nil {
					t.Fatal(err)
				}
				err := noHang(t, func() error { return op.call(ctx, c, billing.WithHeader(header, "key-1")) })
				mu.Lock()
				reused := readFrom == wroteOn
				mu.Unlock()
				if !reused {
					t.Fatalf("the write came on connection %s, the read on %s: the test needs it reused", wroteOn, readFrom)
				}
				if n := applied.Load(); n != 1 {
					t.Errorf("the write reached the server %d times, want 1", n)
				}
				var reqErr *billing.RequestError
				if !errors.As(err, &reqErr) || reqErr.Attempts != 1 || !errors.Is(err, billing.ErrOutcomeUnknown) {
					t.Errorf("err = %v (%T), want a *RequestError after 1 attempt matching ErrOutcomeUnknown", err, err)
				}
			})
		}
	}
}

// A write without a body goes with an empty one that net/http cannot
// replay: the server reads no body, framed either as none (net/http sees
// that the body of a DELETE is empty when it can tell at once) or as an
// empty chunked body (a POST, PUT or PATCH: net/http sends
// Content-Length: 0 only for a body it could replay).
func TestWritesWithoutBodyOnTheWire(t *testing.T) {
	t.Parallel()
	type seen struct {
		contentLength    int64
		transferEncoding []string
		body             int
	}
	none, chunked := seen{0, nil, 0}, seen{-1, []string{"chunked"}, 0}
	for _, method := range []string{http.MethodDelete, http.MethodPost, http.MethodPut, http.MethodPatch} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			got := make(chan seen, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got <- seen{r.ContentLength, r.TransferEncoding, len(b)}
				w.WriteHeader(http.StatusNoContent)
			}))
			t.Cleanup(srv.Close)
			if _, err := hostileClient(t, srv.URL).Do(context.Background(), &billing.Request{Method: method, Path: "/v1/Customers/42"}, nil); err != nil {
				t.Fatal(err)
			}
			s := <-got
			if !reflect.DeepEqual(s, chunked) && (method != http.MethodDelete || !reflect.DeepEqual(s, none)) {
				t.Errorf("the server saw %+v, want %+v (or for a DELETE %+v)", s, chunked, none)
			}
		})
	}
}

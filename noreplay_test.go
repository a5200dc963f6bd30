package billing_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

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
			_, err := c.Do(ctx, &billing.Request{Method: method, Path: "/v1/Customers/42", Body: body}, nil, opts...)
			return err
		}}
	}
	return []writeOp{
		{"WriteOff", func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error {
			_, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7, Amount: billing.Ptr(decimal.NewFromInt(5))}, opts...)
			return err
		}},
		{"ReplaceCreditCard", func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error {
			p := secParams()
			_, err := c.PaymentMethods.ReplaceCreditCard(ctx, &p, opts...)
			return err
		}},
		{"CreateWalletAgreement", func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error {
			_, err := c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{Baid: "B-7XK12345", CustomerID: 42, Source: billing.PaymentSourceAutomatic}, opts...)
			return err
		}},
		{"SalesTrackingCodes.Create", func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error {
			_, err := c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "SPRING", Name: "Spring"}, opts...)
			return err
		}},
		{"Bulk.Process", func(ctx context.Context, c *billing.Client, opts ...billing.RequestOption) error {
			_, err := c.Bulk.Process(ctx, 910602, opts...)
			return err
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

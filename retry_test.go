package billing_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

// fastRetries keeps retry waits short so the tests do not sleep.
var fastRetries = billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Minute}

// scriptServer answers the n-th request (from 0) with script[n], and the
// last entry from then on. An entry of 0 drops the connection after
// reading the request.
func scriptServer(t *testing.T, script ...int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		n := int(hits.Add(1)) - 1
		status := script[min(n, len(script)-1)]
		if status == 0 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status >= 400 {
			_, _ = io.WriteString(w, errorBody(status, "Api Error", "scripted failure"))
			return
		}
		_, _ = io.WriteString(w, `{"id":7,"outstandingBalance":0}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func newLoopbackClient(t *testing.T, url string, opts ...billing.Option) *billing.Client {
	t.Helper()
	c, err := billing.NewClient(testKey, append([]billing.Option{billing.WithBaseURL(url), billing.WithRetryPolicy(fastRetries)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func writeOff(c *billing.Client) error {
	_, err := c.Invoices.WriteOff(context.Background(), &billing.WriteOffParams{InvoiceID: 7, Amount: billing.Ptr(decimal.NewFromInt(5))})
	return err
}

func readInvoice(c *billing.Client) error {
	_, err := c.Invoices.Get(context.Background(), 7, nil)
	return err
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name         string
		op           func(*billing.Client) error
		script       []int
		wantAttempts int32
		wantErr      error // nil: success
		wantUnknown  bool
	}{
		{"read retried on 503 then succeeds", readInvoice, []int{503, 200}, 2, nil, false},
		{"read retried on 429", readInvoice, []int{429, 200}, 2, nil, false},
		{"read retried on 500, 502, 504", readInvoice, []int{500, 502, 504}, 3, billing.ErrServer, false},
		{"read retried on a dropped connection", readInvoice, []int{0, 200}, 2, nil, false},
		{"read not retried on 400", readInvoice, []int{400, 200}, 1, billing.ErrBadRequest, false},
		{"read not retried on 404", readInvoice, []int{404, 200}, 1, billing.ErrNotFound, false},
		{"read not retried on 409", readInvoice, []int{409, 200}, 1, billing.ErrConflict, false},
		{"read gives the last APIError when retries run out", readInvoice, []int{503}, 3, billing.ErrServer, false},
		{"write retried on 429", writeOff, []int{429, 200}, 2, nil, false},
		{"write not retried on 503, outcome unknown", writeOff, []int{503, 200}, 1, billing.ErrServer, true},
		{"write not retried on 500, outcome unknown", writeOff, []int{500, 200}, 1, billing.ErrServer, true},
		{"write not retried on 502, outcome unknown", writeOff, []int{502, 200}, 1, billing.ErrServer, true},
		{"write not retried on 504, outcome unknown", writeOff, []int{504, 200}, 1, billing.ErrServer, true},
		{"write 400 proves nothing was done", writeOff, []int{400, 200}, 1, billing.ErrBadRequest, false},
		{"write 404 proves nothing was done", writeOff, []int{404, 200}, 1, billing.ErrNotFound, false},
		{"write 409 proves nothing was done", writeOff, []int{409, 200}, 1, billing.ErrConflict, false},
		{"write not retried once the request reached the server", writeOff, []int{0, 200}, 1, billing.ErrOutcomeUnknown, true},
		{"write 429 until retries run out", writeOff, []int{429}, 3, billing.ErrRateLimited, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hits := scriptServer(t, tt.script...)
			err := tt.op(newLoopbackClient(t, srv.URL))
			if got := hits.Load(); got != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, tt.wantAttempts)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got := errors.Is(err, billing.ErrOutcomeUnknown); got != tt.wantUnknown {
				t.Errorf("ErrOutcomeUnknown = %v, want %v (%v)", got, tt.wantUnknown, err)
			}
			var apiErr *billing.APIError
			if errors.As(err, &apiErr) && (len(apiErr.Errors) != 1 || apiErr.Errors[0].Value != "scripted failure") {
				t.Errorf("APIError lost the body: %+v", apiErr)
			}
		})
	}
}

// A write whose connection never opened is safe to retry: the server
// cannot have acted on it.
func TestWriteRetriedWhenConnectionNeverOpened(t *testing.T) {
	var dials atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connection refused")}
	}}
	c := newLoopbackClient(t, "http://127.0.0.1:1", billing.WithHTTPClient(&http.Client{Transport: tr}))
	err := writeOff(c)
	if got := dials.Load(); got != 3 {
		t.Errorf("dials = %d, want 3 (1 + 2 retries)", got)
	}
	var reqErr *billing.RequestError
	if !errors.As(err, &reqErr) {
		t.Fatalf("err = %v (%T), want *billing.RequestError", err, err)
	}
	if errors.Is(err, billing.ErrOutcomeUnknown) {
		t.Errorf("a write that never left is not of unknown outcome: %v", err)
	}
	if reqErr.Attempts != 3 || reqErr.Method != "POST" || reqErr.Path != "/v1/invoices/writeoff" {
		t.Errorf("RequestError = %+v", reqErr)
	}
}

func TestRetryAfterBeyondCapIsNotWaitedFor(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	err := readInvoice(newLoopbackClient(t, srv.URL))
	if hits.Load() != 1 {
		t.Errorf("attempts = %d, want 1: an hour's wait is beyond the cap", hits.Load())
	}
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, billing.ErrRateLimited) {
		t.Fatalf("err = %v", err)
	}
	if apiErr.RetryAfter != time.Hour {
		t.Errorf("RetryAfter = %v, want 1h", apiErr.RetryAfter)
	}
}

func TestWaitEndsWhenContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "50") // within the cap: the client would wait 50s
		w.WriteHeader(http.StatusServiceUnavailable)
		cancel()
	}))
	defer srv.Close()
	done := make(chan error, 1)
	go func() {
		_, err := newLoopbackClient(t, srv.URL).Invoices.Get(ctx, 7, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("the call kept waiting after the context was cancelled")
	}
}

func TestPerRequestRetryOverride(t *testing.T) {
	srv, hits := scriptServer(t, 503, 200)
	c := newLoopbackClient(t, srv.URL)
	_, err := c.Invoices.Get(context.Background(), 7, nil, billing.WithRetries(billing.RetryPolicy{MaxRetries: billing.NoRetries}))
	if !errors.Is(err, billing.ErrServer) || hits.Load() != 1 {
		t.Errorf("err = %v after %d attempts, want ErrServer after 1", err, hits.Load())
	}
}

func TestRedirectToAnotherHostIsRefused(t *testing.T) {
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization") + "|reached")
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer srv.Close()
	err := readInvoice(newLoopbackClient(t, srv.URL))
	if err == nil {
		t.Fatal("want an error for a cross-host redirect")
	}
	if v := leaked.Load(); v != nil {
		t.Errorf("the other host was reached: %v", v)
	}
}

// TLS is verified with the system's roots, and a certificate that does
// not verify is final: retrying cannot mend it, so it is not retried.
func TestUntrustedCertificateIsRefusedAndNotRetried(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("a request reached a server whose certificate does not verify")
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	srv.StartTLS()
	defer srv.Close()
	c, err := billing.NewClient(testKey, billing.WithBaseURL(srv.URL), billing.WithRetryPolicy(fastRetries))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Invoices.Get(context.Background(), 7, nil)
	var certErr *tls.CertificateVerificationError
	if !errors.As(err, &certErr) {
		t.Fatalf("err = %v, want a certificate verification error", err)
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("connections = %d, want 1: a bad certificate is not retried", got)
	}
}

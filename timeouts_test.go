package billing_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/billingapi/billing-go"
)

// Each attempt is bounded by WithTimeout, or by the caller's own
// http.Client.Timeout, body included.

// A caller's http.Client keeps its own Timeout: a 50 ms timeout stops an
// answer that takes seconds, as it would without the SDK. WithTimeout,
// given too, wins.
func TestWithHTTPClientKeepsTheCallersTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // answers only when the test ends: any timeout here is the client's
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	for _, tt := range []struct {
		name string
		opts []billing.Option
	}{
		{"the caller's timeout", []billing.Option{billing.WithHTTPClient(&http.Client{Timeout: 50 * time.Millisecond})}},
		{"WithTimeout over a client without one", []billing.Option{billing.WithHTTPClient(&http.Client{}), billing.WithTimeout(50 * time.Millisecond)}},
		{"WithTimeout over the caller's longer one", []billing.Option{billing.WithHTTPClient(&http.Client{Timeout: time.Hour}), billing.WithTimeout(50 * time.Millisecond)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newLoopbackClient(t, srv.URL, append(tt.opts, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}))...)
			// The context is only a hang guard; the error must be the client's timeout.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := c.Invoices.Get(ctx, 7, nil)
			var netErr net.Error
			if !errors.As(err, &netErr) || !netErr.Timeout() || ctx.Err() != nil {
				t.Fatalf("err = %v, want the client's timeout", err)
			}
		})
	}
}

// isTimeout reports whether err is a timeout: the context's deadline or a
// net.Error that says so.
func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout())
}

// A server that sends a byte every 100 ms is cut off by WithTimeout,
// whether it trickles the headers or the body, for reads, writes and the
// PDF stream.
func TestHostileTrickleIsCutOffByTheTimeout(t *testing.T) {
	t.Parallel()
	// trickle writes a byte every 100 ms until a write fails, the client
	// goes away (done) or the test ends (stop).
	trickle := func(w io.Writer, flush func(), done, stop <-chan struct{}) {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-stop:
				return
			case <-tick.C:
				if _, err := w.Write([]byte("x")); err != nil {
					return
				}
				flush()
			}
		}
	}
	bodyServer := func(contentType, prefix string) func(stop <-chan struct{}) *httptest.Server {
		return func(stop <-chan struct{}) *httptest.Server {
			return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", contentType)
				w.WriteHeader(http.StatusOK)
				_, _ = io.WriteString(w, prefix)
				flush := w.(http.Flusher).Flush
				flush()
				trickle(w, flush, r.Context().Done(), stop)
			}))
		}
	}
	headerServer := func(stop <-chan struct{}) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nX-Slow: ")
			_ = buf.Flush()
			trickle(buf, func() { _ = buf.Flush() }, nil, stop)
		}))
	}
	tests := []struct {
		name string
		op   hostileOp
		srv  func(stop <-chan struct{}) *httptest.Server
	}{
		{"Get, body", opGet, bodyServer("application/json", `{"id":7,"notes":"`)},
		{"Get, headers", opGet, headerServer},
		{"List, body", opList, bodyServer("application/json", `[{"id":7},{"id":8,"notes":"`)},
		{"WriteOff, body", opWriteOff, bodyServer("application/json", `{"id":7,"notes":"`)},
		{"WriteOff, headers", opWriteOff, headerServer},
		{"PDF stream", opPDF, bodyServer("application/pdf", "%PDF-1.4\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stop := make(chan struct{})
			srv := tt.srv(stop)
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(stop) }) // runs before srv.Close: hijacked trickles end too
			c := hostileClient(t, srv.URL, billing.WithTimeout(500*time.Millisecond))
			err := noHang(t, func() error { return tt.op.call(context.Background(), c) })
			if err == nil {
				t.Fatal("a trickling server gave no error")
			}
			if !isTimeout(err) {
				t.Errorf("err = %v (%T), want a timeout (context.DeadlineExceeded or a net.Error that is a Timeout)", err, err)
			}
			if got := errors.Is(err, billing.ErrOutcomeUnknown); got != tt.op.write {
				t.Errorf("ErrOutcomeUnknown = %v, want %v: %v", got, tt.op.write, err)
			}
		})
	}
}

package billing_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
)

// The waits a server asks for, with Retry-After or an exhausted
// X-Rate-Limit window: one beyond the policy's cap ends the retries at
// once, one too long to represent saturates, and a wait ends when the
// context does. (A 429 pauses every call of the client: the tests of
// shared_pause_test.go; under Prefetch, every worker:
// TestPrefetchThrottlingPausesThePipeline.)

func TestRetryAfterBeyondCapIsNotWaitedFor(t *testing.T) {
	t.Parallel()
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

// A wait the server asks for that is too long to represent saturates: it
// is beyond the policy's cap, so the call is not retried, instead of being
// read as no wait and retried at once.
func TestServerRequestedWaitsSaturate(t *testing.T) {
	t.Parallel()
	huge := []string{"9223372036854775808", "1e300", "1e400", "Inf", "18446744073709551616.5"}
	for _, v := range huge {
		for _, hdr := range []string{"Retry-After", "X-Rate-Limit-Reset-Minute"} {
			t.Run(hdr+"="+v, func(t *testing.T) {
				t.Parallel()
				var hits atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					hits.Add(1)
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set(hdr, v)
					w.Header().Set("X-Rate-Limit-Remaining-Minute", "0")
					w.WriteHeader(http.StatusTooManyRequests)
					_, _ = io.WriteString(w, errorBody(429, "Api Error", "slow down"))
				}))
				t.Cleanup(srv.Close)
				c := hostileClient(t, srv.URL, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: time.Minute}))
				err := noHang(t, func() error { return opGet.call(context.Background(), c) })
				var apiErr *billing.APIError
				if !errors.As(err, &apiErr) || !errors.Is(err, billing.ErrRateLimited) {
					t.Fatalf("err = %v, want the 429's *APIError", err)
				}
				if n := hits.Load(); n != 1 {
					t.Errorf("requests = %d, want 1: a wait beyond the cap ends the retries", n)
				}
				if apiErr.RetryAfter < 24*time.Hour*365 {
					t.Errorf("RetryAfter = %s, want it saturated, not wrapped round", apiErr.RetryAfter)
				}
			})
		}
	}
}

func TestWaitEndsWhenContextIsDone(t *testing.T) {
	t.Parallel()
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

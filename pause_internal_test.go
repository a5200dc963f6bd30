package billing

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/billingapi/billing-go/internal/pager"
)

// TestClientPause: what an answer asks of every call of the client. A
// 429's wait (Retry-After, else the exhausted window's reset; naming none,
// the backoff its call would wait, within the policy's bounds: half a step
// to a step, equal jitter), and on any answer the reset of a window with
// nothing left; another status's Retry-After is its own call's.
func TestClientPause(t *testing.T) {
	t.Parallel()
	policy := RetryPolicy{MaxRetries: 3, MinBackoff: time.Second, MaxBackoff: 8 * time.Second, MaxRetryAfter: time.Minute}
	spent := func(window, reset string) map[string]string {
		return map[string]string{"X-Rate-Limit-Remaining-" + window: "0", "X-Rate-Limit-Reset-" + window: reset}
	}
	tests := []struct {
		name     string
		status   int
		attempt  int
		header   map[string]string
		min, max time.Duration
	}{
		{"200 without headers", 200, 1, nil, 0, 0},
		{"429 without a wait, first attempt", 429, 1, nil, 500 * time.Millisecond, time.Second},
		{"429 without a wait, third attempt", 429, 3, nil, 2 * time.Second, 4 * time.Second},
		{"429 with Retry-After", 429, 1, map[string]string{"Retry-After": "7"}, 7 * time.Second, 7 * time.Second},
		{"429 with Retry-After, third attempt", 429, 3, map[string]string{"Retry-After": "20"}, 20 * time.Second, 20 * time.Second},
		{"429 with a minute reset", 429, 1, map[string]string{"X-Rate-Limit-Reset-Minute": "12"}, 12 * time.Second, 12 * time.Second},
		{"429 with Retry-After and a spent day", 429, 1, map[string]string{"Retry-After": "7", "X-Rate-Limit-Remaining-Day": "0", "X-Rate-Limit-Reset-Day": "3600"}, time.Hour, time.Hour},
		{"200 with the minute spent", 200, 1, spent("Minute", "12"), 12 * time.Second, 12 * time.Second},
		{"200 with the day spent", 200, 1, spent("Day", "90"), 90 * time.Second, 90 * time.Second},
		{"404 with both spent", 404, 1, map[string]string{"X-Rate-Limit-Remaining-Minute": "0", "X-Rate-Limit-Reset-Minute": "12",
			"X-Rate-Limit-Remaining-Day": "0", "X-Rate-Limit-Reset-Day": "90"}, 90 * time.Second, 90 * time.Second},
		{"200 with one left", 200, 1, map[string]string{"X-Rate-Limit-Remaining-Minute": "1", "X-Rate-Limit-Reset-Minute": "12"}, 0, 0},
		{"200 spent without a reset", 200, 1, map[string]string{"X-Rate-Limit-Remaining-Minute": "0"}, 0, 0},
		{"200 with a reset that cannot be read", 200, 1, spent("Minute", "soon"), 0, 0},
		{"503 with Retry-After", 503, 1, map[string]string{"Retry-After": "7"}, 0, 0},
		{"200 with Retry-After", 200, 1, map[string]string{"Retry-After": "7"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				c, err := NewClient("key", WithBaseURL("http://127.0.0.1"))
				if err != nil {
					t.Fatal(err)
				}
				resp := &http.Response{StatusCode: tt.status, Header: http.Header{}}
				for k, v := range tt.header {
					resp.Header.Set(k, v)
				}
				cl := &call{policy: policy}
				cl.attempt.number = tt.attempt
				start := time.Now()
				c.pauseFor(cl, resp)
				var d time.Duration
				if until := c.cfg.pause.Until(); !until.IsZero() {
					d = until.Sub(start)
				}
				if d < tt.min || d > tt.max {
					t.Fatalf("paused for %v, want within [%v, %v]", d, tt.min, tt.max)
				}
			})
		})
	}
}

// TestAttemptWaitsForThePauseAfterItsSlot: an attempt of an iteration's
// pipeline that waited for its slot while a pause began does not go out
// inside the pause: it waits for the client's pause once it has its slot.
func TestAttemptWaitsForThePauseAfterItsSlot(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		c, err := NewClient("key", WithBaseURL("http://127.0.0.1"))
		if err != nil {
			t.Fatal(err)
		}
		g := pager.NewGate(2)
		first := g.Claim(false)
		first.Acquire(ctx) // the only slot of the tasks other than the head
		cl := &call{method: http.MethodGet, path: "/v1/Invoices", claim: g.Claim(false), policy: DefaultRetryPolicy()}
		defer cl.claim.Done()
		hook := c.retryClient(cl).RequestLogHook
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1/v1/Invoices", nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		went := make(chan time.Duration, 1)
		go func() {
			hook(nil, req, 0)
			went <- time.Since(start)
		}()
		synctest.Wait() // waiting for a slot; no pause yet
		c.holdFor(10 * time.Second)
		first.Done()
		synctest.Wait()
		select {
		case d := <-went:
			t.Fatalf("the attempt went out %v after the start, inside the pause", d)
		default:
		}
		if d := <-went; d != 10*time.Second {
			t.Fatalf("the attempt went out %v after the start, want at the pause's end, 10s", d)
		}
		if cl.held != nil || cl.attempt.number != 1 {
			t.Fatalf("held %v, attempt %d: want the attempt sent, as the first", cl.held, cl.attempt.number)
		}
	})
}

package billing

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"
)

func TestRequestedWait(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		status int
		header map[string]string
		want   time.Duration
	}{
		{"no headers", 429, nil, 0},
		{"Retry-After seconds", 503, map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"Retry-After date", 429, map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"Retry-After in the past", 429, map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"minute window exhausted", 429, map[string]string{"X-Rate-Limit-Remaining-Minute": "0", "X-Rate-Limit-Reset-Minute": "12", "X-Rate-Limit-Remaining-Day": "5", "X-Rate-Limit-Reset-Day": "3600"}, 12 * time.Second},
		{"day window exhausted", 429, map[string]string{"X-Rate-Limit-Remaining-Minute": "3", "X-Rate-Limit-Reset-Minute": "12", "X-Rate-Limit-Remaining-Day": "0", "X-Rate-Limit-Reset-Day": "3600"}, time.Hour},
		{"reset as Unix time", 429, map[string]string{"X-Rate-Limit-Remaining-Minute": "0", "X-Rate-Limit-Reset-Minute": "1767323105"}, 60 * time.Second},
		{"reset as API timestamp", 429, map[string]string{"X-Rate-Limit-Remaining-Minute": "0", "X-Rate-Limit-Reset-Minute": "2026-01-02T03:04:35"}, 30 * time.Second},
		{"Retry-After wins over reset", 429, map[string]string{"Retry-After": "2", "X-Rate-Limit-Remaining-Minute": "0", "X-Rate-Limit-Reset-Minute": "40"}, 2 * time.Second},
		{"reset headers ignored on 503", 503, map[string]string{"X-Rate-Limit-Remaining-Minute": "0", "X-Rate-Limit-Reset-Minute": "40"}, 0},
		{"garbage", 429, map[string]string{"Retry-After": "soon"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := &http.Response{StatusCode: tt.status, Header: http.Header{}}
			for k, v := range tt.header {
				resp.Header.Set(k, v)
			}
			if got := requestedWait(resp, now); got != tt.want {
				t.Errorf("requestedWait = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBackoffBounds(t *testing.T) {
	t.Parallel()
	p := RetryPolicy{MaxRetries: 10, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, MaxRetryAfter: time.Minute}
	for attempt := range 40 {
		step := min(p.MinBackoff<<min(attempt, 30), p.MaxBackoff)
		for range 50 {
			d := p.backoff(attempt)
			if d < step/2 || d > step {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, d, step/2, step)
			}
		}
	}
}

func TestRetryDecision(t *testing.T) {
	t.Parallel()
	policy := RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: 10 * time.Second}
	now := time.Now()
	resp := func(status int, retryAfter string) *http.Response {
		r := &http.Response{StatusCode: status, Header: http.Header{}}
		if retryAfter != "" {
			r.Header.Set("Retry-After", retryAfter)
		}
		return r
	}
	tests := []struct {
		name         string
		write        bool
		wroteHeaders bool
		resp         *http.Response
		err          error
		deadline     time.Duration // of the call's context, from now; 0: none
		want         bool
	}{
		{"read 503", false, true, resp(503, ""), nil, 0, true},
		{"read 503 asking for too long", false, true, resp(503, "60"), nil, 0, false},
		{"read 501 is not retried", false, true, resp(501, ""), nil, 0, false},
		{"read 200", false, true, resp(200, ""), nil, 0, false},
		{"write 429 within cap", true, true, resp(429, "3"), nil, 0, true},
		{"write 429 beyond cap", true, true, resp(429, "30"), nil, 0, false},
		{"write 502", true, true, resp(502, ""), nil, 0, false},
		{"write error before headers written", true, false, nil, context.DeadlineExceeded, 0, true},
		{"write error after headers written", true, true, nil, context.DeadlineExceeded, 0, false},
		{"read error after headers written", false, true, nil, context.DeadlineExceeded, 0, true},
		{"redirect refused", false, false, nil, errRedirectRefused, 0, false},
		{"429 whose wait ends before the deadline", true, true, resp(429, "3"), nil, 4 * time.Second, true},
		{"429 whose wait ends at the deadline", true, true, resp(429, "3"), nil, 3 * time.Second, false},
		{"429 whose wait ends past the deadline", false, true, resp(429, "3"), nil, time.Second, false},
		{"503 whose wait ends past the deadline", false, true, resp(503, "5"), nil, 2 * time.Second, false},
		{"503 without a wait, with a deadline", false, true, resp(503, ""), nil, time.Hour, true},
		{"read refused by a RoundTripper that never went to the network", false, false, nil, &url.Error{Op: "Get", URL: "u", Err: errors.New("no responder found")}, 0, false},
		{"read error of no known shape after going to the network", false, true, nil, &url.Error{Op: "Get", URL: "u", Err: errors.New("http2: stream closed")}, 0, true},
		{"read dropped by a transport off the network (io.EOF)", false, false, nil, &url.Error{Op: "Get", URL: "u", Err: io.EOF}, 0, true},
		{"read reset off the network (an errno)", false, false, nil, &url.Error{Op: "Get", URL: "u", Err: syscall.ECONNRESET}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := &call{write: tt.write, policy: policy}
			cl.attempt.wroteHeaders.Store(tt.wroteHeaders)
			cl.attempt.dialled.Store(tt.wroteHeaders) // headers written went through a connection
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, now.Add(tt.deadline))
				defer cancel()
			}
			if got := cl.shouldRetry(ctx, tt.resp, tt.err, now); got != tt.want {
				t.Errorf("shouldRetry = %v, want %v", got, tt.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if (&call{policy: policy}).shouldRetry(ctx, resp(503, ""), nil, now) {
		t.Error("retried after the context ended")
	}
}

func TestRetryPolicyDefaults(t *testing.T) {
	t.Parallel()
	got, err := RetryPolicy{MaxRetries: 4}.resolve(DefaultRetryPolicy())
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultRetryPolicy()
	want.MaxRetries = 4
	if got != want {
		t.Errorf("resolve = %+v, want %+v", got, want)
	}
	if DefaultRetryPolicy().MaxRetries != 2 {
		t.Error("the default is 2 retries")
	}
}

// TestRetryPolicyFieldsLeftZeroKeepTheClientsValues checks that a policy
// changes only the fields it sets: over the defaults, over an earlier
// WithRetryPolicy (the fake's client sets millisecond waits), and for one
// call with WithRetries over the client's policy.
func TestRetryPolicyFieldsLeftZeroKeepTheClientsValues(t *testing.T) {
	t.Parallel()
	fast := RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, MaxRetryAfter: 5 * time.Second}
	for _, tt := range []struct {
		name      string
		client    []Option
		call      []RequestOption
		want      RetryPolicy
		wantError bool
	}{
		{"defaults", nil, nil, DefaultRetryPolicy(), false},
		{"one field over the defaults", []Option{WithRetryPolicy(RetryPolicy{MaxRetries: 4})}, nil,
			RetryPolicy{MaxRetries: 4, MinBackoff: 500 * time.Millisecond, MaxBackoff: 30 * time.Second, MaxRetryAfter: time.Minute}, false},
		{"one field over an earlier policy", []Option{WithRetryPolicy(fast), WithRetryPolicy(RetryPolicy{MaxRetries: 4})}, nil,
			RetryPolicy{MaxRetries: 4, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, MaxRetryAfter: 5 * time.Second}, false},
		{"a minimum over the earlier cap raises the cap", []Option{WithRetryPolicy(fast), WithRetryPolicy(RetryPolicy{MinBackoff: 50 * time.Millisecond})}, nil,
			RetryPolicy{MaxRetries: 2, MinBackoff: 50 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, MaxRetryAfter: 5 * time.Second}, false},
		{"NoRetries", []Option{WithRetryPolicy(fast), WithRetryPolicy(RetryPolicy{MaxRetries: NoRetries})}, nil,
			RetryPolicy{MaxRetries: 0, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, MaxRetryAfter: 5 * time.Second}, false},
		{"one call over the client's", []Option{WithRetryPolicy(fast)}, []RequestOption{WithRetries(RetryPolicy{MaxRetries: 5})},
			RetryPolicy{MaxRetries: 5, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, MaxRetryAfter: 5 * time.Second}, false},
		{"one call's cap under the client's minimum", []Option{WithRetryPolicy(fast)}, []RequestOption{WithRetries(RetryPolicy{MaxBackoff: 500 * time.Microsecond})},
			RetryPolicy{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got RetryPolicy
			c, err := NewClient("key-retry-policy", append(tt.client, WithBaseURL("http://127.0.0.1"), WithHTTPClient(&http.Client{Transport: refuseAll{t}}))...)
			if err != nil {
				t.Fatal(err)
			}
			got = c.cfg.retry
			if tt.call != nil {
				rc, err := applyRequestOptions(tt.call)
				if err != nil {
					t.Fatal(err)
				}
				got, err = rc.retry.resolve(c.cfg.retry)
				if (err != nil) != tt.wantError {
					t.Fatalf("resolving the call's policy: %v, want an error %v", err, tt.wantError)
				}
				if tt.wantError {
					// And the call fails before sending.
					if _, err := c.Invoices.Get(context.Background(), 1, nil, tt.call...); !errors.Is(err, ErrInvalidParams) {
						t.Errorf("Get with the policy: %v, want ErrInvalidParams", err)
					}
					return
				}
			}
			if got != tt.want {
				t.Errorf("policy %+v, want %+v", got, tt.want)
			}
		})
	}
}

// refuseAll is a transport for tests that must send nothing.
type refuseAll struct{ t *testing.T }

func (r refuseAll) RoundTrip(*http.Request) (*http.Response, error) {
	r.t.Error("a request was sent")
	return nil, errors.New("refuseAll: no request may be sent")
}

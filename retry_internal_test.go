package billing

import (
	"context"
	"net/http"
	"testing"
	"time"
)

func TestRequestedWait(t *testing.T) {
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
		want         bool
	}{
		{"read 503", false, true, resp(503, ""), nil, true},
		{"read 503 asking for too long", false, true, resp(503, "60"), nil, false},
		{"read 501 is not retried", false, true, resp(501, ""), nil, false},
		{"read 200", false, true, resp(200, ""), nil, false},
		{"write 429 within cap", true, true, resp(429, "3"), nil, true},
		{"write 429 beyond cap", true, true, resp(429, "30"), nil, false},
		{"write 502", true, true, resp(502, ""), nil, false},
		{"write error before headers written", true, false, nil, context.DeadlineExceeded, true},
		{"write error after headers written", true, true, nil, context.DeadlineExceeded, false},
		{"read error after headers written", false, true, nil, context.DeadlineExceeded, true},
		{"redirect refused", false, false, nil, errRedirectRefused, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := &call{write: tt.write, policy: policy}
			cl.attempt.wroteHeaders.Store(tt.wroteHeaders)
			if got := cl.shouldRetry(context.Background(), tt.resp, tt.err, now); got != tt.want {
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
	got, err := RetryPolicy{MaxRetries: 4}.resolve()
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

package billingtest

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// Every answer's Date is the fake's clock, not the wall clock: the
// service's Date follows the clock that stamps modifiedTimestamp, and the
// SDK reads it to tell whether a second can still receive writes. Before,
// net/http wrote the wall clock.
func TestDateFollowsTheClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 2, 1, 0, 0, 0, 900_000_000, time.UTC)
	var tick atomic.Int64 // seconds past start
	srv := NewServer(WithClock(func() time.Time { return start.Add(time.Duration(tick.Load()) * time.Second) }))
	t.Cleanup(srv.Close)
	for i, tt := range []struct {
		method, path, key, host string
		status                  int
	}{
		{method: "GET", path: "/v1/Invoices", key: DefaultAPIKey, status: 200},
		{method: "GET", path: "/v1/Invoices?pageSize=-1", key: DefaultAPIKey, status: 400},
		{method: "GET", path: "/v1/Invoices", status: 401},
		{method: "GET", path: "/v1/Nothing", key: DefaultAPIKey, status: 404},
		{method: "DELETE", path: "/v1/Invoices", key: DefaultAPIKey, status: 405},
		{method: "GET", path: "/_fake/state", key: DefaultAPIKey, status: 200},
		{method: "GET", path: "/v1/Invoices", key: DefaultAPIKey, host: "evil.example", status: 400},
	} {
		tick.Store(int64(i))
		req, err := http.NewRequest(tt.method, srv.URL+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt.key != "" {
			req.Header.Set("Authorization", "Basic "+tt.key)
		}
		if tt.host != "" {
			req.Host = tt.host
		}
		resp, err := srv.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := fmt.Sprintf("Thu, 01 Feb 2024 00:00:%02d GMT", i) // the clock's second, cut
		if resp.StatusCode != tt.status || resp.Header.Get("Date") != want {
			t.Errorf("%s %s (host %q): %d with Date %q, want %d with %q", tt.method, tt.path, tt.host, resp.StatusCode, resp.Header.Get("Date"), tt.status, want)
		}
	}
}

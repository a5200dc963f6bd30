package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/billingapi/billing-go"
)

// echoGroupings are the ways an echoing proxy writes echoCard back.
var echoGroupings = []string{echoCard, "4929 3817 6104 5378", "4929-3817-6104-5378", "4929.3817.6104.5378", "49293 81761 045378"}

// echoingServer answers every request with status, echoing its
// Authorization header and the card number (in every grouping) and CVV in
// response headers, as a debugging proxy might.
func echoingServer(t *testing.T, status int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h.Set("X-Echo-Authorization", r.Header.Get("Authorization"))
		h["X-Echo-Card"] = echoGroupings
		h.Set("X-Echo-Cvv", echoCVV)
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The Response of CaptureResponse, the one Client.Do returns and a page's
// Response hold the answer's headers scrubbed like APIError.Header: the
// API key wherever it is echoed, and the call's card number (in any
// grouping) and CVV, in every fmt verb.
func TestCapturedResponsesAreScrubbed(t *testing.T) {
	t.Parallel()
	replaceCard := func(ctx context.Context, c *billing.Client, captured *billing.Response) []any {
		p := secParams()
		p.CardNumber, p.CVV = "4929 3817 6104 5378", echoCVV
		r, err := c.PaymentMethods.ReplaceCreditCard(ctx, &p, billing.CaptureResponse(captured))
		return []any{r, err}
	}
	tests := []struct {
		name   string
		status int
		body   string
		card   bool // the call knows the card: it must be scrubbed too
		call   func(ctx context.Context, c *billing.Client, captured *billing.Response) []any
	}{
		{"ReplaceCreditCard 200", http.StatusOK, `{"id":1001}`, true, replaceCard},
		{"ReplaceCreditCard 409", http.StatusConflict, errorBody(409, "Api Error", "refused"), true, replaceCard},
		{"Invoices.Get 503", http.StatusServiceUnavailable, errorBody(503, "Api Error", "busy"), false,
			func(ctx context.Context, c *billing.Client, captured *billing.Response) []any {
				r, err := c.Invoices.Get(ctx, 7, nil, billing.CaptureResponse(captured))
				return []any{r, err}
			}},
		{"Client.Do 200", http.StatusOK, `{"id":42}`, false,
			func(ctx context.Context, c *billing.Client, captured *billing.Response) []any {
				var out json.RawMessage
				r, err := c.Do(ctx, &billing.Request{Method: http.MethodGet, Path: "/v1/Customers/42"}, &out, billing.CaptureResponse(captured))
				return []any{r, err}
			}},
		{"Invoices.Pages", http.StatusOK, `[{"id":1}]`, false,
			func(ctx context.Context, c *billing.Client, captured *billing.Response) []any {
				var got []any
				for p, err := range c.Invoices.Pages(ctx, nil, billing.CaptureResponse(captured)) {
					got = append(got, p, err)
				}
				return got
			}},
		{"Invoices.Pages with Prefetch", http.StatusOK, `[{"id":1}]`, false,
			func(ctx context.Context, c *billing.Client, captured *billing.Response) []any {
				var got []any
				for p, err := range c.Invoices.Pages(ctx, nil, billing.CaptureResponse(captured), billing.Prefetch(2)) {
					got = append(got, p, err)
				}
				return got
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := echoingServer(t, tt.status, tt.body)
			var captured billing.Response
			values := tt.call(context.Background(), hostileClient(t, srv.URL), &captured)
			if captured.StatusCode != tt.status || captured.Header.Get("X-Echo-Authorization") == "" {
				t.Fatalf("captured %d with X-Echo-Authorization %q, want %d and the echo, scrubbed",
					captured.StatusCode, captured.Header.Get("X-Echo-Authorization"), tt.status)
			}
			values = append(values, captured, &captured)
			for _, v := range values {
				for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
					out := fmt.Sprintf(verb, v)
					if strings.Contains(out, testKey) {
						t.Errorf("%s of %T leaks the API key:\n%s", verb, v, out)
					}
					if tt.card && leaksCard(out) {
						t.Errorf("%s of %T leaks the card number:\n%s", verb, v, out)
					}
					if tt.card && leaksCVV(out, echoCVV) {
						t.Errorf("%s of %T leaks the CVV:\n%s", verb, v, out)
					}
				}
			}
		})
	}
}

// Scrubbing the headers leaves the numbers the SDK reads alone, even
// where one equals the CVV (a three- or four-digit number turns up there
// by chance): a 429 to a card replacement whose Retry-After and rate-limit
// headers read 8146 still asks for 8146 s, which ends the retries, and the
// captured rate limits keep their values. An echo of the CVV elsewhere is
// scrubbed.
func TestScrubbingKeepsTheNumbersTheSDKReads(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h := w.Header()
		h.Set("Retry-After", echoCVV)
		h.Set("X-Rate-Limit-Remaining-Day", echoCVV)
		h.Set("X-Rate-Limit-Limit-Day", "1"+echoCVV)
		h.Set("X-Echo-Cvv", echoCVV)
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	t.Cleanup(srv.Close)
	p := secParams()
	p.CVV = echoCVV
	var captured billing.Response
	_, err := hostileClient(t, srv.URL).PaymentMethods.ReplaceCreditCard(context.Background(), &p, billing.CaptureResponse(&captured))
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != 8146*time.Second {
		t.Fatalf("err = %v, want an *APIError asking for 8146s", err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("requests = %d, want 1: a wait beyond the cap ends the retries", n)
	}
	want := billing.RateLimitWindow{Present: true, Limit: 18146, Remaining: 8146}
	if got := captured.RateLimit.Day; got != want {
		t.Errorf("captured RateLimit.Day = %+v, want %+v", got, want)
	}
	for what, h := range map[string]http.Header{"captured": captured.Header, "APIError": apiErr.Header} {
		if got := h.Get("X-Echo-Cvv"); got == echoCVV {
			t.Errorf("%s X-Echo-Cvv = %q: the CVV is not scrubbed", what, got)
		}
		if got := h.Get("Retry-After"); got != echoCVV {
			t.Errorf("%s Retry-After = %q, want %s as sent", what, got, echoCVV)
		}
	}
}

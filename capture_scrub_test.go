package billing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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

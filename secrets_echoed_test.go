package billing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/billingapi/billing-go"
)

// Secrets a server or a proxy echoes back, in a body or in headers, are
// scrubbed from errors, logs and captured responses, whatever their
// grouping; the numbers the SDK reads are left alone.

// echoCard is a card number long and distinctive enough not to turn up by
// chance; echoCVV likewise, and the test looks for it only as a whole
// number.
const (
	echoCard = "4929381761045378"
	echoCVV  = "8146"
)

// leaksCard reports whether s holds the card's digits in order, with any
// separators between them.
func leaksCard(s string) bool {
	var digits strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			digits.WriteRune(r)
		} else if !strings.ContainsRune(" -.", r) {
			digits.WriteByte('|')
		}
	}
	return strings.Contains(digits.String(), echoCard)
}

// A card number the server echoes back is scrubbed whatever its grouping,
// from the error, every fmt verb of it and the log; the CVV is scrubbed
// where it stands as a number, and other numbers that contain its digits
// are left alone.
func TestEchoedCardNumberIsScrubbedInAnyFormat(t *testing.T) {
	t.Parallel()
	grouped := "4929 3817 6104 5378"
	echoes := []struct{ name, sent, echo string }{
		{"spaces", echoCard, grouped},
		{"dashes", echoCard, "4929-3817-6104-5378"},
		{"dots", echoCard, "4929.3817.6104.5378"},
		{"mixed", echoCard, "4929 - 3817 - 6104 - 5378"},
		{"plain digits for a spaced number", grouped, echoCard},
		{"grouped differently", grouped, "49293 81761 045378"},
	}
	for _, e := range echoes {
		for _, where := range []string{"envelope", "html", "header"} {
			t.Run(e.name+"/"+where, func(t *testing.T) {
				t.Parallel()
				msg := fmt.Sprintf("card %s with cvv %s refused for invoice 1%s2 of %s.50", e.echo, echoCVV, echoCVV, echoCVV)
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					switch where {
					case "envelope":
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusBadRequest)
						_, _ = io.WriteString(w, errorBody(400, "cardNumber "+e.echo, msg))
					case "html":
						w.Header().Set("Content-Type", "text/html")
						w.WriteHeader(http.StatusBadGateway)
						_, _ = io.WriteString(w, "<html><body>"+msg+"</body></html>")
					case "header":
						w.Header().Set("X-Debug", msg)
						w.WriteHeader(http.StatusConflict)
					}
				}))
				t.Cleanup(srv.Close)
				var logs bytes.Buffer
				c := hostileClient(t, srv.URL, billing.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
				p := secParams()
				p.CardNumber, p.CVV = e.sent, echoCVV
				_, err := c.PaymentMethods.ReplaceCreditCard(context.Background(), &p)
				var apiErr *billing.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("err = %v, want an *APIError", err)
				}
				outs := map[string]string{"log": logs.String()}
				for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
					outs["err "+verb] = fmt.Sprintf(verb, err)
					outs["*APIError "+verb] = fmt.Sprintf(verb, apiErr)
					outs["APIError "+verb] = fmt.Sprintf(verb, *apiErr)
				}
				for what, out := range outs {
					if leaksCard(out) {
						t.Errorf("%s leaks the card number:\n%s", what, out)
					}
					if leaksCVV(out, echoCVV) {
						t.Errorf("%s leaks the CVV:\n%s", what, out)
					}
				}
				// Other numbers stay, even where they contain the CVV's digits.
				if where != "header" && !strings.Contains(err.Error(), "1"+echoCVV+"2") || where != "header" && !strings.Contains(err.Error(), echoCVV+".50") {
					t.Errorf("numbers that merely contain the CVV were scrubbed: %v", err)
				}
			})
		}
	}
}

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

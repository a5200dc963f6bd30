package billing_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
)

// assertWrite checks a request with a JSON body and no query string.
func assertWrite(t *testing.T, r recorded, method, path, body string) {
	t.Helper()
	assertRequest(t, r, method, path, "", body)
}

// assertRequest checks a request: its method, escaped path and raw query
// string, the headers every request carries, and its body as JSON (""
// for a request without one).
func assertRequest(t *testing.T, r recorded, method, path, rawQuery, body string) {
	t.Helper()
	type line struct{ Method, Path, RawQuery string }
	if d := diff(line{method, path, rawQuery}, line{r.Method, r.Path, r.RawQuery}); d != "" {
		t.Errorf("request line (-want +got):\n%s", d)
	}
	assertCommonHeaders(t, r, body != "")
	if body == "" {
		if len(r.Body) != 0 {
			t.Errorf("request carried a body: %q", r.Body)
		}
		return
	}
	assertJSON(t, r.Body, body)
}

// assertRefused checks that err is the *billing.ValidationError of field,
// not an *billing.APIError, and that w sent nothing.
func assertRefused(t *testing.T, w *wire, err error, field string) {
	t.Helper()
	assertValidation(t, err, field)
	if n := w.sent(); n != 0 {
		t.Errorf("requests sent: %d, want 0", n)
	}
}

// sendAnswered runs op, with valid arguments and opts, on a wire without
// retries that answers every request with status, the error envelope
// and the header pairs, and returns the requests sent and the error.
func sendAnswered(t *testing.T, op sweepOp, status int, header []string, opts ...billing.RequestOption) ([]recorded, error) {
	t.Helper()
	fx := sweepFixture{customer: 1, customer2: 2, invoice: 3, draft: 4, card1: 5, card2: 6, plan: 7, product: 8, job: 9, balance: decimal.NewFromInt(1)}
	w := newWire(t)
	w.mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		w.record(req)
		resp := httpmock.NewStringResponse(status, errorBody(status, "Api Error", http.StatusText(status)))
		resp.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			resp.Header.Set(header[i], header[i+1])
		}
		return resp, nil
	})
	in := fx.in()
	if op.setup != nil {
		op.setup(fx, &in)
	}
	err := op.run(context.Background(), w.client, in, opts).err
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.requests, err
}

// TestRequestOptionsOnEveryMethod: every method of the table (sweepOps)
// sends SuppressEvents and WithHeader on its request, sends no
// X-SUPPRESS-ALL-EVENTS without them, and refuses a WithHeader that would
// replace the Authorization the client manages before sending anything.
func TestRequestOptionsOnEveryMethod(t *testing.T) {
	t.Parallel()
	// The request, not the answer, is what is checked.
	send := func(t *testing.T, op sweepOp, opts ...billing.RequestOption) ([]recorded, error) {
		return sendAnswered(t, op, http.StatusNotFound, nil, opts...)
	}
	for _, op := range sweepOps() {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			reqs, _ := send(t, op, billing.SuppressEvents(), billing.WithHeader("X-Correlation-Id", "corr-1"))
			if len(reqs) != 1 {
				t.Fatalf("requests sent: %d, want 1", len(reqs))
			}
			type sent struct{ Suppress, Correlation []string }
			got := sent{reqs[0].Header.Values("X-SUPPRESS-ALL-EVENTS"), reqs[0].Header.Values("X-Correlation-Id")}
			if d := diff(sent{[]string{"True"}, []string{"corr-1"}}, got); d != "" {
				t.Errorf("with the options (-want +got):\n%s", d)
			}
			assertCommonHeaders(t, reqs[0], reqs[0].Method != http.MethodGet)

			reqs, _ = send(t, op)
			if len(reqs) != 1 {
				t.Fatalf("requests sent: %d, want 1", len(reqs))
			}
			if got := reqs[0].Header.Values("X-SUPPRESS-ALL-EVENTS"); len(got) != 0 {
				t.Errorf("X-SUPPRESS-ALL-EVENTS = %q without SuppressEvents, want absent", got)
			}

			for _, key := range []string{"Authorization", "authorization"} {
				reqs, err := send(t, op, billing.WithHeader(key, "Basic stolen-key"))
				var ve *billing.ValidationError
				if !errors.As(err, &ve) || len(reqs) != 0 {
					t.Errorf("WithHeader(%q): err = %v (%T), %d requests sent; want a *billing.ValidationError and none", key, err, err, len(reqs))
				}
			}
		})
	}
}

// TestErrorStatusesOnEveryMethod: on every method of the table, an error
// answer is an *APIError with its status, the request's method and path
// (no query string), the envelope's key and the category errors.Is
// matches; a 429 carries its Retry-After; nothing is retried with retries
// off.
func TestErrorStatusesOnEveryMethod(t *testing.T) {
	t.Parallel()
	statuses := []struct {
		status   int
		category error
		header   []string
	}{
		{http.StatusBadRequest, billing.ErrBadRequest, nil},
		{http.StatusUnauthorized, billing.ErrUnauthorized, nil},
		{http.StatusNotFound, billing.ErrNotFound, nil},
		{http.StatusTooManyRequests, billing.ErrRateLimited, []string{"Retry-After", "120"}},
	}
	for _, op := range sweepOps() {
		for _, sc := range statuses {
			t.Run(fmt.Sprint(op.name, "/", sc.status), func(t *testing.T) {
				t.Parallel()
				reqs, err := sendAnswered(t, op, sc.status, sc.header)
				if len(reqs) != 1 {
					t.Fatalf("requests sent: %d, want 1 (retries are off)", len(reqs))
				}
				ae := pmAPIError(t, err, sc.status, sc.category)
				type got struct {
					Method, Path string
					APIErrorKey  bool
					RetryAfter   time.Duration
				}
				want := got{reqs[0].Method, reqs[0].Path, true, 0}
				if sc.status == http.StatusTooManyRequests {
					want.RetryAfter = 2 * time.Minute
				}
				if d := diff(want, got{ae.Method, ae.Path, ae.HasKey("Api Error"), ae.RetryAfter}); d != "" {
					t.Errorf("APIError (-want +got):\n%s", d)
				}
			})
		}
	}
}

package billing_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
)

// TestRequestOptionsOnEveryMethod: every method of the table (sweepOps)
// sends SuppressEvents and WithHeader on its request, sends no
// X-SUPPRESS-ALL-EVENTS without them, and refuses a WithHeader that would
// replace the Authorization the client manages before sending anything.
func TestRequestOptionsOnEveryMethod(t *testing.T) {
	t.Parallel()
	fx := sweepFixture{customer: 1, customer2: 2, invoice: 3, draft: 4, card1: 5, card2: 6, plan: 7, product: 8, job: 9, balance: decimal.NewFromInt(1)}
	// send runs op on a wire that answers every request 404 (the
	// request, not the answer, is what is checked), and returns the error
	// and the requests sent.
	send := func(t *testing.T, op sweepOp, opts ...billing.RequestOption) (error, []recorded) {
		w := newWire(t)
		w.mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
			w.record(req)
			resp := httpmock.NewStringResponse(http.StatusNotFound, errorBody(http.StatusNotFound, "Api Error", "not found"))
			resp.Header.Set("Content-Type", "application/json")
			return resp, nil
		})
		in := fx.in()
		if op.setup != nil {
			op.setup(fx, &in)
		}
		err := op.run(context.Background(), w.client, in, opts).err
		w.mu.Lock()
		defer w.mu.Unlock()
		return err, w.requests
	}
	for _, op := range sweepOps() {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			_, reqs := send(t, op, billing.SuppressEvents(), billing.WithHeader("X-Correlation-Id", "corr-1"))
			if len(reqs) != 1 {
				t.Fatalf("requests sent: %d, want 1", len(reqs))
			}
			type sent struct{ Suppress, Correlation []string }
			got := sent{reqs[0].Header.Values("X-SUPPRESS-ALL-EVENTS"), reqs[0].Header.Values("X-Correlation-Id")}
			if d := diff(sent{[]string{"True"}, []string{"corr-1"}}, got); d != "" {
				t.Errorf("with the options (-want +got):\n%s", d)
			}
			assertCommonHeaders(t, reqs[0], reqs[0].Method != http.MethodGet)

			_, reqs = send(t, op)
			if len(reqs) != 1 {
				t.Fatalf("requests sent: %d, want 1", len(reqs))
			}
			if got := reqs[0].Header.Values("X-SUPPRESS-ALL-EVENTS"); len(got) != 0 {
				t.Errorf("X-SUPPRESS-ALL-EVENTS = %q without SuppressEvents, want absent", got)
			}

			for _, key := range []string{"Authorization", "authorization"} {
				err, reqs := send(t, op, billing.WithHeader(key, "Basic stolen-key"))
				var ve *billing.ValidationError
				if !errors.As(err, &ve) || len(reqs) != 0 {
					t.Errorf("WithHeader(%q): err = %v (%T), %d requests sent; want a *billing.ValidationError and none", key, err, err, len(reqs))
				}
			}
		})
	}
}

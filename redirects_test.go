package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/billingapi/billing-go"
)

// A same-host redirect loop is final: the attempt that meets it stops
// after 10 redirects, and the call is not retried as if the network had
// failed, so a read with MaxRetries 2 sends 10 requests, not 30.
func TestRedirectLoopIsFinal(t *testing.T) {
	t.Parallel()
	doGet := hostileOp{name: "Client.Do", call: func(ctx context.Context, c *billing.Client) error {
		var out json.RawMessage
		_, err := c.Do(ctx, &billing.Request{Method: http.MethodGet, Path: "/v1/Customers/42"}, &out)
		return err
	}}
	loops := []struct {
		name string
		next func(path string) string
	}{
		{"to itself", func(path string) string { return path }},
		{"between two places", func(path string) string {
			if strings.HasSuffix(path, "/") {
				return strings.TrimSuffix(path, "/")
			}
			return path + "/"
		}},
	}
	for _, op := range []hostileOp{opGet, opList, opPDF, doGet} {
		for _, loop := range loops {
			t.Run(op.name+"/"+loop.name, func(t *testing.T) {
				t.Parallel()
				var requests atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					requests.Add(1)
					http.Redirect(w, r, loop.next(r.URL.Path), http.StatusFound)
				}))
				t.Cleanup(srv.Close)
				c := hostileClient(t, srv.URL, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}))
				err := noHang(t, func() error { return op.call(context.Background(), c) })
				var reqErr *billing.RequestError
				if !errors.As(err, &reqErr) || reqErr.Attempts != 1 || !strings.Contains(err.Error(), "redirect loop") {
					t.Errorf("err = %v (%T), want a *RequestError after 1 attempt that says it met a redirect loop", err, err)
				}
				if errors.Is(err, billing.ErrOutcomeUnknown) {
					t.Errorf("a read's error matches ErrOutcomeUnknown: %v", err)
				}
				if n := requests.Load(); n != 10 {
					t.Errorf("the server received %d requests, want 10: the first and 9 redirects followed, and no retry", n)
				}
			})
		}
	}
}

package billing_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/billingapi/billing-go"
)

// A caller's http.Client keeps its own Timeout: a 50 ms timeout stops an
// answer that takes seconds, as it would without the SDK. WithTimeout,
// given too, wins.
func TestWithHTTPClientKeepsTheCallersTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // answers only when the test ends: any timeout here is the client's
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	for _, tt := range []struct {
		name string
		opts []billing.Option
	}{
		{"the caller's timeout", []billing.Option{billing.WithHTTPClient(&http.Client{Timeout: 50 * time.Millisecond})}},
		{"WithTimeout over a client without one", []billing.Option{billing.WithHTTPClient(&http.Client{}), billing.WithTimeout(50 * time.Millisecond)}},
		{"WithTimeout over the caller's longer one", []billing.Option{billing.WithHTTPClient(&http.Client{Timeout: time.Hour}), billing.WithTimeout(50 * time.Millisecond)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newLoopbackClient(t, srv.URL, append(tt.opts, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}))...)
			// The context is only a hang guard; the error must be the client's timeout.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := c.Invoices.Get(ctx, 7, nil)
			var netErr net.Error
			if !errors.As(err, &netErr) || !netErr.Timeout() || ctx.Err() != nil {
				t.Fatalf("err = %v, want the client's timeout", err)
			}
		})
	}
}

// A partly filled policy keeps the defaults for what it leaves zero;
// NoRetries is the way to say none.
func TestRetryPolicyKeepsDefaultsForZeroFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		policy   billing.RetryPolicy
		wantSent int32
	}{
		{billing.RetryPolicy{MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}, 3}, // the default 2 retries
		{billing.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}, 2},
		{billing.RetryPolicy{MaxRetries: billing.NoRetries}, 1},
	}
	for _, tt := range tests {
		srv, hits := scriptServer(t, 503)
		c := newLoopbackClient(t, srv.URL, billing.WithRetryPolicy(tt.policy))
		if err := readInvoice(c); !errors.Is(err, billing.ErrServer) {
			t.Fatalf("%+v: err = %v", tt.policy, err)
		}
		if got := hits.Load(); got != tt.wantSent {
			t.Errorf("%+v: sent %d requests, want %d", tt.policy, got, tt.wantSent)
		}
	}
	if _, err := billing.NewClient(testKey, billing.WithBaseURL(testBaseURL), billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: -2})); !errors.Is(err, billing.ErrInvalidParams) {
		t.Errorf("MaxRetries -2: err = %v, want ErrInvalidParams", err)
	}
}

// Every error the SDK returns before sending anything matches
// ErrInvalidParams, whatever its type.
func TestErrorsBeforeSendingMatchErrInvalidParams(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	ctx := context.Background()
	calls := map[string]func() error{
		"NewClient without a base URL": func() error { _, err := billing.NewClient(testKey); return err },
		"NewClient with an empty key":  func() error { _, err := billing.NewClient("", billing.WithBaseURL(testBaseURL)); return err },
		"a wallet agreement without token or baid": func() error {
			_, err := w.client.PaymentMethods.CreateWalletAgreement(ctx, billing.WalletProviderPaypal, &billing.WalletAgreementParams{CustomerID: 1, Source: billing.PaymentSourceManual})
			return err
		},
		"a provider that is not one segment": func() error {
			_, err := w.client.PaymentMethods.CreateWalletAgreement(ctx, "Pay/pal", &billing.WalletAgreementParams{Token: "t", CustomerID: 1, Source: billing.PaymentSourceManual})
			return err
		},
		"a negative id": func() error { _, err := w.client.Invoices.Get(ctx, -1, nil); return err },
		"a bad request option": func() error {
			_, err := w.client.Invoices.Get(ctx, 1, nil, billing.WithHeader("Authorization", "x"))
			return err
		},
		"a bad iterator option": func() error {
			for _, err := range w.client.Invoices.All(ctx, nil, billing.Prefetch(-1)) {
				return err
			}
			return nil
		},
		"a nil iterator option": func() error {
			for _, err := range w.client.Invoices.All(ctx, nil, nil) {
				return err
			}
			return nil
		},
		"a negative page size": func() error {
			_, err := w.client.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: -1}})
			return err
		},
		"a nil context": func() error {
			//lint:ignore SA1012 the nil context is what is under test
			_, err := w.client.Invoices.Get(nil, 1, nil)
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, billing.ErrInvalidParams) {
			t.Errorf("%s: err = %v, want ErrInvalidParams", name, err)
		}
	}
	if w.sent() != 0 {
		t.Errorf("sent %d requests, want none", w.sent())
	}
}

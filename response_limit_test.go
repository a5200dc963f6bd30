package billing_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
)

func TestMaxResponseBytes(t *testing.T) {
	body := `{"id":7,"notes":"` + strings.Repeat("x", 1000) + `"}`
	tests := []struct {
		name  string
		limit int64
		ok    bool
	}{
		{"well under", 10_000, true},
		{"exactly the body", int64(len(body)), true},
		{"one byte short", int64(len(body)) - 1, false},
		{"far under", 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWire(t, billing.WithMaxResponseBytes(tt.limit))
			w.on("GET", "/v1/Invoices/7", 200, body)
			_, err := w.client.Invoices.Get(context.Background(), 7, nil)
			if tt.ok && err != nil {
				t.Fatalf("err = %v", err)
			}
			if !tt.ok && !errors.Is(err, billing.ErrResponseTooLarge) {
				t.Fatalf("err = %v, want ErrResponseTooLarge", err)
			}
		})
	}
	if _, err := billing.NewClient(testKey, billing.WithBaseURL(testBaseURL), billing.WithMaxResponseBytes(0)); err == nil {
		t.Error("a zero limit was accepted")
	}
}

func TestMaxResponseBytesBoundsPages(t *testing.T) {
	items := "[" + strings.Repeat(`{"id":1},`, 500) + `{"id":2}]`
	w := newWire(t, billing.WithMaxResponseBytes(1000))
	w.on("GET", "/v1/Invoices", 200, items)
	_, err := w.client.Invoices.List(context.Background(), nil)
	if !errors.Is(err, billing.ErrResponseTooLarge) {
		t.Fatalf("err = %v, want ErrResponseTooLarge", err)
	}
}

func TestMaxResponseBytesBoundsThePDFStream(t *testing.T) {
	w := newWire(t, billing.WithMaxResponseBytes(64))
	w.on("GET", "/v1/draftInvoices/pdf/3", 200, "%PDF-1.4\n"+strings.Repeat("0", 200), "Content-Type", "application/pdf")
	rc, err := w.client.DraftInvoices.PDF(context.Background(), 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if !errors.Is(err, billing.ErrResponseTooLarge) || len(b) != 64 {
		t.Errorf("read %d bytes, err = %v; want 64 and ErrResponseTooLarge", len(b), err)
	}
}

func TestWrongContentTypeIsAClearError(t *testing.T) {
	for _, ct := range []string{"text/html; charset=utf-8", "text/plain", "application/xml"} {
		t.Run(ct, func(t *testing.T) {
			w := newWire(t)
			w.on("GET", "/v1/Invoices/7", 200, `{"id":7}`, "Content-Type", ct)
			w.on("GET", "/v1/Invoices", 200, `[{"id":7}]`, "Content-Type", ct)
			_, err := w.client.Invoices.Get(context.Background(), 7, nil)
			var de *billing.DecodeError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), "expected application/json") {
				t.Errorf("Get: err = %v", err)
			}
			_, err = w.client.Invoices.List(context.Background(), nil)
			if !errors.As(err, &de) || !strings.Contains(err.Error(), "expected application/json") {
				t.Errorf("List: err = %v", err)
			}
		})
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/problem+json", "text/json", ""} {
		w := newWire(t)
		w.on("GET", "/v1/Invoices/7", 200, `{"id":7}`, "Content-Type", ct)
		if _, err := w.client.Invoices.Get(context.Background(), 7, nil); err != nil {
			t.Errorf("content type %q: %v", ct, err)
		}
	}
}

// A read whose answer is cut off mid-body is asked again; a write is not,
// and says its outcome is unknown.
func TestCutOffAnswers(t *testing.T) {
	full := `[{"id":1},{"id":2},{"id":3}]`
	cut := func(n *int) func(r *http.Request) (*http.Response, error) {
		return func(r *http.Request) (*http.Response, error) {
			*n++
			if *n == 1 {
				resp := httpmock.NewStringResponse(200, full)
				resp.Body = io.NopCloser(io.MultiReader(strings.NewReader(full[:10]), errReader{io.ErrUnexpectedEOF}))
				return resp, nil
			}
			return httpmock.NewStringResponse(200, full), nil
		}
	}
	t.Run("read", func(t *testing.T) {
		w := newWire(t, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
		n := 0
		w.onResponder("GET", "/v1/Invoices", cut(&n))
		page, err := w.client.Invoices.List(context.Background(), nil)
		if err != nil || len(page.Items) != 3 || w.sent() != 2 {
			t.Fatalf("page = %v, err = %v after %d requests", page, err, w.sent())
		}
	})
	t.Run("write", func(t *testing.T) {
		w := newWire(t, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
		n := 0
		w.onResponder("POST", "/v1/invoices/writeoff", cut(&n))
		_, err := w.client.Invoices.WriteOff(context.Background(), &billing.WriteOffParams{InvoiceID: 1, Amount: billing.Ptr(decimal.NewFromInt(1))})
		if !errors.Is(err, billing.ErrOutcomeUnknown) || w.sent() != 1 {
			t.Fatalf("err = %v after %d requests; want ErrOutcomeUnknown after 1", err, w.sent())
		}
	})
	t.Run("syntax errors are not retried", func(t *testing.T) {
		w := newWire(t, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
		w.on("GET", "/v1/Invoices", 200, `[{"id":1},}`)
		_, err := w.client.Invoices.List(context.Background(), nil)
		var de *billing.DecodeError
		if !errors.As(err, &de) || w.sent() != 1 {
			t.Fatalf("err = %v after %d requests", err, w.sent())
		}
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

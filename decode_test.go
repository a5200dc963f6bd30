package billing_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

// Answers that claim success but cannot be decoded into what the call
// returns: the wrong content type, malformed JSON, numbers beyond any
// amount, a page of more items than it may hold. Each is a clear error,
// never a panic, a hang or a half-filled value. Calls against test servers
// run under noHang, which fails the test on a panic or if the call has not
// returned after 10 s.

func TestWrongContentTypeIsAClearError(t *testing.T) {
	t.Parallel()
	for _, ct := range []string{"text/html; charset=utf-8", "text/plain", "application/xml"} {
		t.Run(ct, func(t *testing.T) {
			t.Parallel()
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

// A PDF request answered with something that is not a PDF is an error, not
// a stream of HTML.
func TestHostilePDFWrongContentType(t *testing.T) {
	t.Parallel()
	srv, _ := fixedServer(t, 200, "<html>captive portal</html>", "Content-Type", "text/html")
	err := noHang(t, func() error { return opPDF.call(context.Background(), hostileClient(t, srv.URL)) })
	var de *billing.DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "application/pdf") {
		t.Fatalf("err = %v, want a DecodeError that mentions application/pdf", err)
	}
}

// Answers that claim success but are not what the endpoint returns give a
// *DecodeError naming the call, never a panic, a hang or a half-filled
// value; a write that got such an answer says its outcome is unknown.
func TestHostileMalformedAnswers(t *testing.T) {
	t.Parallel()
	nested := func(open, close string, depth int) string {
		return strings.Repeat(open, depth) + strings.Repeat(close, depth)
	}
	const jsonCT = "application/json; charset=utf-8"
	tests := []struct {
		name        string
		status      int
		contentType string
		// object is the answer for Get and WriteOff, array for List.
		object, array string
		// contains is a part of the error message, if it must say something.
		contains string
	}{
		{name: "HTML page with 200", status: 200, contentType: "text/html; charset=utf-8",
			object: "<html><body>Please log in</body></html>", array: "<html><body>Please log in</body></html>", contains: "application/json"},
		{name: "invalid JSON", status: 200, contentType: jsonCT,
			object: `{"id":7,"invoiceNumber":}`, array: `[{"id":7},}`},
		{name: "JSON cut short", status: 200, contentType: jsonCT,
			object: `{"id":7,"invoiceNumber":12`, array: `[{"id":7},{"id":8`},
		{name: "a second value after the JSON", status: 200, contentType: jsonCT,
			object: `{"id":7}{"ErrorId":9,"Errors":[{"Key":"Api Error","Value":"failed"}]}`, array: `[{"id":7}]{"ErrorId":9}`},
		{name: "garbage after the JSON", status: 200, contentType: jsonCT,
			object: `{"id":7} <html>oops</html>`, array: `[{"id":7}] <html>oops</html>`},
		{name: "string for the id", status: 200, contentType: jsonCT,
			object: `{"id":"7"}`, array: `[{"id":"7"}]`, contains: "id"},
		{name: "string for an amount", status: 200, contentType: jsonCT,
			object: `{"id":7,"subtotal":"abc"}`, array: `[{"id":7,"subtotal":"abc"}]`, contains: "abc"},
		{name: "1e400 for the id", status: 200, contentType: jsonCT,
			object: `{"id":1e400}`, array: `[{"id":1e400}]`},
		{name: "an exponent no decimal holds", status: 200, contentType: jsonCT,
			object: `{"id":7,"subtotal":1e2147483648}`, array: `[{"id":7,"subtotal":1e2147483648}]`},
		{name: "array for an object, object for an array", status: 200, contentType: jsonCT,
			object: `[{"id":7}]`, array: `{"id":7}`},
		{name: "deeply nested JSON", status: 200, contentType: jsonCT,
			object: `{"id":7,"taxes":` + nested("[", "]", 100_000) + `}`, array: `[{"id":7,"invoiceRevisions":` + nested(`{"a":`, "}", 100_000) + `}]`},
		{name: "200 with an empty body", status: 200, contentType: jsonCT, object: "", array: ""},
		{name: "204 No Content", status: 204, object: "", array: ""},
	}
	for _, tt := range tests {
		for _, op := range []hostileOp{opGet, opList, opWriteOff} {
			t.Run(tt.name+"/"+op.name, func(t *testing.T) {
				t.Parallel()
				body := tt.object
				if op.path == opList.path {
					body = tt.array
				}
				var header []string
				if tt.contentType != "" {
					header = []string{"Content-Type", tt.contentType}
				}
				srv, hits := fixedServer(t, tt.status, body, header...)
				err := noHang(t, func() error { return op.call(context.Background(), hostileClient(t, srv.URL)) })
				var de *billing.DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("err = %v (%T), want a *billing.DecodeError", err, err)
				}
				if de.Path != op.path || de.StatusCode != tt.status {
					t.Errorf("DecodeError names %s %d, want %s %d", de.Path, de.StatusCode, op.path, tt.status)
				}
				if !strings.Contains(err.Error(), op.path) || (tt.contains != "" && !strings.Contains(err.Error(), tt.contains)) {
					t.Errorf("err = %q, want it to name %s and mention %q", err, op.path, tt.contains)
				}
				if got := errors.Is(err, billing.ErrOutcomeUnknown); got != op.write {
					t.Errorf("ErrOutcomeUnknown = %v, want %v: %v", got, op.write, err)
				}
				// A read may be asked once more when the body looks cut
				// off; a write is never sent twice.
				if n := hits.Load(); n < 1 || n > 2 || (op.write && n != 1) {
					t.Errorf("requests = %d", n)
				}
			})
		}
	}
}

// Numbers far beyond any amount: an exponent the decimal type holds decodes
// exactly (no float rounding, no panic); a number with 200,000 digits is
// refused rather than decoded at a cost the timeout does not bound.
func TestHostileHugeNumbers(t *testing.T) {
	t.Parallel()
	t.Run("1e400 amount", func(t *testing.T) {
		srv, _ := fixedServer(t, 200, `{"id":7,"subtotal":1e400,"outstandingBalance":-1e400}`, "Content-Type", "application/json")
		var inv *billing.Invoice
		err := noHang(t, func() (err error) {
			inv, err = hostileClient(t, srv.URL).Invoices.Get(context.Background(), 7, nil)
			return err
		})
		var de *billing.DecodeError
		switch {
		case errors.As(err, &de):
			// Refusing it is a clear answer too.
		case err != nil:
			t.Fatalf("err = %v (%T), want success or a *billing.DecodeError", err, err)
		case !inv.Subtotal.Equal(decimal.New(1, 400)) || !inv.OutstandingBalance.Equal(decimal.New(-1, 400)):
			t.Errorf("subtotal = %s, outstanding = %s: not exactly 1e400 and -1e400", inv.Subtotal, inv.OutstandingBalance)
		}
	})
	t.Run("200,000 digits", func(t *testing.T) {
		// 200 kB, far under the default 64 MiB limit; but shopspring/decimal
		// parses digits in time quadratic in their number (about 60 ms for
		// 2e5 digits, 1.5 s for 1e6, 5 s for 2e6, 85 s for 8e6, without
		// -race), and the per-attempt timeout cannot stop a decode in
		// progress: the body has arrived. Such a number must be refused (or
		// the call must end with its timeout), not accepted after seconds
		// or minutes of CPU. (Kept small so that the test stays cheap while
		// the bug is there; the size does not change what it shows.)
		srv, _ := fixedServer(t, 200, `{"id":7,"subtotal":`+strings.Repeat("9", 200_000)+`}`, "Content-Type", "application/json")
		c := hostileClient(t, srv.URL, billing.WithTimeout(250*time.Millisecond))
		err := noHang(t, func() error { return opGet.call(context.Background(), c) })
		if err == nil {
			t.Errorf("a 200,000-digit amount was accepted: decoding such numbers costs CPU quadratic in their length, which WithTimeout does not bound, so a hostile server can hold a call for minutes within the default response limit")
		}
	})
}

// TestHostilePageOfEmptyObjects: a page of more items than it may hold
// (more than asked for, more than its X-PageSize, or past the SDK's bound
// when neither is given) is refused with ErrPagination while it is being
// decoded. Three bytes ({},) per item would otherwise decode into
// hundreds, so a hostile 64 MiB answer would take gigabytes.
func TestHostilePageOfEmptyObjects(t *testing.T) {
	t.Parallel()
	page := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("{},", n), ",") + "]" }
	const jsonCT = "application/json; charset=utf-8"
	tests := []struct {
		name     string
		body     string
		header   []string
		pageSize int
		wantErr  bool
	}{
		{"as many as asked", page(10), nil, 10, false},
		{"more than asked", page(11), nil, 10, true},
		{"as many as X-PageSize", page(50), []string{"X-PageSize", "50"}, 0, false},
		{"more than X-PageSize", page(51), []string{"X-PageSize", "50"}, 0, true},
		{"the bound, no size given", page(100_000), nil, 0, false},
		{"past the bound, no size given", page(100_001), nil, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := fixedServer(t, 200, tt.body, append([]string{"Content-Type", jsonCT}, tt.header...)...)
			var p *billing.Page[billing.Invoice]
			err := noHang(t, func() (err error) {
				p, err = hostileClient(t, srv.URL).Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: tt.pageSize}})
				return err
			})
			if !tt.wantErr {
				if err != nil || len(p.Items) != strings.Count(tt.body, "{}") {
					t.Fatalf("err = %v, want the page", err)
				}
				return
			}
			var de *billing.DecodeError
			if !errors.Is(err, billing.ErrPagination) || !errors.As(err, &de) {
				t.Fatalf("err = %v, want a *billing.DecodeError matching ErrPagination", err)
			}
		})
	}
}

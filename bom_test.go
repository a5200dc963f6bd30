package billing_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// A UTF-8 byte-order mark (EF BB BF) before the JSON, as a service on IIS
// may send, is accepted in every body the SDK decodes, once and at the
// very start only; bodies the SDK does not decode keep it.

const bom = "\xEF\xBB\xBF"

// bomProxy starts a proxy in front of fake that puts a byte-order mark
// before every JSON answer's body when mark is set, and returns its URL
// and the count of bodies it marked. With mark or without, it sends every
// body chunked, so that the answers of two runs differ in the mark alone.
func bomProxy(t *testing.T, fake string, mark bool) (string, *atomic.Int32) {
	t.Helper()
	var marked atomic.Int32
	rp := reverseProxyTo(t, fake)
	rp.ModifyResponse = func(resp *http.Response) error {
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return err
		}
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mark && mt == "application/json" {
			body = append([]byte(bom), body...)
			marked.Add(1)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
		return nil
	}
	proxy := httptest.NewServer(rp)
	t.Cleanup(proxy.Close)
	return proxy.URL, &marked
}

// bomRun runs one operation of the sweep's table on a fake of its own
// seeded as the sweep's, behind a bomProxy, with change applied to its
// inputs; it returns the outcome and how many answers were marked.
func bomRun(t *testing.T, op sweepOp, change func(sweepFixture, *sweepIn), mark bool) (sweepOutcome, int32) {
	t.Helper()
	srv := billingtest.NewServer(billingtest.WithAPIKey(sweepKey), billingtest.WithClock(func() time.Time { return sweepClock }),
		billingtest.WithNumberedErrors())
	t.Cleanup(srv.Close)
	fx := sweepSeed(t, srv)
	base, marked := bomProxy(t, srv.URL, mark)
	c, err := billing.NewClient(sweepKey, billing.WithBaseURL(base),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}))
	if err != nil {
		t.Fatal(err)
	}
	in := fx.in()
	if op.setup != nil {
		op.setup(fx, &in)
	}
	if change != nil {
		change(fx, &in)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return op.run(ctx, c, in, nil), marked.Load()
}

// TestByteOrderMarkInEveryAnswer runs every operation of the SDK (the
// sweep's table, which TestOperationOfEveryMethod keeps complete: an
// operation added to the SDK is covered here once it is added there),
// once plain and once with a byte-order mark before each JSON answer:
// every success gives the same result, and every error answer of the
// operation the same *APIError, its envelope read (ErrorID, Errors), not
// kept as an excerpt.
func TestByteOrderMarkInEveryAnswer(t *testing.T) {
	t.Parallel()
	for _, op := range sweepOps() {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			plain, _ := bomRun(t, op, nil, false)
			marked, n := bomRun(t, op, nil, true)
			if plain.err != nil {
				t.Fatalf("without a mark: %v", plain.err)
			}
			if marked.err != nil {
				t.Fatalf("with a mark: %v", marked.err)
			}
			if _, stream := marked.result.(io.Reader); stream {
				// The PDF: not JSON, so not marked (its bytes are checked
				// in TestByteOrderMarkInAPDFIsKept).
				if n != 0 {
					t.Fatalf("%d answers marked, want none: the PDF is not JSON", n)
				}
			} else {
				if n == 0 {
					t.Fatal("no answer was marked: the test proves nothing")
				}
				if d := diff(plain.result, marked.result); d != "" {
					t.Fatalf("the result with a mark differs:\n%s", d)
				}
			}

			for _, f := range op.fails {
				if f.status == 0 {
					continue // refused before sending: no answer
				}
				t.Run(f.name, func(t *testing.T) {
					t.Parallel()
					plain, _ := bomRun(t, op, f.change, false)
					marked, n := bomRun(t, op, f.change, true)
					var plainErr, markedErr *billing.APIError
					if !errors.As(plain.err, &plainErr) || !errors.As(marked.err, &markedErr) {
						t.Fatalf("errors %v and %v, want *APIError both", plain.err, marked.err)
					}
					if n == 0 {
						t.Fatal("no answer was marked: the test proves nothing")
					}
					if markedErr.ErrorID == 0 || len(markedErr.Errors) == 0 || markedErr.Body != "" {
						t.Fatalf("the marked envelope was not read: %+v", markedErr)
					}
					if d := diff(plainErr, markedErr); d != "" {
						t.Fatalf("the APIError with a mark differs:\n%s", d)
					}
				})
			}
		})
	}
}

// TestByteOrderMarkOnlyOnceAtTheStart: one mark, before anything else, is
// dropped, from a single resource as from a page; a mark anywhere else,
// or a second one, makes the answer something other than JSON text with a
// mark in front, and it is refused as any broken answer is (a
// *DecodeError), or kept as an excerpt when it is an error answer. Inside
// a string it is a character like any other.
func TestByteOrderMarkOnlyOnceAtTheStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// get reads invoice 7; listIDs reads a page, as the ids on it.
	get := func(c *billing.Client) (any, error) { return c.Invoices.Get(ctx, 7, nil) }
	listIDs := func(c *billing.Client) (any, error) {
		p, err := c.Invoices.List(ctx, nil)
		if err != nil {
			return nil, err
		}
		ids := []int64{}
		for _, inv := range p.Items {
			ids = append(ids, inv.ID)
		}
		return ids, nil
	}
	tests := []struct {
		name string
		read func(*billing.Client) (any, error)
		body string
		want any // nil: a *DecodeError
	}{
		{"at the start", get, bom + `{"Id":7,"PoNumber":"PO-7"}`, &billing.Invoice{ID: 7, PoNumber: billing.Ptr("PO-7")}},
		{"none", get, `{"Id":7,"PoNumber":"PO-7"}`, &billing.Invoice{ID: 7, PoNumber: billing.Ptr("PO-7")}},
		{"inside a string", get, `{"Id":7,"PoNumber":"` + bom + `PO-7"}`, &billing.Invoice{ID: 7, PoNumber: billing.Ptr("\uFEFFPO-7")}},
		{"twice", get, bom + bom + `{"Id":7}`, nil},
		{"after white space", get, " " + bom + `{"Id":7}`, nil},
		{"between members", get, `{"Id":7,` + bom + `"PoNumber":"PO-7"}`, nil},
		{"at the end", get, `{"Id":7}` + bom, nil},
		{"cut short", get, "\xEF\xBB" + `{"Id":7}`, nil},
		{"alone", get, bom, nil},
		{"in UTF-16", get, "\xFE\xFF" + `{"Id":7}`, nil},
		{"page: at the start", listIDs, bom + `[{"Id":7},{"Id":8}]`, []int64{7, 8}},
		{"page: null at the start", listIDs, bom + `null`, []int64{}},
		{"page: twice", listIDs, bom + bom + `[{"Id":7}]`, nil},
		{"page: between items", listIDs, `[{"Id":7},` + bom + `{"Id":8}]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := fixedServer(t, http.StatusOK, tt.body, "Content-Type", "application/json", "X-Count", "2")
			got, err := tt.read(newLoopbackClient(t, srv.URL))
			if tt.want == nil {
				var de *billing.DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("err = %v, want a *DecodeError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(tt.want, got); d != "" {
				t.Fatalf("what was read:\n%s", d)
			}
		})
	}
}

// TestByteOrderMarkInAnErrorAnswer: a 404 whose envelope starts with a
// mark keeps its ErrorID and Errors; one with two marks is not the
// envelope, and keeps an excerpt of the body after the first.
func TestByteOrderMarkInAnErrorAnswer(t *testing.T) {
	t.Parallel()
	envelope := `{"ErrorId":4242,"HttpStatusCode":404,"Errors":[{"Key":"Api Error","Value":"Invoice not found"}]}`
	tests := []struct {
		name string
		body string
		want billing.APIError // Header and RateLimit: the answer's
	}{
		{"at the start", bom + envelope, billing.APIError{StatusCode: 404, ErrorID: 4242,
			Errors: []billing.ErrorDetail{{Key: "Api Error", Value: "Invoice not found"}}, Method: "GET", Path: "/v1/Invoices/7"}},
		{"twice", bom + bom + envelope, billing.APIError{StatusCode: 404, Method: "GET", Path: "/v1/Invoices/7", Body: "\uFEFF" + envelope}},
		{"an HTML page", bom + "<html><body>Not Found</body></html>", billing.APIError{StatusCode: 404, Method: "GET", Path: "/v1/Invoices/7",
			Body: "<html><body>Not Found</body></html>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := fixedServer(t, http.StatusNotFound, tt.body, "Content-Type", "application/json; charset=utf-8")
			_, err := newLoopbackClient(t, srv.URL).Invoices.Get(context.Background(), 7, nil)
			var got *billing.APIError
			if !errors.As(err, &got) || !errors.Is(err, billing.ErrNotFound) {
				t.Fatalf("err = %v, want a 404 *APIError", err)
			}
			want := tt.want
			want.Header, want.RateLimit = got.Header, got.RateLimit
			if d := diff(&want, got); d != "" {
				t.Fatalf("the APIError:\n%s", d)
			}
			if strings.Contains(got.Error(), bom) && tt.name == "at the start" {
				t.Errorf("Error() = %q holds the mark", got.Error())
			}
		})
	}
}

// TestByteOrderMarkInAPDFIsKept: the draft PDF is not decoded, so the SDK
// hands it over byte for byte, whatever its first bytes are.
func TestByteOrderMarkInAPDFIsKept(t *testing.T) {
	t.Parallel()
	for _, body := range []string{bom + "%PDF-1.7\n", bom, "%PDF-1.7\n" + bom, bom + bom} {
		srv, _ := fixedServer(t, http.StatusOK, body, "Content-Type", "application/pdf")
		rc, err := newLoopbackClient(t, srv.URL).DraftInvoices.PDF(context.Background(), 9, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != body {
			t.Errorf("PDF = %q, want %q as sent", got, body)
		}
	}
}

// TestByteOrderMarkWithClientDo: Client.Do decodes into out without the
// mark (a *json.RawMessage holds the JSON text, which has none), and a
// body it discards (nil out) is not read at all.
func TestByteOrderMarkWithClientDo(t *testing.T) {
	t.Parallel()
	srv, _ := fixedServer(t, http.StatusOK, bom+`{"Id":7}`, "Content-Type", "application/json")
	c := newLoopbackClient(t, srv.URL)
	req := &billing.Request{Method: http.MethodGet, Path: "/v1/Customers/7"}
	var raw []byte
	out := (*rawJSON)(&raw)
	if _, err := c.Do(context.Background(), req, out); err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"Id":7}` {
		t.Errorf("out = %q, want the JSON text without the mark", raw)
	}
	var m map[string]any
	if _, err := c.Do(context.Background(), req, &m); err != nil {
		t.Fatal(err)
	}
	if d := diff(map[string]any{"Id": float64(7)}, m); d != "" {
		t.Errorf("out:\n%s", d)
	}
	if _, err := c.Do(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
}

// rawJSON keeps the JSON text it is given, as json.RawMessage does.
type rawJSON []byte

func (r *rawJSON) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}

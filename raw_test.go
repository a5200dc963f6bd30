package billing_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/query"
	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
)

// customer is a caller's own type for an endpoint the SDK does not wrap.
type customer struct {
	ID        int64  `json:"id"`
	FirstName string `json:"firstName"`
}

var rawRetries = billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})

func TestDoReadsAnUnwrappedEndpoint(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on("GET", "/v1/Customers/42", 200, `{"id":42,"firstName":"Ada","extra":true}`, "X-Rate-Limit-Remaining-Minute", "57")
	var got customer
	resp, err := w.client.Do(context.Background(), &billing.Request{Method: "GET", Path: "/v1/Customers/42", Query: url.Values{"includeDeleted": {"true"}}}, &got)
	if err != nil {
		t.Fatal(err)
	}
	if want := (customer{ID: 42, FirstName: "Ada"}); got != want {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
	if resp.StatusCode != 200 || resp.RateLimit.Minute.Remaining != 57 {
		t.Errorf("response = %+v", resp)
	}
	r := w.last()
	assertCommonHeaders(t, r, false)
	if r.RawQuery != "includeDeleted=true" {
		t.Errorf("query = %q", r.RawQuery)
	}
}

func TestDoReadsPagingHeaders(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on("GET", "/v1/Customers", 200, `[{"id":1},{"id":2}]`, "X-Count", "7", "X-CurrentPage", "0", "X-NextPage", "1", "X-PageSize", "2", "X-SortOrder", "Asc")
	var got []customer
	q := url.Values{"pageSize": {"2"}, "query": {query.Expr{query.CondStartsWith("lastName", "Love")}.String()}}
	resp, err := w.client.Do(context.Background(), &billing.Request{Method: "GET", Path: "/v1/Customers", Query: q}, &got)
	if err != nil {
		t.Fatal(err)
	}
	info, err := resp.Page()
	want := billing.PageInfo{Count: 7, MaxCount: -1, CurrentPage: 0, NextPage: 1, PreviousPage: -1, PageSize: 2, MaxPageIndex: -1, SortOrder: query.Order("Asc")}
	if err != nil || !reflect.DeepEqual(info, want) {
		t.Errorf("Page() = %+v, %v; want %+v", info, err, want)
	}
	if len(got) != 2 || w.last().Query.Get("query") != "lastName:Love*" {
		t.Errorf("items %v, query %q", got, w.last().Query.Get("query"))
	}
}

// A raw call is retried as a read only when it is a GET or says it is
// idempotent; otherwise a 5xx leaves its outcome unknown.
func TestDoRetriesByMethod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		req         billing.Request
		wantSent    int
		wantUnknown bool
	}{
		{"GET is retried", billing.Request{Method: "GET", Path: "/v1/Payments/9"}, 3, false},
		{"POST is a write", billing.Request{Method: "POST", Path: "/v1/Payments/9", Body: map[string]any{"amount": 1}}, 1, true},
		{"DELETE is a write", billing.Request{Method: "DELETE", Path: "/v1/Payments/9"}, 1, true},
		{"idempotent PUT is retried", billing.Request{Method: "PUT", Path: "/v1/Payments/9", Idempotent: true}, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, rawRetries)
			w.on(tt.req.Method, "/v1/Payments/9", 503, errorBody(503, "Api Error", "busy"))
			_, err := w.client.Do(context.Background(), &tt.req, nil)
			if !errors.Is(err, billing.ErrServer) || errors.Is(err, billing.ErrOutcomeUnknown) != tt.wantUnknown {
				t.Errorf("err = %v, want ErrServer with outcome unknown %v", err, tt.wantUnknown)
			}
			if w.sent() != tt.wantSent {
				t.Errorf("sent %d requests, want %d", w.sent(), tt.wantSent)
			}
		})
	}
}

func TestDoEncodesTheBodyAndDiscardsWithoutOut(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on("POST", "/v1/Customers/42/Notes", 200, `{"id":5}`)
	body := struct {
		Text   string `json:"text"`
		Amount any    `json:"amount"`
	}{"hello", decimal.RequireFromString("12.50")}
	if _, err := w.client.Do(context.Background(), &billing.Request{Method: "POST", Path: "/v1/Customers/42/Notes", Body: body}, nil); err != nil {
		t.Fatal(err)
	}
	r := w.last()
	assertCommonHeaders(t, r, true)
	assertJSON(t, r.Body, `{"text":"hello","amount":12.5}`)
}

func TestDoErrorsAreTyped(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on("GET", "/v1/Customers/7", 404, errorBody(404, "Api Error", "no such customer"))
	_, err := w.client.Do(context.Background(), &billing.Request{Method: "GET", Path: "/v1/Customers/7"}, new(customer))
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, billing.ErrNotFound) || apiErr.Path != "/v1/Customers/7" {
		t.Errorf("err = %v, want an *APIError 404 for the path", err)
	}
}

// A request the SDK can tell is wrong is refused before anything is sent.
func TestDoValidatesBeforeSending(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  *billing.Request
	}{
		{"nil", nil},
		{"no method", &billing.Request{Path: "/v1/Customers"}},
		{"HEAD", &billing.Request{Method: "HEAD", Path: "/v1/Customers"}},
		{"lower-case method", &billing.Request{Method: "get", Path: "/v1/Customers"}},
		{"outside /v1", &billing.Request{Method: "GET", Path: "/v2/Customers"}},
		{"no leading slash", &billing.Request{Method: "GET", Path: "v1/Customers"}},
		{"absolute URL", &billing.Request{Method: "GET", Path: "https://evil.example/v1/x"}},
		{"query in the path", &billing.Request{Method: "GET", Path: "/v1/Customers?x=1"}},
		{"fragment", &billing.Request{Method: "GET", Path: "/v1/Customers#x"}},
		{"dot dot", &billing.Request{Method: "GET", Path: "/v1/../admin"}},
		{"empty segment", &billing.Request{Method: "GET", Path: "/v1//Customers"}},
		{"unescaped space", &billing.Request{Method: "GET", Path: "/v1/Customers/a b"}},
		{"escaped slash trick", &billing.Request{Method: "GET", Path: "/v1/%2e%2e/admin"}},
		// IIS and ASP.NET read \ as a separator, path parameters after ;,
		// and drop trailing dots and spaces; a proxy may decode once more.
		{"dot dot escaped backslash", &billing.Request{Method: "GET", Path: "/v1/..%5Cadmin"}},
		{"dot dot escaped backslash, lower case", &billing.Request{Method: "GET", Path: "/v1/..%5cadmin"}},
		{"escaped dots and backslash", &billing.Request{Method: "GET", Path: "/v1/%2e%2e%5c%2e%2e%5cadmin"}},
		{"backslash then dot dot", &billing.Request{Method: "GET", Path: "/v1/Customers%5C..%5C..%5Cadmin"}},
		{"dot dot with path parameter", &billing.Request{Method: "GET", Path: "/v1/..;/admin"}},
		{"dot dot with named path parameter", &billing.Request{Method: "GET", Path: "/v1/..;jsessionid=x/admin"}},
		{"dot with path parameter", &billing.Request{Method: "GET", Path: "/v1/.;x/Customers"}},
		{"escaped semicolon", &billing.Request{Method: "GET", Path: "/v1/..%3B/admin"}},
		{"three dots", &billing.Request{Method: "GET", Path: "/v1/.../admin"}},
		{"dot dot and a space", &billing.Request{Method: "GET", Path: "/v1/..%20/admin"}},
		{"dot dot and a dot", &billing.Request{Method: "GET", Path: "/v1/..%2e/admin"}},
		{"doubly escaped dot dot", &billing.Request{Method: "GET", Path: "/v1/%252e%252e/admin"}},
		{"doubly escaped dot dot beside a bad escape", &billing.Request{Method: "GET", Path: "/v1/%252e%252e;%25zz/admin"}},
		{"doubly escaped dot dot and backslash beside a bad escape", &billing.Request{Method: "GET", Path: "/v1/%252e%252e%255c%25zz"}},
		{"doubly escaped dot dot and slash beside a bad escape", &billing.Request{Method: "GET", Path: "/v1/%252e%252e%252f%25zz"}},
		{"doubly escaped backslash", &billing.Request{Method: "GET", Path: "/v1/..%255Cadmin"}},
		{"escaped too deeply to read", &billing.Request{Method: "GET", Path: "/v1/%252525252e%252525252e/admin"}},
		{"escaped slash, empty segment", &billing.Request{Method: "GET", Path: "/v1/Customers%2F%2F42"}},
		{"trailing backslash", &billing.Request{Method: "GET", Path: "/v1/Customers%5C"}},
		{"escaped NUL", &billing.Request{Method: "GET", Path: "/v1/Customers%00/42"}},
		{"invalid UTF-8", &billing.Request{Method: "GET", Path: "/v1/%c0%ae%c0%ae/admin"}},
		{"IIS %u escape", &billing.Request{Method: "GET", Path: "/v1/%u002e%u002e/admin"}},
		{"body that cannot be encoded", &billing.Request{Method: "POST", Path: "/v1/Customers", Body: map[string]any{"f": func() {}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			_, err := w.client.Do(context.Background(), tt.req, nil)
			if !errors.Is(err, billing.ErrInvalidParams) {
				t.Errorf("err = %v, want ErrInvalidParams", err)
			}
			if w.sent() != 0 {
				t.Errorf("sent %d requests, want none", w.sent())
			}
		})
	}
}

// An out that nothing could be decoded into is refused before a write is
// sent, not after the server acted on it.
func TestDoRefusesAnOutItCannotDecodeInto(t *testing.T) {
	t.Parallel()
	type result struct{ ID int64 }
	for name, out := range map[string]any{"a struct": result{}, "a nil pointer": (*result)(nil), "a map": map[string]any{}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			_, err := w.client.Do(context.Background(), &billing.Request{Method: "POST", Path: "/v1/Customers", Body: map[string]int{"a": 1}}, out)
			var ve *billing.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, billing.ErrInvalidParams) || w.sent() != 0 {
				t.Errorf("err = %v, %d requests sent; want a *ValidationError matching ErrInvalidParams and none sent", err, w.sent())
			}
		})
	}
}

// Paths that hold dots, semicolons, escapes and percent signs without any
// reading of them leaving /v1 are sent, exactly as written.
func TestDoSendsPathsThatStayUnderV1(t *testing.T) {
	t.Parallel()
	paths := []string{
		"/v1/Customers/42",
		"/v1/Customers/42/",
		"/v1/Customers/v1.2",
		"/v1/Customers/a.b.c",
		"/v1/Customers/..a",
		"/v1/Customers/a..",
		"/v1/Customers/a;b",
		"/v1/Customers/100%25",
		"/v1/Customers/%E2%82%AC",
		"/v1/Customers/a%20b",
	}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
				w.record(req)
				return httpmock.NewStringResponse(http.StatusNoContent, ""), nil
			})
			if _, err := w.client.Do(context.Background(), &billing.Request{Method: http.MethodGet, Path: path}, nil); err != nil {
				t.Fatalf("err = %v, want the path sent", err)
			}
			if got := w.last().Path; got != path {
				t.Errorf("sent %q, want %q as written", got, path)
			}
		})
	}
}

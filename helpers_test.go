package billing_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"sync"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/jarcoal/httpmock"
)

const (
	testKey     = "test-key-7f3a9c"
	testBaseURL = "https://billing.example.test"
)

// wire is a client whose requests go to an httpmock transport; nothing
// leaves the process.
type wire struct {
	t      *testing.T
	client *billing.Client
	mock   *httpmock.MockTransport

	mu       sync.Mutex
	requests []recorded
}

// recorded is one request as it reached the transport.
type recorded struct {
	Method   string
	Path     string // escaped path, exactly as sent
	RawQuery string
	Query    url.Values
	Header   http.Header
	Body     []byte
}

// newWire builds a client on an httpmock transport with retries off unless
// opts turn them on.
func newWire(t *testing.T, opts ...billing.Option) *wire {
	t.Helper()
	mt := httpmock.NewMockTransport()
	base := []billing.Option{
		billing.WithBaseURL(testBaseURL),
		billing.WithHTTPClient(&http.Client{Transport: mt}),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}),
	}
	c, err := billing.NewClient(testKey, append(base, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return &wire{t: t, client: c, mock: mt}
}

// on registers a responder for method and path (no query: any query
// matches) that records the request and answers with status, body and
// header pairs.
func (w *wire) on(method, path string, status int, body string, header ...string) {
	w.mock.RegisterResponder(method, testBaseURL+path, func(req *http.Request) (*http.Response, error) {
		w.record(req)
		resp := httpmock.NewStringResponse(status, body)
		if body != "" {
			resp.Header.Set("Content-Type", "application/json; charset=utf-8")
		}
		for i := 0; i+1 < len(header); i += 2 {
			resp.Header.Set(header[i], header[i+1])
		}
		resp.Request = req
		return resp, nil
	})
}

// onResponder registers a custom responder that still records requests.
func (w *wire) onResponder(method, path string, r httpmock.Responder) {
	w.mock.RegisterResponder(method, testBaseURL+path, func(req *http.Request) (*http.Response, error) {
		w.record(req)
		return r(req)
	})
}

func (w *wire) record(req *http.Request) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requests = append(w.requests, recorded{
		Method:   req.Method,
		Path:     req.URL.EscapedPath(),
		RawQuery: req.URL.RawQuery,
		Query:    req.URL.Query(),
		Header:   req.Header.Clone(),
		Body:     body,
	})
}

// last returns the only request sent, failing the test if there was not
// exactly one.
func (w *wire) last() recorded {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.requests) != 1 {
		w.t.Fatalf("requests sent: %d, want 1", len(w.requests))
	}
	return w.requests[0]
}

// sent returns how many requests reached the transport.
func (w *wire) sent() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.requests)
}

// assertJSON fails unless got is JSON equal to want. Numbers are compared
// by their text, so 10.50 and 10.5 differ: exact money on the wire.
func assertJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	dg := json.NewDecoder(bytes.NewReader(got))
	dg.UseNumber()
	if err := dg.Decode(&g); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, got)
	}
	dw := json.NewDecoder(bytes.NewReader([]byte(want)))
	dw.UseNumber()
	if err := dw.Decode(&w); err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("body:\n got %s\nwant %s", got, want)
	}
}

// assertCommonHeaders checks what every request carries.
func assertCommonHeaders(t *testing.T, r recorded, withBody bool) {
	t.Helper()
	if got := r.Header.Get("Authorization"); got != "Basic "+testKey {
		t.Errorf("Authorization = %q, want the key exactly as given", got)
	}
	if got := r.Header.Get("Accept"); got == "" {
		t.Errorf("Accept header missing")
	}
	if got := r.Header.Get("User-Agent"); !bytes.Contains([]byte(got), []byte("billing-go/"+billing.Version)) {
		t.Errorf("User-Agent = %q, want it to name the SDK", got)
	}
	ct := r.Header.Get("Content-Type")
	if withBody && ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if !withBody && ct != "" {
		t.Errorf("Content-Type = %q on a request without body", ct)
	}
}

// errorBody is the API's error envelope.
func errorBody(status int, key, value string) string {
	b, _ := json.Marshal(map[string]any{
		"ErrorId":        1234,
		"HttpStatusCode": status,
		"Errors":         []map[string]string{{"Key": key, "Value": value}},
	})
	return string(b)
}

// assertValidation fails unless err is a *billing.ValidationError for field.
func assertValidation(t *testing.T, err error, field string) {
	t.Helper()
	var ve *billing.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v (%T), want *billing.ValidationError", err, err)
	}
	if ve.Field != field {
		t.Errorf("ValidationError.Field = %q, want %q (%v)", ve.Field, field, ve)
	}
}

// numberOf matches a number as printed: digits, with decimal parts.
var numberOf = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)*`)

// leaksCVV reports whether out holds cvv as a whole number. A short
// secret turns up inside other numbers (timestamps, durations, ids) by
// chance; only the number itself is a leak.
func leaksCVV(out, cvv string) bool {
	for _, n := range numberOf.FindAllString(out, -1) {
		if n == cvv {
			return true
		}
	}
	return false
}

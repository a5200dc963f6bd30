package billing_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/jarcoal/httpmock"
)

func TestNewClientOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		key     string
		opts    []billing.Option
		wantErr string // substring; "" means success
	}{
		{"https base URL", testKey, []billing.Option{billing.WithBaseURL("https://billing.example.com")}, ""},
		{"base URL with path prefix", testKey, []billing.Option{billing.WithBaseURL("https://gw.example.com/billing/")}, ""},
		{"http on localhost", testKey, []billing.Option{billing.WithBaseURL("http://localhost:8080")}, ""},
		{"http on 127.0.0.1", testKey, []billing.Option{billing.WithBaseURL("http://127.0.0.1:8080")}, ""},
		{"http on ::1", testKey, []billing.Option{billing.WithBaseURL("http://[::1]:8080")}, ""},
		{"missing base URL", testKey, nil, "WithBaseURL is required"},
		{"relative base URL", testKey, []billing.Option{billing.WithBaseURL("/v1")}, "WithBaseURL"},
		{"http on a remote host", testKey, []billing.Option{billing.WithBaseURL("http://billing.example.com")}, "WithBaseURL: scheme must be https"},
		{"ftp scheme", testKey, []billing.Option{billing.WithBaseURL("ftp://billing.example.com")}, "WithBaseURL"},
		{"base URL with credentials", testKey, []billing.Option{billing.WithBaseURL("https://u:p@billing.example.com")}, "WithBaseURL: the URL must not carry credentials"},
		{"base URL with query", testKey, []billing.Option{billing.WithBaseURL("https://billing.example.com/?a=b")}, "WithBaseURL"},
		{"base URL ending in /v1", testKey, []billing.Option{billing.WithBaseURL("https://billing.example.com/v1/")}, "leave /v1 out"},
		{"unparseable base URL", testKey, []billing.Option{billing.WithBaseURL("https://bad host")}, "WithBaseURL"},
		{"empty key", "", []billing.Option{billing.WithBaseURL(testBaseURL)}, "apiKey is empty"},
		{"key with newline", "abc\r\nX-Evil: 1", []billing.Option{billing.WithBaseURL(testBaseURL)}, "apiKey contains"},
		{"nil HTTP client", testKey, []billing.Option{billing.WithBaseURL(testBaseURL), billing.WithHTTPClient(nil)}, "WithHTTPClient"},
		{"zero timeout", testKey, []billing.Option{billing.WithBaseURL(testBaseURL), billing.WithTimeout(0)}, "WithTimeout"},
		{"negative retries", testKey, []billing.Option{billing.WithBaseURL(testBaseURL), billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: -2})}, "WithRetryPolicy"},
		{"max backoff below min", testKey, []billing.Option{billing.WithBaseURL(testBaseURL), billing.WithRetryPolicy(billing.RetryPolicy{MinBackoff: time.Second, MaxBackoff: time.Millisecond})}, "WithRetryPolicy"},
		{"nil logger", testKey, []billing.Option{billing.WithBaseURL(testBaseURL), billing.WithLogger(nil)}, "WithLogger"},
		{"empty user agent", testKey, []billing.Option{billing.WithBaseURL(testBaseURL), billing.WithUserAgent(" ")}, "WithUserAgent"},
		{"user agent with newline", testKey, []billing.Option{billing.WithBaseURL(testBaseURL), billing.WithUserAgent("a\nb")}, "WithUserAgent"},
		{"user agent with a control character", testKey, []billing.Option{billing.WithBaseURL(testBaseURL), billing.WithUserAgent("app\x1b/1")}, "WithUserAgent"},
		{"key with a control character", "key\x01x", []billing.Option{billing.WithBaseURL(testBaseURL)}, "apiKey contains"},
		{"key with DEL", "key\x7fx", []billing.Option{billing.WithBaseURL(testBaseURL)}, "apiKey contains"},
		{"user agent beyond ASCII", testKey, []billing.Option{billing.WithBaseURL(testBaseURL), billing.WithUserAgent("Müller-sync/1")}, ""},
		{"nil option", testKey, []billing.Option{billing.WithBaseURL(testBaseURL), nil}, "nil Option"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := billing.NewClient(tt.key, tt.opts...)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("NewClient: %v", err)
				}
				if c.Invoices == nil || c.DraftInvoices == nil || c.PaymentMethods == nil || c.SalesTrackingCodes == nil || c.InvoiceSummaries == nil || c.SubscriptionItems == nil || c.Bulk == nil {
					t.Fatal("a service is nil")
				}
				return
			}
			if err == nil {
				t.Fatalf("NewClient succeeded, want error containing %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if tt.key != "" && strings.Contains(err.Error(), tt.key) {
				t.Errorf("error %q leaks the API key", err)
			}
		})
	}
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	w := newWire(t, billing.WithUserAgent("invoice-sync/1.4"))
	w.on("GET", "/v1/Invoices/7", 200, `{"id":7}`)
	if _, err := w.client.Invoices.Get(context.Background(), 7, nil, billing.WithHeader("X-Correlation-Id", "abc")); err != nil {
		t.Fatal(err)
	}
	r := w.last()
	assertCommonHeaders(t, r, false)
	if got := r.Header.Get("Accept"); got != "application/json" {
		t.Errorf("Accept = %q", got)
	}
	ua := r.Header.Get("User-Agent")
	if !strings.HasPrefix(ua, "invoice-sync/1.4 billing-go/"+billing.Version) {
		t.Errorf("User-Agent = %q, want the caller's product before the SDK's", ua)
	}
	if got := r.Header.Get("X-Correlation-Id"); got != "abc" {
		t.Errorf("X-Correlation-Id = %q", got)
	}
	if got := r.Header.Get("X-SUPPRESS-ALL-EVENTS"); got != "" {
		t.Errorf("X-SUPPRESS-ALL-EVENTS = %q without SuppressEvents", got)
	}
}

func TestBaseURLPathPrefix(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	var gotPath string
	mt.RegisterResponder("GET", "https://gw.example.test/billing/v1/Invoices/3", func(r *http.Request) (*http.Response, error) {
		gotPath = r.URL.Path
		return httpmock.NewStringResponse(200, `{"id":3}`), nil
	})
	c, err := billing.NewClient(testKey, billing.WithBaseURL("https://gw.example.test/billing/"), billing.WithHTTPClient(&http.Client{Transport: mt}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Invoices.Get(context.Background(), 3, nil); err != nil {
		t.Fatal(err)
	}
	if gotPath != "/billing/v1/Invoices/3" {
		t.Errorf("path = %q", gotPath)
	}
}

func TestTwoClientsSideBySide(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	seen := map[string]string{}
	for _, host := range []string{"https://a.example.test", "https://b.example.test"} {
		mt.RegisterResponder("GET", host+"/v1/Invoices/1", func(r *http.Request) (*http.Response, error) {
			seen[r.URL.Host] = r.Header.Get("Authorization")
			return httpmock.NewStringResponse(200, `{"id":1}`), nil
		})
	}
	hc := &http.Client{Transport: mt}
	a, err := billing.NewClient("key-a", billing.WithBaseURL("https://a.example.test"), billing.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	b, err := billing.NewClient("key-b", billing.WithBaseURL("https://b.example.test"), billing.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*billing.Client{a, b, a} {
		if _, err := c.Invoices.Get(context.Background(), 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	if seen["a.example.test"] != "Basic key-a" || seen["b.example.test"] != "Basic key-b" {
		t.Errorf("authorization per host = %v", seen)
	}
	if hc.Timeout != 0 || hc.CheckRedirect != nil {
		t.Error("the caller's *http.Client was modified")
	}
}

func TestSilentByDefaultAndLogsAttempts(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	w := newWire(t, billing.WithLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	w.on("GET", "/v1/Invoices/9", 404, errorBody(404, "Api Error", "not found"))
	_, err := w.client.Invoices.Get(context.Background(), 9, &billing.GetInvoiceParams{GroupCharges: true})
	if err == nil {
		t.Fatal("want error")
	}
	out := buf.String()
	for _, want := range []string{"method=GET", "path=/v1/Invoices/9", "status=404", "attempt=1", "duration="} {
		if !strings.Contains(out, want) {
			t.Errorf("log %q lacks %q", out, want)
		}
	}
	for _, never := range []string{testKey, "groupCharges", "Authorization"} {
		if strings.Contains(out, never) {
			t.Errorf("log %q holds %q", out, never)
		}
	}
}

func TestRequestOptionErrorsSendNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opt  billing.RequestOption
	}{
		{"authorization override", billing.WithHeader("Authorization", "Basic other")},
		{"content type override", billing.WithHeader("content-type", "text/plain")},
		{"header injection", billing.WithHeader("X-A", "1\r\nX-B: 2")},
		{"bad header name", billing.WithHeader("X A", "1")},
		{"separator in a header name", billing.WithHeader("X(Y", "1")},
		{"non-ASCII header name", billing.WithHeader("X-Ü", "1")},
		{"control character in a header value", billing.WithHeader("X-Y", "a\x01b")},
		{"DEL in a header value", billing.WithHeader("X-Y", "a\x7fb")},
		{"nil capture", billing.CaptureResponse(nil)},
		{"negative retries", billing.WithRetries(billing.RetryPolicy{MaxRetries: -2})},
		{"nil option", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.on("GET", "/v1/Invoices/1", 200, `{"id":1}`)
			_, err := w.client.Invoices.Get(context.Background(), 1, nil, tt.opt)
			assertRefused(t, w, err, "RequestOption")
		})
	}
}

func TestCaptureResponse(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on("GET", "/v1/Invoices/1", 200, `{"id":1}`,
		"X-Rate-Limit-Limit-Minute", "60", "X-Rate-Limit-Remaining-Minute", "59", "X-Rate-Limit-Reset-Minute", "30",
		"X-Rate-Limit-Limit-Day", "10000", "X-Rate-Limit-Remaining-Day", "9000")
	var resp billing.Response
	if _, err := w.client.Invoices.Get(context.Background(), 1, nil, billing.CaptureResponse(&resp)); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Errorf("StatusCode = %d", resp.StatusCode)
	}
	want := billing.RateLimit{
		Minute: billing.RateLimitWindow{Present: true, Limit: 60, Remaining: 59, Reset: 30 * time.Second},
		Day:    billing.RateLimitWindow{Present: true, Limit: 10000, Remaining: 9000},
	}
	if resp.RateLimit != want {
		t.Errorf("RateLimit = %+v, want %+v", resp.RateLimit, want)
	}

	w.on("GET", "/v1/Invoices/2", 404, errorBody(404, "Api Error", "gone"))
	var failed billing.Response
	if _, err := w.client.Invoices.Get(context.Background(), 2, nil, billing.CaptureResponse(&failed)); err == nil {
		t.Fatal("want error")
	}
	if failed.StatusCode != 404 {
		t.Errorf("captured status of a failed call = %d", failed.StatusCode)
	}
}

func TestNilContext(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	//lint:ignore SA1012 checking the guard against a nil context
	_, err := w.client.Invoices.Get(nil, 1, nil) //nolint:staticcheck
	assertValidation(t, err, "ctx")
	if w.sent() != 0 {
		t.Error("sent a request with a nil context")
	}
}

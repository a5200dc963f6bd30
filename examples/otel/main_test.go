package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestSpans runs the demo and checks its spans: one per HTTP attempt,
// named after the operation, with its route template, children of the
// caller's span, which has an event per attempt; the attempts counted by
// operation, route and status; and no span, attribute, event, status or
// metric holds the query string, the filter's value or the API key,
// although the query did reach the fake.
func TestSpans(t *testing.T) {
	t.Parallel()
	d, err := newDemo()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.close)
	if err := d.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := d.spans.Ended()

	type want struct{ name, kind, template, route string }
	var got []want
	var parent sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == "nightly-export" {
			parent = s
			continue
		}
		got = append(got, want{s.Name(), s.SpanKind().String(), attr(s, "url.template"), attr(s, "billing.route")})
	}
	wantSpans := []want{
		{"Invoices.List", "client", "/v1/Invoices", "GET /v1/Invoices"},
		{"Invoices.Get", "client", "/v1/Invoices/{invoiceId}", "GET /v1/Invoices/{invoiceId}"}, // the 503
		{"Invoices.Get", "client", "/v1/Invoices/{invoiceId}", "GET /v1/Invoices/{invoiceId}"},
	}
	if !slices.Equal(got, wantSpans) {
		t.Errorf("HTTP spans:\n got %+v\nwant %+v", got, wantSpans)
	}
	if parent == nil {
		t.Fatal("no span of the caller's")
	}
	for _, s := range spans {
		if s != parent && s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %q is not a child of the caller's span", s.Name())
		}
	}

	// The caller's span has the observer's event of each attempt.
	var events []string
	for _, e := range parent.Events() {
		var op, attempt, status, retry string
		for _, kv := range e.Attributes {
			switch kv.Key {
			case "billing.operation":
				op = kv.Value.AsString()
			case "billing.attempt":
				attempt = kv.Value.String()
			case "http.response.status_code":
				status = kv.Value.String()
			case "billing.retry":
				retry = kv.Value.String()
			}
		}
		events = append(events, fmt.Sprintf("%s %s: attempt %s status %s retry %s", e.Name, op, attempt, status, retry))
	}
	wantEvents := []string{
		"billing.attempt Invoices.List: attempt 1 status 200 retry false",
		"billing.attempt Invoices.Get: attempt 1 status 503 retry true",
		"billing.attempt Invoices.Get: attempt 2 status 200 retry false",
	}
	if !slices.Equal(events, wantEvents) {
		t.Errorf("events of the caller's span:\n got %q\nwant %q", events, wantEvents)
	}

	// The observer counted each attempt, labelled by operation, route
	// and status.
	counts, err := attemptCounts(d.metrics)
	if err != nil {
		t.Fatal(err)
	}
	wantCounts := map[string]int64{
		"Invoices.List GET /v1/Invoices 200":            1,
		"Invoices.Get GET /v1/Invoices/{invoiceId} 503": 1,
		"Invoices.Get GET /v1/Invoices/{invoiceId} 200": 1,
	}
	if !maps.Equal(counts, wantCounts) {
		t.Errorf("billing.attempts:\n got %v\nwant %v", counts, wantCounts)
	}

	// The filter was sent, in the query string.
	var sentQuery string
	for _, r := range d.srv.Requests() {
		if r.Path == "/v1/Invoices" {
			sentQuery = r.Query.Get("query")
		}
	}
	if !strings.Contains(sentQuery, demoFilter) {
		t.Fatalf("the fake got the list with query %q, want the filter %q in it", sentQuery, demoFilter)
	}
	// No span holds it, nor the key.
	var printed bytes.Buffer
	printSpans(&printed, spans)
	if err := printMetrics(&printed, d.metrics); err != nil {
		t.Fatal(err)
	}
	for _, s := range spans {
		fmt.Fprintf(&printed, "%s %v %v %v\n", s.Name(), s.Attributes(), s.Events(), s.Status())
	}
	for _, secret := range []string{"?", demoFilter, url.QueryEscape(demoFilter), demoKey, base64.StdEncoding.EncodeToString([]byte(demoKey))} {
		if strings.Contains(printed.String(), secret) {
			t.Errorf("the spans hold %q:\n%s", secret, printed.String())
		}
	}
}

// attr returns the string value of a span's attribute, "" when absent.
func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value.AsString()
		}
	}
	return ""
}

// TestTracedTransportSendsTheQuery checks the transport on its own: the
// request reaches the server with its query string, the span has none,
// and a request the SDK did not send is named after its method.
func TestTracedTransportSendsTheQuery(t *testing.T) {
	t.Parallel()
	queries := make(chan string, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { queries <- r.URL.RawQuery }))
	t.Cleanup(ts.Close)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	hc := &http.Client{Transport: tracedTransport(http.DefaultTransport, tp)}

	resp, err := hc.Get(ts.URL + "/v1/Other?query=name%20eq%20secret-Zed")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gotQuery := <-queries; gotQuery != "query=name%20eq%20secret-Zed" {
		t.Errorf("the server got query %q", gotQuery)
	}
	spans := rec.Ended()
	if len(spans) != 1 || spans[0].Name() != "HTTP GET" {
		t.Fatalf("spans %v, want one named HTTP GET", spans)
	}
	if full := attr(spans[0], "url.full"); full != ts.URL+"/v1/Other" {
		t.Errorf("url.full = %q, want it without the query", full)
	}
	if _, ok := billing.OperationFromRequest(resp.Request); ok {
		t.Error("a request the SDK did not send has an operation")
	}
}

// TestRunDemo runs the command's whole path, printing included.
func TestRunDemo(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := runDemo(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`span "Invoices.List" (client`, `metric billing.attempts{Invoices.Get GET /v1/Invoices/{invoiceId} 503} = 1`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output has no %q:\n%s", want, out.String())
		}
	}
}

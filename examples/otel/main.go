// Command otel traces billing-go calls with OpenTelemetry, on the bundled
// fake, and prints the spans it recorded:
//
//	cd examples/otel && go run .
//
// Each HTTP attempt is a span of otelhttp's transport, named after the
// SDK's operation ("Invoices.List", not "HTTP GET") and carrying its route
// template (url.template "/v1/Invoices/{invoiceId}", billing.route
// "GET /v1/Invoices/{invoiceId}"), read with billing.OperationFromRequest.
// The SDK's attempt observer (billing.WithAttemptObserver) sees the same
// attempts as plain values (operation, attempt number, status, duration,
// error, whether a retry follows, whether a write's outcome is unknown):
// here it adds an event per attempt to the caller's own span, and counts
// and times the attempts with OpenTelemetry metrics, labelled by
// operation, route and status.
//
// otelhttp records the request's whole URL (url.full), query string
// included, and the SDK sends a list's filter in the query: the values
// your code searches by, often personal data. The transport here hides the
// query from otelhttp and gives it back beneath it, so that the request
// goes out whole while no span ever holds it.
//
// It is a module of its own so that the SDK's go.mod gains no dependency
// on OpenTelemetry.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func main() {
	if err := runDemo(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// runDemo runs the demo and prints its spans and metrics to w.
func runDemo(w io.Writer) error {
	d, err := newDemo()
	if err != nil {
		return err
	}
	defer d.close()
	if err := d.run(context.Background()); err != nil {
		return err
	}
	printSpans(w, d.spans.Ended())
	return printMetrics(w, d.metrics)
}

// demo is the fake, a tracer provider that keeps every span in memory,
// and a client whose calls are traced.
type demo struct {
	srv     *billingtest.Server
	spans   *tracetest.SpanRecorder
	tp      *sdktrace.TracerProvider
	metrics *sdkmetric.ManualReader
	mp      *sdkmetric.MeterProvider
	client  *billing.Client
}

// demoKey is the fake's API key: no span may hold it.
const demoKey = "sk_test_otel_example_7Q"

// demoFilter is the purchase order number the demo searches by: no span
// may hold it.
const demoFilter = "PO-PRIVATE-Hopper"

// newDemo starts the fake, seeded with three invoices that share a
// purchase order number, and the providers and client; close stops them.
func newDemo() (_ *demo, err error) {
	d := &demo{
		srv:   billingtest.NewServer(billingtest.WithAPIKey(demoKey)),
		spans: tracetest.NewSpanRecorder(),
	}
	d.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(d.spans))
	d.metrics = sdkmetric.NewManualReader()
	d.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(d.metrics))
	defer func() {
		if err != nil {
			d.close()
		}
	}()
	observer, err := newAttemptObserver(d.mp)
	if err != nil {
		return nil, err
	}
	cust, err := d.srv.AddCustomer(billingtest.Customer{FirstName: "Grace", LastName: "Hopper"})
	if err != nil {
		return nil, err
	}
	for i := range 3 {
		amount := decimal.New(int64(1000+250*i), -2)
		if _, err := d.srv.AddInvoice(billingtest.Invoice{
			ID: int64(1020 + i), CustomerID: cust, PoNumber: demoFilter,
			Charges: []billingtest.Charge{{Name: "Plan", Quantity: decimal.NewFromInt(1), UnitPrice: amount, Amount: amount}},
		}); err != nil {
			return nil, err
		}
	}
	d.client = d.srv.Client(
		billing.WithHTTPClient(&http.Client{Transport: tracedTransport(http.DefaultTransport, d.tp)}),
		billing.WithAttemptObserver(observer),
	)
	return d, nil
}

func (d *demo) close() {
	_ = d.tp.Shutdown(context.Background())
	_ = d.mp.Shutdown(context.Background())
	d.srv.Close()
}

// run makes a few calls under one span of the caller's: a filtered list,
// and a read that the fake fails once with 503, so that it is retried.
func (d *demo) run(ctx context.Context) error {
	ctx, span := d.tp.Tracer("billing-go/examples/otel").Start(ctx, "nightly-export")
	defer span.End()
	p := &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{PoNumber: query.Equals(demoFilter)}}
	page, err := d.client.Invoices.List(ctx, p)
	if err != nil {
		return err
	}
	if len(page.Items) == 0 {
		return fmt.Errorf("no invoice has the purchase order number")
	}
	if err := d.srv.InjectFault(billingtest.RouteInvoicesGet, billingtest.Fault{Status: http.StatusServiceUnavailable}); err != nil {
		return err
	}
	_, err = d.client.Invoices.Get(ctx, page.Items[0].ID, nil)
	return err
}

// tracedTransport wraps base with otelhttp: one span per HTTP attempt,
// named after the SDK's operation, with its route template, and without
// the query string.
func tracedTransport(base http.RoundTripper, tp trace.TracerProvider) http.RoundTripper {
	traced := otelhttp.NewTransport(restoreQuery{base},
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithSpanNameFormatter(spanName),
	)
	return hideQuery{traced}
}

// spanName names a span after the SDK's operation, e.g. "Invoices.List".
func spanName(_ string, r *http.Request) string {
	if op, ok := billing.OperationFromRequest(r); ok {
		return op.Name
	}
	return "HTTP " + r.Method
}

// queryKey holds, on the context of a request going through otelhttp,
// the query string that hideQuery took off its URL.
type queryKey struct{}

// hideQuery hands otelhttp the request without its query string, which
// otelhttp would put in the span's url.full attribute.
type hideQuery struct{ next http.RoundTripper }

func (t hideQuery) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.RawQuery == "" {
		return t.next.RoundTrip(r)
	}
	hidden := r.Clone(context.WithValue(r.Context(), queryKey{}, r.URL.RawQuery)) // a RoundTripper must not change r
	hidden.URL.RawQuery = ""
	return t.next.RoundTrip(hidden)
}

// restoreQuery, beneath otelhttp, gives the request its query string back
// before it is sent, and names the route on the span otelhttp started.
type restoreQuery struct{ next http.RoundTripper }

func (t restoreQuery) RoundTrip(r *http.Request) (*http.Response, error) {
	if op, ok := billing.OperationFromRequest(r); ok {
		trace.SpanFromContext(r.Context()).SetAttributes(
			attribute.String("url.template", op.PathTemplate),
			attribute.String("billing.route", op.Route()),
		)
	}
	q, ok := r.Context().Value(queryKey{}).(string)
	if !ok {
		return t.next.RoundTrip(r)
	}
	whole := r.Clone(r.Context())
	whole.URL.RawQuery = q
	return t.next.RoundTrip(whole)
}

// newAttemptObserver returns the SDK's attempt observer: for each HTTP
// attempt it adds an event to the caller's span, which is in ctx, and
// counts and times the attempt with the meter provider's instruments.
func newAttemptObserver(mp metric.MeterProvider) (func(context.Context, billing.Attempt), error) {
	meter := mp.Meter("billing-go/examples/otel")
	attempts, err := meter.Int64Counter("billing.attempts", metric.WithDescription("HTTP attempts of billing-go calls"))
	if err != nil {
		return nil, err
	}
	durations, err := meter.Float64Histogram("billing.attempt.duration", metric.WithUnit("s"))
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, a billing.Attempt) {
		labels := metric.WithAttributes(
			attribute.String("billing.operation", a.Operation.Name),
			attribute.String("billing.route", a.Operation.Route()),
			attribute.Int("http.response.status_code", a.StatusCode),
		)
		attempts.Add(ctx, 1, labels)
		durations.Record(ctx, a.Duration.Seconds(), labels)

		attrs := []attribute.KeyValue{
			attribute.String("billing.operation", a.Operation.Name),
			attribute.String("billing.route", a.Operation.Route()),
			attribute.Int("billing.attempt", a.Number),
			attribute.Int("http.response.status_code", a.StatusCode),
			attribute.Float64("billing.duration_seconds", a.Duration.Seconds()),
			attribute.Bool("billing.retry", a.Retry),
			attribute.Bool("billing.outcome_unknown", a.OutcomeUnknown),
		}
		if a.Err != nil {
			attrs = append(attrs, attribute.String("error.message", a.Err.Error()))
		}
		trace.SpanFromContext(ctx).AddEvent("billing.attempt", trace.WithAttributes(attrs...))
	}, nil
}

// printSpans writes each span, oldest first, with its attributes and
// events, their keys sorted.
func printSpans(w io.Writer, spans []sdktrace.ReadOnlySpan) {
	spans = slices.Clone(spans)
	slices.SortStableFunc(spans, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	for _, s := range spans {
		fmt.Fprintf(w, "span %q (%s, %s)\n", s.Name(), s.SpanKind(), s.EndTime().Sub(s.StartTime()).Round(time.Microsecond))
		for _, kv := range sortedAttributes(s.Attributes()) {
			fmt.Fprintf(w, "    %s = %s\n", kv.Key, kv.Value.String())
		}
		for _, e := range s.Events() {
			var fields []string
			for _, kv := range sortedAttributes(e.Attributes) {
				fields = append(fields, fmt.Sprintf("%s=%s", kv.Key, kv.Value.String()))
			}
			fmt.Fprintf(w, "    event %s: %s\n", e.Name, strings.Join(fields, " "))
		}
	}
}

func sortedAttributes(kvs []attribute.KeyValue) []attribute.KeyValue {
	kvs = slices.Clone(kvs)
	slices.SortFunc(kvs, func(a, b attribute.KeyValue) int { return strings.Compare(string(a.Key), string(b.Key)) })
	return kvs
}

// attemptCounts reads the billing.attempts counter: the count of each set
// of labels, as "operation route status".
func attemptCounts(reader *sdkmetric.ManualReader) (map[string]int64, error) {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if m.Name != "billing.attempts" || !ok {
				continue
			}
			for _, dp := range sum.DataPoints {
				op, _ := dp.Attributes.Value("billing.operation")
				route, _ := dp.Attributes.Value("billing.route")
				status, _ := dp.Attributes.Value("http.response.status_code")
				counts[fmt.Sprintf("%s %s %d", op.AsString(), route.AsString(), status.AsInt64())] += dp.Value
			}
		}
	}
	return counts, nil
}

// printMetrics writes the attempt counts, sorted.
func printMetrics(w io.Writer, reader *sdkmetric.ManualReader) error {
	counts, err := attemptCounts(reader)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		fmt.Fprintf(w, "metric billing.attempts{%s} = %d\n", k, counts[k])
	}
	return nil
}

package billing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/shopspring/decimal"
)

// A retry policy sets how often and how long a client retries what is
// safe to retry (reads, 429s, requests that never left). Fields left zero
// keep their defaults; here the fake fails twice with 503 before it
// answers, and the client's third attempt succeeds.
func ExampleWithRetryPolicy() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	_ = srv.InjectFault(billingtest.RouteInvoicesGet, billingtest.Fault{Status: 503, Times: 2})
	c := srv.Client(billing.WithRetryPolicy(billing.RetryPolicy{
		MaxRetries: 4,
		MinBackoff: time.Millisecond, // short waits for the example; the defaults are 500ms to 30s
		MaxBackoff: 10 * time.Millisecond,
	}))

	inv, err := c.Invoices.Get(context.Background(), 1005, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("invoice", inv.ID, "after", len(srv.Requests()), "attempts")
	// Output: invoice 1005 after 3 attempts
}

// A client logs each attempt to the slog.Logger it is given, and nothing
// without one: operation, method, path without the query, attempt,
// duration and status or error; failures at Warn, the rest at Debug. The
// handler here leaves out the time and duration so that the output is
// stable.
func ExampleWithLogger() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	_ = srv.InjectFault(billingtest.RouteInvoicesGet, billingtest.Fault{Status: 503})
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{}
			}
			return a
		},
	}))
	c := srv.Client(billing.WithLogger(logger), billing.WithRetryPolicy(billing.RetryPolicy{MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))

	if _, err := c.Invoices.Get(context.Background(), 1005, nil); err != nil {
		log.Fatal(err)
	}
	// Output:
	// level=WARN msg="billing request" operation=Invoices.Get method=GET path=/v1/Invoices/1005 attempt=1 status=503 retry=true
	// level=DEBUG msg="billing request" operation=Invoices.Get method=GET path=/v1/Invoices/1005 attempt=2 status=200
}

// The service sends members the API reference does not list; every
// resource keeps them in Extra, as raw JSON, and writes them back when it
// is encoded again, with encoding/json as with the SDK. Extra.Decode reads
// one into a value of the caller's.
func ExampleExtra() {
	fromService := []byte(`{"id":7,"invoiceNumber":1047,"outstandingBalance":118.9330,
		"invoiceAdjustments":{"total":-1.125,"reason":"goodwill"}}`)
	var inv billing.Invoice
	if err := json.Unmarshal(fromService, &inv); err != nil {
		log.Fatal(err)
	}
	var adjustments struct {
		Total  decimal.Decimal `json:"total"`
		Reason string          `json:"reason"`
	}
	if _, err := inv.Extra.Decode("invoiceAdjustments", &adjustments); err != nil {
		log.Fatal(err)
	}
	fmt.Println("adjusted by", adjustments.Total, "for", adjustments.Reason)

	out, err := json.Marshal(inv)
	if err != nil {
		log.Fatal(err)
	}
	var back map[string]json.RawMessage
	if err := json.Unmarshal(out, &back); err != nil {
		log.Fatal(err)
	}
	fmt.Println("written back:", string(back["invoiceAdjustments"]), string(back["outstandingBalance"]))
	// Output:
	// adjusted by -1.125 for goodwill
	// written back: {"total":-1.125,"reason":"goodwill"} 118.933
}

// An attempt observer sees each HTTP attempt of every call, with plain
// values to feed any metrics or tracing library: here the fake fails once
// with 503, and the observer sees the retry. A real observer would add
// a.Duration to a histogram labelled with a.Operation.Name.
func ExampleWithAttemptObserver() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	_ = srv.InjectFault(billingtest.RouteInvoicesGet, billingtest.Fault{Status: 503})
	c := srv.Client(billing.WithAttemptObserver(func(_ context.Context, a billing.Attempt) {
		fmt.Printf("%s (%s) attempt %d: status %d, retry %v, error %v\n",
			a.Operation.Name, a.Operation.Route(), a.Number, a.StatusCode, a.Retry, a.Err)
	}))

	if _, err := c.Invoices.Get(context.Background(), 1005, nil); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Invoices.Get (GET /v1/Invoices/{invoiceId}) attempt 1: status 503, retry true, error billing: GET /v1/Invoices/1005: 503 Service Unavailable
	// Invoices.Get (GET /v1/Invoices/{invoiceId}) attempt 2: status 200, retry false, error <nil>
}

// namingTransport is an http.RoundTripper of the kind a tracing library
// provides: it names each request after its operation.
type namingTransport struct{ next http.RoundTripper }

func (t namingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if op, ok := billing.OperationFromRequest(r); ok {
		fmt.Printf("span %q, route %q\n", op.Name, op.Route())
	}
	return t.next.RoundTrip(r)
}

// A transport in the client's http.Client reads each request's operation,
// for a span name or a metric label that holds no ids or query values.
// Iterators send their pages through List, so their requests are named
// after it.
func ExampleOperationFromRequest() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client(billing.WithHTTPClient(&http.Client{Transport: namingTransport{http.DefaultTransport}}))

	ctx := context.Background()
	if _, err := c.Invoices.Get(ctx, 1005, nil); err != nil {
		log.Fatal(err)
	}
	if _, err := c.Invoices.Count(ctx, nil); err != nil {
		log.Fatal(err)
	}
	var out any
	if _, err := c.Do(ctx, &billing.Request{Method: http.MethodGet, Path: "/v1/Invoices/1006", PathTemplate: "/v1/Invoices/{invoiceId}"}, &out); err != nil {
		log.Fatal(err)
	}
	// Output:
	// span "Invoices.Get", route "GET /v1/Invoices/{invoiceId}"
	// span "Invoices.List", route "GET /v1/Invoices"
	// span "Client.Do", route "GET /v1/Invoices/{invoiceId}"
}

package billing_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

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

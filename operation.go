package billing

import (
	"net/http"
)

// Operation names the API operation that an HTTP request of the SDK
// belongs to, for tracing and metrics: a span name, a metric label. It
// holds no ids, no query values and no secrets, so it is safe to use as a
// label of few values.
//
// A transport wrapped around the client's ([WithHTTPClient]) reads it
// with [OperationFromRequest]; an observer ([WithAttemptObserver]) gets
// it in each [Attempt].
type Operation struct {
	// Name is the SDK method that sent the request, as "Service.Method"
	// after the Client field: "Invoices.List", "Invoices.Get",
	// "PaymentMethods.ReplaceCreditCard"; "Client.Do" for [Client.Do].
	// Iterators (Pages, All) and Count send their requests through List,
	// so those requests are named after the List method, as the API
	// operation they call.
	Name string
	// Method is the HTTP method, e.g. "GET".
	Method string
	// PathTemplate is the path as the API reference writes it, each
	// parameter in braces: "/v1/Invoices/{invoiceId}", as in the method's
	// documentation ("API:" line). For [Client.Do] it is
	// [Request.PathTemplate], empty when the request does not give one.
	PathTemplate string
}

// Route returns the method and the path template, e.g.
// "GET /v1/Invoices/{invoiceId}": the name OpenTelemetry's HTTP
// conventions give a client span. With no template (a [Client.Do] request
// without [Request.PathTemplate]) it is the method alone, as those
// conventions say, rather than a path that may hold ids.
func (o Operation) Route() string {
	if o.PathTemplate == "" {
		return o.Method
	}
	return o.Method + " " + o.PathTemplate
}

// OperationFromRequest returns the operation of a request that the SDK
// sends, and false for any other request. It is meant for an
// http.RoundTripper in the client's transport (see [WithHTTPClient]): a
// tracing transport's span name, a metric label. Every attempt of a call,
// and every redirect followed within one, carries it.
//
// The operation travels in the request's context: the SDK puts it there
// on each outgoing request for such observers and never reads it back,
// so nothing the SDK does depends on it (the SDK's own state travels in
// explicit values). The context is the one place a RoundTripper can see
// what a request is for, as aws-sdk-go-v2's operation name
// (middleware.GetOperationName) is read from it too.
func OperationFromRequest(r *http.Request) (Operation, bool) {
	if r == nil {
		return Operation{}, false
	}
	op, ok := r.Context().Value(operationKey{}).(Operation)
	return op, ok
}

// operationKey is the context key of the annotation read by
// OperationFromRequest, set on each request of a call (newRequest) for
// observers only.
type operationKey struct{}

package billing

import (
	"context"
	"iter"
	"net/http"
)

// InvoiceSummariesService lists a customer's invoice summaries: invoices
// without their charges, with the filters of the summary endpoint.
type InvoiceSummariesService struct{ service }

// ListInvoiceSummariesParams are the parameters of
// [InvoiceSummariesService.List].
type ListInvoiceSummariesParams struct {
	ListOptions
	// Filter becomes the query parameter.
	Filter InvoiceSummaryFilter `url:"query"`
}

// List returns one page of a customer's invoice summaries. It fails with
// [ErrNotFound] when the customer does not exist, and with a
// [*ValidationError] (matching [ErrInvalidParams]) for a customerID that
// is not positive or bad params, before sending anything.
//
// API: GET /v1/customers/{customerId}/invoiceSummaries
func (s *InvoiceSummariesService) List(ctx context.Context, customerID int64, params *ListInvoiceSummariesParams, opts ...RequestOption) (*Page[InvoiceSummary], error) {
	return list[InvoiceSummary](ctx, s.client, invoiceSummariesList(customerID, params), opts)
}

// invoiceSummariesList is GET /v1/customers/{customerId}/invoiceSummaries
// with params.
func invoiceSummariesList(customerID int64, params *ListInvoiceSummariesParams) listCall {
	id, err := pathID("customerId", customerID)
	p := orZero(params)
	return listCall{
		op:   Operation{Name: "InvoiceSummaries.List", Method: http.MethodGet, PathTemplate: "/v1/customers/{customerId}/invoiceSummaries"},
		path: "/v1/customers/" + id + "/invoiceSummaries", params: &p, lo: p.ListOptions, filter: p.Filter, err: err,
	}
}

// Pages iterates over the pages of [InvoiceSummariesService.List], from
// params.PageNumber to the last page.
//
// API: GET /v1/customers/{customerId}/invoiceSummaries, once per page
func (s *InvoiceSummariesService) Pages(ctx context.Context, customerID int64, params *ListInvoiceSummariesParams, opts ...IterOption) iter.Seq2[*Page[InvoiceSummary], error] {
	return pagesOf[InvoiceSummary](ctx, s.client, invoiceSummariesList(customerID, params), opts)
}

// All iterates over every invoice summary of a customer, page by page. On
// error it yields the error once and stops.
//
// API: GET /v1/customers/{customerId}/invoiceSummaries, once per page
func (s *InvoiceSummariesService) All(ctx context.Context, customerID int64, params *ListInvoiceSummariesParams, opts ...IterOption) iter.Seq2[InvoiceSummary, error] {
	return items(ctx, s.Pages(ctx, customerID, params, opts...))
}

// Count returns the number of a customer's invoice summaries matching
// params (X-Count), with a single one-item request.
//
// API: GET /v1/customers/{customerId}/invoiceSummaries?pageSize=1
func (s *InvoiceSummariesService) Count(ctx context.Context, customerID int64, params *ListInvoiceSummariesParams, opts ...RequestOption) (int, error) {
	return countOf[InvoiceSummary](ctx, s.client, invoiceSummariesList(customerID, params), opts)
}

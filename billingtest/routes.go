package billingtest

import "net/http"

// knownRoutes lists the routes faults can be injected on.
var knownRoutes = map[Route]struct{}{
	RouteListInvoices: {}, RouteListCustomerInvoices: {}, RouteGetInvoice: {}, RouteInvoiceSummaries: {},
	RouteDraftPDF: {}, RouteWriteOff: {}, RouteReplaceCreditCard: {}, RouteWalletAgreement: {},
	RouteCreateTrackingCode: {}, RouteSubscriptionItems: {}, RouteBulkPreview: {}, RouteBulkProcess: {},
}

// routes maps the reference's paths, with their casing, to handlers.
// Matching is case-sensitive: a client that drifts from the reference's
// casing fails here rather than in production.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	handle := func(r Route, h http.HandlerFunc) { mux.HandleFunc(string(r), h) }
	handle(RouteListInvoices, s.handleListInvoices)
	handle(RouteListCustomerInvoices, s.handleListCustomerInvoices)
	handle(RouteGetInvoice, s.handleGetInvoice)
	handle(RouteInvoiceSummaries, s.handleInvoiceSummaries)
	handle(RouteDraftPDF, s.handleDraftPDF)
	handle(RouteWriteOff, s.handleWriteOff)
	handle(RouteReplaceCreditCard, s.handleReplaceCreditCard)
	handle(RouteWalletAgreement, s.handleWalletAgreement)
	handle(RouteCreateTrackingCode, s.handleCreateTrackingCode)
	handle(RouteSubscriptionItems, s.handleSubscriptionItems)
	handle(RouteBulkPreview, s.handleBulkPreview)
	handle(RouteBulkProcess, s.handleBulkProcess)
	return mux
}

package billingtest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/billingapi/billing-go/billingtest/internal/route"
)

// Route names one of the fake's endpoints: its method and its path as the
// reference writes it, e.g. "GET /v1/Invoices". Requests match a route
// whatever their casing and with or without a trailing slash; the value
// only names it, for [Server.InjectFault].
type Route string

// The fake's other routes, named after the SDK methods that call them.
const (
	// RouteInvoicesGet is Invoices.Get (4.3).
	RouteInvoicesGet Route = "GET /v1/Invoices/{invoiceId}"
	// RouteDraftInvoicesPDF is DraftInvoices.PDF (4.5).
	RouteDraftInvoicesPDF Route = "GET /v1/draftInvoices/pdf/{Id}"
	// RouteInvoicesWriteOff is Invoices.WriteOff (4.6).
	RouteInvoicesWriteOff Route = "POST /v1/invoices/writeoff"
	// RoutePaymentMethodsReplaceCreditCard is
	// PaymentMethods.ReplaceCreditCard (4.7).
	RoutePaymentMethodsReplaceCreditCard Route = "PUT /v1/paymentMethods/creditCard"
	// RoutePaymentMethodsCreateWalletAgreement is
	// PaymentMethods.CreateWalletAgreement (4.8); {provider} is one of
	// [WithWalletProviders], compared without case.
	RoutePaymentMethodsCreateWalletAgreement Route = "POST /v1/{provider}"
	// RouteSalesTrackingCodesCreate is SalesTrackingCodes.Create (4.9).
	RouteSalesTrackingCodesCreate Route = "POST /v1/salesTrackingCodes"
	// RouteBulkPreviewPriceChange is Bulk.PreviewPriceChange (4.11).
	RouteBulkPreviewPriceChange Route = "POST /v1/Subscribers/{planId}/PreviewBulkPriceChange"
	// RouteBulkProcess is Bulk.Process (4.12).
	RouteBulkProcess Route = "POST /v1/BulkApi/Process"
)

// routeSpec is one row of the route table.
type routeSpec struct {
	route Route
	// name is the SDK method, which the control API also accepts.
	name    string
	method  string
	segs    []string // path segments after the leading "/"; "{x}" is a parameter
	handler func(*Server, http.ResponseWriter, *http.Request)
	// custom is set on a route added with HandleFunc, whose parameters
	// match any segment ({provider} included).
	custom bool
}

// routeTable is every route of the fake, read-only after start: the list
// endpoints' rows (lists.go), then the others.
var routeTable = slices.Concat(listRoutes, []routeSpec{
	newRouteSpec(RouteInvoicesGet, "Invoices.Get", apiHandler((*Server).handleGetInvoice).serve),
	newRouteSpec(RouteDraftInvoicesPDF, "DraftInvoices.PDF", (*Server).handleDraftPDF),
	newRouteSpec(RouteInvoicesWriteOff, "Invoices.WriteOff", apiHandler((*Server).handleWriteOff).serve),
	newRouteSpec(RoutePaymentMethodsReplaceCreditCard, "PaymentMethods.ReplaceCreditCard", apiHandler((*Server).handleReplaceCreditCard).serve),
	newRouteSpec(RoutePaymentMethodsCreateWalletAgreement, "PaymentMethods.CreateWalletAgreement", apiHandler((*Server).handleWalletAgreement).serve),
	newRouteSpec(RouteSalesTrackingCodesCreate, "SalesTrackingCodes.Create", apiHandler((*Server).handleCreateTrackingCode).serve),
	newRouteSpec(RouteBulkPreviewPriceChange, "Bulk.PreviewPriceChange", apiHandler((*Server).handleBulkPreview).serve),
	newRouteSpec(RouteBulkProcess, "Bulk.Process", apiHandler((*Server).handleBulkProcess).serve),
})

func newRouteSpec(r Route, name string, h func(*Server, http.ResponseWriter, *http.Request)) routeSpec {
	method, path, _ := strings.Cut(string(r), " ")
	return routeSpec{route: r, name: name, method: method, segs: strings.Split(strings.Trim(path, "/"), "/"), handler: h}
}

// lookupRoute finds a route, the fake's own or an added one, by its value
// or by its SDK method name, both without regard to case.
func (s *Server) lookupRoute(name string) (*routeSpec, bool) {
	for i := range routeTable {
		if strings.EqualFold(string(routeTable[i].route), name) || strings.EqualFold(routeTable[i].name, name) {
			return &routeTable[i], true
		}
	}
	for _, spec := range s.custom.list() {
		if strings.EqualFold(string(spec.route), name) {
			return spec, true
		}
	}
	return nil, false
}

// routeMatch is a route that matches a path, with its parameters.
type routeMatch struct {
	spec   *routeSpec
	values map[string]string
}

// matchPath returns the routes whose path matches the escaped path p, as
// package route matches: only the most specific where routes overlap, so
// /v1/Invoices is never taken for a wallet provider.
func (s *Server) matchPath(p string) []routeMatch {
	parts, ok := route.SplitPath(p)
	if !ok {
		return nil
	}
	var best []routeMatch
	var bestMask uint64
	consider := func(spec *routeSpec) {
		providers := s.cfg.walletProviders
		if spec.custom {
			providers = nil // an added route's parameters match any segment
		}
		values, mask, ok := route.Match(spec.segs, parts, providers)
		switch {
		case !ok || mask < bestMask:
			return
		case mask > bestMask:
			best, bestMask = best[:0], mask
		}
		best = append(best, routeMatch{spec: spec, values: values})
	}
	for i := range routeTable {
		consider(&routeTable[i])
	}
	for _, spec := range s.custom.list() {
		consider(spec)
	}
	return best
}

// selectRoute picks the match for method among matches; HEAD is served by
// a GET route, as net/http does.
func selectRoute(matches []routeMatch, method string) (routeMatch, bool) {
	for _, m := range matches {
		if m.spec.method == method || (method == http.MethodHead && m.spec.method == http.MethodGet) {
			return m, true
		}
	}
	return routeMatch{}, false
}

package billingtest

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Route names one of the fake's endpoints: its method and its path as the
// reference writes it, e.g. "GET /v1/Invoices". Requests match a route
// whatever their casing and with or without a trailing slash; the value
// only names it, for [Server.InjectFault].
type Route string

// The fake's routes other than its lists (those are in the block above),
// named after the SDK methods that call them.
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
// the service matches: segments compared without regard to case, one
// trailing slash optional. Where routes overlap, only the most specific
// are returned: a literal segment beats a parameter at the first position
// where they differ, so /v1/Invoices is never taken for a wallet
// provider. A path with empty, "." or ".." segments matches nothing, as
// the service knows no such path.
func (s *Server) matchPath(p string) []routeMatch {
	if !strings.HasPrefix(p, "/") {
		return nil
	}
	p = strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/")
	parts := strings.Split(p, "/")
	for i, part := range parts {
		seg, err := url.PathUnescape(part)
		if err != nil || seg == "" || seg == "." || seg == ".." {
			return nil
		}
		parts[i] = seg
	}
	var best []routeMatch
	var bestMask uint64
	consider := func(spec *routeSpec) {
		values, mask, ok := s.matchSegments(spec, parts)
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

// matchSegments matches parts against a route's segments. mask has a bit
// per literal segment, the first segment highest, so that the more
// specific route has the larger mask.
func (s *Server) matchSegments(spec *routeSpec, parts []string) (map[string]string, uint64, bool) {
	segs := spec.segs
	if len(segs) != len(parts) {
		return nil, 0, false
	}
	var values map[string]string
	var mask uint64
	for i, seg := range segs {
		mask <<= 1
		if name, isParam := strings.CutPrefix(seg, "{"); isParam {
			name = strings.TrimSuffix(name, "}")
			v := parts[i]
			if name == "provider" && !spec.custom {
				var known bool
				if v, known = s.walletProvider(v); !known {
					return nil, 0, false
				}
			}
			if values == nil {
				values = map[string]string{}
			}
			values[name] = v
			continue
		}
		if !strings.EqualFold(seg, parts[i]) {
			return nil, 0, false
		}
		mask |= 1
	}
	return values, mask, true
}

// walletProvider returns the configured spelling of provider, compared
// without regard to case, and whether it is one.
func (s *Server) walletProvider(provider string) (string, bool) {
	for _, p := range s.cfg.walletProviders {
		if strings.EqualFold(p, provider) {
			return p, true
		}
	}
	return "", false
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

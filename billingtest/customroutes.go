package billingtest

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/billingapi/billing-go/billingtest/internal/control"
	"github.com/billingapi/billing-go/billingtest/internal/route"
)

// maxCustomRoutes bounds how many routes can be added, so that a client
// of the control API cannot make every request's matching slow.
const maxCustomRoutes = 1000

// customRouteMethods are the methods a custom route may take; a GET route
// also answers HEAD, as the fake's own routes do.
var customRouteMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// customRoutes holds the routes added with HandleFunc. The slice is
// replaced, never changed in place, so that a request matches against
// the routes as they were when it arrived.
type customRoutes struct {
	mu     sync.RWMutex
	routes []*routeSpec
}

func (c *customRoutes) list() []*routeSpec {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.routes
}

// HandleFunc makes the fake serve method on pattern with h, for testing
// code that calls an endpoint the SDK does not wrap (billing.Client.Do),
// and returns the [Route] that names it, for [Server.InjectFault].
//
// pattern is a path such as "/v1/Invoices/{invoiceId}/Payments": a
// segment in braces is a parameter, which h reads with r.PathValue. A
// request matches without regard to case and with or without a trailing
// slash, as every route of the fake; where routes overlap, a literal
// segment wins over a parameter. method is GET (which also answers HEAD),
// POST, PUT, PATCH or DELETE.
//
// The request reaches h as it reaches the fake's own handlers: after the
// Host check, the key check (401 or 400 without it), pending faults of
// the route and throttling, and logged in [Server.Requests] with its
// status, its body redacted on a card route's path. h sees the query as
// the service reads it (a raw ; kept inside its value) and the body
// already read, at most 1 MiB. An answer whose Content-Type h does not
// set goes out as application/json; charset=utf-8, as the service's do.
//
// A route the fake serves already, for the same method and path shape,
// cannot be replaced; nor can the control API's /_fake/ paths be taken.
// Adding a route for the same method and path as an added one replaces
// its handler and keeps its Route; at most 1,000 routes can be added.
// Added routes stay until [Server.ClearRoutes]; [Server.Reset] keeps
// them.
func (s *Server) HandleFunc(method, pattern string, h http.HandlerFunc) (Route, error) {
	route, err := s.addRoute(method, pattern, h)
	if err != nil {
		return "", fmt.Errorf("HandleFunc: %w", err)
	}
	return route, nil
}

// addRoute is HandleFunc, its errors without the method's name, for the
// control API too.
func (s *Server) addRoute(method, pattern string, h http.HandlerFunc) (Route, error) {
	if h == nil {
		return "", errors.New("nil handler")
	}
	spec, err := newCustomRouteSpec(method, pattern)
	if err != nil {
		return "", err
	}
	spec.handler = func(_ *Server, w http.ResponseWriter, r *http.Request) {
		// The service answers JSON: a handler that names no type of its
		// own answers so too, not with what net/http would sniff.
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		h(w, r)
	}
	for i := range routeTable {
		if routeTable[i].method == spec.method && route.SameShape(routeTable[i].segs, spec.segs) {
			return "", fmt.Errorf("%s is the fake's route %s", spec.route, routeTable[i].route)
		}
	}
	c := &s.custom
	c.mu.Lock()
	defer c.mu.Unlock()
	routes := slices.Clone(c.routes)
	if i := slices.IndexFunc(routes, func(o *routeSpec) bool { return o.method == spec.method && route.SameShape(o.segs, spec.segs) }); i >= 0 {
		spec.route, spec.name = routes[i].route, routes[i].name
		routes[i] = spec
	} else {
		if len(routes) >= maxCustomRoutes {
			return "", fmt.Errorf("%s: %d routes are added already, the most the fake takes", spec.route, maxCustomRoutes)
		}
		routes = append(routes, spec)
	}
	c.routes = routes
	return spec.route, nil
}

// ClearRoutes removes the routes added with [Server.HandleFunc] (and
// POST /_fake/routes), with their pending faults.
func (s *Server) ClearRoutes() {
	s.custom.mu.Lock()
	old := s.custom.routes
	s.custom.routes = nil
	s.custom.mu.Unlock()
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	for _, spec := range old {
		delete(s.faults.pending, spec.route)
	}
}

// newCustomRouteSpec checks method and pattern and returns the route
// without its handler.
func newCustomRouteSpec(method, pattern string) (*routeSpec, error) {
	if !slices.Contains(customRouteMethods, method) {
		return nil, fmt.Errorf("method %q: want one of %s", method, strings.Join(customRouteMethods, ", "))
	}
	segs, err := route.Parse(pattern, strings.Trim(control.Prefix, "/"))
	if err != nil {
		return nil, err
	}
	r := method + " " + pattern
	return &routeSpec{route: Route(r), name: r, method: method, segs: segs, custom: true}, nil
}

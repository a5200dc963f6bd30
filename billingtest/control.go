package billingtest

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/billingapi/billing-go/billingtest/internal/control"
)

// WithAllowedHosts adds host names (or addresses) that requests may give
// in their Host header, without a port, compared without regard to case;
// "*" allows any. By default the fake serves only requests whose Host is
// localhost (or a name under .localhost), a loopback address, or the
// address the request arrived on, and answers any other 400 before
// reading the key: a web page cannot drive the fake through DNS
// rebinding. Name the host a container or another machine reaches the
// fake by (billing-fake, for a compose service) when it is not an
// address. Requests handed to [Server.Handler] in process, which arrived
// on no connection, are not checked.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *config) error {
		if err := c.hosts.Allow(hosts...); err != nil {
			return fmt.Errorf("WithAllowedHosts: %w", err)
		}
		return nil
	}
}

// serveControl serves a control API request. Its requests need the fake's
// key like any other, but are not recorded, throttled or faulted, so that
// a test's own bookkeeping never shows up in what it inspects.
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	if ok, status, msg := s.authenticate(r); !ok {
		s.writeError(w, status, errorKeyAPI, msg)
		return
	}
	a, e := control.Serve(controlFake{s}, r)
	switch {
	case e != nil:
		if e.Allow != "" {
			w.Header().Set("Allow", e.Allow)
		}
		s.writeError(w, e.Status, errorKeyAPI, e.Msg)
	case a.Raw != nil:
		s.writeRawJSON(w, a.Status, a.Raw)
	case a.Body != nil:
		s.writeJSON(w, a.Status, a.Body)
	default:
		w.WriteHeader(a.Status)
	}
}

// controlFake is the Server as the control API drives it.
type controlFake struct{ *Server }

func (f controlFake) DumpState(want func(kind string) bool) ([]byte, error) {
	var buf bytes.Buffer
	err := f.dumpFixtures(&buf, want)
	return buf.Bytes(), err
}

func (f controlFake) EventList() []control.Event {
	return mapped(f.Events(), func(e Event) control.Event {
		return control.Event{Kind: string(e.Kind), Operation: e.Operation, EntityID: e.EntityID, Time: e.Time}
	})
}

func (f controlFake) RequestList() []control.Request {
	return mapped(f.Requests(), func(r Request) control.Request {
		return control.Request{
			Method: r.Method, Path: r.Path, Query: r.Query, Header: r.Header, Authorized: r.Authorized,
			Body: string(r.Body), Status: r.Status, Time: r.Time,
		}
	})
}

func (f controlFake) RouteList() []control.Route {
	out := mapped(routeTable, func(rt routeSpec) control.Route { return control.Route{Name: rt.name, Route: string(rt.route)} })
	for _, rt := range f.custom.list() {
		out = append(out, control.Route{Name: rt.name, Route: string(rt.route)})
	}
	return out
}

func (f controlFake) AddRoute(method, pattern string, h http.HandlerFunc) (string, error) {
	route, err := f.addRoute(method, pattern, h)
	return string(route), err
}

func (f controlFake) Inject(route string, ft control.Fault) error {
	spec, ok := f.lookupRoute(route)
	if !ok {
		return control.ErrUnknownRoute
	}
	return f.InjectFault(spec.route, Fault{Times: ft.Times, Status: ft.Status, RetryAfter: ft.RetryAfter, Delay: ft.Delay, Drop: Drop(ft.Drop), Truncate: ft.Truncate})
}

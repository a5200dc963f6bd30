package billingtest

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/bind"
	"github.com/billingapi/billing-go/billingtest/internal/control"
)

// The control API lets a test in any language do over HTTP what a Go test
// does with the Server's methods; the package doc lists its endpoints.
// Its requests need the fake's key like any other, but are not recorded,
// throttled or faulted, so that a test's own bookkeeping never shows up
// in what it inspects.

// controlPrefix is where the control API lives, outside /v1.
const controlPrefix = "/_fake/"

// isControlPath reports whether p is a control API path, compared without
// regard to case like every other path.
func isControlPath(p string) bool {
	return len(p) >= len(controlPrefix) && strings.EqualFold(p[:len(controlPrefix)], controlPrefix)
}

// controlEndpoint is one endpoint of the control API.
type controlEndpoint struct {
	method, name string
	serve        func(*Server, http.ResponseWriter, *http.Request)
}

var controlEndpoints = []controlEndpoint{
	{http.MethodGet, "state", (*Server).controlDumpState},
	{http.MethodPut, "state", (*Server).controlReplaceState},
	{http.MethodPost, "fixtures", (*Server).controlLoadFixtures},
	{http.MethodPost, "reset", (*Server).controlReset},
	{http.MethodGet, "events", (*Server).controlEvents},
	{http.MethodDelete, "events", func(s *Server, w http.ResponseWriter, _ *http.Request) { s.ClearEvents(); controlDone(w) }},
	{http.MethodGet, "requests", (*Server).controlRequests},
	{http.MethodDelete, "requests", func(s *Server, w http.ResponseWriter, _ *http.Request) { s.ClearRequests(); controlDone(w) }},
	{http.MethodGet, "routes", (*Server).controlRoutes},
	{http.MethodPost, "routes", (*Server).controlAddRoute},
	{http.MethodDelete, "routes", func(s *Server, w http.ResponseWriter, _ *http.Request) { s.ClearRoutes(); controlDone(w) }},
	{http.MethodPost, "faults", (*Server).controlInjectFault},
	{http.MethodDelete, "faults", func(s *Server, w http.ResponseWriter, _ *http.Request) { s.ClearFaults(); controlDone(w) }},
}

// serveControl serves a control API request.
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	if ok, status, msg := s.authenticate(r); !ok {
		s.writeError(w, status, errorKeyAPI, msg)
		return
	}
	name := strings.ToLower(strings.TrimSuffix(r.URL.EscapedPath()[len(controlPrefix):], "/"))
	var allow []string
	for _, e := range controlEndpoints {
		if e.name != name {
			continue
		}
		if e.method == r.Method || (r.Method == http.MethodHead && e.method == http.MethodGet) {
			e.serve(s, w, r)
			return
		}
		allow = append(allow, e.method)
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.writeError(w, http.StatusMethodNotAllowed, errorKeyAPI, r.Method+" is not allowed on "+r.URL.Path)
		return
	}
	s.writeError(w, http.StatusNotFound, errorKeyAPI, "no such control endpoint: "+r.Method+" "+r.URL.Path)
}

// controlDone answers a control request that has nothing to return.
func controlDone(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }

// controlDumpState answers the whole state, or with ?kind= the kinds of
// entity named (repeated or comma-separated: kind=invoices,customers),
// each a key of the fixtures document in any case; an unknown kind is 400.
func (s *Server) controlDumpState(w http.ResponseWriter, r *http.Request) {
	var names []string
	q := parseRawQuery(r.URL.RawQuery)
	for _, key := range slices.Sorted(maps.Keys(q)) { // sorted: the first unknown kind named is always the same
		if !strings.EqualFold(key, "kind") {
			continue
		}
		for _, v := range q[key] {
			names = append(names, strings.Split(v, ",")...)
		}
	}
	kinds, err := allFixtureKinds, error(nil)
	if names != nil {
		if kinds, err = parseFixtureKinds(names); err != nil {
			s.writeError(w, http.StatusBadRequest, errorKeyAPI, err.Error())
			return
		}
	}
	var buf bytes.Buffer
	if err := s.dumpFixtures(&buf, kinds, names != nil); err != nil {
		s.writeError(w, http.StatusInternalServerError, errorKeyAPI, err.Error())
		return
	}
	s.writeRawJSON(w, http.StatusOK, buf.Bytes())
}

func (s *Server) controlReplaceState(w http.ResponseWriter, r *http.Request) {
	if err := s.ReplaceFixtures(io.LimitReader(r.Body, maxControlBody)); err != nil {
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, err.Error())
		return
	}
	controlDone(w)
}

func (s *Server) controlLoadFixtures(w http.ResponseWriter, r *http.Request) {
	if err := s.LoadFixtures(io.LimitReader(r.Body, maxControlBody)); err != nil {
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, err.Error())
		return
	}
	controlDone(w)
}

// maxControlBody bounds a fixtures document sent to the control API;
// larger data sets are better generated or loaded from a file at start.
const maxControlBody = 256 << 20

func (s *Server) controlReset(w http.ResponseWriter, _ *http.Request) {
	if err := s.Reset(); err != nil {
		s.writeError(w, http.StatusInternalServerError, errorKeyAPI, err.Error())
		return
	}
	controlDone(w)
}

// eventJSON is an [Event] on the control API.
type eventJSON struct {
	Kind      EventKind `json:"kind"`
	Operation string    `json:"operation"`
	EntityID  int64     `json:"entityId"`
	Time      time.Time `json:"time"`
}

func (s *Server) controlEvents(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, mapped(s.Events(), func(e Event) eventJSON { return eventJSON(e) }))
}

// requestJSON is a [Request] on the control API. The body is text (it is
// JSON for every write), already redacted.
type requestJSON struct {
	Method     string              `json:"method"`
	Path       string              `json:"path"`
	Query      map[string][]string `json:"query"`
	Header     map[string][]string `json:"header"`
	Authorized bool                `json:"authorized"`
	Body       string              `json:"body"`
	Status     int                 `json:"status"`
	Time       time.Time           `json:"time"`
}

func (s *Server) controlRequests(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, mapped(s.Requests(), func(r Request) requestJSON {
		return requestJSON{
			Method: r.Method, Path: r.Path, Query: r.Query, Header: r.Header, Authorized: r.Authorized,
			Body: string(r.Body), Status: r.Status, Time: r.Time,
		}
	}))
}

// mapped is f applied to each of xs.
func mapped[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// routeJSON is a route on the control API: the name faults take.
type routeJSON struct {
	Name  string `json:"name"`
	Route Route  `json:"route"`
}

func (s *Server) controlRoutes(w http.ResponseWriter, _ *http.Request) {
	custom := s.custom.list()
	out := make([]routeJSON, 0, len(routeTable)+len(custom))
	for _, rt := range routeTable {
		out = append(out, routeJSON{Name: rt.name, Route: rt.route})
	}
	for _, rt := range custom {
		out = append(out, routeJSON{Name: rt.name, Route: rt.route})
	}
	s.writeJSON(w, http.StatusOK, out)
}

// faultJSON is a [Fault] on the control API, durations in whole units.
type faultJSON struct {
	// Route is a route's name (Invoices.WriteOff) or value (POST
	// /v1/invoices/writeoff), without regard to case.
	Route             string `json:"route"`
	Times             int    `json:"times"`
	Status            int    `json:"status"`
	RetryAfterSeconds int    `json:"retryAfterSeconds"`
	DelayMilliseconds int    `json:"delayMilliseconds"`
	// Drop is "", "beforeApply" or "afterApply".
	Drop     string `json:"drop"`
	Truncate bool   `json:"truncate"`
}

func (s *Server) controlInjectFault(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxRequestBody))
	var fj faultJSON
	if err := bind.JSON(body, &fj); err != nil {
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, err.Error())
		return
	}
	spec, ok := s.lookupRoute(fj.Route)
	if !ok {
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, "route "+control.Quote(fj.Route)+" is not a route of the fake; GET /_fake/routes lists them")
		return
	}
	f := Fault{
		Times: fj.Times, Status: fj.Status, Truncate: fj.Truncate,
		RetryAfter: time.Duration(fj.RetryAfterSeconds) * time.Second,
		Delay:      time.Duration(fj.DelayMilliseconds) * time.Millisecond,
	}
	switch strings.ToLower(fj.Drop) {
	case "":
	case "beforeapply":
		f.Drop = DropBeforeApply
	case "afterapply":
		f.Drop = DropAfterApply
	default:
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, "drop must be beforeApply or afterApply, got "+control.Quote(fj.Drop))
		return
	}
	if err := s.InjectFault(spec.route, f); err != nil {
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, err.Error())
		return
	}
	controlDone(w)
}

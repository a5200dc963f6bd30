package control

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/bind"
)

// The control API lets a test in any language do over HTTP what a Go test
// does with the Server's methods; billingtest's package doc lists its
// endpoints.

// Prefix is where the control API lives, outside /v1.
const Prefix = "/_fake/"

// IsPath reports whether the escaped path p is a control API path,
// compared without regard to case like every other path.
func IsPath(p string) bool {
	return len(p) >= len(Prefix) && strings.EqualFold(p[:len(Prefix)], Prefix)
}

// Fake is what the control API drives. Its methods take the fake's locks
// themselves.
type Fake interface {
	// DumpState encodes the kinds of the state that want names (by
	// their keys in the document) as a fixtures document.
	DumpState(want func(kind string) bool) ([]byte, error)
	ReplaceFixtures(r io.Reader) error
	LoadFixtures(r io.Reader) error
	Reset() error
	EventList() []Event
	ClearEvents()
	RequestList() []Request
	ClearRequests()
	// RouteList is the fake's routes, then those added.
	RouteList() []Route
	// AddRoute adds a route as HandleFunc does, and returns it.
	AddRoute(method, pattern string, h http.HandlerFunc) (string, error)
	ClearRoutes()
	// Inject injects f on the route named route (by its name or its
	// value, in any case); ErrUnknownRoute when there is none.
	Inject(route string, f Fault) error
	ClearFaults()
}

// ErrUnknownRoute is Fake.Inject's error for a route the fake does not
// have.
var ErrUnknownRoute = errors.New("unknown route")

// Event is an event on the control API.
type Event struct {
	Kind      string    `json:"kind"`
	Operation string    `json:"operation"`
	EntityID  int64     `json:"entityId"`
	Time      time.Time `json:"time"`
}

// Request is a recorded request on the control API. The body is text (it
// is JSON for every write), already redacted.
type Request struct {
	Method     string              `json:"method"`
	Path       string              `json:"path"`
	Query      map[string][]string `json:"query"`
	Header     map[string][]string `json:"header"`
	Authorized bool                `json:"authorized"`
	Body       string              `json:"body"`
	Status     int                 `json:"status"`
	Time       time.Time           `json:"time"`
}

// Route is a route on the control API: the name faults take, and the
// route.
type Route struct {
	Name  string `json:"name"`
	Route string `json:"route"`
}

// Fault is a fault to inject, as billingtest.Fault; Drop is 0 (none),
// DropBeforeApply or DropAfterApply, numbered as billingtest's.
type Fault struct {
	Times, Status     int
	RetryAfter, Delay time.Duration
	Drop              int
	Truncate          bool
}

// The drops of a Fault.
const (
	DropBeforeApply = 1
	DropAfterApply  = 2
)

// Answer is a control endpoint's answer: Status with Body (JSON to
// encode; nil sends no body) or Raw (JSON encoded already).
type Answer struct {
	Status int
	Body   any
	Raw    []byte
}

// Error is a refused control request: the status and message of the
// fake's error body, and the Allow header of a 405.
type Error struct {
	Status int
	Msg    string
	Allow  string
}

func (e *Error) Error() string { return e.Msg }

func bad(err error) *Error { return &Error{Status: http.StatusBadRequest, Msg: err.Error()} }

// maxBody bounds a fixtures document sent to the control API; larger data
// sets are better generated or loaded from a file at start. maxSmallBody
// bounds the others, as the fake bounds a request to /v1.
const (
	maxBody      = 256 << 20
	maxSmallBody = 1 << 20
)

// endpoint is one endpoint of the control API.
type endpoint struct {
	method, name string
	serve        func(Fake, *http.Request) (Answer, *Error)
}

// clearing is an endpoint that clears with do.
func clearing(do func(Fake)) func(Fake, *http.Request) (Answer, *Error) {
	return func(f Fake, _ *http.Request) (Answer, *Error) {
		do(f)
		return Answer{Status: http.StatusNoContent}, nil
	}
}

// ok is the 200 answer with body.
func ok(body any) (Answer, *Error) { return Answer{Status: http.StatusOK, Body: body}, nil }

// endpoints are the control API's endpoints, read only.
var endpoints = [...]endpoint{
	{http.MethodGet, "state", dumpState},
	{http.MethodPut, "state", func(f Fake, r *http.Request) (Answer, *Error) { return load(f.ReplaceFixtures, r) }},
	{http.MethodPost, "fixtures", func(f Fake, r *http.Request) (Answer, *Error) { return load(f.LoadFixtures, r) }},
	{http.MethodPost, "reset", reset},
	{http.MethodGet, "events", func(f Fake, _ *http.Request) (Answer, *Error) { return ok(f.EventList()) }},
	{http.MethodDelete, "events", clearing(Fake.ClearEvents)},
	{http.MethodGet, "requests", func(f Fake, _ *http.Request) (Answer, *Error) { return ok(f.RequestList()) }},
	{http.MethodDelete, "requests", clearing(Fake.ClearRequests)},
	{http.MethodGet, "routes", func(f Fake, _ *http.Request) (Answer, *Error) { return ok(f.RouteList()) }},
	{http.MethodPost, "routes", addRoute},
	{http.MethodDelete, "routes", clearing(Fake.ClearRoutes)},
	{http.MethodPost, "faults", injectFault},
	{http.MethodDelete, "faults", clearing(Fake.ClearFaults)},
}

// Serve answers a control API request, authenticated already: the
// endpoint's answer, or the error to answer with.
func Serve(f Fake, r *http.Request) (Answer, *Error) {
	name := strings.ToLower(strings.TrimSuffix(r.URL.EscapedPath()[len(Prefix):], "/"))
	var allow []string
	for _, e := range endpoints {
		if e.name != name {
			continue
		}
		if e.method == r.Method || (r.Method == http.MethodHead && e.method == http.MethodGet) {
			return e.serve(f, r)
		}
		allow = append(allow, e.method)
	}
	if len(allow) > 0 {
		return Answer{}, &Error{Status: http.StatusMethodNotAllowed, Msg: r.Method + " is not allowed on " + r.URL.Path, Allow: strings.Join(allow, ", ")}
	}
	return Answer{}, &Error{Status: http.StatusNotFound, Msg: "no such control endpoint: " + r.Method + " " + r.URL.Path}
}

// dumpState answers the whole state, or with ?kind= the kinds of entity
// named (repeated or comma-separated: kind=invoices,customers); an
// unknown kind is 400.
func dumpState(f Fake, r *http.Request) (Answer, *Error) {
	// The query is read as the fake reads every query (only & separates
	// parameters), its kind parameters in the order of their names'
	// spellings, so that the first unknown kind named is always the same.
	q := map[string][]string{}
	for pair := range strings.SplitSeq(r.URL.RawQuery, "&") {
		name, value, _ := strings.Cut(pair, "=")
		if name = unescape(name); strings.EqualFold(name, "kind") {
			q[name] = append(q[name], strings.Split(unescape(value), ",")...)
		}
	}
	want := func(string) bool { return true }
	if len(q) > 0 {
		set := map[string]bool{}
		for _, key := range slices.Sorted(maps.Keys(q)) {
			for _, name := range q[key] {
				i := slices.IndexFunc(Kinds(), func(k string) bool { return strings.EqualFold(k, name) })
				if i < 0 {
					return Answer{}, bad(fmt.Errorf("kind %s is not one of %s", Quote(name), strings.Join(Kinds(), ", ")))
				}
				set[Kinds()[i]] = true
			}
		}
		want = func(kind string) bool { return set[kind] }
	}
	b, err := f.DumpState(want)
	if err != nil {
		return Answer{}, &Error{Status: http.StatusInternalServerError, Msg: err.Error()}
	}
	return Answer{Status: http.StatusOK, Raw: b}, nil
}

// Kinds are the kinds of entity a fixtures document holds, named by their
// keys in it, in the document's order.
func Kinds() []string {
	return []string{
		"customers", "trackingCodeCategoryNames", "salesTrackingCodes", "subscriptions", "invoices",
		"draftInvoices", "creditCards", "walletMethods", "subscriptionProductItems", "bulkJobs",
	}
}

// unescape decodes a query's name or value: + is a space, and a broken
// escape is kept as sent.
func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return strings.ReplaceAll(s, "+", " ")
}

// load answers a fixtures document given to do.
func load(do func(io.Reader) error, r *http.Request) (Answer, *Error) {
	if err := do(io.LimitReader(r.Body, maxBody)); err != nil {
		return Answer{}, bad(err)
	}
	return Answer{Status: http.StatusNoContent}, nil
}

func reset(f Fake, _ *http.Request) (Answer, *Error) {
	if err := f.Reset(); err != nil {
		return Answer{}, &Error{Status: http.StatusInternalServerError, Msg: err.Error()}
	}
	return Answer{Status: http.StatusNoContent}, nil
}

func addRoute(f Fake, r *http.Request) (Answer, *Error) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, maxSmallBody))
	var cr CannedRoute
	if err := bind.JSON(b, &cr); err != nil {
		return Answer{}, bad(err)
	}
	h, err := cr.Handler()
	if err != nil {
		return Answer{}, bad(err)
	}
	route, err := f.AddRoute(cr.Method, cr.Path, h)
	if err != nil {
		return Answer{}, bad(err)
	}
	return Answer{Status: http.StatusCreated, Body: Route{Name: route, Route: route}}, nil
}

// faultJSON is a fault on the control API, durations in whole units.
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

func injectFault(f Fake, r *http.Request) (Answer, *Error) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxSmallBody))
	var fj faultJSON
	if err := bind.JSON(body, &fj); err != nil {
		return Answer{}, bad(err)
	}
	// A wait longer than a time.Duration holds would wrap around into a
	// short or negative one: refuse it here, where it is still a number.
	if int64(fj.RetryAfterSeconds) > math.MaxInt64/int64(time.Second) || int64(fj.DelayMilliseconds) > math.MaxInt64/int64(time.Millisecond) {
		return Answer{}, bad(errors.New("retryAfterSeconds or delayMilliseconds is longer than the fake can wait (about 292 years)"))
	}
	ft := Fault{
		Times: fj.Times, Status: fj.Status, Truncate: fj.Truncate,
		RetryAfter: time.Duration(fj.RetryAfterSeconds) * time.Second,
		Delay:      time.Duration(fj.DelayMilliseconds) * time.Millisecond,
	}
	switch strings.ToLower(fj.Drop) {
	case "":
	case "beforeapply":
		ft.Drop = DropBeforeApply
	case "afterapply":
		ft.Drop = DropAfterApply
	default:
		return Answer{}, bad(errors.New("drop must be beforeApply or afterApply, got " + Quote(fj.Drop)))
	}
	err := f.Inject(fj.Route, ft)
	if errors.Is(err, ErrUnknownRoute) {
		err = errors.New("route " + Quote(fj.Route) + " is not a route of the fake; GET /_fake/routes lists them")
	}
	if err != nil {
		return Answer{}, bad(err)
	}
	return Answer{Status: http.StatusNoContent}, nil
}

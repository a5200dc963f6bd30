package control

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// stubFake records what the control API asked of it.
type stubFake struct {
	calls []string
	kinds []string // the kinds DumpState's want admitted
	fault Fault
}

func (f *stubFake) DumpState(want func(string) bool) ([]byte, error) {
	for _, k := range Kinds() {
		if want(k) {
			f.kinds = append(f.kinds, k)
		}
	}
	return []byte(`{}`), nil
}
func (f *stubFake) ReplaceFixtures(io.Reader) error { return errors.New("broken document") }
func (f *stubFake) LoadFixtures(io.Reader) error    { f.calls = append(f.calls, "load"); return nil }
func (f *stubFake) Reset() error                    { return errors.New("reset failed") }
func (f *stubFake) EventList() []Event              { return []Event{} }
func (f *stubFake) ClearEvents()                    { f.calls = append(f.calls, "clear events") }
func (f *stubFake) RequestList() []Request          { return nil }
func (f *stubFake) ClearRequests()                  {}
func (f *stubFake) RouteList() []Route {
	return []Route{{Name: "Invoices.List", Route: "GET /v1/Invoices"}}
}
func (f *stubFake) AddRoute(method, pattern string, _ http.HandlerFunc) (string, error) {
	return method + " " + pattern, nil
}
func (f *stubFake) ClearRoutes() {}
func (f *stubFake) Inject(route string, ft Fault) error {
	if route != "Invoices.List" {
		return ErrUnknownRoute
	}
	f.fault = ft
	return nil
}
func (f *stubFake) ClearFaults() {}

// Serve picks the endpoint by method and name, in any case, and turns
// what the fake answers into a status and a body, or an error with one.
func TestServeAnswersOrRefuses(t *testing.T) {
	t.Parallel()
	all := Kinds()
	for _, tt := range []struct {
		method, target, body string
		want                 Answer
		err                  *Error
		calls, kinds         []string
		fault                Fault
	}{
		{method: "GET", target: "/_fake/state", want: Answer{Status: 200, Raw: []byte(`{}`)}, kinds: all},
		{method: "HEAD", target: "/_FAKE/State/", want: Answer{Status: 200, Raw: []byte(`{}`)}, kinds: all},
		{method: "GET", target: "/_fake/state?KIND=Invoices,customers&kind=bulkJobs", want: Answer{Status: 200, Raw: []byte(`{}`)}, kinds: []string{"customers", "invoices", "bulkJobs"}},
		{method: "GET", target: "/_fake/state?kind=invoices&Kind=nope&KIND=worse", err: &Error{Status: 400, Msg: `kind "worse" is not one of ` + strings.Join(all, ", ")}},
		{method: "PUT", target: "/_fake/state", err: &Error{Status: 400, Msg: "broken document"}},
		{method: "POST", target: "/_fake/fixtures", want: Answer{Status: 204}, calls: []string{"load"}},
		{method: "POST", target: "/_fake/reset", err: &Error{Status: 500, Msg: "reset failed"}},
		{method: "GET", target: "/_fake/events", want: Answer{Status: 200, Body: []Event{}}},
		{method: "DELETE", target: "/_fake/events/", want: Answer{Status: 204}, calls: []string{"clear events"}},
		{method: "GET", target: "/_fake/routes", want: Answer{Status: 200, Body: []Route{{Name: "Invoices.List", Route: "GET /v1/Invoices"}}}},
		{method: "POST", target: "/_fake/routes", body: `{"method":"GET","path":"/v1/x"}`, want: Answer{Status: 201, Body: Route{Name: "GET /v1/x", Route: "GET /v1/x"}}},
		{method: "POST", target: "/_fake/routes", body: `{"method":"GET","path":"/v1/x","status":99}`, err: &Error{Status: 400, Msg: "status 99: want 200 to 599"}},
		{method: "POST", target: "/_fake/faults", body: `{"route":"Invoices.List","times":2,"status":503,"retryAfterSeconds":3,"delayMilliseconds":40,"drop":"AFTERAPPLY","truncate":true}`,
			want: Answer{Status: 204}, fault: Fault{Times: 2, Status: 503, RetryAfter: 3 * time.Second, Delay: 40 * time.Millisecond, Drop: DropAfterApply, Truncate: true}},
		{method: "POST", target: "/_fake/faults", body: `{"route":"Invoices.List","retryAfterSeconds":18446744074}`, err: &Error{Status: 400, Msg: "retryAfterSeconds or delayMilliseconds is longer than the fake can wait (about 292 years)"}},
		{method: "POST", target: "/_fake/faults", body: `{"route":"Invoices.List","retryAfterSeconds":9223372037}`, err: &Error{Status: 400, Msg: "retryAfterSeconds or delayMilliseconds is longer than the fake can wait (about 292 years)"}},
		{method: "POST", target: "/_fake/faults", body: `{"route":"Invoices.List","delayMilliseconds":9223372036855}`, err: &Error{Status: 400, Msg: "retryAfterSeconds or delayMilliseconds is longer than the fake can wait (about 292 years)"}},
		{method: "POST", target: "/_fake/faults", body: `{"route":"Invoices.List","retryAfterSeconds":9223372036,"delayMilliseconds":9223372036854}`,
			want: Answer{Status: 204}, fault: Fault{RetryAfter: 9223372036 * time.Second, Delay: 9223372036854 * time.Millisecond}},
		{method: "POST", target: "/_fake/faults", body: `{"route":"Nope"}`, err: &Error{Status: 400, Msg: `route "Nope" is not a route of the fake; GET /_fake/routes lists them`}},
		{method: "POST", target: "/_fake/faults", body: `{"route":"Invoices.List","drop":"later"}`, err: &Error{Status: 400, Msg: `drop must be beforeApply or afterApply, got "later"`}},
		{method: "PATCH", target: "/_fake/routes", err: &Error{Status: 405, Msg: "PATCH is not allowed on /_fake/routes", Allow: "GET, POST, DELETE"}},
		{method: "GET", target: "/_fake/nothing", err: &Error{Status: 404, Msg: "no such control endpoint: GET /_fake/nothing"}},
	} {
		f := &stubFake{}
		got, err := Serve(f, httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body)))
		if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(err, tt.err) {
			t.Errorf("%s %s: %+v, %+v; want %+v, %+v", tt.method, tt.target, got, err, tt.want, tt.err)
		}
		if want := (stubFake{calls: tt.calls, kinds: tt.kinds, fault: tt.fault}); !reflect.DeepEqual(*f, want) {
			t.Errorf("%s %s: the fake was asked %+v, want %+v", tt.method, tt.target, *f, want)
		}
	}
}

func TestIsPath(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{"/_fake/": true, "/_FAKE/state": true, "/_fake": false, "/v1/_fake/": false, "": false} {
		if got := IsPath(p); got != want {
			t.Errorf("IsPath(%q) = %v, want %v", p, got, want)
		}
	}
}

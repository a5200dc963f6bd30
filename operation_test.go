package billing_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// operationRecorder is a RoundTripper in the client's transport that
// records what OperationFromRequest says of each request, as a tracing
// transport would read it.
type operationRecorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []recordedOperation
}

type recordedOperation struct {
	op     billing.Operation
	ok     bool
	method string
	path   string
}

func (r *operationRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	op, ok := billing.OperationFromRequest(req)
	r.mu.Lock()
	r.seen = append(r.seen, recordedOperation{op, ok, req.Method, req.URL.Path})
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

func (r *operationRecorder) all() []recordedOperation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// recordingClient is a client of the server at url whose requests pass
// an operationRecorder, and whose attempts an observer records.
func recordingClient(t *testing.T, url string) (*billing.Client, *operationRecorder, *sweepAttempts) {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	rec := &operationRecorder{next: tr}
	observed := &sweepAttempts{}
	c, err := billing.NewClient(sweepKey, billing.WithBaseURL(url),
		billing.WithHTTPClient(&http.Client{Transport: rec}), billing.WithAttemptObserver(observed.observe))
	if err != nil {
		t.Fatal(err)
	}
	return c, rec, observed
}

// apiLine matches the "API:" line of a method's documentation.
var apiLine = regexp.MustCompile(`(?m)^API: (.*)$`)

// documentedRoutes reads the package's source and returns the route of
// every method whose documentation has an "API:" line, keyed
// "Receiver.Method", as the line gives it without the notes a line may
// carry (", once per page", "?pageSize=1").
func documentedRoutes(t *testing.T) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	routes := map[string]string{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Doc == nil || !fn.Name.IsExported() {
				continue
			}
			m := apiLine.FindStringSubmatch(fn.Doc.Text())
			if m == nil {
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			route, _, _ := strings.Cut(m[1], ",")
			route, _, _ = strings.Cut(route, "?")
			routes[recv.(*ast.Ident).Name+"."+fn.Name.Name] = route
		}
	}
	return routes
}

// TestOperationOfEveryMethod runs every service method on the fake and
// checks the operation that each of its requests carries, for a transport
// (OperationFromRequest) and for an attempt observer: the name of the
// method that sends the request, and the route of the method's "API:"
// line. Iterators and Count send through List, so they carry List's name.
func TestOperationOfEveryMethod(t *testing.T) {
	t.Parallel()
	// Each documented method sends the operation the SDK declares with
	// its route: the table of methods and names is the source's own.
	routes := documentedRoutes(t)
	declared := declaredOperations(t)
	type methodCase struct {
		method string // as documented: Receiver.Method
		want   string // Operation.Name
	}
	var tests []methodCase
	for _, method := range slices.Sorted(maps.Keys(routes)) {
		if method == "Client.Do" { // its own test: TestOperationOfClientDo
			continue
		}
		var names []string
		for name, op := range declared {
			if op.Route() == routes[method] {
				names = append(names, name)
			}
		}
		if len(names) != 1 {
			t.Errorf("%s (%s): sends one of the declared operations %v, want exactly one", method, routes[method], names)
			continue
		}
		tests = append(tests, methodCase{method, names[0]})
	}
	// The table's sweep knows how to call each method on a seeded fake.
	runs := map[string]sweepOp{}
	for _, op := range sweepOps() {
		name, _, _ := strings.Cut(op.name, "/")
		if _, dup := runs[name]; !dup {
			runs[name] = op
		}
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			t.Parallel()
			route, ok := routes[tc.method]
			if !ok {
				t.Fatalf("%s has no API: line", tc.method)
			}
			method, template, _ := strings.Cut(route, " ")
			want := billing.Operation{Name: tc.want, Method: method, PathTemplate: template}
			if got := want.Route(); got != route {
				t.Fatalf("Route() = %q, want the API: line's %q", got, route)
			}
			receiver, name, _ := strings.Cut(tc.method, ".")
			run, ok := runs[strings.TrimSuffix(receiver, "Service")+"."+name]
			if !ok {
				t.Fatalf("no sweep operation calls %s", tc.method)
			}

			srv := billingtest.NewServer(billingtest.WithAPIKey(sweepKey), billingtest.WithClock(func() time.Time { return sweepClock }))
			t.Cleanup(srv.Close)
			fx := sweepSeed(t, srv)
			c, rec, observed := recordingClient(t, srv.URL)
			in := fx.in()
			if run.setup != nil {
				run.setup(fx, &in)
			}
			if out := run.run(context.Background(), c, in, nil); out.err != nil {
				t.Fatalf("%s: %v", tc.method, out.err)
			}

			seen := rec.all()
			if len(seen) == 0 {
				t.Fatal("no request was sent")
			}
			for i, s := range seen {
				if !s.ok || s.op != want {
					t.Errorf("request %d (%s %s): OperationFromRequest = %+v, %v; want %+v", i, s.method, s.path, s.op, s.ok, want)
				}
				if s.method != method {
					t.Errorf("request %d: sent as %s, documented as %s", i, s.method, method)
				}
			}
			attempts := observed.all()
			if len(attempts) != len(seen) {
				t.Fatalf("the observer saw %d attempts of %d requests", len(attempts), len(seen))
			}
			for i, a := range attempts {
				if a.Operation != want {
					t.Errorf("attempt %d: Operation = %+v, want %+v", i, a.Operation, want)
				}
			}
		})
	}
}

// TestOperationOfClientDo checks the operation of the escape hatch: named
// "Client.Do", routed by Request.PathTemplate when given, by the method
// alone when not; a template that is not one of the path is refused
// before sending.
func TestOperationOfClientDo(t *testing.T) {
	t.Parallel()
	srv := billingtest.NewServer(billingtest.WithAPIKey(sweepKey), billingtest.WithClock(func() time.Time { return sweepClock }))
	t.Cleanup(srv.Close)
	fx := sweepSeed(t, srv)
	invoice := "/v1/Invoices/" + strconv.FormatInt(fx.invoice, 10)
	tests := []struct {
		name      string
		path      string
		template  string
		want      billing.Operation // zero: refused before sending
		wantRoute string
	}{
		{"no template", invoice, "", billing.Operation{Name: "Client.Do", Method: "GET"}, "GET"},
		{"template", invoice, "/v1/Invoices/{invoiceId}", billing.Operation{Name: "Client.Do", Method: "GET", PathTemplate: "/v1/Invoices/{invoiceId}"}, "GET /v1/Invoices/{invoiceId}"},
		{"template in another case", invoice, "/v1/invoices/{id}", billing.Operation{Name: "Client.Do", Method: "GET", PathTemplate: "/v1/invoices/{id}"}, "GET /v1/invoices/{id}"},
		{"template without parameters", "/v1/Invoices", "/v1/Invoices", billing.Operation{Name: "Client.Do", Method: "GET", PathTemplate: "/v1/Invoices"}, "GET /v1/Invoices"},
		{"trailing slash", "/v1/Customers/" + strconv.FormatInt(fx.customer, 10) + "/Invoices/", "/v1/Customers/{customerId}/Invoices/", billing.Operation{Name: "Client.Do", Method: "GET", PathTemplate: "/v1/Customers/{customerId}/Invoices/"}, "GET /v1/Customers/{customerId}/Invoices/"},
		{"another literal", invoice, "/v1/Customers/{invoiceId}", billing.Operation{}, ""},
		{"fewer segments", invoice, "/v1/{invoiceId}", billing.Operation{}, ""},
		{"more segments", invoice, "/v1/Invoices/{invoiceId}/x", billing.Operation{}, ""},
		{"trailing slash on the template only", invoice, "/v1/Invoices/{invoiceId}/", billing.Operation{}, ""},
		{"v1 as a parameter", invoice, "/{v}/Invoices/{invoiceId}", billing.Operation{}, ""},
		{"not under v1", invoice, "/v2/Invoices/{invoiceId}", billing.Operation{}, ""},
		{"empty parameter", invoice, "/v1/Invoices/{}", billing.Operation{}, ""},
		{"parameter name with a dash", invoice, "/v1/Invoices/{invoice-id}", billing.Operation{}, ""},
		{"brace inside a segment", invoice, "/v1/Invoices/x{invoiceId}", billing.Operation{}, ""},
		{"unclosed brace", invoice, "/v1/Invoices/{invoiceId", billing.Operation{}, ""},
		{"relative", invoice, "v1/Invoices/{invoiceId}", billing.Operation{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, rec, observed := recordingClient(t, srv.URL)
			_, err := c.Do(context.Background(), &billing.Request{Method: http.MethodGet, Path: tc.path, PathTemplate: tc.template}, nil)
			if tc.want == (billing.Operation{}) {
				var ve *billing.ValidationError
				if !errors.As(err, &ve) || ve.Field != "PathTemplate" || !errors.Is(err, billing.ErrInvalidParams) {
					t.Fatalf("err = %v, want a ValidationError of PathTemplate", err)
				}
				if n := len(rec.all()); n != 0 {
					t.Fatalf("%d requests sent for a template refused before sending", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			seen, attempts := rec.all(), observed.all()
			if len(seen) != 1 || len(attempts) != 1 {
				t.Fatalf("%d requests, %d attempts; want 1 of each", len(seen), len(attempts))
			}
			if !seen[0].ok || seen[0].op != tc.want || attempts[0].Operation != tc.want {
				t.Errorf("OperationFromRequest = %+v, %v; Attempt.Operation = %+v; want %+v", seen[0].op, seen[0].ok, attempts[0].Operation, tc.want)
			}
			if got := tc.want.Route(); got != tc.wantRoute {
				t.Errorf("Route() = %q, want %q", got, tc.wantRoute)
			}
		})
	}
}

// TestOperationFromRequestOfOtherRequests checks that a request the SDK
// did not send has no operation.
func TestOperationFromRequestOfOtherRequests(t *testing.T) {
	t.Parallel()
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1/v1/Invoices", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []*http.Request{nil, req} {
		if op, ok := billing.OperationFromRequest(r); ok || op != (billing.Operation{}) {
			t.Errorf("request %d: OperationFromRequest = %+v, %v; want none", i, op, ok)
		}
	}
}

// TestOperationFollowsRedirects checks that a redirect a read follows
// carries the operation too.
func TestOperationFollowsRedirects(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/Old/7" {
			http.Redirect(w, r, "/v1/New/7", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(ts.Close)
	rec := &operationRecorder{next: http.DefaultTransport}
	c, err := billing.NewClient(sweepKey, billing.WithBaseURL(ts.URL), billing.WithHTTPClient(&http.Client{Transport: rec}))
	if err != nil {
		t.Fatal(err)
	}
	req := &billing.Request{Method: http.MethodGet, Path: "/v1/Old/7", PathTemplate: "/v1/Old/{id}"}
	if _, err := c.Do(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	want := billing.Operation{Name: "Client.Do", Method: http.MethodGet, PathTemplate: "/v1/Old/{id}"}
	seen := rec.all()
	if len(seen) != 2 || seen[1].path != "/v1/New/7" {
		t.Fatalf("requests %+v, want the redirect followed", seen)
	}
	for i, s := range seen {
		if !s.ok || s.op != want {
			t.Errorf("request %d (%s): OperationFromRequest = %+v, %v; want %+v", i, s.path, s.op, s.ok, want)
		}
	}
}

// Package contract holds HTTP requests and answers to an OpenAPI
// document, for tests: the SDK's requests and the fake's answers are
// checked against openapi.yaml at the module root, so that drift between
// the reference, the fake and the SDK fails a test.
//
// Only tests import it: the OpenAPI library it uses (kin-openapi) stays
// out of the packages users build (see TestContractStaysOutOfTheSDK).
package contract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Document is an OpenAPI document loaded and validated, ready to check
// requests and answers. It is safe for concurrent use.
type Document struct {
	doc    *openapi3.T
	router routers.Router
}

// Load reads and validates the OpenAPI document at path. The document's
// servers are dropped, so that a request to any host and port (a test
// server's) is matched by its path alone.
func Load(path string) (*Document, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("contract: %s is not a valid OpenAPI document: %w", path, err)
	}
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	return &Document{doc: doc, router: router}, nil
}

// Routes returns the document's operations as "METHOD /path", sorted:
// the form of billing.Operation.Route.
func (d *Document) Routes() []string {
	var out []string
	for path, item := range d.doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, strings.ToUpper(method)+" "+path)
		}
	}
	slices.Sort(out)
	return out
}

// OperationIDs returns the operationId of each route of Routes.
func (d *Document) OperationIDs() map[string]string {
	out := map[string]string{}
	for path, item := range d.doc.Paths.Map() {
		for method, op := range item.Operations() {
			out[strings.ToUpper(method)+" "+path] = op.OperationID
		}
	}
	return out
}

// Violation is a request or an answer that the document does not allow.
type Violation struct {
	Route  string // "METHOD /path/template" of the matched operation, or the request's method and path when none matched
	Side   string // "request" or "answer"
	Status int    // the answer's status; 0 for a request
	Err    error
}

func (v Violation) String() string {
	if v.Side == "answer" {
		return fmt.Sprintf("%s: answer %d: %v", v.Route, v.Status, v.Err)
	}
	return fmt.Sprintf("%s: request: %v", v.Route, v.Err)
}

// ErrNoOperation is the error of a request whose method and path are
// no operation of the document.
var ErrNoOperation = errors.New("no operation of the document has this method and path")

// options are the checks applied: every status must be one the
// operation declares (its default included), the Authorization header is
// the SDK's business and not checked here.
func options() *openapi3filter.Options {
	return &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		MultiError:            true,
		IncludeResponseStatus: true,
	}
}

// bom is the UTF-8 byte-order mark, which the document allows before any
// JSON body.
var bom = []byte("\xef\xbb\xbf")

// CheckRequest checks a request and its body (nil for none). It returns
// the route the request matched ("" when none did) and what the document
// does not allow in it.
func (d *Document) CheckRequest(req *http.Request, body []byte) (string, []Violation) {
	route, input, err := d.find(req, body)
	if err != nil {
		return "", []Violation{{Route: req.Method + " " + req.URL.EscapedPath(), Side: "request", Err: err}}
	}
	var problems []Violation
	// Validators accept query parameters the operation does not declare;
	// a client that sends one has misspelled a name the service would
	// ignore, so it is a violation here.
	for _, name := range unknownQueryNames(input) {
		problems = append(problems, Violation{Route: route, Side: "request", Err: fmt.Errorf("query parameter %q is not one the operation declares", name)})
	}
	if err := openapi3filter.ValidateRequest(req.Context(), input); err != nil {
		problems = append(problems, Violation{Route: route, Side: "request", Err: err})
	}
	return route, problems
}

// unknownQueryNames returns the names in the request's query that are no
// query parameter of its operation, sorted.
func unknownQueryNames(input *openapi3filter.RequestValidationInput) []string {
	declared := map[string]bool{}
	for _, params := range []openapi3.Parameters{input.Route.PathItem.Parameters, input.Route.Operation.Parameters} {
		for _, p := range params {
			if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
				declared[p.Value.Name] = true
			}
		}
	}
	var unknown []string
	for name := range input.Request.URL.Query() {
		if !declared[name] {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	return unknown
}

// CheckAnswer checks the answer to req (whose body was reqBody): its
// status, headers and body against what the request's operation
// declares.
func (d *Document) CheckAnswer(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) []Violation {
	route, input, err := d.find(req, reqBody)
	if err != nil {
		return []Violation{{Route: req.Method + " " + req.URL.EscapedPath(), Side: "answer", Status: status, Err: err}}
	}
	opts := options()
	var problems []Violation
	// A body that is not JSON (the draft-invoice PDF) is checked by its
	// media type: kin-openapi decodes only the types registered in its
	// package-level registry, which a test must not change.
	if mt, _, _ := mime.ParseMediaType(header.Get("Content-Type")); len(body) > 0 && mt != "application/json" {
		opts.ExcludeResponseBody = true
		if resp := input.Route.Operation.Responses.Status(status); resp == nil || resp.Value == nil || resp.Value.Content.Get(mt) == nil {
			problems = append(problems, Violation{Route: route, Side: "answer", Status: status, Err: fmt.Errorf("media type %q is not one the operation declares for status %d", mt, status)})
		}
		if mt == "application/pdf" && !bytes.HasPrefix(body, []byte("%PDF-")) {
			problems = append(problems, Violation{Route: route, Side: "answer", Status: status, Err: errors.New("an application/pdf body that does not start with %PDF-")})
		}
	}
	input.Options = opts
	err = openapi3filter.ValidateResponse(req.Context(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: input,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(bytes.TrimPrefix(body, bom))),
		Options:                opts,
	})
	if err != nil {
		problems = append(problems, Violation{Route: route, Side: "answer", Status: status, Err: err})
	}
	return problems
}

// find matches req to an operation of the document and returns the
// route's "METHOD /template" and the input of a validation, whose request
// reads body (so that req's own body is never consumed).
func (d *Document) find(req *http.Request, body []byte) (string, *openapi3filter.RequestValidationInput, error) {
	r := req.Clone(req.Context())
	r.Body = http.NoBody
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(bytes.TrimPrefix(body, bom)))
	}
	route, params, err := d.router.FindRoute(r)
	if err != nil {
		return "", nil, fmt.Errorf("%w (%v)", ErrNoOperation, err)
	}
	return route.Method + " " + route.Path, &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: route, Options: options(),
	}, nil
}

// Transport returns a RoundTripper that sends through next and checks
// every request and every answer that arrives whole, handing each
// violation to report. A request is sent unchanged; an answer is read
// whole, checked, and handed on with the same bytes. An answer that does
// not arrive whole (a dropped connection, a body cut off) is not an
// answer of the API: it is handed on with its error and not checked.
func (d *Document) Transport(next http.RoundTripper, report func(Violation)) http.RoundTripper {
	return &transport{d: d, next: next, report: report}
}

type transport struct {
	d      *Document
	next   http.RoundTripper
	report func(Violation)
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil && req.Body != http.NoBody {
		// Read the body once and send a copy of the request that
		// carries the bytes read: the caller's request is not changed.
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	if _, vs := t.d.CheckRequest(req, reqBody); len(vs) > 0 {
		for _, v := range vs {
			t.report(v)
		}
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, readErr := io.ReadAll(resp.Body)
	resp.Body.Close()
	if readErr != nil {
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{readErr}))
		return resp, nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if req.Method == http.MethodHead {
		return resp, nil
	}
	for _, v := range t.d.CheckAnswer(req, reqBody, resp.StatusCode, resp.Header, body) {
		t.report(v)
	}
	return resp, nil
}

// errReader fails every read with err: the rest of a body that broke off.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

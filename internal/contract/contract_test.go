package contract

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testDocument is a small document with one read, one write and a PDF.
const testDocument = `openapi: 3.0.3
info: {title: test, version: "1"}
paths:
  /v1/things/{id}:
    get:
      operationId: Things.Get
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
        - {name: verbose, in: query, schema: {type: boolean}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                required: [id]
                properties: {id: {type: integer}}
        "404":
          description: missing
          content:
            application/json:
              schema: {type: object, required: [ErrorId], properties: {ErrorId: {type: integer}}}
  /v1/things:
    post:
      operationId: Things.Create
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              additionalProperties: false
              required: [name]
              properties: {name: {type: string}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, required: [id], properties: {id: {type: integer}}}
  /v1/things/{id}/pdf:
    get:
      operationId: Things.PDF
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        "200":
          description: ok
          content:
            application/pdf:
              schema: {type: string, format: binary}
`

func loadTest(t *testing.T) *Document {
	t.Helper()
	path := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(path, []byte(testDocument), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// answer is a RoundTripper that answers every request with a fixed
// status, content type and body, recording the request body it got.
type answer struct {
	status int
	ctype  string
	body   string
	cut    bool // the body breaks off with io.ErrUnexpectedEOF

	mu  sync.Mutex
	got []byte
}

func (a *answer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		a.mu.Lock()
		a.got = b
		a.mu.Unlock()
	}
	var body io.Reader = strings.NewReader(a.body)
	if a.cut {
		body = io.MultiReader(body, errReader{io.ErrUnexpectedEOF})
	}
	h := http.Header{}
	if a.ctype != "" {
		h.Set("Content-Type", a.ctype)
	}
	return &http.Response{StatusCode: a.status, Header: h, Body: io.NopCloser(body), Request: req}, nil
}

func TestTransportChecksRequestsAndAnswers(t *testing.T) {
	t.Parallel()
	d := loadTest(t)
	const jsonType = "application/json; charset=utf-8"
	tests := []struct {
		name         string
		method, url  string
		body         string
		answer       *answer
		wantProblems []string // substrings, one per violation, in order
	}{
		{"a read as declared", "GET", "http://h/v1/things/7?verbose=true", "", &answer{status: 200, ctype: jsonType, body: `{"id": 7, "more": 1}`}, nil},
		{"a body after a byte-order mark", "GET", "http://h/v1/things/7", "", &answer{status: 200, ctype: jsonType, body: "\ufeff{\"id\": 7}"}, nil},
		{"an undeclared query name", "GET", "http://h/v1/things/7?verbos=true", "", &answer{status: 200, ctype: jsonType, body: `{"id": 7}`},
			[]string{`request: query parameter "verbos" is not one the operation declares`}},
		{"a query value of the wrong type", "GET", "http://h/v1/things/7?verbose=maybe", "", &answer{status: 200, ctype: jsonType, body: `{"id": 7}`},
			[]string{"request: parameter \"verbose\""}},
		{"an answer without a required member", "GET", "http://h/v1/things/7", "", &answer{status: 200, ctype: jsonType, body: `{"name": "x"}`},
			[]string{`answer 200: response body doesn't match schema`}},
		{"an undeclared status", "GET", "http://h/v1/things/7", "", &answer{status: 409, ctype: jsonType, body: `{"ErrorId": 0}`},
			[]string{"answer 409: status is not supported"}},
		{"a declared error", "GET", "http://h/v1/things/7", "", &answer{status: 404, ctype: jsonType, body: `{"ErrorId": 0}`}, nil},
		{"a path of no operation", "GET", "http://h/v1/nothing", "", &answer{status: 200, ctype: jsonType, body: `{}`},
			[]string{"GET /v1/nothing: request: no operation", "GET /v1/nothing: answer 200: no operation"}},
		{"a write as declared", "POST", "http://h/v1/things", `{"name": "x"}`, &answer{status: 200, ctype: jsonType, body: `{"id": 1}`}, nil},
		{"a write with a member the operation does not take", "POST", "http://h/v1/things", `{"name": "x", "nmae": "y"}`, &answer{status: 200, ctype: jsonType, body: `{"id": 1}`},
			[]string{"request: request body has an error"}},
		{"a PDF", "GET", "http://h/v1/things/7/pdf", "", &answer{status: 200, ctype: "application/pdf", body: "%PDF-1.4 ..."}, nil},
		{"a PDF that is not one", "GET", "http://h/v1/things/7/pdf", "", &answer{status: 200, ctype: "application/pdf", body: "<html>"},
			[]string{"does not start with %PDF-"}},
		{"a media type the operation does not declare", "GET", "http://h/v1/things/7/pdf", "", &answer{status: 200, ctype: "text/html", body: "<html>"},
			[]string{`media type "text/html" is not one the operation declares`}},
		{"a body cut off is no answer", "GET", "http://h/v1/things/7", "", &answer{status: 200, ctype: jsonType, body: `{"na`, cut: true}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			tr := d.Transport(tc.answer, func(v Violation) { got = append(got, v.String()) })
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, err := http.NewRequest(tc.method, tc.url, body)
			if err != nil {
				t.Fatal(err)
			}
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			b, readErr := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != tc.answer.body {
				t.Errorf("the answer's body handed on = %q, want %q", b, tc.answer.body)
			}
			if tc.answer.cut != errors.Is(readErr, io.ErrUnexpectedEOF) {
				t.Errorf("reading the answer handed on: %v, want io.ErrUnexpectedEOF only for a cut-off body", readErr)
			}
			if string(tc.answer.got) != tc.body {
				t.Errorf("the request body sent on = %q, want %q", tc.answer.got, tc.body)
			}
			if len(got) != len(tc.wantProblems) {
				t.Fatalf("violations:\n%s\nwant %d containing %q", strings.Join(got, "\n"), len(tc.wantProblems), tc.wantProblems)
			}
			for i, want := range tc.wantProblems {
				if !strings.Contains(got[i], want) {
					t.Errorf("violation %d = %q, want it to contain %q", i, got[i], want)
				}
			}
		})
	}
}

func TestRoutesAndOperationIDs(t *testing.T) {
	t.Parallel()
	d := loadTest(t)
	wantRoutes := []string{"GET /v1/things/{id}", "GET /v1/things/{id}/pdf", "POST /v1/things"}
	if got := d.Routes(); strings.Join(got, "|") != strings.Join(wantRoutes, "|") {
		t.Errorf("Routes = %q, want %q", got, wantRoutes)
	}
	ids := d.OperationIDs()
	want := map[string]string{"GET /v1/things/{id}": "Things.Get", "GET /v1/things/{id}/pdf": "Things.PDF", "POST /v1/things": "Things.Create"}
	if len(ids) != len(want) {
		t.Errorf("OperationIDs = %v, want %v", ids, want)
	}
	for route, id := range want {
		if ids[route] != id {
			t.Errorf("OperationIDs[%q] = %q, want %q", route, ids[route], id)
		}
	}
}

func TestLoadRefusesAnInvalidDocument(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      responses: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil {
		t.Error("Load accepted an operation without responses")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("Load accepted a missing file")
	}
}

package billing_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/internal/contract"
)

// controlDocument is fake-control.openapi.yaml, the fake's control API,
// loaded once for all tests.
var controlDocument = sync.OnceValues(func() (*contract.Document, error) {
	return contract.Load("fake-control.openapi.yaml")
})

// Every endpoint of the fake's control API, called as its document says,
// answers as its document says, and the document has no other endpoint.
func TestContractControlAPI(t *testing.T) {
	t.Parallel()
	doc, err := controlDocument()
	if err != nil {
		t.Fatal(err)
	}
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	t.Cleanup(srv.Close)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	var violations []string
	var mu sync.Mutex
	hc := &http.Client{Transport: doc.Transport(tr, func(v contract.Violation) {
		mu.Lock()
		defer mu.Unlock()
		violations = append(violations, v.String())
	})}
	// A list read first, so that requests and events hold something.
	sdk := srv.Client()
	if _, err := sdk.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := sdk.Bulk.Process(context.Background(), 400); err != nil {
		t.Fatal(err)
	}
	state := ""
	// A call marked bad sends a body the document refuses on purpose: it
	// goes around the checking transport, and only its answer is checked.
	calls := []struct {
		method, path, body string
		want               int
		bad                bool
	}{
		{"GET", "/_fake/routes", "", 200, false},
		{"GET", "/_fake/requests", "", 200, false},
		{"GET", "/_fake/events", "", 200, false},
		{"GET", "/_fake/state?kind=bulkJobs,customers", "", 200, false},
		{"GET", "/_fake/state?kind=nothing", "", 400, false},
		{"GET", "/_fake/state", "", 200, false},
		{"PUT", "/_fake/state", "{state}", 204, false},
		{"PUT", "/_fake/state", `{"invoices": 7}`, 400, true},
		{"POST", "/_fake/fixtures", `{"customers": [{"id": 5000, "firstName": "Alan", "lastName": "Turing"}]}`, 204, false},
		{"POST", "/_fake/routes", `{"method": "GET", "path": "/v1/Customers/{id}/Payments", "body": [{"amount": 9.99}]}`, 201, false},
		{"POST", "/_fake/routes", `{"method": "GET", "path": "/v1/x", "status": 700}`, 400, true},
		{"POST", "/_fake/faults", `{"route": "Invoices.WriteOff", "status": 503, "retryAfterSeconds": 1}`, 204, false},
		{"POST", "/_fake/faults", `{"route": "No.Such"}`, 400, false},
		{"DELETE", "/_fake/faults", "", 204, false},
		{"DELETE", "/_fake/routes", "", 204, false},
		{"DELETE", "/_fake/events", "", 204, false},
		{"DELETE", "/_fake/requests", "", 204, false},
		{"POST", "/_fake/reset", "", 204, false},
	}
	called := map[string]bool{}
	for _, c := range calls {
		body := c.body
		if body == "{state}" {
			body = state
		}
		req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body == "" {
			req.Body, req.GetBody, req.ContentLength = http.NoBody, nil, 0
		} else {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
		send := hc.Do
		if c.bad {
			send = (&http.Client{Transport: tr}).Do
		}
		resp, err := send(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if c.bad {
			for _, v := range doc.CheckAnswer(req, []byte(body), resp.StatusCode, resp.Header, b) {
				t.Errorf("fake-control.openapi.yaml does not allow: %s", v)
			}
		}
		if resp.StatusCode != c.want {
			t.Errorf("%s %s: status %d, want %d: %s", c.method, c.path, resp.StatusCode, c.want, b)
		}
		if c.method == "GET" && c.path == "/_fake/state" {
			state = string(b)
		}
		route, _ := doc.CheckRequest(req, []byte(body))
		called[route] = true
	}
	for _, route := range doc.Routes() {
		if !called[route] {
			t.Errorf("the test calls no %s", route)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, v := range violations {
		t.Errorf("fake-control.openapi.yaml does not allow: %s", v)
	}
}

package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A test in another language adds a route for an endpoint the SDK does
// not wrap, makes it fail once, and reads one kind of entity.
func TestCustomRoutesAndStateKindsOverTheBinary(t *testing.T) {
	t.Parallel()
	url, stop := startFake(t, "-generate", "20")
	defer func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	}()
	do := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Basic billingtest-key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	type answer struct {
		status int
		body   string
	}
	steps := []struct {
		method, path, body string
		want               answer
	}{
		{"POST", "/_fake/routes", `{"method":"GET","path":"/v1/Customers/{id}/Payments","body":[{"amount":9.99}]}`,
			answer{201, `{"name":"GET /v1/Customers/{id}/Payments","route":"GET /v1/Customers/{id}/Payments"}`}},
		{"POST", "/_fake/faults", `{"route":"GET /v1/Customers/{id}/Payments","status":503}`, answer{204, ""}},
		{"GET", "/v1/customers/3/payments/", "", answer{503, `{"ErrorId":0,"HttpStatusCode":503,"Errors":[{"Key":"Api Error","Value":"injected fault: Service Unavailable"}]}`}},
		{"GET", "/v1/customers/3/payments/", "", answer{200, `[{"amount":9.99}]`}},
		{"GET", "/_fake/state?kind=bulkJobs,nope", "", answer{400, `{"ErrorId":0,"HttpStatusCode":400,"Errors":[{"Key":"Api Error","Value":"kind \"nope\" is not one of customers, trackingCodeCategoryNames, salesTrackingCodes, subscriptions, invoices, draftInvoices, creditCards, walletMethods, subscriptionProductItems, bulkJobs"}]}`}},
	}
	for _, st := range steps {
		status, body := do(st.method, st.path, st.body)
		if got := (answer{status, body}); got != st.want {
			t.Errorf("%s %s: %+v, want %+v", st.method, st.path, got, st.want)
		}
	}
	status, body := do("GET", "/_fake/state?kind=bulkJobs", "")
	if status != 200 || !strings.HasPrefix(body, "{\n  \"bulkJobs\": [") || strings.Contains(body, "invoices") {
		t.Errorf("kind=bulkJobs: %d %s", status, body)
	}
}

package billingtest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/control"
)

func TestControlAddsCannedRoutes(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	r := ccDo(t, srv, http.MethodPost, "/_fake/routes", `{"method":"GET","path":"/v1/Customers/{id}/Payments","status":200,
		"header":{"X-NextPage":"-1"},"body":[{"amount":9.990,"note":"exact"}]}`)
	ccWant(t, "adding a route", r, http.StatusCreated)
	var added control.Route
	if err := json.Unmarshal(r.body, &added); err != nil {
		t.Fatal(err)
	}
	wantSame(t, "added route", added, control.Route{Name: "GET /v1/Customers/{id}/Payments", Route: "GET /v1/Customers/{id}/Payments"})

	// A user's Client.Do call gets the canned answer, byte for byte.
	client := srv.Client()
	var raw json.RawMessage
	resp, err := client.Do(context.Background(), &billing.Request{Method: http.MethodGet, Path: "/v1/customers/5/payments/"}, &raw)
	if err != nil {
		t.Fatal(err)
	}
	wantSame(t, "canned body", string(raw), `[{"amount":9.990,"note":"exact"}]`)
	wantSame(t, "canned header", resp.Header.Get("X-NextPage"), "-1")

	// A fault by the route's name, over the control API.
	ccWant(t, "fault", ccDo(t, srv, http.MethodPost, "/_fake/faults", `{"route":"get /v1/customers/{id}/payments","status":503,"times":3}`), http.StatusNoContent)
	_, err = client.Do(context.Background(), &billing.Request{Method: http.MethodGet, Path: "/v1/Customers/5/Payments"}, nil)
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("faulted: %v, want a 503 APIError", err)
	}

	// Listed with the fake's routes; a canned 204; then all cleared.
	var routes []control.Route
	if err := json.Unmarshal(ccDo(t, srv, http.MethodGet, "/_fake/routes", "").body, &routes); err != nil {
		t.Fatal(err)
	}
	if len(routes) != len(routeTable)+1 || routes[len(routes)-1] != added {
		t.Errorf("routes %+v, want the fake's and %+v", routes, added)
	}
	ccWant(t, "a 204 route", ccDo(t, srv, http.MethodPost, "/_fake/routes", `{"method":"DELETE","path":"/v1/Customers/{id}"}`), http.StatusCreated)
	r = ccDo(t, srv, http.MethodPost, "/_fake/routes", `{"method":"DELETE","path":"/v1/Customers/{id}","status":204}`)
	ccWant(t, "replacing it", r, http.StatusCreated)
	r = ccDo(t, srv, http.MethodDelete, "/v1/customers/5", "")
	if r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Errorf("canned 204: %d %q", r.status, r.body)
	}
	ccWant(t, "clearing", ccDo(t, srv, http.MethodDelete, "/_fake/routes", ""), http.StatusNoContent)
	ccWant(t, "after clearing", ccDo(t, srv, http.MethodGet, "/v1/Customers/5/Payments", ""), http.StatusNotFound)
}

func TestControlRefusesBadCannedRoutes(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	for _, tc := range []struct{ body, want string }{
		{``, "a JSON body is required"},
		{`{"method":"GET","path":"/v1/x","body":[1,}`, "malformed JSON"},
		{`{"method":"GET","path":"/v1/x","status":700}`, "status 700"},
		{`{"method":"GET","path":"/v1/x","status":199}`, "status 199"},
		{`{"method":"GET","path":"/v1/x","status":204,"body":{}}`, "cannot carry a body"},
		{`{"method":"GET","path":"/v1/x","header":{"Bad Name":"v"}}`, "not a valid header name"},
		{`{"method":"GET","path":"/v1/x","header":{"X-A":"a\nb"}}`, "control character"},
		{`{"method":"TRACE","path":"/v1/x"}`, `method \"TRACE\"`},
		{`{"method":"GET","path":"/v1/Invoices"}`, "is the fake's route"},
		{`{"method":"GET","path":"/_fake/x"}`, "control API"},
	} {
		r := ccDo(t, srv, http.MethodPost, "/_fake/routes", tc.body)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), tc.want) {
			t.Errorf("%s: %d %s, want 400 with %q", tc.body, r.status, r.body, tc.want)
		}
	}
	if n := len(srv.custom.list()); n != 0 {
		t.Errorf("%d routes added by refused requests", n)
	}
}

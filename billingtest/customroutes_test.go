package billingtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/route"
)

// payment is the answer of the unwrapped endpoint the tests add.
type payment struct {
	CustomerID string `json:"customerId"`
	Amount     string `json:"amount"`
	Query      string `json:"query"`
}

// addPaymentsRoute adds GET /v1/Customers/{customerId}/Payments to srv,
// counting the requests that reach its handler.
func addPaymentsRoute(t *testing.T, srv *Server) (Route, *atomic.Int64) {
	t.Helper()
	var reached atomic.Int64
	route, err := srv.HandleFunc(http.MethodGet, "/v1/Customers/{customerId}/Payments", func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode([]payment{{CustomerID: r.PathValue("customerId"), Amount: "9.99", Query: r.URL.Query().Get("query")}})
	})
	if err != nil {
		t.Fatal(err)
	}
	return route, &reached
}

func TestHandleFuncServesClientDo(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	route, reached := addPaymentsRoute(t, srv)
	if route != "GET /v1/Customers/{customerId}/Payments" {
		t.Fatalf("route %q", route)
	}
	client := srv.Client()
	ctx := context.Background()

	// Any case, with a trailing slash, a raw ; kept in the query's value.
	var got []payment
	resp, err := client.Do(ctx, &billing.Request{Method: http.MethodGet, Path: "/v1/customers/42/PAYMENTS/", Query: map[string][]string{"query": {"a:1;b:2"}}}, &got)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	wantSame(t, "answer", got, []payment{{CustomerID: "42", Amount: "9.99", Query: "a:1;b:2"}})
	// Throttled like any route: the rate-limit headers are there.
	if resp.Header.Get("X-Rate-Limit-Remaining-Minute") == "" {
		t.Errorf("no rate-limit headers on a custom route: %v", resp.Header)
	}

	// Logged like any route, without the key.
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests %+v, want 1", reqs)
	}
	r := reqs[0]
	if r.Method != http.MethodGet || r.Path != "/v1/customers/42/PAYMENTS/" || r.Status != http.StatusOK || !r.Authorized || r.Header.Get("Authorization") != "" {
		t.Errorf("logged %+v", r)
	}

	// The key is checked before the handler runs.
	bad, err := billing.NewClient("wrong", billing.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Do(ctx, &billing.Request{Method: http.MethodGet, Path: "/v1/Customers/42/Payments"}, nil)
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong key: %v, want a 401 APIError", err)
	}

	// The Host check comes first: a name that is not the fake's is 400.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/Customers/42/Payments", nil)
	req.Host = "rebound.example"
	req.Header.Set("Authorization", "Basic "+srv.APIKey())
	hostResp, err := srv.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	hostResp.Body.Close()
	if hostResp.StatusCode != http.StatusBadRequest {
		t.Errorf("foreign Host: %d, want 400", hostResp.StatusCode)
	}

	// A fault on the route: two 503s, retried, then the answer.
	srv.ClearRequests()
	if err := srv.InjectFault(route, Fault{Status: http.StatusServiceUnavailable, Times: 2}); err != nil {
		t.Fatal(err)
	}
	got = nil
	if _, err := client.Do(ctx, &billing.Request{Method: http.MethodGet, Path: "/v1/Customers/7/Payments"}, &got); err != nil {
		t.Fatalf("after two 503s: %v", err)
	}
	wantSame(t, "answer after faults", got, []payment{{CustomerID: "7", Amount: "9.99"}})
	var statuses []int
	for _, r := range srv.Requests() {
		statuses = append(statuses, r.Status)
	}
	wantSame(t, "logged statuses", statuses, []int{503, 503, 200})
	// The handler ran for the two answered requests only: not for the
	// unauthenticated one nor the faulted ones.
	if n := reached.Load(); n != 2 {
		t.Errorf("handler reached %d times, want 2", n)
	}

	// A fault named in another case applies too.
	if err := srv.InjectFault(Route(strings.ToLower(string(route))), Fault{Status: http.StatusConflict}); err != nil {
		t.Fatal(err)
	}
	_, err = client.Do(ctx, &billing.Request{Method: http.MethodGet, Path: "/v1/Customers/7/Payments"}, nil)
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusConflict {
		t.Errorf("fault by lower-case route: %v, want a 409 APIError", err)
	}
}

func TestHandleFuncThrottled(t *testing.T) {
	t.Parallel()
	srv := ccServer(t, WithRateLimit(1, 0))
	addPaymentsRoute(t, srv)
	ccWant(t, "first", ccDo(t, srv, http.MethodGet, "/v1/Customers/1/Payments", ""), http.StatusOK)
	r := ccDo(t, srv, http.MethodGet, "/v1/Customers/1/Payments", "")
	ccWant(t, "second, over the minute's limit", r, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After: %v", r.header)
	}
}

func TestHandleFuncRoutesBesideTheFakes(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	if _, err := srv.HandleFunc(http.MethodPost, "/v1/Invoices", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) }); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.HandleFunc(http.MethodGet, "/v1/Invoices/{invoiceId}/Payments", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`["` + r.PathValue("invoiceId") + `"]`))
	}); err != nil {
		t.Fatal(err)
	}
	// A route on a card path, for another method than the fake's PUT.
	if _, err := srv.HandleFunc(http.MethodPost, "/v1/paymentMethods/creditCard", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) }); err != nil {
		t.Fatal(err)
	}
	// Replacing an added route keeps its Route and takes the new handler.
	route, err := srv.HandleFunc(http.MethodPost, "/V1/INVOICES/", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) })
	if err != nil || route != "POST /v1/Invoices" {
		t.Fatalf("replacing: %q, %v", route, err)
	}

	for _, tc := range []struct {
		method, path, body string
		status             int
		allow              string
	}{
		{http.MethodPost, "/v1/invoices", `{}`, http.StatusAccepted, ""},
		{http.MethodGet, "/v1/Invoices?pageSize=1", "", http.StatusOK, ""},                // the fake's list still
		{http.MethodGet, "/v1/Invoices/910104/payments", "", http.StatusOK, ""},           // the added route
		{http.MethodDelete, "/v1/Invoices", "", http.StatusMethodNotAllowed, "GET, POST"}, // Allow names both
		{http.MethodGet, "/v1/Invoices/910104/refunds", "", http.StatusNotFound, ""},
		{http.MethodPost, "/v1/paymentMethods/creditCard", `{"cardNumber":"4111111111111111","cvv":"123"}`, http.StatusAccepted, ""},
	} {
		r := ccDo(t, srv, tc.method, tc.path, tc.body)
		if r.status != tc.status || r.header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d Allow %q (%s), want %d Allow %q", tc.method, tc.path, r.status, r.header.Get("Allow"), r.body, tc.status, tc.allow)
		}
	}
	// The card fields sent to the added route on the card path are redacted.
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "4111111111111111") || strings.Contains(string(r.Body), `"123"`) {
			t.Errorf("card data kept in the log: %s %s %s", r.Method, r.Path, r.Body)
		}
	}
}

func TestHandleFuncRefusesBadRoutes(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	ok := func(http.ResponseWriter, *http.Request) {}
	for _, tc := range []struct {
		name, method, pattern string
		h                     http.HandlerFunc
		want                  string
	}{
		{"nil handler", http.MethodGet, "/v1/x", nil, "nil handler"},
		{"lower-case method", "get", "/v1/x", ok, `method "get"`},
		{"HEAD", http.MethodHead, "/v1/x", ok, `method "HEAD"`},
		{"no slash", http.MethodGet, "v1/x", ok, "does not start with /"},
		{"root", http.MethodGet, "/", ok, `segment ""`},
		{"empty segment", http.MethodGet, "/v1//x", ok, `segment ""`},
		{"dot dot", http.MethodGet, "/v1/../x", ok, `segment ".."`},
		{"query", http.MethodGet, "/v1/x?y=1", ok, `segment "x?y=1"`},
		{"backslash", http.MethodGet, `/v1/a\b`, ok, `segment "a\\b"`},
		{"open brace", http.MethodGet, "/v1/{id", ok, `parameter "{id"`},
		{"empty parameter", http.MethodGet, "/v1/{}", ok, `parameter "{}"`},
		{"twice", http.MethodGet, "/v1/{id}/{id}", ok, "appears twice"},
		{"control API", http.MethodGet, "/_FAKE/state", ok, "control API"},
		{"the fake's route", http.MethodGet, "/V1/invoices/{x}/", ok, "is the fake's route GET /v1/Invoices/{invoiceId}"},
		{"the wallet route", http.MethodPost, "/v1/{anything}", ok, "is the fake's route POST /v1/{provider}"},
		{"too long", http.MethodGet, strings.Repeat("/a", route.MaxSegments+1), ok, "more than 32 segments"},
	} {
		route, err := srv.HandleFunc(tc.method, tc.pattern, tc.h)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "HandleFunc: ") || route != "" {
			t.Errorf("%s: %q, %v; want an error with %q", tc.name, route, err, tc.want)
		}
	}
	if n := len(srv.custom.list()); n != 0 {
		t.Errorf("%d routes added by refused calls", n)
	}
}

func TestClearRoutes(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	route, _ := addPaymentsRoute(t, srv)
	if err := srv.InjectFault(route, Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Reset(); err != nil {
		t.Fatal(err)
	}
	ccWant(t, "after Reset", ccDo(t, srv, http.MethodGet, "/v1/Customers/1/Payments", ""), http.StatusOK)
	if err := srv.InjectFault(route, Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	srv.ClearRoutes()
	ccWant(t, "after ClearRoutes", ccDo(t, srv, http.MethodGet, "/v1/Customers/1/Payments", ""), http.StatusNotFound)
	if err := srv.InjectFault(route, Fault{Status: 503}); err == nil {
		t.Error("InjectFault on a cleared route: no error")
	}
	// Added again, the route has no fault left from before.
	addPaymentsRoute(t, srv)
	ccWant(t, "added again", ccDo(t, srv, http.MethodGet, "/v1/Customers/1/Payments", ""), http.StatusOK)
}

func TestHandleFuncBoundsTheRoutes(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	ok := func(http.ResponseWriter, *http.Request) {}
	for i := range maxCustomRoutes {
		if _, err := srv.HandleFunc(http.MethodGet, "/v1/r/"+strconv.Itoa(i), ok); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.HandleFunc(http.MethodGet, "/v1/r/one-more", ok); err == nil || !strings.Contains(err.Error(), "1000 routes are added already") {
		t.Errorf("route %d: %v", maxCustomRoutes+1, err)
	}
	// Replacing one is still possible.
	if _, err := srv.HandleFunc(http.MethodGet, "/v1/r/0", ok); err != nil {
		t.Errorf("replacing at the bound: %v", err)
	}
}

// A handler that names no content type answers JSON, as the service does,
// so that Client.Do reads it; one that names its own keeps it.
func TestHandleFuncAnswersJSONUnlessToldOtherwise(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	if _, err := srv.HandleFunc(http.MethodGet, "/v1/Customers/{customerId}/Payments", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `[{"customerId":%q,"amount":"9.99"}]`, r.PathValue("customerId"))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.HandleFunc(http.MethodGet, "/v1/Exports/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		fmt.Fprint(w, "a,b\n")
	}); err != nil {
		t.Fatal(err)
	}
	var got []payment
	resp, err := srv.Client().Do(t.Context(), &billing.Request{Method: http.MethodGet, Path: "/v1/Customers/42/Payments"}, &got)
	if err != nil {
		t.Fatal(err)
	}
	wantSame(t, "answer", got, []payment{{CustomerID: "42", Amount: "9.99"}})
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q, want application/json; charset=utf-8", ct)
	}
	r := ccDo(t, srv, http.MethodGet, "/v1/Exports/1", "")
	if ct := r.header.Get("Content-Type"); r.status != http.StatusOK || ct != "text/csv" {
		t.Errorf("the handler's own type: %d, Content-Type %q, want 200 and text/csv", r.status, ct)
	}
}

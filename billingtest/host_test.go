package billingtest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// hostCall sends an authorized request to srv with Host set to host and
// returns the status.
func hostCall(t *testing.T, srv *Server, method, path, host string) int {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Authorization", "Basic "+srv.APIKey())
	resp, err := srv.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// After DNS rebinding a web page's requests reach the fake under the
// page's own name: they are refused, on /v1 and on the control API,
// before anything is read, recorded or changed. Before, any Host was
// served: a page could read, replace or reset the state.
func TestHostIsTheFakes(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	_, port, _ := net.SplitHostPort(srv.ts.Listener.Addr().String())
	if err := srv.InjectFault(RouteInvoicesList, Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	_, before := ccState(t, srv)
	for _, host := range []string{"attacker.example:" + port, "attacker.example", "127.0.0.1.attacker.example", "localhost.attacker.example:" + port, "10.0.0.8:" + port, "0.0.0.0:" + port} {
		for _, c := range []struct{ method, path string }{
			{"GET", "/v1/Invoices"}, {"GET", "/_fake/state"}, {"POST", "/_fake/reset"},
			{"POST", "/_fake/faults"}, {"DELETE", "/_fake/faults"}, {"PUT", "/_fake/state"},
		} {
			if got := hostCall(t, srv, c.method, c.path, host); got != http.StatusBadRequest {
				t.Errorf("%s %s with Host %s: status %d, want 400", c.method, c.path, host, got)
			}
		}
	}
	if _, after := ccState(t, srv); string(after) != string(before) {
		t.Error("requests under another Host changed the state")
	}
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Errorf("requests under another Host were recorded: %v", reqs)
	}
	// The fault is still pending: no refused request took it.
	if got := hostCall(t, srv, "GET", "/v1/Invoices", "localhost:"+port); got != http.StatusServiceUnavailable {
		t.Errorf("the injected fault answered %d, want 503", got)
	}
	for _, host := range []string{"127.0.0.1:" + port, "127.0.0.1", "127.8.9.10:" + port, "localhost:" + port, "LocalHost.", "app.localhost:" + port, "[::1]:" + port, "[::1]"} {
		if got := hostCall(t, srv, "GET", "/v1/Invoices", host); got != http.StatusOK {
			t.Errorf("GET /v1/Invoices with Host %s: status %d, want 200", host, got)
		}
	}
	// The SDK client and srv.URL are served.
	if _, err := srv.Client().Invoices.Get(t.Context(), 42, nil); err != nil {
		t.Errorf("the fake's own client: %v", err)
	}
}

// The address a request arrived on is the fake's (a fake listening on
// 0.0.0.0 in a container, reached by its address); other names are
// served once allowed, or any with "*".
func TestHostAllowedHosts(t *testing.T) {
	t.Parallel()
	serve := func(srv *Server, host, local string) int {
		r := httptest.NewRequest("GET", "/v1/Invoices", nil)
		r.Host = host
		r.Header.Set("Authorization", "Basic "+srv.APIKey())
		if local != "" {
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.ParseIP(local), Port: 8080}))
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w.Code
	}
	plain, _ := NewHandler()
	named, err := NewHandler(WithAllowedHosts("billing-fake", "Fake.Internal.", "fd00::5"))
	if err != nil {
		t.Fatal(err)
	}
	anyHost, _ := NewHandler(WithAllowedHosts("*"))
	cases := []struct {
		srv         *Server
		host, local string
		want        int
	}{
		{plain, "10.1.2.3:8080", "10.1.2.3", 200},
		{plain, "10.1.2.3", "10.1.2.3", 200},
		{plain, "10.1.2.4:8080", "10.1.2.3", 400},
		{plain, "billing-fake:8080", "10.1.2.3", 400},
		{plain, "example.com", "", 200}, // in process: arrived on no connection
		{plain, "", "10.1.2.3", 200},    // no Host at all: HTTP/1.0, never a browser
		{named, "billing-fake:8080", "10.1.2.3", 200},
		{named, "BILLING-FAKE", "10.1.2.3", 200},
		{named, "fake.internal:80", "10.1.2.3", 200},
		{named, "[fd00::5]:8080", "10.1.2.3", 200},
		{named, "billing-fake.attacker.example", "10.1.2.3", 400},
		{named, "attacker.example", "10.1.2.3", 400},
		{anyHost, "attacker.example", "10.1.2.3", 200},
	}
	for _, c := range cases {
		if got := serve(c.srv, c.host, c.local); got != c.want {
			t.Errorf("Host %q arriving on %q: status %d, want %d", c.host, c.local, got, c.want)
		}
	}
	for _, bad := range [][]string{nil, {""}, {"fake:8080"}, {"http://fake"}, {"a b"}} {
		if _, err := NewHandler(WithAllowedHosts(bad...)); err == nil || !strings.Contains(err.Error(), "WithAllowedHosts") {
			t.Errorf("WithAllowedHosts(%q): error %v, want one naming the option", bad, err)
		}
	}
}

package billingtest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

const (
	logCard = "4111111111111111"
	logCVV  = "735"
)

// rawRequest sends a request with key as its Authorization ("" for none)
// and returns the status.
func rawRequest(t *testing.T, srv *Server, method, path, key string, header http.Header, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if key != "" {
		req.Header.Set("Authorization", "Basic "+key)
	}
	resp, err := srv.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// The request log keeps nothing an unauthenticated request sent, however
// it is answered (401, 400, a fault before the key check, 413): only a
// standard method, the path when it is one of the fake's endpoints (in at
// most 1 KiB), its status and time. Before, it kept 1 MiB of body per
// request, card data included, from anyone who could reach the fake.
func TestRequestLogKeepsNothingOfUnauthenticatedRequests(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	if err := srv.InjectFault(RouteInvoicesWriteOff, Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	big := `{"cardNumber":"` + logCard + `","pad":"` + strings.Repeat("x", 1<<20) + `"}`
	card := `{"customerId":1,"cardNumber":"` + logCard + `","cvv":"` + logCVV + `"}`
	header := http.Header{"X-Secret": {"header-" + logCard}}
	sends := []struct {
		method, path, key, body string
	}{
		{"POST", "/v1/invoices/writeoff?q=" + logCard, "wrong", card}, // faulted before the key check
		{"POST", "/v1/invoices/writeoff?q=" + logCard, "", card},
		{"PUT", "/v1/paymentMethods/creditCard", "wrong", card},
		{"PUT", "/v1/paymentMethods/creditCard", "", big},
		{"POST", "/v1/nosuch/" + logCard, "wrong", strings.Repeat("y", 1<<20)},
		{"BREW", "/v1/Invoices", "wrong", ""},
		{"GET", "/v1/Invoices/" + strings.Repeat("9", 2000), "", ""},
	}
	for _, s := range sends {
		rawRequest(t, srv, s.method, s.path, s.key, header, s.body)
	}
	reqs := srv.Requests()
	if len(reqs) != len(sends) {
		t.Fatalf("%d requests logged, want %d", len(reqs), len(sends))
	}
	for i, r := range reqs {
		want := Request{Method: sends[i].method, Path: strings.Split(sends[i].path, "?")[0], Status: r.Status, Time: r.Time}
		if sends[i].method == "BREW" {
			want.Method = ""
		}
		if strings.HasPrefix(want.Path, "/v1/nosuch/") || len(want.Path) > 1024 {
			want.Path = "" // not an endpoint of the fake, or over 1 KiB
		}
		if r.Status == 0 || r.Time.IsZero() {
			t.Errorf("request %d: status %d, time %v: want both", i, r.Status, r.Time)
		}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("request %d logged as %.300v, want only %v", i, r, want)
		}
	}
	if reqs[0].Status != http.StatusServiceUnavailable {
		t.Errorf("the faulted request logged with status %d, want 503", reqs[0].Status)
	}
	c := ccDo(t, srv, "GET", "/_fake/requests", "")
	if strings.Contains(string(c.body), logCard) || strings.Contains(string(c.body), "xxxx") {
		t.Errorf("/_fake/requests serves what unauthenticated requests sent: %.300s", c.body)
	}
}

func logBytes(reqs []Request) (n int64) {
	for i := range reqs {
		n += reqs[i].logSize()
	}
	return n
}

// The request log is bounded in bytes: 80 requests of almost 1 MiB each
// leave at most DefaultRequestLogBytes (64 MiB) in it, the most recent
// kept; a smaller bound holds too, and a request larger than the whole
// bound is kept without its body, headers and query. Before, the log
// kept 10,000 entries of up to 1 MiB each: about 10 GiB.
func TestRequestLogIsBoundedInBytes(t *testing.T) {
	t.Parallel()
	t.Run("the default bound", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short: skips sending 80 MiB of requests to fill the default bound of 64 MiB; the smaller bounds of this test check the same code")
		}
		srv := ccServer(t)
		pad := strings.Repeat("x", 1<<20-100)
		for i := range 80 {
			// In process: the log is the same, and 80 MiB need not cross a socket.
			// Not JSON, so that nothing parses a megabyte per request.
			r := httptest.NewRequest("POST", "/v1/invoices/writeoff", strings.NewReader(fmt.Sprintf("request %d %s", i+1, pad)))
			r.Header.Set("Authorization", "Basic "+srv.APIKey())
			srv.ServeHTTP(httptest.NewRecorder(), r)
		}
		reqs := srv.Requests()
		if got := logBytes(reqs); got > DefaultRequestLogBytes {
			t.Errorf("the log holds %d bytes, over the bound of %d", got, DefaultRequestLogBytes)
		}
		if len(reqs) == 0 || !strings.HasPrefix(string(reqs[len(reqs)-1].Body), "request 80 ") {
			t.Error("the most recent request is not in the log")
		}
	})

	small := ccServer(t, WithRequestLogBytes(64<<10))
	for i := range 100 {
		rawRequest(t, small, "GET", fmt.Sprintf("/v1/Invoices?pageSize=%d&pad=%s", i+1, strings.Repeat("q", 2000)), small.APIKey(), nil, "")
		if got := logBytes(small.Requests()); got > 64<<10 {
			t.Fatalf("after %d requests the log holds %d bytes, over the bound of %d", i+1, got, 64<<10)
		}
	}
	if reqs := small.Requests(); len(reqs) == 0 || reqs[len(reqs)-1].Query.Get("pageSize") != "100" {
		t.Error("the most recent request is not in the log")
	}

	tiny := ccServer(t, WithRequestLogBytes(1000))
	rawRequest(t, tiny, "POST", "/v1/invoices/writeoff?x=1", tiny.APIKey(), nil, `{"pad":"`+strings.Repeat("z", 5000)+`"}`)
	reqs := tiny.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/invoices/writeoff" || reqs[0].Query != nil || reqs[0].Header != nil || strings.Contains(string(reqs[0].Body), "zzz") || logBytes(reqs) > 1000 {
		t.Errorf("a request over the whole bound logged as %.200v", reqs)
	}

	none := ccServer(t, WithRequestLogBytes(0))
	rawRequest(t, none, "GET", "/v1/Invoices", none.APIKey(), nil, "")
	if reqs := none.Requests(); len(reqs) != 0 {
		t.Errorf("WithRequestLogBytes(0) kept %d requests", len(reqs))
	}
	if _, err := NewHandler(WithRequestLogBytes(-1)); err == nil {
		t.Error("WithRequestLogBytes(-1) accepted")
	}
}

// On the card route, whatever the spelling of its path or the method,
// every body that does not parse and every cut one is withheld: escaped
// keys with a trailing comma, a truncated body, one over 1 MiB, one
// broken off by the client. Before, only bodies holding the literal text
// cardnumber or cvv were withheld.
func TestCardRouteWithholdsBodiesThatDoNotParse(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	esc := `{"customerId":1,"card\u004eumber":"` + logCard + `","cv\u0076":"` + logCVV + `"`
	bodies := []string{
		esc + `,}`,
		esc,
		esc + `,"pad":"` + strings.Repeat("x", 1<<20) + `"}`,
		esc + `}garbage`,
		"card\\u004eumber=" + logCard,
	}
	paths := []struct{ method, path string }{
		{"PUT", "/v1/paymentMethods/creditCard"},
		{"PUT", "/V1/PAYMENTMETHODS/CREDITCARD/"},
		{"POST", "/v1/paymentMethods/creditCard"},
	}
	for _, p := range paths {
		for _, b := range bodies {
			rawRequest(t, srv, p.method, p.path, srv.APIKey(), nil, b)
		}
	}
	// A body broken off: Content-Length promises more than is sent.
	conn, err := net.Dial("tcp", srv.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "PUT /v1/paymentMethods/creditCard HTTP/1.1\r\nHost: %s\r\nAuthorization: Basic %s\r\nContent-Length: 5000\r\n\r\n%s", srv.ts.Listener.Addr(), srv.APIKey(), esc)
	_ = conn.(*net.TCPConn).CloseWrite()
	_, _ = http.ReadResponse(bufio.NewReader(conn), nil)
	conn.Close()

	reqs := srv.Requests()
	if want := len(paths)*len(bodies) + 1; len(reqs) != want {
		t.Fatalf("%d requests logged, want %d", len(reqs), want)
	}
	for _, r := range reqs {
		if !strings.HasPrefix(string(r.Body), "[body withheld") {
			t.Errorf("%s %s: body logged as %.120s, want it withheld", r.Method, r.Path, r.Body)
		}
	}
	c := ccDo(t, srv, "GET", "/_fake/requests", "")
	if strings.Contains(string(c.body), logCard) {
		t.Errorf("/_fake/requests serves a card number: %.300s", c.body)
	}

	// Elsewhere a body that is not JSON and names no card field is kept,
	// and a JSON body on the card route is kept redacted.
	rawRequest(t, srv, "POST", "/v1/salesTrackingCodes", srv.APIKey(), nil, "not json")
	rawRequest(t, srv, "PUT", "/v1/paymentMethods/creditCard", srv.APIKey(), nil, esc+`}`)
	reqs = srv.Requests()
	if got := string(reqs[len(reqs)-2].Body); got != "not json" {
		t.Errorf("a body that is not JSON off the card route logged as %q", got)
	}
	if got := string(reqs[len(reqs)-1].Body); strings.Contains(got, logCard) || !strings.Contains(got, `"[REDACTED]"`) {
		t.Errorf("a JSON body on the card route logged as %s", got)
	}
}

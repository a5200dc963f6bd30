package billingtest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

// The in-process transport is checked against the socket: the same
// requests sent to two fakes with the same state and clock, one through
// its listener and one through Transport, must get the same answers and
// leave the same request log and state.

// freshConnections sends every request over a connection of its own, so
// that net/http never resends a dropped request on a reused one, and
// without asking the server to close it, as a client that keeps
// connections does.
type freshConnections struct{}

func (freshConnections) RoundTrip(req *http.Request) (*http.Response, error) {
	tr := &http.Transport{}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, err
	}
	resp.Body = closeTransport{resp.Body, tr}
	return resp, nil
}

type closeTransport struct {
	io.ReadCloser
	tr *http.Transport
}

func (c closeTransport) Close() error {
	err := c.ReadCloser.Close()
	c.tr.CloseIdleConnections()
	return err
}

func socketClient(*testing.T) *http.Client { return &http.Client{Transport: freshConnections{}} }

// twinFakes returns a listening fake and an in-process one, both seeded
// with ccFixtures on the clock ccNow, with their clients.
func twinFakes(t *testing.T, opts ...Option) (sock *Server, sockClient *http.Client, in *Server, inClient *http.Client) {
	t.Helper()
	opts = append([]Option{WithClock(func() time.Time { return ccNow })}, opts...)
	sock = NewServer(opts...)
	t.Cleanup(sock.Close)
	in = NewInProcess(opts...)
	t.Cleanup(in.Close)
	for _, s := range []*Server{sock, in} {
		if err := s.LoadFixtures(strings.NewReader(ccFixtures)); err != nil {
			t.Fatal(err)
		}
	}
	return sock, socketClient(t), in, &http.Client{Transport: in.Transport()}
}

// answer is what a client reads of a response, everything compared.
type answer struct {
	Err              string
	Status           string
	StatusCode       int
	Proto            string
	Header           http.Header
	ContentLength    int64
	TransferEncoding []string
	Close            bool
	Uncompressed     bool
	Body             string
	ReadErr          string
}

// exchange is one request of a comparison.
type exchange struct {
	method, path, body string
	header             http.Header // added to the request as written, names as given
	noKey              bool
	unknownLength      bool // the body has no declared length (sent chunked)
}

// send sends e and reads the answer; a.Err is "EOF" for every error that
// matches io.EOF (the in-process one says more), and err is the error.
func (e exchange) send(t *testing.T, hc *http.Client, base, key string) (a answer, err error) {
	t.Helper()
	var body io.Reader
	if e.body != "" {
		body = strings.NewReader(e.body)
		if e.unknownLength {
			body = io.MultiReader(body) // hides the length from net/http
		}
	}
	req, err := http.NewRequest(e.method, base, body)
	if err != nil {
		t.Fatal(err)
	}
	path, query, _ := strings.Cut(e.path, "?")
	req.URL.Opaque, req.URL.RawQuery = path, query
	if !e.noKey {
		req.Header.Set("Authorization", "Basic "+key)
	}
	if e.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range e.header {
		req.Header[k] = vs
	}
	resp, err := hc.Do(req)
	if err != nil {
		a.Err = errors.Unwrap(err).Error() // without the URL, which differs
		if errors.Is(err, io.EOF) {
			a.Err = "EOF"
		}
		return a, err
	}
	defer resp.Body.Close()
	b, rerr := io.ReadAll(resp.Body)
	a = answer{Status: resp.Status, StatusCode: resp.StatusCode, Proto: resp.Proto, Header: resp.Header,
		ContentLength: resp.ContentLength, TransferEncoding: resp.TransferEncoding, Close: resp.Close,
		Uncompressed: resp.Uncompressed, Body: string(b)}
	if rerr != nil {
		a.ReadErr = rerr.Error()
	}
	return a, nil
}

// addTwinRoutes adds, to both fakes, routes whose answers exercise the
// framing net/http's server chooses.
func addTwinRoutes(t *testing.T, fakes ...*Server) {
	t.Helper()
	routes := map[string]http.HandlerFunc{
		"/v1/Test/big": func(w http.ResponseWriter, r *http.Request) { // chunked: past 2 KiB, no length
			_, _ = io.WriteString(w, "["+strings.Repeat(`"abcdefgh",`, 400)+`"end"]`)
		},
		"/v1/Test/sniffed": func(w http.ResponseWriter, r *http.Request) { // no Content-Type: sniffed
			_, _ = io.WriteString(w, "<html><body>hello</body></html>")
		},
		"/v1/Test/flushed": func(w http.ResponseWriter, r *http.Request) { // flushed: chunked although short
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, "one ")
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, "two")
		},
		"/v1/Test/empty": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) },
		"/v1/Test/short": func(w http.ResponseWriter, r *http.Request) { // promises more than it sends
			w.Header().Set("Content-Length", "10")
			_, _ = io.WriteString(w, "12345")
		},
		"/v1/Test/long": func(w http.ResponseWriter, r *http.Request) { // a write past Content-Length fails
			w.Header().Set("Content-Length", "3")
			_, err := io.WriteString(w, "12345")
			if !errors.Is(err, http.ErrContentLength) {
				panic("write past Content-Length: " + errString(err))
			}
		},
		"/v1/Test/close": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			_, _ = io.WriteString(w, "bye")
		},
		"/v1/Test/echo": func(w http.ResponseWriter, r *http.Request) { // what the handler saw
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			writeJSONValue(w, map[string]any{"method": r.Method, "host": r.Host, "uri": r.RequestURI,
				"path": r.URL.Path, "rawQuery": r.URL.RawQuery, "contentLength": r.ContentLength,
				"transferEncoding": r.TransferEncoding, "close": r.Close, "body": string(b), "proto": r.Proto})
		},
		"/v1/Test/gzip": func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				_, _ = io.WriteString(w, "plain")
				return
			}
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			_, _ = io.WriteString(zw, "decoded by the client")
			_ = zw.Close()
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write(buf.Bytes())
		},
	}
	for _, s := range fakes {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			for path, h := range routes {
				if _, err := s.HandleFunc(method, path, h); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func writeJSONValue(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	_, _ = w.Write(b)
}

func TestTransportAnswersAsTheSocket(t *testing.T) {
	t.Parallel()
	exchanges := []exchange{
		{method: "GET", path: "/v1/Invoices?pageSize=2&sortExpression=poNumber&sortOrder=Descending"},
		{method: "GET", path: "/v1/Invoices?query=customerId:7;poNumber:PO-2"},
		{method: "GET", path: "/v1/customers/7/invoices?query=poNumber:PO*;invoiceNumber:42"},
		{method: "GET", path: "/v1/Invoices/42?groupCharges=true"},
		{method: "GET", path: "/V1/INVOICES/42/"},
		{method: "GET", path: "/v1/Invoices/999"},
		{method: "GET", path: "/v1/Invoices/x%2Fy"},
		{method: "POST", path: "/v1/Invoices", body: `{}`},
		{method: "HEAD", path: "/v1/Invoices/42"},
		{method: "GET", path: "/v1/Invoices?pageSize=abc"},
		{method: "GET", path: "/v1/draftInvoices/pdf/3"},
		{method: "GET", path: "/v1/Invoices/42", noKey: true},
		{method: "GET", path: "/v1/Invoices/42", header: http.Header{"x-lower-case": {"a"}, "X-Lower-Case": {"b"}, "User-Agent": {""}}},
		{method: "GET", path: "/v1/Invoices/42", header: http.Header{"Accept-Encoding": {"identity"}, "User-Agent": {"their-app/1.0"}}},
		{method: "POST", path: "/v1/invoices/writeoff", body: `{"invoiceId":"43","amount":"20.00"}`},
		{method: "POST", path: "/v1/invoices/writeoff", body: `{"invoiceId":43,"amount":20}`}, // again: refused now
		{method: "PUT", path: "/v1/paymentMethods/creditCard", body: `{"id":"910600","customerId":"7","cardNumber":"4111111111111111","cvv":"123","expirationMonth":"1","expirationYear":"30","isDefault":"true"}`},
		{method: "POST", path: "/v1/salesTrackingCodes", body: `{"type":"Sales Tracking Code 1","code":"X1","name":"Chunked"}`, unknownLength: true},
		{method: "GET", path: "/_fake/state?kind=creditCards"},
		{method: "GET", path: "/_fake/events"},
		{method: "GET", path: "/v1/Test/big"},
		{method: "GET", path: "/v1/Test/sniffed"},
		{method: "GET", path: "/v1/Test/flushed"},
		{method: "GET", path: "/v1/Test/empty"},
		{method: "GET", path: "/v1/Test/short"},
		{method: "GET", path: "/v1/Test/long"},
		{method: "GET", path: "/v1/Test/close"},
		{method: "GET", path: "/v1/Test/gzip"},
		{method: "GET", path: "/v1/Test/gzip", header: http.Header{"Accept-Encoding": {"gzip"}}},
		{method: "GET", path: "/v1/Test/echo?a=1;b=2&c"},
		{method: "POST", path: "/v1/Test/echo", body: `{"x":1}`},
		{method: "POST", path: "/v1/Test/echo", body: `{"x":2}`, unknownLength: true},
		{method: "POST", path: "/v1/Test/echo"},
		{method: "POST", path: "/v1/Test/echo", header: http.Header{"Connection": {"close"}}},
		{method: "GET", path: "//other.example/v1/Test/echo"},
	}
	sock, sockClient, in, inClient := twinFakes(t)
	addTwinRoutes(t, sock, in)
	for _, e := range exchanges {
		path := e.path
		if strings.HasPrefix(path, "//") {
			// Absolute form names a host; the same for both.
			e.path = "//" + strings.TrimPrefix(sock.URL, "http://") + path[len("//other.example"):]
		}
		want, _ := e.send(t, sockClient, sock.URL, sock.APIKey())
		got, _ := e.send(t, inClient, sock.URL, in.APIKey()) // the same URL: the transport ignores it
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s:\nin process %+v\nsocket     %+v", e.method, path, got, want)
		}
	}
	sameAfter(t, in, sock)
}

// sameAfter checks that two fakes have the same request log and state.
func sameAfter(t *testing.T, in, sock *Server) {
	t.Helper()
	got, want := in.Requests(), sock.Requests()
	if len(got) != len(want) {
		t.Errorf("%d requests logged in process, %d over the socket", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("request %d logged:\nin process %+v\nsocket     %+v", i, got[i], want[i])
		}
	}
	var gotState, wantState bytes.Buffer
	if err := in.DumpFixtures(&gotState); err != nil {
		t.Fatal(err)
	}
	if err := sock.DumpFixtures(&wantState); err != nil {
		t.Fatal(err)
	}
	if gotState.String() != wantState.String() {
		t.Errorf("states differ:\nin process %s\nsocket     %s", gotState.String(), wantState.String())
	}
}

// Faults injected on the fake come out of the transport as they come out
// of the socket: a status, a drop before or after the change (an error
// matching io.EOF), a cut body (io.ErrUnexpectedEOF after half of it), a
// delay; the request log and the state after them are the same.
func TestTransportFaultsAsOverTheSocket(t *testing.T) {
	t.Parallel()
	get := exchange{method: "GET", path: "/v1/Invoices/42"}
	writeOff := exchange{method: "POST", path: "/v1/invoices/writeoff", body: `{"invoiceId":43,"amount":20}`}
	for _, tt := range []struct {
		name  string
		route Route
		fault Fault
		e     exchange
	}{
		{"status with a wait", RouteInvoicesGet, Fault{Status: 503, RetryAfter: 2 * time.Second}, get},
		{"status on a write", RouteInvoicesWriteOff, Fault{Status: 500}, writeOff},
		{"drop before apply, read", RouteInvoicesGet, Fault{Drop: DropBeforeApply}, get},
		{"drop before apply, write", RouteInvoicesWriteOff, Fault{Drop: DropBeforeApply}, writeOff},
		{"drop after apply, write", RouteInvoicesWriteOff, Fault{Drop: DropAfterApply}, writeOff},
		{"truncate, read", RouteInvoicesGet, Fault{Truncate: true}, get},
		{"truncate, write", RouteInvoicesWriteOff, Fault{Truncate: true}, writeOff},
		{"delay", RouteInvoicesGet, Fault{Delay: time.Millisecond}, get},
		{"twice", RouteInvoicesGet, Fault{Drop: DropBeforeApply, Times: 2}, get},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sock, sockClient, in, inClient := twinFakes(t)
			for _, s := range []*Server{sock, in} {
				if err := s.InjectFault(tt.route, tt.fault); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 3 { // the fault, then what follows it
				want, _ := tt.e.send(t, sockClient, sock.URL, sock.APIKey())
				got, _ := tt.e.send(t, inClient, in.URL, in.APIKey())
				if !reflect.DeepEqual(got, want) {
					t.Errorf("request %d:\nin process %+v\nsocket     %+v", i, got, want)
				}
			}
			sameAfter(t, in, sock)
		})
	}
}

// A handler that panics drops the connection, as net/http's server does,
// and the error says why; the panic and its stack go to the fake's logger.
func TestTransportHandlerPanicIsADrop(t *testing.T) {
	t.Parallel()
	var logged bytes.Buffer
	var mu sync.Mutex
	srv := NewInProcess(WithLogger(slogTo(&mu, &logged)))
	t.Cleanup(srv.Close)
	if _, err := srv.HandleFunc("GET", "/v1/Test/panic", func(http.ResponseWriter, *http.Request) { panic("handler bug") }); err != nil {
		t.Fatal(err)
	}
	_, err := exchange{method: "GET", path: "/v1/Test/panic"}.send(t, &http.Client{Transport: srv.Transport()}, srv.URL, srv.APIKey())
	if !errors.Is(err, io.EOF) {
		t.Errorf("err = %v, want a dropped connection", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logged.String(), "handler bug") || !strings.Contains(logged.String(), "goroutine") {
		t.Errorf("log = %q, want the panic with its stack", logged.String())
	}
}

// The request's context reaches the handler and ends the round trip: a
// request cancelled before it starts never reaches the fake; one whose
// deadline passes during an hour's delay returns at the deadline, and the
// handler sees it end (Close, which waits for it, returns); and the
// handler's context carries none of the client's values.
func TestTransportContext(t *testing.T) {
	t.Parallel()
	type key struct{}
	srv := NewInProcess()
	t.Cleanup(srv.Close)
	var sawValues atomic.Bool
	if _, err := srv.HandleFunc("GET", "/v1/Test/values", func(w http.ResponseWriter, r *http.Request) {
		sawValues.Store(r.Context().Value(key{}) != nil || httptrace.ContextClientTrace(r.Context()) != nil)
		_, _ = io.WriteString(w, "ok")
	}); err != nil {
		t.Fatal(err)
	}
	rt := srv.Transport()
	newReq := func(ctx context.Context, path string) *http.Request {
		req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Basic "+srv.APIKey())
		return req
	}

	t.Run("cancelled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		before := len(srv.Requests())
		if _, err := rt.RoundTrip(newReq(ctx, "/v1/Invoices")); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if n := len(srv.Requests()) - before; n != 0 {
			t.Errorf("%d requests reached the fake", n)
		}
	})
	t.Run("values", func(t *testing.T) {
		ctx := context.WithValue(context.Background(), key{}, "client's")
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{})
		resp, err := rt.RoundTrip(newReq(ctx, "/v1/Test/values"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if sawValues.Load() {
			t.Error("the handler's context carries the client's values")
		}
	})
	t.Run("deadline during a delay", func(t *testing.T) {
		if err := srv.InjectFault(RouteInvoicesGet, Fault{Delay: time.Hour}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		resp, err := rt.RoundTrip(newReq(ctx, "/v1/Invoices/42"))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			t.Errorf("answer %d %s", resp.StatusCode, b)
		}
	})
	// Close waits for the delayed handler, which returns when it sees its
	// context end: were it not told, the test would hang for an hour.
	srv.Close()
}

// The hooks a client reads to tell a request that may have reached the
// server from one that surely did not are called as over a connection.
func TestTransportTraceHooks(t *testing.T) {
	t.Parallel()
	srv := NewInProcess()
	t.Cleanup(srv.Close)
	if err := srv.InjectFault(RouteInvoicesWriteOff, Fault{Drop: DropBeforeApply}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		method, path, body string
		want               []string
	}{
		{"GET", "/v1/Invoices/42", "", []string{"WroteHeaders", "WroteRequest", "GotFirstResponseByte"}},
		{"POST", "/v1/invoices/writeoff", `{"invoiceId":43,"amount":20}`, []string{"WroteHeaders", "WroteRequest"}}, // dropped
	} {
		var got []string
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			WroteHeaders:         func() { got = append(got, "WroteHeaders") },
			WroteRequest:         func(httptrace.WroteRequestInfo) { got = append(got, "WroteRequest") },
			GotFirstResponseByte: func() { got = append(got, "GotFirstResponseByte") },
		})
		req, err := http.NewRequestWithContext(ctx, tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Basic "+srv.APIKey())
		if resp, err := srv.Transport().RoundTrip(req); err == nil {
			resp.Body.Close()
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %s: hooks %v, want %v", tt.method, tt.path, got, tt.want)
		}
	}
}

// A listening or in-process fake refuses requests through Transport once
// closed, saying so; one from NewHandler keeps serving, as its Handler
// does.
func TestTransportAfterClose(t *testing.T) {
	t.Parallel()
	handlerFake, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		srv     *Server
		wantErr error
	}{
		{"NewServer", NewServer(), ErrClosed},
		{"NewInProcess", NewInProcess(), ErrClosed},
		{"NewHandler", handlerFake, nil},
	} {
		tt.srv.Close()
		req, _ := http.NewRequest("GET", "https://billing.example.com/v1/Invoices", nil)
		req.Header.Set("Authorization", "Basic "+tt.srv.APIKey())
		resp, err := tt.srv.Transport().RoundTrip(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s: status %d", tt.name, resp.StatusCode)
			}
		}
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.wantErr)
		}
	}
}

// Close waits for the requests Transport is serving, as
// httptest.Server.Close waits for those on its connections.
func TestCloseWaitsForTransportRequests(t *testing.T) {
	t.Parallel()
	srv := NewInProcess()
	entered, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	if _, err := srv.HandleFunc("GET", "/v1/Test/slow", func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		finished.Store(true)
	}); err != nil {
		t.Fatal(err)
	}
	go func() {
		req, _ := http.NewRequest("GET", srv.URL+"/v1/Test/slow", nil)
		req.Header.Set("Authorization", "Basic "+srv.APIKey())
		if resp, err := srv.Transport().RoundTrip(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	// Once Close has marked the fake closed, it can only be waiting: the
	// request it waits for is held.
	for {
		if srv.pipe != nil && isClosed(srv.pipe.closed) {
			break
		}
		runtime.Gosched()
	}
	select {
	case <-closed:
		t.Fatal("Close returned while a request was in flight")
	default:
	}
	close(release)
	<-closed
	if !finished.Load() {
		t.Error("Close returned before the handler finished")
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// slogTo is a text logger writing to buf under mu.
func slogTo(mu *sync.Mutex, buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{mu, buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// sdkOutcome is what the SDK makes of a call, with the error's words
// left out (the in-process drop says more than "EOF").
type sdkOutcome struct {
	OK             bool
	ErrType        string
	OutcomeUnknown bool
	Attempts       int
	APIStatus      int
}

func outcomeOf(err error) sdkOutcome {
	if err == nil {
		return sdkOutcome{OK: true}
	}
	o := sdkOutcome{ErrType: fmt.Sprintf("%T", err), OutcomeUnknown: errors.Is(err, billing.ErrOutcomeUnknown)}
	var reqErr *billing.RequestError
	if errors.As(err, &reqErr) {
		o.Attempts = reqErr.Attempts
	}
	var apiErr *billing.APIError
	if errors.As(err, &apiErr) {
		o.APIStatus = apiErr.StatusCode
	}
	return o
}

// The SDK meets the fake's faults in process as over the socket: it
// retries the same reads, refuses to repeat the same writes, says the
// same outcome is unknown, and leaves the same state behind. (net/http's
// own resend of a read on a reused connection is kept out: each request
// goes over a fresh connection.)
func TestSDKMeetsFaultsInProcessAsOverTheSocket(t *testing.T) {
	t.Parallel()
	amount := decimal.NewFromInt(20)
	calls := map[string]func(context.Context, *billing.Client) error{
		"read": func(ctx context.Context, c *billing.Client) error {
			_, err := c.Invoices.Get(ctx, 42, nil)
			return err
		},
		"write": func(ctx context.Context, c *billing.Client) error {
			_, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 43, Amount: &amount})
			return err
		},
	}
	routes := map[string]Route{"read": RouteInvoicesGet, "write": RouteInvoicesWriteOff}
	for _, tt := range []struct {
		name, call string
		fault      Fault
	}{
		{"read dropped", "read", Fault{Drop: DropBeforeApply}},
		{"read cut short", "read", Fault{Truncate: true}},
		{"read failing past the retries", "read", Fault{Status: 503, Times: 5}},
		{"write dropped before it applies", "write", Fault{Drop: DropBeforeApply}},
		{"write dropped after it applies", "write", Fault{Drop: DropAfterApply}},
		{"write cut short", "write", Fault{Truncate: true}},
		{"write failing", "write", Fault{Status: 503}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sock, _, in, _ := twinFakes(t)
			var got, want sdkOutcome
			for _, side := range []struct {
				srv *Server
				c   *billing.Client
				out *sdkOutcome
			}{
				{sock, sock.Client(billing.WithHTTPClient(&http.Client{Transport: freshConnections{}})), &want},
				{in, in.Client(), &got},
			} {
				if err := side.srv.InjectFault(routes[tt.call], tt.fault); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				*side.out = outcomeOf(calls[tt.call](ctx, side.c))
				cancel()
			}
			if got != want {
				t.Errorf("in process %+v, over the socket %+v", got, want)
			}
			sameAfter(t, in, sock)
		})
	}
}

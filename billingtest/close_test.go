package billingtest

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// signalHandler is a slog.Handler that closes ch at the first record
// whose message contains msg.
type signalHandler struct {
	msg  string
	once *sync.Once
	ch   chan struct{}
}

func (h signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h signalHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.msg) {
		h.once.Do(func() { close(h.ch) })
	}
	return nil
}
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h signalHandler) WithGroup(string) slog.Handler      { return h }

// Shutting down a server that mounts the fake, with Close registered on
// shutdown, ends a request held in an injected delay of an hour at once
// (503), so that Shutdown returns within its grace (the server-side
// deadline of this test). Before, Shutdown waited for the delay and
// failed with its deadline.
func TestCloseEndsInjectedDelays(t *testing.T) {
	t.Parallel()
	delaying := make(chan struct{})
	fake, err := NewHandler(WithLogger(slog.New(signalHandler{msg: "fault: delaying", once: new(sync.Once), ch: delaying})))
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.InjectFault(RouteInvoicesList, Fault{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: fake.Handler()}
	srv.RegisterOnShutdown(fake.Close)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	answered := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/v1/Invoices", nil)
		req.Header.Set("Authorization", "Basic "+DefaultAPIKey)
		resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
		if err != nil {
			t.Errorf("the delayed request: %v", err)
		}
		answered <- resp
	}()
	<-delaying
	grace, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(grace); err != nil {
		t.Fatalf("Shutdown: %v, want nil: the delay did not end", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
	if resp := <-answered; resp != nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !resp.Close {
			t.Errorf("the delayed request got %d, Close %v; want 503 closing the connection", resp.StatusCode, resp.Close)
		}
	}
	// After Close, a delay ends at once: the fake keeps serving.
	if err := fake.InjectFault(RouteInvoicesList, Fault{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if got := serveStatus(fake, "GET", "/v1/Invoices"); got != http.StatusServiceUnavailable {
		t.Errorf("a delay injected after Close answered %d, want 503 at once", got)
	}
	if got := serveStatus(fake, "GET", "/v1/Invoices"); got != http.StatusOK {
		t.Errorf("after Close the fake answered %d, want 200", got)
	}
}

// serveStatus serves an authorized request in process and returns the
// status.
func serveStatus(srv *Server, method, path string) int {
	r := httptest.NewRequest(method, path, nil)
	r.Header.Set("Authorization", "Basic "+srv.APIKey())
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	return w.Code
}

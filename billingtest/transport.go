package billingtest

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
)

// inProcessURL is the URL of a fake from NewInProcess. The .invalid
// top-level domain never resolves (RFC 6761), so a client given this URL
// but not the fake's Transport fails at once, and reaches nothing.
const inProcessURL = "https://billingtest.invalid"

// Transport returns an http.RoundTripper that serves each request through
// the fake's handler in process: an *http.Transport whose connections are
// in-memory pipes to a net/http server of the fake, so no socket and no
// port. It is the same fake, with the same state, as over its socket.
// Whatever the request's scheme and host, it reaches this fake (https is
// spoken without TLS, and the Host check of [WithAllowedHosts] does not
// apply, as for requests handed to [Server.Handler]), so a test of code
// that talks to the production URL can serve it from the fake. Give it to
// a client with
//
//	billing.WithHTTPClient(&http.Client{Transport: srv.Transport()})
//
// or make it httpmock's answer to every request no responder matches:
//
//	httpmock.RegisterNoResponder(srv.Transport().RoundTrip)
//
// Since net/http carries every request and answer, both are framed,
// compressed and traced (httptrace) as over a connection, and the
// request's context reaches the handler and ends the round trip. Faults
// behave as over the socket: a dropped connection (DropBeforeApply,
// DropAfterApply, or a handler that panics, which the fake's logger
// records with its stack) is an error matching io.EOF, and Truncate
// answers half the body and then io.ErrUnexpectedEOF. Every request goes
// over a fresh connection, so the drop of a read always reaches the
// caller, where net/http over a reused keep-alive connection sends an
// idempotent request again once on its own.
//
// After [Server.Close], a fake from NewServer or NewInProcess refuses
// requests with an error matching [ErrClosed], and Close waits for the
// requests in flight; a fake from NewHandler keeps serving, as its
// Handler does.
func (s *Server) Transport() http.RoundTripper {
	s.pipeOnce.Do(func() { s.pipe = newPipeServer(s) })
	return s.pipe.client
}

// NewInProcess returns a fake that listens nowhere and serves through
// [Server.Transport]: no socket, no port, and the same behaviour as a fake
// from [NewServer]. Its URL is https://billingtest.invalid, a name that
// never resolves, and its [Server.Client] sends through Transport. Close
// it when done, e.g. with t.Cleanup(srv.Close). It panics on a bad option,
// as NewServer does.
func NewInProcess(opts ...Option) *Server {
	s, err := NewHandler(opts...)
	if err != nil {
		panic("billingtest: " + err.Error())
	}
	s.inProcess = true
	s.URL = inProcessURL
	return s
}

// ErrClosed is the error of a request sent through [Server.Transport] to
// a fake from NewServer or NewInProcess after Close.
var ErrClosed = errors.New("billingtest: the fake is closed")

// pipeServer is the fake's net/http server on in-memory connections
// (net.Pipe), and the client transport that dials it.
type pipeServer struct {
	srv    *http.Server
	client *http.Transport
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeServer(s *Server) *pipeServer {
	p := &pipeServer{conns: make(chan net.Conn), closed: make(chan struct{})}
	p.srv = &http.Server{Handler: s, ErrorLog: slog.NewLogLogger(s.cfg.logger.Handler(), slog.LevelError)}
	p.client = &http.Transport{
		DialContext:    p.dial,
		DialTLSContext: p.dial, // https without TLS: the pipe is private
		// No connection is kept idle: every request goes over a fresh
		// one, and net/http never resends a dropped request.
		MaxIdleConnsPerHost: -1,
	}
	go func() { _ = p.srv.Serve(p) }()
	return p
}

// dial hands the server one end of a new pipe and returns the other.
func (p *pipeServer) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case p.conns <- server:
		return client, nil
	case <-p.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Accept, Close and Addr make the pipeServer the server's listener.
func (p *pipeServer) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.closed:
		return nil, net.ErrClosed
	}
}

func (p *pipeServer) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

func (p *pipeServer) Addr() net.Addr { return &net.UnixAddr{Name: "pipe", Net: "pipe"} }

// shutdown refuses new requests and waits for those in flight.
func (p *pipeServer) shutdown() {
	_ = p.Close()
	_ = p.srv.Shutdown(context.Background())
}

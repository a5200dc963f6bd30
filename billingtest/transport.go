package billingtest

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// inProcessURL is the URL of a fake from NewInProcess. The .invalid
// top-level domain never resolves (RFC 6761), so a client given this URL
// but not the fake's Transport fails at once, and reaches nothing.
const inProcessURL = "https://billingtest.invalid"

// Transport returns an http.RoundTripper that serves each request through
// the fake's handler in process, with no connection: the same fake, with
// the same state, as over its socket. Whatever the request's scheme and
// host, it reaches this fake (the Host check of [WithAllowedHosts] does not
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
// Requests are seen by the handler and answered as net/http would carry
// them over a connection: the request has its Host, a default User-Agent,
// Accept-Encoding: gzip when it had none (and a gzip answer is decoded, as
// http.Transport does), Content-Length or chunked framing, and a body the
// handler reads; the answer has canonical header names, Date, a sniffed
// Content-Type when the handler set none, Content-Length when the handler
// set it or wrote at most 2 KiB without flushing (else it is chunked),
// and no body for HEAD, 204 or 304. The httptrace hooks WroteHeaders,
// WroteRequest and GotFirstResponseByte are called, so a client that tells
// a write that may have reached the server from one that did not (as the
// SDK does) sees the same as over the socket.
//
// The request's context reaches the handler: when it ends, an injected
// delay or a long list stops, and RoundTrip returns the context's error
// without waiting for the handler. The answer is buffered whole, not
// streamed, and owes nothing to the handler once RoundTrip returns; its
// body reports the context's error if that ends first, as a body read
// from a connection does.
//
// Faults behave as over the socket: a dropped connection (DropBeforeApply,
// DropAfterApply, or a handler that panics) is an error matching io.EOF
// from RoundTrip, and Truncate answers half the body and then
// io.ErrUnexpectedEOF. One difference: every request is as on a fresh
// connection, so the drop of a read always reaches the caller, where
// net/http over a reused keep-alive connection sends an idempotent request
// again once on its own.
//
// After [Server.Close], a fake from NewServer or NewInProcess refuses
// requests with an error that says so, and Close waits for the requests
// in flight; a fake from NewHandler keeps serving, as its Handler does.
func (s *Server) Transport() http.RoundTripper { return inProcessTransport{s: s} }

// NewInProcess returns a fake that listens nowhere and serves through
// [Server.Transport]: no socket, no port, and the same behaviour as a fake
// from [NewServer]. Its URL is https://billingtest.invalid, a name that
// never resolves, and its [Server.Client] sends through Transport. Close
// it when done, e.g. with t.Cleanup(srv.Close). It panics on a bad option,
// as NewServer does.
func NewInProcess(opts ...Option) *Server {
	s, err := newServer(opts...)
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

// inProcessTransport is what Transport returns.
type inProcessTransport struct{ s *Server }

// RoundTrip serves req through the fake's handler (see Server.Transport).
func (t inProcessTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req == nil || req.URL == nil {
		if req != nil && req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, errors.New("billingtest: Transport: nil request or URL")
	}
	ctx := req.Context()
	if err := checkClientRequest(req); err != nil {
		closeRequestBody(req)
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		closeRequestBody(req)
		return nil, err
	}
	s := t.s
	if err := s.flights.start(s.ts != nil || s.inProcess); err != nil {
		closeRequestBody(req)
		return nil, err
	}
	served := false
	defer func() {
		if !served {
			s.flights.end()
		}
	}()

	trace := httptrace.ContextClientTrace(ctx)
	sreq, askedGzip, err := serverRequest(req, trace)
	if err != nil {
		return nil, err
	}
	if sreq == nil {
		// A request line the server cannot parse: net/http's server
		// answers it itself, without the handler.
		return unparsableRequest(req), nil
	}

	// The handler's context ends when the client's does, and when the
	// handler returns, as a server's request context does; it carries
	// none of the client's values (its trace, for one).
	hctx, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, cancel)
	sreq = sreq.WithContext(hctx)
	rec := newRecorder(sreq)
	done := make(chan struct{})
	served = true
	go func() {
		defer close(done)
		defer s.flights.end()
		defer stop()
		defer cancel()
		defer func() {
			if v := recover(); v != nil {
				if v != http.ErrAbortHandler {
					s.cfg.logger.Error("billingtest: handler panicked", slog.String("method", sreq.Method),
						slog.String("path", sreq.URL.EscapedPath()), slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
				}
				rec.abort(v)
			}
		}()
		s.ServeHTTP(rec, sreq)
		rec.finish()
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		// The client gave up first, or at the same time: a handler that
		// saw its context end may have answered because of it, and that
		// answer would not have reached a client that had gone.
		return nil, err
	}
	resp, err := rec.response(ctx, req, askedGzip)
	if err != nil {
		return nil, err
	}
	if trace != nil && trace.GotFirstResponseByte != nil {
		trace.GotFirstResponseByte()
	}
	return resp, nil
}

// checkClientRequest refuses what http.Transport refuses before sending.
func checkClientRequest(req *http.Request) error {
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return fmt.Errorf("unsupported protocol scheme %q", s)
	}
	if req.URL.Host == "" {
		return errors.New("http: no Host in request URL")
	}
	if m := req.Method; m != "" && (strings.ContainsFunc(m, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) })) {
		return fmt.Errorf("net/http: invalid method %q", m)
	}
	return nil
}

func closeRequestBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// serverRequest is req as a server reads it off the wire: the request
// line parsed again from the request URI, header names canonical, the
// headers net/http's client adds, and the body read whole (the client's
// closed). It calls the client's WroteHeaders and WroteRequest hooks. It
// returns a nil request for a request URI the server would refuse, and
// whether it asked for gzip on the client's behalf.
func serverRequest(req *http.Request, trace *httptrace.ClientTrace) (*http.Request, bool, error) {
	method := cmp.Or(req.Method, http.MethodGet)
	header := canonicalHeader(req.Header)
	header.Del("Host")
	if _, ok := header["User-Agent"]; !ok {
		header.Set("User-Agent", "Go-http-client/1.1")
	} else if header.Get("User-Agent") == "" {
		delete(header, "User-Agent") // net/http sends none for an empty value
	}
	askedGzip := header.Get("Accept-Encoding") == "" && header.Get("Range") == "" && method != http.MethodHead
	if askedGzip {
		header.Set("Accept-Encoding", "gzip")
	}
	closing := req.Close || headerHasToken(header, "Connection", "close")
	if closing && !headerHasToken(header, "Connection", "close") {
		header.Set("Connection", "close") // what net/http's client sends for Close
	}
	if trace != nil && trace.WroteHeaders != nil {
		trace.WroteHeaders()
	}

	var body []byte
	hasBody := req.Body != nil && req.Body != http.NoBody
	if hasBody {
		var err error
		body, err = io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err == nil && req.ContentLength > 0 && int64(len(body)) != req.ContentLength {
			err = fmt.Errorf("http: ContentLength=%d with Body length %d", req.ContentLength, len(body))
		}
		if err != nil {
			if trace != nil && trace.WroteRequest != nil {
				trace.WroteRequest(httptrace.WroteRequestInfo{Err: err})
			}
			return nil, false, err
		}
	}
	if trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{})
	}

	uri := req.URL.RequestURI()
	u, err := url.ParseRequestURI(uri)
	if err != nil {
		return nil, false, nil
	}
	sreq := &http.Request{
		Method:     method,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     header,
		Body:       http.NoBody,
		Host:       cmp.Or(req.Host, req.URL.Host),
		RemoteAddr: "192.0.2.1:1234", // as httptest.NewRequest's: no connection
		RequestURI: uri,
		Close:      closing,
	}
	// Framing as net/http's client chooses it: a known length is sent as
	// Content-Length (0 too, for the methods that expect a body); an
	// unknown one is chunked, except that a body found empty at once on
	// a method that usually has none is not sent.
	switch {
	case hasBody && req.ContentLength > 0:
		sreq.ContentLength = int64(len(body))
	case hasBody && !(len(body) == 0 && usuallyWithoutBody(method)):
		sreq.ContentLength = -1
		sreq.TransferEncoding = []string{"chunked"}
	}
	switch {
	case sreq.ContentLength > 0:
		header.Set("Content-Length", strconv.FormatInt(sreq.ContentLength, 10))
	case sreq.ContentLength == 0 && (method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch):
		header.Set("Content-Length", "0")
	}
	if sreq.ContentLength != 0 {
		sreq.Body = io.NopCloser(bytes.NewReader(body))
	}
	return sreq, askedGzip, nil
}

func usuallyWithoutBody(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodDelete, http.MethodOptions, "PROPFIND", "SEARCH":
		return true
	}
	return false
}

// canonicalHeader is a copy of h with canonical names, as a reader of the
// wire makes them. Names that fold together keep their values in the
// order the names are written on the wire: sorted.
func canonicalHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ck := http.CanonicalHeaderKey(k)
		out[ck] = append(out[ck], h[k]...)
	}
	return out
}

// unparsableRequest is net/http's server's answer to a request line it cannot
// parse.
func unparsableRequest(req *http.Request) *http.Response {
	const msg = "400 Bad Request"
	return &http.Response{
		Status: msg, StatusCode: http.StatusBadRequest,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "Connection": {"close"}},
		Body:          io.NopCloser(strings.NewReader(msg)),
		ContentLength: -1,
		Close:         true,
		Request:       req,
	}
}

// droppedError is the error of a request whose connection the fake
// closed without answering: an injected drop, or a handler that panicked.
type droppedError struct{ panicked any }

func (e *droppedError) Error() string {
	if e.panicked == http.ErrAbortHandler {
		return "billingtest: the fake closed the connection without answering (an injected drop): EOF"
	}
	return fmt.Sprintf("billingtest: the fake closed the connection without answering (its handler panicked: %v): EOF", e.panicked)
}

// Unwrap makes the error match io.EOF, as net/http's does.
func (e *droppedError) Unwrap() error { return io.EOF }

package billingtest

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/billingapi/billing-go/internal/wirejson"
)

// maxRequestBody bounds what the fake reads of a request body.
const maxRequestBody = 1 << 20

// ServeHTTP serves one request: faults first (like a proxy in front of
// the service), then authentication, throttling and the endpoint.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	rec := Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(), Header: r.Header.Clone(), Body: redactBody(body), Time: s.now()}
	rec.Header.Del("Authorization")
	// The request is logged when its status is written, before any byte of
	// the answer leaves: a test that inspects Requests right after its call
	// returns must find it. A dropped connection writes no status and is
	// logged on the way out, with status 0.
	logged := false
	logRequest := func(status int) {
		if logged {
			return
		}
		logged = true
		rec.Status = status
		s.recordRequest(rec)
		s.cfg.logger.Debug("billingtest request", slog.String("method", rec.Method), slog.String("path", rec.Path), slog.Int("status", status))
	}
	rw := &statusWriter{ResponseWriter: w, onStatus: logRequest}
	defer logRequest(0)
	if err != nil {
		s.writeError(rw, http.StatusBadRequest, errorKeyAPI, "could not read the request body")
		return
	}
	if len(body) > maxRequestBody {
		s.writeError(rw, http.StatusRequestEntityTooLarge, errorKeyAPI, "request body too large")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))

	// The pattern names the route for faults; dispatch itself goes through
	// mux.ServeHTTP, the only path that sets r.PathValue.
	pattern := s.route(r)
	route := Route(pattern)
	fault, faulty := s.faults.take(route)
	if faulty {
		if !s.applyFaultBefore(rw, r, fault) {
			return
		}
	}

	authorized, status, msg := s.authenticate(r)
	rec.Authorized = authorized
	if !authorized {
		s.writeError(rw, status, errorKeyAPI, msg)
		return
	}
	if wait := s.throttle(rw.Header(), s.cfg.apiKey, route == RouteDraftPDF); wait > 0 {
		rw.Header().Set("Retry-After", strconv.Itoa(ceilSeconds(wait)))
		s.writeError(rw, http.StatusTooManyRequests, errorKeyAPI, fmt.Sprintf("rate limit exceeded; retry after %d seconds", ceilSeconds(wait)))
		return
	}
	if pattern == "" {
		s.notFound(rw, r)
		return
	}

	if !faulty || (fault.Drop != DropAfterApply && !fault.Truncate) {
		s.mux.ServeHTTP(rw, r)
		return
	}
	// The change is applied; then the answer is lost or cut short.
	buf := &bufferedWriter{header: rw.Header()}
	s.mux.ServeHTTP(buf, r)
	if fault.Drop == DropAfterApply {
		panic(http.ErrAbortHandler) // net/http closes the connection without an answer
	}
	rw.Header().Set("Content-Length", strconv.Itoa(buf.body.Len()))
	rw.WriteHeader(buf.statusOr200())
	_, _ = rw.Write(buf.body.Bytes()[:buf.body.Len()/2])
	if f, ok := rw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}

// applyFaultBefore applies the parts of a fault that come before handling
// and reports whether the request goes on.
func (s *Server) applyFaultBefore(w *statusWriter, r *http.Request, f Fault) bool {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return false
		}
	}
	if f.Drop == DropBeforeApply {
		panic(http.ErrAbortHandler)
	}
	if f.Status != 0 {
		if f.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(ceilSeconds(f.RetryAfter)))
		}
		s.writeError(w, f.Status, errorKeyAPI, "injected fault: "+http.StatusText(f.Status))
		return false
	}
	return true
}

// authenticate checks "Authorization: Basic <API key>". A missing or
// wrong key is 401; a header that is not of that form is 400. The key is
// compared in constant time.
func (s *Server) authenticate(r *http.Request) (ok bool, status int, msg string) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return false, http.StatusUnauthorized, "missing API key: send Authorization: Basic <API key>"
	}
	scheme, key, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Basic") || key == "" || strings.ContainsAny(key, " \t") {
		return false, http.StatusBadRequest, "malformed Authorization header: want Basic <API key>"
	}
	if subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.apiKey)) != 1 {
		return false, http.StatusUnauthorized, "invalid API key"
	}
	return true, 0, ""
}

// route returns the pattern of the route that serves r exactly, or "".
// ServeMux would also match a path that is not canonical, or that lacks
// the trailing slash of a route ending in /{$}, and redirect it; the
// service knows neither, so for the fake they match no route.
func (s *Server) route(r *http.Request) string {
	if !canonicalPath(r.URL.Path) {
		return ""
	}
	_, pattern := s.mux.Handler(r)
	if strings.HasSuffix(pattern, "/{$}") && !strings.HasSuffix(r.URL.Path, "/") {
		return ""
	}
	return pattern
}

// canonicalPath reports whether p is already clean. ServeMux would
// redirect any other path (//v1/Invoices, /v1/./Invoices); the service
// knows no such path, so the fake treats it as unknown.
func canonicalPath(p string) bool {
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return p == clean
}

// notFound answers a request no route matches: 405 when the path exists
// for another method, else 404, always with the error body.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if s.route(probe) != "" {
			w.Header().Set("Allow", m)
			s.writeError(w, http.StatusMethodNotAllowed, errorKeyAPI, r.Method+" is not allowed on "+r.URL.Path)
			return
		}
	}
	s.writeError(w, http.StatusNotFound, errorKeyAPI, "no such endpoint: "+r.Method+" "+r.URL.Path)
}

// writeJSON answers with v encoded as the API does: amounts as numbers.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := wirejson.Marshal(v)
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, errorKeyAPI, "encoding the answer: "+err.Error())
		return
	}
	s.writeRawJSON(w, status, b)
}

// writeRawJSON answers with b, which is already JSON.
func (s *Server) writeRawJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// decodeBody decodes the JSON body into v, answering 400 (never 500) when
// it is not JSON of the right shape. It reports whether v is usable.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	b, _ := io.ReadAll(r.Body)
	if len(bytes.TrimSpace(b)) == 0 {
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, "a JSON body is required")
		return false
	}
	if err := json.Unmarshal(b, v); err != nil {
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, "malformed JSON body: "+err.Error())
		return false
	}
	return true
}

// pathInt reads an integer path value, answering 404 (the service's answer
// for an id that cannot exist) when it is not a positive integer.
func (s *Server) pathInt(w http.ResponseWriter, r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		s.writeError(w, http.StatusNotFound, errorKeyAPI, fmt.Sprintf("%s %q does not exist", name, r.PathValue(name)))
		return 0, false
	}
	return id, true
}

// statusWriter tells onStatus the status of the answer once, before it
// is sent, for the request log.
type statusWriter struct {
	http.ResponseWriter
	status   int
	onStatus func(int)
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.onStatus(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets a streamed answer reach the client as it is written.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// bufferedWriter holds an answer so that a fault can drop or cut it after
// the change was applied.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header { return b.header }
func (b *bufferedWriter) Write(p []byte) (int, error) {
	return b.body.Write(p)
}
func (b *bufferedWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
func (b *bufferedWriter) statusOr200() int {
	if b.status == 0 {
		return http.StatusOK
	}
	return b.status
}

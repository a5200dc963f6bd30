package billingtest

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/bind"
	"github.com/billingapi/billing-go/billingtest/internal/control"
	"github.com/billingapi/billing-go/billingtest/internal/rewrite"
	"github.com/billingapi/billing-go/internal/jsonwire"
)

// maxRequestBody bounds what the fake reads of a request body.
const maxRequestBody = 1 << 20

// ServeHTTP serves one request: every answer's Date header on the fake's
// clock ([WithClock]); a Host that is not the fake's refused
// (see WithAllowedHosts), the control API (see the package doc)
// apart, faults first (like a proxy in front of the service), then
// authentication, throttling and the endpoint.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Date follows the fake's clock, as the service's follows the clock
	// that stamps modifiedTimestamp: a client tells from it whether a
	// second can still receive writes. It is read before anything is, so
	// that a write the answer does not show is stamped at or after it.
	// net/http keeps a Date the handler set.
	w.Header().Set("Date", s.now().Format(http.TimeFormat))
	if r.Body == nil {
		// A client-side request handed straight to Handler by an
		// in-process transport: net/http's server always sets a Body.
		r.Body = http.NoBody
	}
	if msg := s.cfg.hosts.Refuse(r); msg != "" {
		// Before anything else: not recorded, throttled or faulted.
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, msg)
		return
	}
	if control.IsPath(r.URL.EscapedPath()) {
		s.serveControl(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	cut := err != nil || len(body) > maxRequestBody
	q := parseRawQuery(r.URL.RawQuery)
	// Matching happens once, here: handlers see the path values and the
	// query already read the service's way, whatever the request's casing,
	// trailing slash or raw ;.
	matches := s.matchPath(r.URL.EscapedPath())
	m, found := selectRoute(matches, r.Method)
	// The key is checked before anything is recorded: the log keeps
	// nothing an unauthenticated request sent (see newRecord), whatever
	// comes first in answering it.
	authorized, status, msg := s.authenticate(r)
	rec := s.newRecord(r, q, body, cut, carriesCardData(matches), len(matches) > 0, authorized)
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
		s.cfg.logger.Debug("billingtest request", slog.String("method", rec.Method), slog.String("path", r.URL.EscapedPath()), slog.Int("status", status))
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

	fault, faulty := Fault{}, false
	if found {
		fault, faulty = s.faults.take(m.spec.route)
	}
	if faulty && !s.applyFaultBefore(rw, r, fault) {
		return
	}

	if !authorized {
		s.writeError(rw, status, errorKeyAPI, msg)
		return
	}
	if wait := s.throttle(rw.Header(), s.cfg.apiKey, found && m.spec.route == RouteDraftInvoicesPDF); wait > 0 {
		rw.Header().Set("Retry-After", strconv.Itoa(ceilSeconds(wait)))
		s.writeError(rw, http.StatusTooManyRequests, errorKeyAPI, fmt.Sprintf("rate limit exceeded; retry after %d seconds", ceilSeconds(wait)))
		return
	}
	if !found {
		s.notFound(rw, r, matches)
		return
	}
	r = routedRequest(r, m, q)

	if !faulty || (fault.Drop != DropAfterApply && !fault.Truncate) {
		m.spec.handler(s, rw, r)
		return
	}
	// The change is applied; then the answer is lost or cut short.
	buf := httptest.NewRecorder()
	m.spec.handler(s, buf, r)
	if fault.Drop == DropAfterApply {
		panic(http.ErrAbortHandler) // net/http closes the connection without an answer
	}
	maps.Copy(rw.Header(), buf.Header())
	rw.Header().Set("Content-Length", strconv.Itoa(buf.Body.Len()))
	rw.WriteHeader(buf.Code)
	_, _ = rw.Write(buf.Body.Bytes()[:buf.Body.Len()/2])
	if f, ok := rw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}

// routedRequest is r as a handler sees it: the path values of m set, and
// the query re-encoded from q so that r.URL.Query() reads what the
// service would (url.ParseQuery would drop a pair holding a raw ;).
func routedRequest(r *http.Request, m routeMatch, q url.Values) *http.Request {
	r = r.WithContext(r.Context()) // a shallow copy: the caller's request stays as received
	u := *r.URL
	u.RawQuery = q.Encode()
	r.URL = &u
	for name, v := range m.values {
		r.SetPathValue(name, v)
	}
	return r
}

// applyFaultBefore applies the parts of a fault that come before handling
// and reports whether the request goes on.
func (s *Server) applyFaultBefore(w *statusWriter, r *http.Request, f Fault) bool {
	if f.Delay > 0 {
		s.cfg.logger.Debug("billingtest fault: delaying", slog.String("method", r.Method), slog.String("path", r.URL.EscapedPath()), slog.Duration("delay", f.Delay))
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return false
		case <-s.closing:
			// Shutting down: the delay ends now, with an answer a client
			// may retry elsewhere, and the connection is not kept.
			t.Stop()
			w.Header().Set("Connection", "close")
			s.writeError(w, http.StatusServiceUnavailable, errorKeyAPI, "the fake is shutting down")
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

// notFound answers a request no route serves: 405 with Allow when its
// path is a route's for other methods, else 404, always with the error
// body.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request, matches []routeMatch) {
	if len(matches) > 0 {
		methods := make([]string, 0, len(matches))
		for _, m := range matches {
			methods = append(methods, m.spec.method)
		}
		w.Header().Set("Allow", strings.Join(methods, ", "))
		s.writeError(w, http.StatusMethodNotAllowed, errorKeyAPI, r.Method+" is not allowed on "+r.URL.Path)
		return
	}
	s.writeError(w, http.StatusNotFound, errorKeyAPI, "no such endpoint: "+r.Method+" "+r.URL.Path)
}

// writeJSON answers with v encoded as the API does: amounts as numbers.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := jsonwire.Marshal(v)
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, errorKeyAPI, "encoding the answer: "+err.Error())
		return
	}
	s.writeRawJSON(w, status, b)
}

// writeRawJSON answers with b, which is already JSON, rewritten by the
// variations of a successful answer's text.
func (s *Server) writeRawJSON(w http.ResponseWriter, status int, b []byte) {
	if status < 300 && s.cfg.stamps {
		b = rewrite.Stamps(b, s.cfg.stampDigits, s.cfg.stampZone)
	}
	if status < 300 && s.cfg.unknownMembers {
		b = rewrite.AddMembers(b)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// pathID reads an integer path value; one that is not a positive integer
// is a 404, the service's answer for an id that cannot exist.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, notFound("%s %q does not exist", name, r.PathValue(name))
	}
	return id, nil
}

// pathInt is pathID for a handler that answers itself: it answers the 404.
func (s *Server) pathInt(w http.ResponseWriter, r *http.Request, name string) (int64, bool) {
	id, err := pathID(r, name)
	if err != nil {
		s.writeRequestError(w, err)
		return 0, false
	}
	return id, true
}

// apiHandler is an endpoint that returns its answer instead of writing
// it: the value to send as JSON with 200, or the error to answer with.
// Its serve method is the one writer of both.
type apiHandler func(*Server, *http.Request) (any, error)

func (h apiHandler) serve(s *Server, w http.ResponseWriter, r *http.Request) {
	v, err := h(s, r)
	if err != nil {
		s.writeRequestError(w, err)
		return
	}
	s.writeJSON(w, http.StatusOK, v)
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

// decodeBody binds the JSON body of r into v; it fails with a 400 (never
// a 500) when it cannot.
func decodeBody(r *http.Request, v any) error {
	b, _ := io.ReadAll(r.Body)
	if err := bind.JSON(b, v); err != nil {
		return badRequest("%s", err.Error())
	}
	return nil
}

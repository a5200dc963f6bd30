package billingtest

import (
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Request is a request the fake received, as tests inspect it. The
// Authorization header is kept only as whether it was right, never its
// value.
type Request struct {
	// Method is the HTTP method.
	Method string
	// Path is the escaped path, exactly as sent.
	Path string
	// Query is the query string as the fake read it: split on & only (a
	// raw ; stays in its value), names it knows in the reference's
	// spelling.
	Query url.Values
	// Header holds the request's headers without Authorization.
	Header http.Header
	// Authorized says whether the request carried the right API key.
	Authorized bool
	// Body is the request body, with the values of cardNumber and cvv
	// fields replaced by "[REDACTED]". A note in brackets stands in for a
	// body that was cut (over 1 MiB, or broken off), one that is not JSON
	// sent to the card route's path (/v1/paymentMethods/creditCard, with
	// any method), and one that is not JSON and names a card field. An
	// unauthenticated request has none.
	Body []byte
	// Status is the status the fake answered with; 0 when the connection
	// was dropped instead.
	Status int
	// Time is when the fake received it, on the fake's clock.
	Time time.Time
}

// DefaultRequestLogBytes is the bytes [Server.Requests] holds unless
// [WithRequestLogBytes] says otherwise.
const DefaultRequestLogBytes = 64 << 20

// Requests returns the requests received so far, oldest first: the most
// recent ones, at most [WithRequestLogLimit] of them (default 10,000) and
// at most [WithRequestLogBytes] bytes (default 64 MiB, see
// [DefaultRequestLogBytes]). An unauthenticated request is kept only as
// its method (when it is a standard one), its path (when it is one of the
// fake's endpoints, in at most 1 KiB), status and time, Authorized false:
// nothing else it sent is stored.
func (s *Server) Requests() []Request { return logCopy(s, &s.requests) }

// ClearRequests forgets the requests received so far.
func (s *Server) ClearRequests() {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.requests, s.requestBytes = nil, 0
}

// WithRequestLogBytes bounds the bytes [Server.Requests] keeps (default
// [DefaultRequestLogBytes]): a request counts the bytes of its method,
// path, query names and values, header names and values and body, plus
// 256 for the entry and 64 for each name and each value. The oldest
// requests are forgotten first. A request that alone is over the
// bound is kept without its query, headers and body. 0 keeps no requests.
func WithRequestLogBytes(n int64) Option {
	return setCount(n, func(c *config) *int64 { return &c.requestLogBytes }, "WithRequestLogBytes: negative bound %d")
}

// Overheads counted besides the bytes of a request's strings, roughly
// what Go spends on the Request value, a map entry and a slice of values.
const (
	requestOverhead = 256
	valueOverhead   = 64
)

// logSize is the bytes r counts for against [WithRequestLogBytes].
func (r *Request) logSize() int64 {
	n := int64(requestOverhead + len(r.Method) + len(r.Path) + len(r.Body))
	for _, vs := range []map[string][]string{r.Query, r.Header} {
		for k, v := range vs {
			n += int64(valueOverhead + len(k))
			for _, x := range v {
				n += int64(valueOverhead + len(x))
			}
		}
	}
	return n
}

// standardMethods are the methods an unauthenticated request is logged
// with; any other is logged as "".
var standardMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace,
}

// maxUnauthenticatedPath bounds the path kept of an unauthenticated
// request.
const maxUnauthenticatedPath = 1 << 10

// newRecord is the log entry of r, made after its key was checked. An
// authorized request keeps what it sent, without Authorization and with
// its body redacted (see redactBody). An unauthenticated one, whose sender
// may be anyone able to reach the fake (a web page the developer visits
// included), keeps no query, header or body: only which endpoint it
// reached, a standard method and, when routed (its path is one of the
// fake's endpoints), a path of at most 1 KiB, so that a test sees where
// its 401s went.
func (s *Server) newRecord(r *http.Request, q url.Values, body []byte, cut, card, routed, authorized bool) Request {
	rec := Request{Authorized: authorized, Time: s.now()}
	if !authorized {
		if slices.Contains(standardMethods, r.Method) {
			rec.Method = r.Method
		}
		if p := r.URL.EscapedPath(); routed && len(p) <= maxUnauthenticatedPath {
			rec.Path = p
		}
		return rec
	}
	rec.Method, rec.Path, rec.Query, rec.Header = r.Method, r.URL.EscapedPath(), q, r.Header.Clone()
	rec.Header.Del("Authorization")
	rec.Body = redactBody(body, cut, card)
	return rec
}

func (s *Server) recordRequest(r Request) {
	limit, budget := s.cfg.requestLogLimit, s.cfg.requestLogBytes
	if limit == 0 || budget == 0 {
		return
	}
	size := r.logSize()
	if size > budget {
		r.Query, r.Header = nil, nil
		r.Body = []byte("[body withheld: the request is larger than the request log's bound]")
		if size = r.logSize(); size > budget {
			return
		}
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	if len(s.requests) >= limit || s.requestBytes+size > budget {
		// Drop the oldest entries down to half of each bound at once, so
		// that recording stays O(1) amortised in long runs.
		drop := 0
		for drop < len(s.requests) && (len(s.requests)-drop > limit/2 || s.requestBytes+size > budget/2) {
			s.requestBytes -= s.requests[drop].logSize()
			drop++
		}
		s.requests = append(s.requests[:0], s.requests[drop:]...)
		clear(s.requests[len(s.requests):cap(s.requests)]) // release the dropped bodies
	}
	s.requests = append(s.requests, r)
	s.requestBytes += size
}

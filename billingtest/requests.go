package billingtest

import (
	"net/http"
	"net/url"
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
	// Body is the request body (at most 1 MiB of it), with the values of
	// cardNumber and cvv fields replaced by "[REDACTED]".
	Body []byte
	// Status is the status the fake answered with; 0 when the connection
	// was dropped instead.
	Status int
	// Time is when the fake received it, on the fake's clock.
	Time time.Time
}

// Requests returns the requests received so far, oldest first (at most
// the most recent [WithRequestLogLimit] of them).
func (s *Server) Requests() []Request {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ClearRequests forgets the requests received so far.
func (s *Server) ClearRequests() {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.requests = nil
}

func (s *Server) recordRequest(r Request) {
	if s.cfg.requestLogLimit == 0 {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	if len(s.requests) >= s.cfg.requestLogLimit {
		// Drop the oldest half at once so that recording stays O(1)
		// amortised in long runs.
		keep := s.cfg.requestLogLimit / 2
		s.requests = append(s.requests[:0], s.requests[len(s.requests)-keep:]...)
	}
	s.requests = append(s.requests, r)
}

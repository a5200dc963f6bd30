package billing

import (
	"io"
	"net/http"
	"strings"
)

// writeTransport is the transport of every write: it hands net/http each
// request as one it cannot send twice.
//
// net/http's Transport sends a request again on its own, beneath any retry
// rule, when a reused keep-alive connection drops before the answer and
// the request looks replayable: a GET, or any method carrying an
// Idempotency-Key or X-Idempotency-Key header (a common habit on payment
// APIs), provided that it has no body or a GetBody to rewind it. The
// server may have applied the write before the connection dropped, so the
// resend would apply it twice while the SDK counts one attempt. A request
// whose body cannot be rewound is never resent, whatever its headers
// (net/http documents this for HTTP/1 and HTTP/2), so a write goes down
// with GetBody cleared, and a write without a body with an empty body of
// its own. Retries of writes are thus the SDK's alone (shouldRetry), each
// with a fresh body.
//
// The price: a POST, PUT or PATCH without a body is sent with an empty
// chunked body instead of Content-Length: 0. A DELETE without a body is
// sent as before when net/http sees at once that its body is empty (it
// waits 200ms for the first read), else with an empty chunked body too.
type writeTransport struct {
	next http.RoundTripper
}

// RoundTrip sends a copy of req that net/http cannot replay.
func (t writeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	once := *req // a RoundTripper must not change the caller's request
	once.GetBody = nil
	if once.Body == nil || once.Body == http.NoBody {
		once.Body = io.NopCloser(strings.NewReader(""))
		once.ContentLength = 0
	}
	return t.next.RoundTrip(&once)
}

// CloseIdleConnections forwards to the wrapped transport, so that
// http.Client.CloseIdleConnections still reaches it.
func (t writeTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

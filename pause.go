package billing

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The client's pause: the service throttles an account, not a request, so
// a wait it asks of one call holds every call of the client (see
// RetryPolicy). The pause itself is internal/throttle's Gate, in
// clientConfig.pause; every answer may close it (pauseFor, from
// checkRetry) and every attempt waits for it before going out
// (retryClient's RequestLogHook), or, when it would end past the call's
// deadline, is not sent at all (heldTransport).

// pauseFor closes the client's gate for as long as the answer to cl's
// attempt asks every request of the client to wait, whichever call it
// belongs to: on a 429, the wait it asks for (requestedWait); on any
// answer, the reset of a rate-limit window that has nothing left (the
// longer one when both are spent), since the next request would be
// refused until then. A Retry-After on another status (a 503, say) is
// the wait of its own call only: it speaks of the service's health, not
// of the account's quota. A 429 that names no wait still says that the
// account is throttled: the client then holds for the backoff the call
// itself would wait before its next attempt, as long as any caller would
// have waited after it.
//
// Every answer passes here: a window's reset is read only when the window
// says it has nothing left, so that an answer with requests to spare
// costs two lookups.
func (c *Client) pauseFor(cl *call, resp *http.Response) {
	now := c.cfg.now()
	var d time.Duration
	if resp.StatusCode == http.StatusTooManyRequests {
		d = requestedWait(resp, now)
	}
	for _, window := range [...]string{"Minute", "Day"} {
		v := resp.Header.Get("X-Rate-Limit-Remaining-" + window)
		if v == "" {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n == 0 {
			d = max(d, parseWait(resp.Header.Get("X-Rate-Limit-Reset-"+window), now))
		}
	}
	if d == 0 && resp.StatusCode == http.StatusTooManyRequests {
		d = cl.policy.backoff(max(cl.attempt.number-1, 0))
	}
	if d > 0 {
		c.holdFor(d)
	}
}

// holdFor closes the client's pause for d from now (unless it is closed
// until later already) and marks it as used, so that attempts ask it from
// then on (retryClient's RequestLogHook).
func (c *Client) holdFor(d time.Duration) {
	c.cfg.paused.Store(true)
	c.cfg.pause.HoldFor(d)
}

// heldTransport is the transport of one call's attempts: an attempt that
// the client's pause refused (call.held) fails here, without being sent;
// every other one goes to next.
type heldTransport struct {
	next http.RoundTripper
	call *call
}

// RoundTrip refuses a held attempt, closing its body as a RoundTripper
// must, and sends any other.
func (t heldTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.call.held != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, t.call.held
	}
	return t.next.RoundTrip(req)
}

// CloseIdleConnections forwards to the wrapped transport, so that
// http.Client.CloseIdleConnections still reaches it.
func (t heldTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

package billing

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"syscall"
	"time"
)

// RetryPolicy says how often and how long the client retries.
//
// Reads (and the bulk price-change preview, which changes nothing) are
// retried on connection errors, on 429, 500, 502, 503 and 504, and when an
// answer breaks off. Writes (write-off, replace card, wallet agreement,
// tracking code, bulk process) are retried only when the server surely did
// not act on them: after a 429, or after a connection error that happened
// before the request was written; they never follow a redirect. A call
// makes at most MaxRetries+1 HTTP attempts in all, whatever mixture of
// failures it meets. Within one attempt a read follows at most 10
// same-host redirects; a redirect loop that goes on past them is final,
// not retried, so it costs 10 requests in all.
//
// A wait the server asks for (Retry-After, in seconds or as a date, or on a
// 429 the X-Rate-Limit-Reset-* headers) is honoured when it is at most
// MaxRetryAfter and ends before the context's deadline; a longer one
// (including one too long to represent, which saturates) ends the retries
// at once and the caller gets the [*APIError], whose RetryAfter says when
// to come back, rather than a context error at the deadline. Otherwise
// the wait grows exponentially from MinBackoff to MaxBackoff, with jitter.
// Waiting ends at once when the context is done.
//
// The calls of one [Client] share the waits the service asks for, since it
// throttles the account, not a request. When any call gets a 429, or any
// answer says that a rate-limit window has nothing left
// (X-Rate-Limit-Remaining-Minute or -Day 0, with its reset), every call of
// the client, in every goroutine and iteration, holds its next attempt
// until the time the answer gives (for a 429 that gives none, for the
// backoff of the call that got it): one burst costs the account one 429,
// not one per caller. That wait is not an attempt and spends no retry. A
// pause longer than a call's MaxRetryAfter is not imposed on it: the call
// goes out and gets the service's own answer; of several pauses, a call
// waits for the longest one its MaxRetryAfter allows, so that an hour's
// Retry-After does not hide a minute's window asked for after it. A pause
// that would end at or after the call's context deadline fails the call at
// once, unsent, with a [*RequestError] whose Err is a [*ThrottledError]
// (matching [ErrRateLimited]); a context that ends while the call waits
// ends it at once with the context's error, unsent too.
//
// A field left zero keeps the value it had: for [WithRetryPolicy], the
// client's so far ([DefaultRetryPolicy], or what an earlier option set);
// for [WithRetries], the client's. So a policy that sets only some fields
// changes only those. To turn retries off, set MaxRetries to [NoRetries].
type RetryPolicy struct {
	// MaxRetries is how many times a request is retried after its first
	// attempt: 0 means the default (2), [NoRetries] means none.
	MaxRetries int
	// MinBackoff is the wait before the first retry (default 500ms).
	MinBackoff time.Duration
	// MaxBackoff caps the exponential wait (default 30s).
	MaxBackoff time.Duration
	// MaxRetryAfter caps the wait the server may ask for (default 60s).
	MaxRetryAfter time.Duration
}

// NoRetries, as RetryPolicy.MaxRetries, turns retries off: each request is
// sent once.
const NoRetries = -1

// DefaultRetryPolicy returns the policy a client uses unless told
// otherwise: 2 retries, backoff from 500ms to 30s, server-requested waits up
// to 60s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 2, MinBackoff: 500 * time.Millisecond, MaxBackoff: 30 * time.Second, MaxRetryAfter: time.Minute}
}

// resolve fills zero fields from def, a resolved policy, and checks the
// result.
func (p RetryPolicy) resolve(def RetryPolicy) (RetryPolicy, error) {
	switch {
	case p.MaxRetries == NoRetries:
		p.MaxRetries = 0
	case p.MaxRetries == 0:
		p.MaxRetries = def.MaxRetries
	case p.MaxRetries < 0:
		return p, fmt.Errorf("MaxRetries must be NoRetries (-1), 0 for the default, or positive; got %d", p.MaxRetries)
	}
	if p.MinBackoff < 0 || p.MaxBackoff < 0 || p.MaxRetryAfter < 0 {
		return p, fmt.Errorf("durations must not be negative")
	}
	if p.MinBackoff == 0 {
		p.MinBackoff = def.MinBackoff
	}
	if p.MaxBackoff == 0 {
		p.MaxBackoff = max(def.MaxBackoff, p.MinBackoff)
	}
	if p.MaxRetryAfter == 0 {
		p.MaxRetryAfter = def.MaxRetryAfter
	}
	if p.MaxBackoff < p.MinBackoff {
		return p, fmt.Errorf("MaxBackoff (%s) is below MinBackoff (%s)", p.MaxBackoff, p.MinBackoff)
	}
	return p, nil
}

// backoff is the exponential wait before retry number attempt+1 (attempt
// counts from 0), with "equal jitter": between half and all of the step, so
// that clients that failed together do not retry together.
func (p RetryPolicy) backoff(attempt int) time.Duration {
	step := p.MaxBackoff
	if attempt < 32 {
		if d := p.MinBackoff << attempt; d > 0 && d < p.MaxBackoff {
			step = d
		}
	}
	half := step / 2
	if half <= 0 {
		return step
	}
	return half + rand.N(step-half+1)
}

// attempt tracks the HTTP attempt of a call in flight, for the
// write-safety rule and for logging.
type attempt struct {
	number  int
	started time.Time
	// handled is set once the response handler has read the answer.
	handled bool
	// wroteHeaders is set by an httptrace hook, on the transport's
	// goroutine.
	wroteHeaders atomic.Bool
	// dialled is set by an httptrace hook when net/http's transport asks
	// for a connection: the attempt went to the network.
	dialled atomic.Bool
}

// reachedServer reports whether the attempt's request may have reached the
// server: its headers were written, or an answer came.
func (a *attempt) reachedServer() bool { return a.handled || a.wroteHeaders.Load() }

// shouldRetry is the SDK's one retry rule, asked after every attempt of a
// call: err is the attempt's failure (no answer, or an answer that could
// not be read), resp its answer. The case order matters; each says why.
func (c *call) shouldRetry(ctx context.Context, resp *http.Response, err error, now time.Time) bool {
	var apiErr *APIError
	switch {
	case ctx.Err() != nil:
		return false // the caller has given up
	case errors.As(err, &apiErr):
		return false // an answer that is not retried on its status: asking again gets the same
	case err != nil && isPermanent(err):
		return false // a certificate that does not verify, a refused redirect or a redirect loop does not mend
	case err != nil && c.write && c.attempt.reachedServer():
		return false // the write may have reached the server: sending it again could apply it twice
	case err != nil && !c.attempt.handled && !c.attempt.dialled.Load() && !networkShaped(err):
		return false // a RoundTripper of the program's refused without going to the network (an httpmock with no responder): it would refuse again
	case err != nil && c.attempt.handled && !brokenBody(err):
		return false // the answer arrived whole but is wrong: it would arrive wrong again
	case err != nil:
		return true // no answer, or a read's answer cut off in transit: asking again is safe
	case resp.StatusCode == http.StatusTooManyRequests:
		// Throttled: the server did nothing, so even a write may go again,
		// after the wait it asked for, unless that wait is too long (see
		// mayWait). Other calls of the client wait for it too (pauseFor).
		return c.mayWait(ctx, requestedWait(resp, now), now)
	case resp.StatusCode == http.StatusInternalServerError, resp.StatusCode == http.StatusBadGateway,
		resp.StatusCode == http.StatusServiceUnavailable, resp.StatusCode == http.StatusGatewayTimeout:
		// A passing failure of the service or a gateway. A write may have
		// been applied before it, so only a read is asked again.
		return !c.write && c.mayWait(ctx, requestedWait(resp, now), now)
	}
	return false // anything else is the answer: 2xx, a client error, a redirect not followed
}

// mayWait reports whether the call may wait d, the wait the server asked
// for (0: none), before its next attempt: at most the policy's
// MaxRetryAfter, and ending before the context's deadline, since a wait
// that outlasts the deadline could only end in the context's error, while
// the answer in hand says when to come back.
func (c *call) mayWait(ctx context.Context, d time.Duration, now time.Time) bool {
	if d > c.policy.MaxRetryAfter {
		return false
	}
	deadline, ok := ctx.Deadline()
	return !ok || d == 0 || now.Add(d).Before(deadline)
}

// networkShaped reports errors that a connection gives: net.Error
// (timeouts, refused or reset connections), a connection closed early
// (io.EOF, io.ErrUnexpectedEOF) or an errno. A transport that is not
// net/http's, such as a fake served in process, signals a dropped
// connection that way too, and is retried like one.
func networkShaped(err error) bool {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err // *url.Error is a net.Error itself, whatever it wraps
	}
	var netErr net.Error
	var errno syscall.Errno
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &errno)
}

// isPermanent reports errors that a retry cannot mend: a certificate that
// does not verify, a redirect the client refused, or a redirect loop.
func isPermanent(err error) bool {
	var certErr x509.CertificateInvalidError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var verifyErr *tls.CertificateVerificationError
	return errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) ||
		errors.As(err, &verifyErr) || errors.Is(err, errRedirectRefused) || errors.Is(err, errRedirectLoop)
}

// waitBefore returns how long to wait before the next attempt.
func (c *call) waitBefore(retry int, resp *http.Response, now time.Time) time.Duration {
	if d := requestedWait(resp, now); d > 0 {
		return d
	}
	return c.policy.backoff(retry)
}

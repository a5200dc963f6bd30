package billing

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"time"
)

// RetryPolicy says how often and how long the client retries.
//
// Reads (and the bulk price-change preview, which changes nothing) are
// retried on connection errors and on 429, 500, 502, 503 and 504. Writes
// (write-off, replace card, wallet agreement, tracking code, bulk process)
// are retried only when the server surely did not act on them: after a 429,
// or after a connection error that happened before the request was written.
//
// A wait the server asks for (Retry-After, in seconds or as a date, or on a
// 429 the X-Rate-Limit-Reset-* headers) is honoured when it is at most
// MaxRetryAfter; a longer one ends the retries at once and the caller gets
// the [*APIError], whose RetryAfter says when to come back. Otherwise the
// wait grows exponentially from MinBackoff to MaxBackoff, with jitter.
// Waiting ends at once when the context is done.
type RetryPolicy struct {
	// MaxRetries is how many times a request is retried after its first
	// attempt; 0 disables retries.
	MaxRetries int
	// MinBackoff is the wait before the first retry (default 500ms).
	MinBackoff time.Duration
	// MaxBackoff caps the exponential wait (default 30s).
	MaxBackoff time.Duration
	// MaxRetryAfter caps the wait the server may ask for (default 60s).
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy returns the policy a client uses unless told
// otherwise: 2 retries, backoff from 500ms to 30s, server-requested waits up
// to 60s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 2, MinBackoff: 500 * time.Millisecond, MaxBackoff: 30 * time.Second, MaxRetryAfter: time.Minute}
}

// resolve fills zero durations with defaults and checks the policy.
func (p RetryPolicy) resolve() (RetryPolicy, error) {
	def := DefaultRetryPolicy()
	if p.MaxRetries < 0 {
		return p, fmt.Errorf("MaxRetries must not be negative, got %d", p.MaxRetries)
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

// attempt tracks one HTTP attempt of a call, for the write-safety rule and
// for logging.
type attempt struct {
	number       int
	start        time.Time
	wroteHeaders atomic.Bool
}

// retryDecision says whether a finished attempt is retried.
func (c *call) retryDecision(ctx context.Context, resp *http.Response, err error, now time.Time) bool {
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		if isPermanent(err) {
			return false
		}
		// A write is retried only if none of it reached the server.
		return !c.write || !c.attempt.wroteHeaders.Load()
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return requestedWait(resp, now) <= c.policy.MaxRetryAfter
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if c.write {
			return false
		}
		return requestedWait(resp, now) <= c.policy.MaxRetryAfter
	}
	return false
}

// isPermanent reports errors that a retry cannot mend: a certificate that
// does not verify, or a redirect the client refused.
func isPermanent(err error) bool {
	var certErr x509.CertificateInvalidError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var verifyErr *tls.CertificateVerificationError
	return errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) ||
		errors.As(err, &verifyErr) || errors.Is(err, errRedirectRefused)
}

// waitBefore returns how long to wait before the next attempt.
func (c *call) waitBefore(retry int, resp *http.Response, now time.Time) time.Duration {
	if d := requestedWait(resp, now); d > 0 {
		return d
	}
	return c.policy.backoff(retry)
}

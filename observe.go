package billing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// Attempt describes one HTTP attempt of a call, once the SDK has decided
// on it, for an observer given with [WithAttemptObserver]. It holds no
// query string, no API key and no card data: Err is scrubbed of them as
// the client's log line is. An attempt that the client held back without
// sending it (the service's pause outlasting the call's deadline, or the
// context ending during that pause; see [RetryPolicy]) is not one: it is
// neither observed nor logged, and the call returns its error.
type Attempt struct {
	// Operation is the call's operation; see [Operation].
	Operation Operation
	// Number counts the call's attempts from 1; a retry has Number > 1.
	Number int
	// StatusCode is the answer's HTTP status, 0 when no answer came.
	StatusCode int
	// Duration runs from the start of the attempt (after any wait the
	// client imposed before it: a backoff, a rate limit's pause) to the
	// SDK's decision on it; for a 2xx answer that the SDK reads, reading
	// it is included. A streamed PDF is read by the caller afterwards:
	// that is not included.
	Duration time.Duration
	// Err is nil when the attempt succeeded, and otherwise says why it
	// failed, as a value of the type the call itself would return:
	//   - [*APIError] for a non-2xx answer. For an answer that is retried
	//     on its status (a 429, a 503), the SDK does not read the body: that
	//     APIError has the status, headers and requested wait, no Errors
	//     and no Body.
	//   - [*DecodeError] for a 2xx answer that could not be read.
	//   - [*RequestError] when no answer came. Its Err keeps errors.Is
	//     working (context.DeadlineExceeded, say) but does not unwrap to the
	//     *url.Error, whose message holds the query string.
	// errors.Is(Err, ErrOutcomeUnknown) equals OutcomeUnknown.
	Err error
	// Retry is true when the SDK decided to send another attempt of the
	// call after this one, once its wait is over (unless the context ends
	// first).
	Retry bool
	// OutcomeUnknown is true when the attempt was a write that failed and
	// may nevertheless have been applied (see [ErrOutcomeUnknown]): the
	// request may have reached the server and nothing that came back proves
	// it was not acted on. Such an attempt is never retried, so it is the
	// call's last, and the call's error matches ErrOutcomeUnknown too.
	OutcomeUnknown bool
}

// WithAttemptObserver makes the client call observe after each HTTP
// attempt of every call, so that any metrics or tracing library can
// count, time and label the attempts: see [Attempt]. The SDK depends on
// none: it hands over plain values.
//
// observe runs synchronously, on the goroutine that sent the attempt
// (under [Prefetch], one of the iterator's workers), before any retry,
// with the call's context: the caller's span, say, is in ctx. Calls in
// flight together call it concurrently, so it must be safe for concurrent
// use, and it should return quickly, since the call waits for it. It
// sees the attempt when the client's logger (see [WithLogger]) does,
// with the same facts. Given more than once, every observer is called,
// in the order given; nil is refused.
func WithAttemptObserver(observe func(ctx context.Context, a Attempt)) Option {
	return func(c *clientConfig) error {
		if observe == nil {
			return fmt.Errorf("WithAttemptObserver: nil func")
		}
		c.observers = append(c.observers, observe)
		return nil
	}
}

// endAttempt is called once per attempt, when the SDK has decided on it
// (checkRetry), when an observer or the logger at level takes it: it
// describes the attempt once, for the log line and for every observer.
// err is the attempt's failure as go-retryablehttp saw it: an answer's
// typed error, or a transport error.
func (c *Client) endAttempt(ctx context.Context, cl *call, resp *http.Response, err error, retry bool, level slog.Level) {
	a := Attempt{
		Operation: cl.op,
		Number:    cl.attempt.number,
		Duration:  time.Since(cl.attempt.started),
		Retry:     retry,
	}
	if resp != nil {
		a.StatusCode = resp.StatusCode
	}
	if len(c.cfg.observers) > 0 {
		a.Err = c.attemptError(cl, resp, err)
		a.OutcomeUnknown = errors.Is(a.Err, ErrOutcomeUnknown)
	}
	if c.cfg.logger.Enabled(ctx, level) {
		c.logAttempt(ctx, cl, a, err, level)
	}
	for _, observe := range c.cfg.observers {
		observe(ctx, a)
	}
}

// attemptError types an attempt's failure as the call would return it,
// scrubbed: see Attempt.Err.
func (c *Client) attemptError(cl *call, resp *http.Response, err error) error {
	var apiErr *APIError
	var decodeErr *DecodeError
	switch {
	case errors.As(err, &apiErr) || errors.As(err, &decodeErr):
		return err // built by the SDK: scrubbed, without the query
	case err != nil:
		return &RequestError{
			Method: cl.method, Path: cl.path, Attempts: cl.attempt.number,
			OutcomeUnknown: cl.write && cl.attempt.reachedServer(),
			// Never the *url.Error itself: its message holds the URL.
			Err: &scrubbedError{msg: c.scrub(cl, innermostMessage(err)), orig: err},
		}
	case resp != nil && (resp.StatusCode < 200 || resp.StatusCode > 299):
		// An answer retried on its status, or one whose retry was refused
		// before the response handler read it: its body is not read.
		return c.apiErrorHead(cl, resp)
	}
	return nil
}

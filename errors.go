package billing

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/billingapi/billing-go/internal/pager"
)

// Categories of failure, for use with [errors.Is]. An [*APIError] matches the
// category of its HTTP status; see [APIError.Is].
var (
	// ErrBadRequest matches a 400 answer: a malformed key, an invalid query or
	// a request the API refused.
	ErrBadRequest = errors.New("billing: bad request")
	// ErrUnauthorized matches a 401 answer: a missing or invalid API key.
	ErrUnauthorized = errors.New("billing: unauthorized")
	// ErrForbidden matches a 403 answer.
	ErrForbidden = errors.New("billing: forbidden")
	// ErrNotFound matches a 404 answer: an unknown customer, invoice, draft
	// invoice or subscription product, or a write-off on an account without
	// the write-off permission.
	ErrNotFound = errors.New("billing: not found")
	// ErrConflict matches a 409 answer: a business rule failed.
	ErrConflict = errors.New("billing: conflict")
	// ErrRateLimited matches a 429 answer: the request was throttled.
	// [APIError.RetryAfter] says when to come back. It also matches a
	// call that the client did not send because the service's pause
	// outlasted the call's deadline ([*ThrottledError]).
	ErrRateLimited = errors.New("billing: rate limited")
	// ErrServer matches any 5xx answer.
	ErrServer = errors.New("billing: server error")
	// ErrOutcomeUnknown matches a failed write that may nevertheless have
	// been applied: the request may have reached the server and nothing in
	// what came back proves it was not acted on (no answer, a cut-off or
	// unreadable answer, a 5xx, a redirect). Only a 4xx answer proves a
	// write was not applied. Each write's documentation says how to find
	// out what happened before trying again.
	ErrOutcomeUnknown = errors.New("billing: outcome unknown")
	// ErrWrongResource matches a 2xx answer for another resource than the
	// one asked for by id (invoice 43 for a read of invoice 42, say), which
	// a misrouting proxy, a shared cache or a broken server can send. The
	// error is a [*DecodeError] and is not retried; the answer is dropped.
	ErrWrongResource = errors.New("billing: answer for another resource")
	// ErrResponseTooLarge matches a call whose answer was longer than the
	// client's limit (see [WithMaxResponseBytes]).
	ErrResponseTooLarge = errors.New("billing: response body too large")
	// ErrInvalidParams matches every error the SDK returns before sending
	// anything: a [*ValidationError] for params, ids, options or a context
	// the API reference rules out, and a request body that cannot be
	// encoded. Nothing was sent, so nothing was applied.
	ErrInvalidParams = errors.New("billing: invalid parameters")
	// ErrPagination matches a failed iteration over pages: the server did
	// not advance to the page that was asked for, sent a paging header
	// that cannot be read, or sent a page of more items than it may hold
	// (the page size asked for, else its X-PageSize, else 100,000).
	// Iterating further would repeat or skip items. Its message is
	// "billing: pagination failed".
	ErrPagination = pager.ErrPagination
)

// ErrorDetail is one entry of the Errors list of the API's error body.
type ErrorDetail struct {
	// Key names what failed, e.g. "Api Error" or "agreement".
	Key string `json:"Key"`
	// Value is the server's message.
	Value string `json:"Value"`
}

// APIError is a non-2xx answer from the API.
//
// Its message holds the method, the path (never the query string), the
// status and the server's messages. When the body is not the API's JSON error
// envelope (an HTML page from a proxy, say), Body keeps a short excerpt.
type APIError struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// ErrorID is the ErrorId of the error body, 0 when absent.
	ErrorID int64
	// Errors is the Errors list of the error body.
	Errors []ErrorDetail
	// Method and Path are those of the request; Path has no query string.
	Method, Path string
	// RetryAfter is the wait the server asked for, from Retry-After or, on a
	// 429 without it, from the X-Rate-Limit-Reset-* headers; 0 when none.
	RetryAfter time.Duration
	// RateLimit holds the decoded X-Rate-Limit-* headers of the answer.
	RateLimit RateLimit
	// Header holds the answer's headers.
	Header http.Header
	// Body is an excerpt (at most 512 bytes) of a body that is not the
	// JSON error envelope; empty when the envelope was decoded.
	Body string
	// OutcomeUnknown is true for a write whose answer does not prove that
	// it was not applied: a 5xx (often a gateway that gave up while the
	// service went on) or a redirect, which a write never follows. The
	// error then matches [ErrOutcomeUnknown] as well as its category.
	OutcomeUnknown bool
}

// Error describes the failure without query values or secrets.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "billing: %s %s: %d %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	if e.ErrorID != 0 {
		fmt.Fprintf(&b, " (ErrorId %d)", e.ErrorID)
	}
	for i, d := range e.Errors {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if d.Key != "" {
			b.WriteString(d.Key)
			b.WriteString(": ")
		}
		b.WriteString(d.Value)
	}
	if len(e.Errors) == 0 && e.Body != "" {
		fmt.Fprintf(&b, ": unexpected body %q", e.Body)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if e.StatusCode >= 300 && e.StatusCode <= 399 {
		b.WriteString(" (redirect not followed)")
	}
	if e.OutcomeUnknown {
		b.WriteString("; the write may have been applied: check before retrying")
	}
	return b.String()
}

// Is reports whether the error belongs to the category target, so that
// errors.Is(err, billing.ErrNotFound) works through any wrapping. A write's
// error whose outcome is unknown also matches [ErrOutcomeUnknown].
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrOutcomeUnknown:
		return e.OutcomeUnknown
	case ErrBadRequest:
		return e.StatusCode == http.StatusBadRequest
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrConflict:
		return e.StatusCode == http.StatusConflict
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrServer:
		return e.StatusCode >= 500 && e.StatusCode <= 599
	}
	return false
}

// HasKey reports whether the error body lists an error with the given key,
// compared case-insensitively (the server's casing varies).
func (e *APIError) HasKey(key string) bool {
	for _, d := range e.Errors {
		if strings.EqualFold(d.Key, key) {
			return true
		}
	}
	return false
}

// ValidationError reports parameters that the API reference rules out. It is
// returned before anything is sent, and matches [ErrInvalidParams].
type ValidationError struct {
	// Field is the wire name of the offending field or parameter, e.g.
	// "firstName" or "invoiceId".
	Field string
	// Reason says what is wrong. It may show a number the caller gave
	// (an id, a month, a page size, a length) or the method and path of a
	// [Client.Do] request, but never the text of a field: card data and
	// names never appear in it.
	Reason string
}

// Error names the field and the rule it breaks.
func (e *ValidationError) Error() string {
	return "billing: invalid " + e.Field + ": " + e.Reason
}

// Is makes every ValidationError match [ErrInvalidParams].
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidParams }

func invalid(field, format string, args ...any) *ValidationError {
	return &ValidationError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// RequestError is a request that got no HTTP answer: the connection failed,
// timed out or was cut, the context ended, or the client held the request
// back, unsent, during a pause the service asked for (its Err is then a
// [*ThrottledError], or the context's error; see [RetryPolicy]).
type RequestError struct {
	// Method and Path are those of the request; Path has no query string.
	Method, Path string
	// Attempts is how many times the request was tried. An attempt the
	// client held back, unsent, is not counted: 0 when it was the first.
	Attempts int
	// OutcomeUnknown is true for a write that may have reached the server:
	// it may have been applied. Such an error matches [ErrOutcomeUnknown].
	OutcomeUnknown bool
	// Err is the underlying error; errors.Is(err, context.Canceled) and
	// errors.As(err, new(*url.Error)) see through RequestError.
	Err error
}

// Error describes the failure; it never holds the query string.
func (e *RequestError) Error() string {
	msg := fmt.Sprintf("billing: %s %s: %v", e.Method, e.Path, innermostMessage(e.Err))
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	if e.OutcomeUnknown {
		msg += "; the request may have been applied: check before retrying"
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *RequestError) Unwrap() error { return e.Err }

// Is makes a RequestError whose outcome is unknown match [ErrOutcomeUnknown].
func (e *RequestError) Is(target error) bool {
	return target == ErrOutcomeUnknown && e.OutcomeUnknown
}

// ThrottledError is why a call was not sent: the service had asked the
// client to pause (a 429 to this or another call of the same [Client], or
// an answer saying that a rate-limit window has nothing left) until after
// the call's context deadline. Waiting could only have ended in the
// context's error, so the call fails at once instead. It is the Err of a
// [*RequestError] and matches [ErrRateLimited]; nothing was sent, so
// nothing was applied. See [RetryPolicy] for how calls share the pause.
type ThrottledError struct {
	// RetryAfter is how long the pause still had to run when the call
	// gave up.
	RetryAfter time.Duration
}

// Error says how long the pause still had to run.
func (e *ThrottledError) Error() string {
	return fmt.Sprintf("not sent: the client is paused by the service's rate limit for %s more, past the call's deadline", e.RetryAfter)
}

// Is makes a ThrottledError match [ErrRateLimited].
func (e *ThrottledError) Is(target error) bool { return target == ErrRateLimited }

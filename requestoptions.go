package billing

import (
	"fmt"
	"net/http"
	"net/textproto"

	"github.com/billingapi/billing-go/internal/httpheader"
)

// RequestOption changes one call: [SuppressEvents], [WithHeader],
// [WithRetries], [CaptureResponse]. A bad option fails the call before
// anything is sent. Every RequestOption is also an [IterOption], which an
// iterator applies to each request it sends.
type RequestOption func(*requestConfig) error

// IterOption changes an iterator: Pages, All and their variants on every
// list endpoint. [Prefetch], [Stable] and [StableBy] are iterator options
// only, so that passing one to a call that sends one request (List, Get,
// Count, a write, [Client.Do]) does not compile; a [RequestOption] is an
// IterOption too, and applies to each request the iterator sends. A bad
// option ends the iteration with an error before anything is sent.
type IterOption interface {
	// applyToIterator sets what the option says in rc and adds the
	// options of each request to reqs.
	applyToIterator(rc *requestConfig, reqs *[]RequestOption) error
}

func (o RequestOption) applyToIterator(rc *requestConfig, reqs *[]RequestOption) error {
	if o == nil {
		return fmt.Errorf("nil RequestOption")
	}
	*reqs = append(*reqs, o)
	return o(rc)
}

// EachRequest is the iterator option that applies opts to each request an
// iterator sends: a slice of request options, which Go does not convert
// to a slice of IterOption, goes to an iterator as EachRequest(opts...).
func EachRequest(opts ...RequestOption) IterOption { return eachRequest(opts) }

type eachRequest []RequestOption

func (e eachRequest) applyToIterator(rc *requestConfig, reqs *[]RequestOption) error {
	for _, o := range e {
		if err := o.applyToIterator(rc, reqs); err != nil {
			return err
		}
	}
	return nil
}

// iterOnly is an option that only an iterator takes.
type iterOnly func(*requestConfig) error

func (o iterOnly) applyToIterator(rc *requestConfig, _ *[]RequestOption) error { return o(rc) }

// applyIterOptions applies opts and returns what they set and the options
// of each request.
func applyIterOptions(opts []IterOption) (requestConfig, []RequestOption, error) {
	var rc requestConfig
	var reqs []RequestOption
	for _, o := range opts {
		if o == nil {
			return rc, nil, fmt.Errorf("nil IterOption")
		}
		if err := o.applyToIterator(&rc, &reqs); err != nil {
			return rc, nil, err
		}
	}
	return rc, reqs, nil
}

type requestConfig struct {
	header   http.Header
	retry    *RetryPolicy
	capture  *Response
	prefetch int
	stable   *stableConfig
}

// reservedHeaders are set by the client itself; letting a request option
// replace them would break authentication or decoding.
var reservedHeaders = map[string]bool{
	"Authorization":  true,
	"Content-Type":   true,
	"Content-Length": true,
	"Host":           true,
	"Accept":         true,
}

// SuppressEvents sends X-SUPPRESS-ALL-EVENTS: True, which asks the API not
// to send the emails, webhooks, CRM and accounting updates the call would
// otherwise trigger. The API reference recommends it for bulk operations.
func SuppressEvents() RequestOption {
	return WithHeader("X-SUPPRESS-ALL-EVENTS", "True")
}

// WithHeader adds a header to the request, e.g. a correlation id. The
// headers the client manages (Authorization, Accept, Content-Type,
// Content-Length, Host) cannot be set this way.
func WithHeader(key, value string) RequestOption {
	return func(rc *requestConfig) error {
		canonical := textproto.CanonicalMIMEHeaderKey(key)
		if !httpheader.ValidName(key) {
			return fmt.Errorf("WithHeader: invalid header name %q", key)
		}
		if reservedHeaders[canonical] {
			return fmt.Errorf("WithHeader: %s is set by the client and cannot be overridden", canonical)
		}
		if !httpheader.ValidValue(value) {
			return fmt.Errorf("WithHeader: value of %s contains control characters", canonical)
		}
		if rc.header == nil {
			rc.header = make(http.Header)
		}
		rc.header.Add(key, value)
		return nil
	}
}

// WithRetries changes the client's [RetryPolicy] for one call, e.g.
// RetryPolicy{MaxRetries: NoRetries} to fail fast. Fields left zero keep
// the client's values.
func WithRetries(p RetryPolicy) RequestOption {
	return func(rc *requestConfig) error {
		rc.retry = &p // resolved over the client's policy when the call starts
		return nil
	}
}

// CaptureResponse stores the status, headers and decoded rate-limit headers
// of the call's last HTTP answer in dst, whether the call succeeded or ended
// in an [*APIError]. dst is left untouched when no answer came.
func CaptureResponse(dst *Response) RequestOption {
	return func(rc *requestConfig) error {
		if dst == nil {
			return fmt.Errorf("CaptureResponse: nil *Response")
		}
		rc.capture = dst
		return nil
	}
}

// Response describes one HTTP answer of the API.
type Response struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Header holds the answer's headers.
	Header http.Header
	// RateLimit holds the decoded X-Rate-Limit-* headers.
	RateLimit RateLimit
}

func applyRequestOptions(opts []RequestOption) (requestConfig, error) {
	var rc requestConfig
	for _, opt := range opts {
		if opt == nil {
			return rc, fmt.Errorf("nil RequestOption")
		}
		if err := opt(&rc); err != nil {
			return rc, err
		}
	}
	return rc, nil
}

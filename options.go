package billing

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/billingapi/billing-go/internal/httpheader"
)

// Option configures a [Client]. Options are checked by [NewClient].
type Option func(*clientConfig) error

// WithBaseURL sets the address of the API, e.g. "https://billing.example.com".
// It is required. The URL must be absolute and use https, except for loopback
// hosts (localhost, 127.0.0.0/8, ::1), which may use http for tests against
// a local fake. It must not carry credentials, a query or a fragment, and
// must not end in /v1: the SDK adds the /v1 prefix to every path itself.
func WithBaseURL(raw string) Option {
	return func(c *clientConfig) error {
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("WithBaseURL: %w", errors.Unwrap(err))
		}
		switch {
		case !u.IsAbs() || u.Host == "":
			return fmt.Errorf("WithBaseURL: %q is not an absolute URL", raw)
		case u.User != nil:
			return fmt.Errorf("WithBaseURL: the URL must not carry credentials; the API key is given to NewClient")
		case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
			return fmt.Errorf("WithBaseURL: the URL must not have a query or fragment")
		case u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())):
			return fmt.Errorf("WithBaseURL: scheme must be https (http is allowed only for loopback hosts), got %q", u.Scheme)
		}
		u.Path = strings.TrimRight(u.Path, "/")
		u.RawPath = ""
		if strings.HasSuffix(strings.ToLower(u.Path), "/v1") {
			return fmt.Errorf("WithBaseURL: leave /v1 out of the base URL; the SDK adds it to every path")
		}
		c.baseURL = u
		return nil
	}
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// WithHTTPClient makes the client send requests through hc, which it
// keeps and reads but never copies or changes. hc's Transport is read
// when each request goes out (nil means http.DefaultTransport, read then
// too, as net/http does), and its Jar, CheckRedirect and Timeout when each
// call starts; so a change to hc after NewClient, such as
// httpmock.ActivateNonDefault(hc), applies to the next request, reads and
// writes alike. The caller's settings win: its Transport (proxies, TLS
// settings, instrumentation, a mock), Jar and Timeout are used, and
// [WithTimeout], given too, replaces that Timeout; without either, the
// client keeps hc.Timeout even when it is zero (no timeout). Applied on
// top: a redirect policy that refuses redirects to another host (after
// hc's own CheckRedirect, if any, allows them), and none at all for
// writes. Change hc only while no request is in flight: net/http's own
// client has the same rule.
//
// Without this option the client uses a pool of connections of its own,
// tuned for prefetching, unless the program has replaced
// http.DefaultTransport with a RoundTripper that is not a
// *http.Transport (httpmock.Activate, a recorder, instrumentation): then
// every request goes through that one, read when the request goes out,
// whether it was replaced before or after NewClient.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *clientConfig) error {
		if hc == nil {
			return fmt.Errorf("WithHTTPClient: nil *http.Client")
		}
		c.userHTTPClient = hc
		return nil
	}
}

// WithTimeout bounds each HTTP attempt, from dialling to the last byte of
// the body (including a streamed PDF); retries get a fresh timeout each.
// Bound a whole call, retries included, with the context instead. The
// default is [DefaultTimeout]; d must be positive.
func WithTimeout(d time.Duration) Option {
	return func(c *clientConfig) error {
		if d <= 0 {
			return fmt.Errorf("WithTimeout: must be positive, got %s", d)
		}
		c.timeout = d
		c.timeoutSet = true
		return nil
	}
}

// WithRetryPolicy sets the client's retry policy; see [RetryPolicy] for
// which requests are retried. Fields left zero keep the value the client
// has so far ([DefaultRetryPolicy]'s, or an earlier option's), so
// RetryPolicy{MaxBackoff: time.Second} changes only the cap; say
// RetryPolicy{MaxRetries: NoRetries} to turn retries off.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *clientConfig) error {
		resolved, err := p.resolve(c.retry)
		if err != nil {
			return fmt.Errorf("WithRetryPolicy: %w", err)
		}
		c.retry = resolved
		return nil
	}
}

// WithLogger makes the client log each HTTP attempt to l: operation (see
// [Operation]), method, path (without query), status or error, attempt
// number and duration. Successful attempts are logged at Debug level,
// failed ones at Warn. Nothing else is logged: no headers, no bodies,
// never the API key. Without this option the client is silent. To count
// or trace attempts rather than log them, see [WithAttemptObserver].
func WithLogger(l *slog.Logger) Option {
	return func(c *clientConfig) error {
		if l == nil {
			return fmt.Errorf("WithLogger: nil *slog.Logger")
		}
		c.logger = l
		return nil
	}
}

// WithUserAgent puts product (e.g. "invoice-sync/1.4") in front of the SDK's
// own User-Agent, which is kept so that the API's operators can tell which
// SDK version sent a request.
func WithUserAgent(product string) Option {
	return func(c *clientConfig) error {
		if strings.TrimSpace(product) == "" {
			return fmt.Errorf("WithUserAgent: empty user agent")
		}
		if !httpheader.ValidValue(product) {
			return fmt.Errorf("WithUserAgent: user agent contains control characters")
		}
		c.userAgentExtra = strings.TrimSpace(product)
		return nil
	}
}

// DefaultMaxResponseBytes bounds a response body unless
// [WithMaxResponseBytes] says otherwise: a page of 1,000 invoices with
// their charges is a few MiB, so 64 MiB leaves room without letting a
// broken or hostile server exhaust memory.
const DefaultMaxResponseBytes = 64 << 20

// WithMaxResponseBytes bounds how much of a successful answer the client
// reads: a JSON body, or the stream of a draft-invoice PDF. Beyond n bytes
// the call fails with an error that matches [ErrResponseTooLarge]. Error
// bodies are always read to at most 1 MiB. n must be positive.
func WithMaxResponseBytes(n int64) Option {
	return func(c *clientConfig) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxResponseBytes: must be positive, got %d", n)
		}
		c.maxResponseBytes = n
		return nil
	}
}

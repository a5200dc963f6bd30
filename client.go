package billing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/billingapi/billing-go/internal/httpheader"
	"github.com/billingapi/billing-go/internal/throttle"
)

// Version is the version of this SDK, sent in the User-Agent header.
const Version = "0.2.0"

// DefaultTimeout bounds one HTTP attempt, from dialling to the end of the
// body, when [WithTimeout] is not given.
const DefaultTimeout = 30 * time.Second

// Client talks to the billing API with one API key. Build it with
// [NewClient]; it is safe for concurrent use, and its services share it.
// Its calls share the waits the service asks for (a 429, a spent
// rate-limit window): see [RetryPolicy].
type Client struct {
	// cfg is behind a pointer so that printing a Client by value shows an
	// address, never the API key.
	cfg *clientConfig

	// Invoices lists, reads and writes off invoices.
	Invoices *InvoicesService
	// InvoiceSummaries lists a customer's invoice summaries.
	InvoiceSummaries *InvoiceSummariesService
	// DraftInvoices reads draft invoices.
	DraftInvoices *DraftInvoicesService
	// PaymentMethods replaces credit cards and creates wallet agreements.
	PaymentMethods *PaymentMethodsService
	// SalesTrackingCodes creates sales tracking codes.
	SalesTrackingCodes *SalesTrackingCodesService
	// SubscriptionItems lists the items of subscription products.
	SubscriptionItems *SubscriptionItemsService
	// Bulk previews bulk price changes and submits bulk jobs.
	Bulk *BulkService
}

type clientConfig struct {
	// authorization is "Basic <API key>", behind a pointer: fmt prints a
	// pointer inside a struct as an address, whatever the verb, so no way
	// of printing the client can reach the key.
	authorization *string
	// keyRun is the key's longest run of letters and digits
	// (longestPlainRun), which every answer is searched for
	// (scrubEchoes); behind a pointer for the same reason.
	keyRun  *string
	baseURL *url.URL
	// transport is defaultTransport or, with WithHTTPClient,
	// callerTransport: both choose the transport when each request goes
	// out, never when the client is built. Each call's http.Client is
	// made from it (httpClient).
	transport http.RoundTripper
	userAgent string
	retry     RetryPolicy
	logger    *slog.Logger
	// observers are called after each attempt, with the log line.
	observers []func(context.Context, Attempt)
	now       func() time.Time
	// maxResponseBytes bounds a successful answer's body.
	maxResponseBytes int64
	// listBodies recycles the buffers list pages are read into.
	listBodies bodyPool
	// pause holds every request of the client while the service has
	// asked it to wait (see pauseFor and RetryPolicy).
	pause *throttle.Gate
	// paused is set when the pause is first closed (holdFor): until then
	// an attempt has no pause to wait for and does not ask the gate.
	paused atomic.Bool

	// set by options; userHTTPClient is read at each call, never copied
	userHTTPClient *http.Client
	timeout        time.Duration
	timeoutSet     bool // WithTimeout was given: it wins over the caller's client
	userAgentExtra string
}

// service is what every service struct holds: the client it belongs to.
type service struct {
	client *Client
}

// NewClient returns a client that authenticates with apiKey, sent exactly as
// given in "Authorization: Basic <apiKey>" (the API's rule; it is not the
// base64 of a user and password). [WithBaseURL] is required; every option is
// checked here, and the first bad one is returned as an error that names it.
//
// The transport is chosen when each request goes out, not here: a test
// double installed with httpmock.Activate (or any other RoundTripper that
// is not a *http.Transport put in http.DefaultTransport) or with
// httpmock.ActivateNonDefault(hc) on the client given to [WithHTTPClient]
// takes every request that follows, whether it was installed before or
// after NewClient. A *http.Transport put in http.DefaultTransport is not
// used: the client keeps its own pool (see [WithHTTPClient]).
func NewClient(apiKey string, opts ...Option) (*Client, error) {
	if apiKey == "" {
		return nil, optionError(errors.New("apiKey is empty"))
	}
	if !httpheader.ValidValue(apiKey) || strings.TrimSpace(apiKey) != apiKey {
		// Said without echoing the key: it must never reach an error string.
		return nil, optionError(errors.New("apiKey contains white space or control characters"))
	}
	header := "Basic " + apiKey
	keyRun := longestPlainRun(apiKey)
	cfg := &clientConfig{
		authorization: &header,
		keyRun:        &keyRun,
		retry:         DefaultRetryPolicy(),
		logger:        slog.New(slog.DiscardHandler),
		now:           time.Now,
		timeout:       DefaultTimeout,

		maxResponseBytes: DefaultMaxResponseBytes,
		pause:            throttle.NewGate(nil),
	}
	for _, opt := range opts {
		if opt == nil {
			return nil, optionError(errors.New("nil Option"))
		}
		if err := opt(cfg); err != nil {
			return nil, optionError(err)
		}
	}
	if cfg.baseURL == nil {
		return nil, optionError(errors.New("WithBaseURL is required"))
	}
	if cfg.userHTTPClient != nil {
		cfg.transport = callerTransport{hc: cfg.userHTTPClient}
	} else {
		cfg.transport = defaultTransport{pool: newPool()}
	}
	cfg.userAgent = "billing-go/" + Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if cfg.userAgentExtra != "" {
		cfg.userAgent = cfg.userAgentExtra + " " + cfg.userAgent
	}

	c := &Client{cfg: cfg}
	s := service{client: c}
	c.Invoices = &InvoicesService{s}
	c.DraftInvoices = &DraftInvoicesService{s}
	c.PaymentMethods = &PaymentMethodsService{s}
	c.SalesTrackingCodes = &SalesTrackingCodesService{s}
	c.InvoiceSummaries = &InvoiceSummariesService{s}
	c.SubscriptionItems = &SubscriptionItemsService{s}
	c.Bulk = &BulkService{s}
	return c, nil
}

// optionError is the error of NewClient: it matches [ErrInvalidParams],
// like every error the SDK returns before sending anything.
func optionError(err error) error { return &newClientError{err} }

type newClientError struct{ err error }

func (e *newClientError) Error() string        { return "billing: NewClient: " + e.err.Error() }
func (e *newClientError) Unwrap() error        { return e.err }
func (e *newClientError) Is(target error) bool { return target == ErrInvalidParams }

// BaseURL returns the base URL the client sends requests to.
func (c *Client) BaseURL() string { return c.cfg.baseURL.String() }

// String describes the client without its API key.
func (c Client) String() string {
	if c.cfg == nil {
		return "billing.Client{}"
	}
	return "billing.Client{BaseURL: " + c.cfg.baseURL.String() + "}"
}

// GoString describes the client without its API key, for %#v.
func (c Client) GoString() string { return c.String() }

// Format prints String for every verb, so that no verb can print the
// client's fields.
func (c Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// errRedirectRefused is wrapped by the error of a redirect that would leave
// the API's scheme and host.
var errRedirectRefused = errors.New("redirect to another host refused")

// maxRedirects is how many same-host redirects one attempt of a read
// follows, as net/http's default.
const maxRedirects = 10

// errRedirectLoop is wrapped by the error of an attempt that met more than
// maxRedirects redirects. It is final: asking again would go round the
// same loop, each time sending maxRedirects requests.
var errRedirectLoop = fmt.Errorf("redirect loop: stopped after %d redirects", maxRedirects)

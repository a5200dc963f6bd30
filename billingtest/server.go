package billingtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/churn"
	"github.com/billingapi/billing-go/billingtest/internal/pagecache"
	"github.com/billingapi/billing-go/billingtest/internal/scale"
)

// Server is an in-memory fake of the billing API, for tests of code that
// uses the SDK. Like [httptest.Server] it listens on loopback; like a
// real account it keeps state, which tests seed and inspect through Go
// methods. It is safe for concurrent use.
type Server struct {
	// URL is the fake's base URL, e.g. http://127.0.0.1:52123, to give to
	// [billing.WithBaseURL]. A fake from [NewInProcess] has
	// https://billingtest.invalid, which only [Server.Transport] serves; one
	// from [NewHandler] has none.
	URL string

	cfg config
	ts  *httptest.Server
	// errorIDs numbers error answers when [WithNumberedErrors] asks for it.
	errorIDs atomic.Int64

	// mu guards store and churn; its version, bumped by every write
	// lock, tells pages which state of them an answer is of.
	mu    pagecache.RWMutex
	store *store
	churn *churn.State // guarded by mu; nil without WithChurn
	pages *pagecache.Cache

	logMu        sync.Mutex
	requests     []Request
	requestBytes int64 // the logSize of requests, summed
	events       []Event

	faults      faults
	custom      customRoutes
	limiter     limiter
	pageBuffers scale.PageBuffers

	// closing is closed by Close: injected delays end on it.
	closing   chan struct{}
	closeOnce sync.Once

	// inProcess: made by NewInProcess, served through Transport alone.
	inProcess bool
	// pipe serves Transport; made on its first call.
	pipeOnce sync.Once
	pipe     *pipeServer
}

// NewServer starts a fake on a loopback port. Close it when done, e.g.
// with t.Cleanup(srv.Close). It panics on a bad option, as
// httptest.NewServer panics when it cannot listen: both are mistakes in the
// test itself.
func NewServer(opts ...Option) *Server {
	s, err := NewHandler(opts...)
	if err != nil {
		panic("billingtest: " + err.Error())
	}
	s.ts = httptest.NewServer(s)
	s.URL = s.ts.URL
	return s
}

// NewHandler returns a fake that serves through the returned Server's
// Handler without listening anywhere (URL is empty), for tests that mount
// it themselves, e.g. in cmd/billing-fake.
func NewHandler(opts ...Option) (*Server, error) {
	s := &Server{cfg: defaultConfig(), closing: make(chan struct{}), pages: pagecache.New(pageCacheEntries, pageCacheBytes)}
	for _, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("nil Option")
		}
		if err := opt(&s.cfg); err != nil {
			return nil, err
		}
	}
	if s.cfg.sampleAccount && !s.cfg.clockGiven {
		s.cfg.now = sampleAccountNow // before seeding, which reads the clock
	}
	s.store = newStore()
	if s.cfg.churn != nil {
		s.churn = churn.New(churn.Settings(*s.cfg.churn))
	}
	for _, seed := range s.cfg.seed {
		if err := seed(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Handler returns the fake as an http.Handler.
func (s *Server) Handler() http.Handler { return s }

// Close shuts the server down and blocks until all its requests are done,
// those served through [Server.Transport] included, which it refuses from
// then on. Requests held by an injected delay ([Fault.Delay]) end at once
// with 503 and "Connection: close", so that Close never waits for a
// delay; a delay injected after Close ends at once too.
//
// A fake from [NewHandler] keeps serving after Close, without delays,
// through its Handler and its Transport:
// call Close when the server that mounts it shuts down, e.g. with
// http.Server.RegisterOnShutdown(fake.Close), so that shutting down
// waits for no delay (cmd/billing-fake does).
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closing) })
	if s.ts != nil {
		s.ts.Close()
	}
	if s.ts != nil || s.inProcess {
		s.Transport() // so that the Transport refuses from now on
		s.pipe.shutdown()
	}
}

// APIKey returns the key the fake accepts.
func (s *Server) APIKey() string { return s.cfg.apiKey }

// Client returns an SDK client wired to the fake: its URL, its API key and
// retry waits of milliseconds, so that tests of retries do not sleep:
// billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond,
// MaxBackoff: 10 * time.Millisecond, MaxRetryAfter: 5 * time.Second}.
// opts are applied after those and change only what they name: with
// billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 4}) the waits
// stay short. A fake from [NewInProcess] is reached through
// [Server.Transport]; one from NewServer through its socket. It panics if
// opts are invalid, or if the fake is from NewHandler, which has no URL.
func (s *Server) Client(opts ...billing.Option) *billing.Client {
	if s.URL == "" {
		panic("billingtest: Client needs a listening fake: use NewServer or NewInProcess, or serve Handler yourself and build a client with billing.WithBaseURL")
	}
	base := []billing.Option{
		billing.WithBaseURL(s.URL),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, MaxRetryAfter: 5 * time.Second}),
	}
	switch {
	case s.ts != nil:
		base = append(base, billing.WithHTTPClient(s.ts.Client()))
	case s.inProcess:
		base = append(base, billing.WithHTTPClient(&http.Client{Transport: s.Transport()}))
	}
	c, err := billing.NewClient(s.cfg.apiKey, append(base, opts...)...)
	if err != nil {
		panic("billingtest: Client: " + err.Error())
	}
	return c
}

func (s *Server) now() time.Time { return s.cfg.now().UTC() }

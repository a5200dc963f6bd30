package billingtest

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/control"
)

// DefaultAPIKey is the key the fake accepts unless [WithAPIKey] says
// otherwise.
const DefaultAPIKey = "billingtest-key"

// Paging limits of the fake. The reference leaves the default page size
// open and says the maximum is never below 1,000.
const (
	// DefaultPageSize is the page size when a request gives none.
	DefaultPageSize = 100
	// MaxPageSize is the largest page the fake returns; a larger pageSize
	// is cut down to it, as the reference says the service does.
	MaxPageSize = 1000
)

// Default throttling of the fake, per API key. They are high enough that
// ordinary tests never meet them; lower them to test throttling.
const (
	// DefaultRateLimitPerMinute is the requests one key may make per
	// minute unless [WithRateLimit] says otherwise.
	DefaultRateLimitPerMinute = 100_000
	// DefaultRateLimitPerDay is the requests one key may make per day
	// unless [WithRateLimit] says otherwise.
	DefaultRateLimitPerDay = 10_000_000
	// DefaultPDFRateLimitPerMinute throttles the draft-invoice PDF, which
	// the reference says is throttled on its own.
	DefaultPDFRateLimitPerMinute = 60
)

// Option configures a [Server].
type Option func(*config) error

type config struct {
	apiKey             string
	now                func() time.Time
	clockGiven         bool // by WithClock: the sample account's clock gives way
	sampleAccount      bool // WithSampleAccount
	writeOffPermission bool
	perMinute, perDay  int
	pdfPerMinute       int
	walletProviders    []string
	requestLogLimit    int
	requestLogBytes    int64
	hosts              control.Hosts // see WithAllowedHosts
	numberedErrors     bool
	logger             *slog.Logger
	seed               []func(*Server) error

	// What the reference leaves open (see variations.go).
	tie                     TieOrder
	pageCap                 int
	honestCap, otherHeaders bool
	stamps, unknownMembers  bool
	unlistedEnums           bool
	stampDigits             int
	stampZone               string

	churn *Churn // see churn.go; nil: the data changes only when asked
}

func defaultConfig() config {
	return config{
		apiKey:             DefaultAPIKey,
		now:                time.Now,
		writeOffPermission: true,
		perMinute:          DefaultRateLimitPerMinute,
		perDay:             DefaultRateLimitPerDay,
		pdfPerMinute:       DefaultPDFRateLimitPerMinute,
		walletProviders:    []string{"Paypal"},
		requestLogLimit:    10_000,
		requestLogBytes:    DefaultRequestLogBytes,
		logger:             slog.New(slog.DiscardHandler),
	}
}

// option is the Option that fails with err, when not nil, or else
// applies set.
func option(err error, set func(*config)) Option {
	return func(c *config) error {
		if err != nil {
			return err
		}
		set(c)
		return nil
	}
}

// refuseIf is the error of format and args when bad, else nil.
func refuseIf(bad bool, format string, args ...any) error {
	if bad {
		return fmt.Errorf(format, args...)
	}
	return nil
}

// WithAPIKey sets the only API key the fake accepts.
func WithAPIKey(key string) Option {
	return option(refuseIf(key == "", "WithAPIKey: empty key"), func(c *config) { c.apiKey = key })
}

// WithClock makes the fake read the time from now: invoice statuses
// (Overdue), timestamps it stamps on writes, and rate-limit windows all
// follow it. Tests that advance a fake clock control all three.
func WithClock(now func() time.Time) Option {
	return option(refuseIf(now == nil, "WithClock: nil func"), func(c *config) { c.now, c.clockGiven = now, true })
}

// WithWriteOffPermission turns the account's write-off permission on or
// off (default on). Off, a write-off answers 404, as the reference says.
func WithWriteOffPermission(on bool) Option {
	return option(nil, func(c *config) { c.writeOffPermission = on })
}

// WithRateLimit sets how many requests one API key may make per minute
// and per day (defaults [DefaultRateLimitPerMinute] and
// [DefaultRateLimitPerDay]); beyond either the fake answers 429 with
// Retry-After. Every answer carries the
// X-Rate-Limit-{Limit,Remaining,Reset}-{Minute,Day} headers, Reset in
// seconds until the window ends. A limit of 0 turns that window off: it
// is not counted, never answers 429 and sends no headers, e.g.
// WithRateLimit(0, 0) for a load test of code that makes more requests
// than the defaults allow.
func WithRateLimit(perMinute, perDay int) Option {
	return option(refuseIf(perMinute < 0 || perDay < 0, "WithRateLimit: limits must not be negative, got %d and %d", perMinute, perDay),
		func(c *config) { c.perMinute, c.perDay = perMinute, perDay })
}

// WithPDFRateLimit sets how many draft-invoice PDFs one key may read per
// minute before the fake answers 429 (default
// [DefaultPDFRateLimitPerMinute]); 0 turns this limit off.
func WithPDFRateLimit(perMinute int) Option {
	return setCount(perMinute, func(c *config) *int { return &c.pdfPerMinute }, "WithPDFRateLimit: limit must not be negative, got %d")
}

// setCount is an Option that sets the count field gives to n, or fails
// with the message of format when n is negative.
func setCount[N int | int64](n N, field func(*config) *N, format string) Option {
	return option(refuseIf(n < 0, format, n), func(c *config) { *field(c) = n })
}

// WithWalletProviders sets the wallet providers whose billing-agreement
// path (POST /v1/{provider}) the fake serves; default "Paypal". The path
// segment is compared without regard to case, as the service compares
// paths (/v1/paypal is Paypal), and the created method records the
// spelling given here. A path that is another route's (/v1/Invoices) is
// never taken for a provider.
func WithWalletProviders(providers ...string) Option {
	providers = append([]string(nil), providers...)
	return option(refuseIf(len(providers) == 0, "WithWalletProviders: no provider"), func(c *config) { c.walletProviders = providers })
}

// WithRequestLogLimit sets how many requests [Server.Requests] keeps, the
// most recent ones (default 10,000), so that long runs stay flat in memory.
func WithRequestLogLimit(n int) Option {
	return setCount(n, func(c *config) *int { return &c.requestLogLimit }, "WithRequestLogLimit: negative limit %d")
}

// WithNumberedErrors numbers the ErrorId of error answers 1, 2, 3, ...
// in the order they are sent, for tests that tell errors apart by it. By
// default ErrorId is 0, as in every answer of the live service seen.
func WithNumberedErrors() Option {
	return option(nil, func(c *config) { c.numberedErrors = true })
}

// WithLogger makes the fake log each request it serves at Debug level.
func WithLogger(l *slog.Logger) Option {
	return option(refuseIf(l == nil, "WithLogger: nil logger"), func(c *config) { c.logger = l })
}

// WithFixtures seeds the fake from a JSON fixtures file; see
// [Server.LoadFixtures] for its schema. A missing or invalid file makes
// [NewServer] panic with the error (which says where the file is wrong)
// and [NewHandler] return it.
func WithFixtures(path string) Option {
	return option(nil, func(c *config) { c.seed = append(c.seed, func(s *Server) error { return s.LoadFixturesFile(path) }) })
}

// WithGenerated seeds the fake with generated data; see [Server.Generate].
func WithGenerated(opts GenerateOptions) Option {
	return option(nil, func(c *config) { c.seed = append(c.seed, func(s *Server) error { return s.Generate(opts) }) })
}

// Command billing-fake runs the billingtest fake of the billing API as a
// standalone HTTP server, for tools and tests in any language.
//
// Usage:
//
//	billing-fake [-addr 127.0.0.1:8080] [-api-key KEY] [-fixtures FILE]
//	             [-generate N] [-seed S] [-writeoff-permission=true]
//	             [-numbered-errors] [-allowed-hosts NAME,...] [-v]
//	             [-rate-limit-minute N] [-rate-limit-day N] [-pdf-rate-limit-minute N]
//	             [-tie-order id|id-desc|insertion|random]
//	             [-page-cap N [-page-cap-honest]] [-other-paging-headers]
//	             [-timestamp-digits D [-timestamp-zone Z]] [-unknown-members]
//	             [-unlisted-enum-values]
//	             [-all-variations N]
//	             [-churn-inserts N] [-churn-deletes N] [-churn-rekeys N]
//	             [-churn-modifies N] [-churn-seed S] [-churn-every N]
//	             [-churn-keep-count] [-churn-aim]
//	billing-fake [-fixtures FILE] [-generate N] [-seed S] -dump-fixtures FILE
//	billing-fake -version
//
// The first line it prints is its base URL; give it to a client with the
// API key (default "billingtest-key"). Listening on every interface
// (-addr 0.0.0.0:8080 or [::]:8080), it prints the loopback address with
// the port (http://127.0.0.1:8080), which a client on the same host can
// use:
//
//	curl -H 'Authorization: Basic billingtest-key' "$URL/v1/Invoices?pageSize=2"
//
// The control API under /_fake/ (see package billingtest) shows and
// changes the fake's state over HTTP, for tests in any language:
//
//	curl -H 'Authorization: Basic billingtest-key' "$URL/_fake/state"
//
// It serves only requests whose Host is localhost, a loopback address or
// the address the request arrived on, so that a web page cannot drive it
// through DNS rebinding; -allowed-hosts adds the names it is reached by
// from containers or other machines (e.g. -allowed-hosts billing-fake),
// or "*" for any.
//
// It throttles each API key as the service does, by default at
// 100,000 requests a minute, 10,000,000 a day and 60 draft PDFs a minute,
// answering 429 with Retry-After beyond them: -rate-limit-minute,
// -rate-limit-day and -pdf-rate-limit-minute set those limits, 0 turns
// one off (e.g. -rate-limit-minute 0 -rate-limit-day 0 for a load test of
// your own job).
//
// -dump-fixtures writes the data the other flags seed (generated, loaded
// or both) as a fixtures file, "-" for stdout, and exits without serving:
// a starting point for hand-written fixtures.
//
// The variation flags make the fake another service the API reference
// allows, where the reference leaves the behaviour open (see package
// billingtest, "Variations"): the order of rows with equal sort keys, a
// smaller page cap said in X-PageSize or not, the other reading of
// X-NextPage and X-MaxPageIndex, timestamps with 0 to 7 fractional digits
// with or without a zone, members and enum values the reference does not
// list. Without them it behaves as by default.
//
// The churn flags make it a busy account (see billingtest's WithChurn):
// before list answers it inserts, deletes, re-keys and modifies a few
// rows of the list, seeded by -churn-seed, every -churn-every list
// requests; -churn-keep-count pairs deletes with inserts so that X-Count
// stays, and -churn-aim aims the changes at the range the list's query
// reads on its sort field.
//
// It stops on SIGINT and SIGTERM within a fraction of a second, whatever
// its clients are doing, and exits 0: requests in flight have a quarter
// of a second to finish (those held by an injected delay answer 503 at
// once), then the connections still open, such as those of clients that
// stalled in the middle of a request, are closed, and a line on stderr
// says how many.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/billingapi/billing-go/billingtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "billing-fake:", err)
		os.Exit(1)
	}
}

// run serves until ctx is done. It writes the base URL as the first line
// of stdout once the listener is open, so a caller can wait for it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runWith(ctx, args, stdout, stderr, nil)
}

// runWith is run with connState, when not nil, told of every change of
// state of the server's connections (see serve): tests wait on it to know
// that their clients are in before they stop the server.
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, connState func(net.Conn, http.ConnState)) error {
	fs := flag.NewFlagSet("billing-fake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	apiKey := fs.String("api-key", billingtest.DefaultAPIKey, "the API key the fake accepts")
	fixtures := fs.String("fixtures", "", "JSON fixtures file to seed from (schema: billingtest.Server.LoadFixtures)")
	generate := fs.Int("generate", 0, "number of invoices to generate, with customers and the rest in proportion")
	seed := fs.Uint64("seed", 1, "seed of the generator; the same seed gives the same data")
	writeOff := fs.Bool("writeoff-permission", true, "whether the account may write off invoices (off: 404)")
	numberedErrors := fs.Bool("numbered-errors", false, "number the ErrorId of error answers 1, 2, ... (default 0, as the live service)")
	dump := fs.String("dump-fixtures", "", "write the seeded data as a fixtures file (- for stdout) and exit")
	allowedHosts := fs.String("allowed-hosts", "", "comma-separated host names, besides localhost, loopback addresses and the listen address, that requests may give in Host (\"*\": any)")
	verbose := fs.Bool("v", false, "log every request to stderr")
	version := fs.Bool("version", false, "print the version and exit")
	perMinute := fs.Int("rate-limit-minute", billingtest.DefaultRateLimitPerMinute, "requests one API key may make per minute before 429 (0: no limit)")
	perDay := fs.Int("rate-limit-day", billingtest.DefaultRateLimitPerDay, "requests one API key may make per day before 429 (0: no limit)")
	pdfPerMinute := fs.Int("pdf-rate-limit-minute", billingtest.DefaultPDFRateLimitPerMinute, "draft-invoice PDFs one API key may read per minute before 429 (0: no limit)")
	varied := addVariationFlags(fs)
	churn := addChurnFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil // asking for help is not a failure; the usage is printed
		}
		return err
	}
	if *version {
		fmt.Fprintln(stdout, versionLine())
		return nil
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *generate < 0 {
		return fmt.Errorf("-generate must not be negative")
	}
	for name, v := range map[string]int{"-rate-limit-minute": *perMinute, "-rate-limit-day": *perDay, "-pdf-rate-limit-minute": *pdfPerMinute} {
		if v < 0 {
			return fmt.Errorf("%s must not be negative (0 turns the limit off)", name)
		}
	}

	opts := []billingtest.Option{billingtest.WithAPIKey(*apiKey), billingtest.WithWriteOffPermission(*writeOff)}
	// Throttling: negative limits are refused by the options, naming them.
	opts = append(opts, billingtest.WithRateLimit(*perMinute, *perDay), billingtest.WithPDFRateLimit(*pdfPerMinute))
	if *fixtures != "" {
		opts = append(opts, billingtest.WithFixtures(*fixtures))
	}
	if *generate > 0 {
		opts = append(opts, billingtest.WithGenerated(billingtest.GenerateOptions{Seed: *seed, Invoices: *generate}))
	}
	if *allowedHosts != "" {
		hosts := strings.Split(*allowedHosts, ",")
		for i := range hosts {
			hosts[i] = strings.TrimSpace(hosts[i])
		}
		opts = append(opts, billingtest.WithAllowedHosts(hosts...))
	}
	if *numberedErrors {
		opts = append(opts, billingtest.WithNumberedErrors())
	}
	variations, err := varied.options()
	if err != nil {
		return err
	}
	opts = append(opts, variations...)
	churned, err := churn.option()
	if err != nil {
		return err
	}
	if churned != nil {
		opts = append(opts, churned)
	}
	if *verbose {
		opts = append(opts, billingtest.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	fake, err := billingtest.NewHandler(opts...)
	if err != nil {
		return err
	}
	if *dump != "" {
		return dumpFixtures(fake, *dump, stdout)
	}
	if *generate > 0 || *fixtures != "" {
		// Seeding a large account leaves garbage (a million invoices:
		// some 300 MB beside 820 MB of live data), which the collector
		// would otherwise collect, marking all the live data, during the
		// first requests. Collecting it now, and giving the memory back
		// to the system, lowers the peak and spares those requests.
		debug.FreeOSMemory()
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := newHTTPServer(fake.Handler())
	// Requests held by an injected delay end when stopping begins: a
	// delay may be long, and stopping gives requests only a short grace.
	srv.RegisterOnShutdown(fake.Close)
	fmt.Fprintln(stdout, baseURL(ln.Addr()))
	return serve(ctx, srv, ln, stderr, connState)
}

// dumpFixtures writes the fake's state to path, or to stdout for "-".
func dumpFixtures(fake *billingtest.Server, path string, stdout io.Writer) error {
	if path == "-" {
		return fake.DumpFixtures(stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fake.DumpFixtures(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/coverage"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// The phases of a measured process, in order. After each, the process
// writes the coverage counters of that phase alone to a directory of that
// name and clears them, so that one process tells which functions each
// phase ran.
const (
	phaseSetup  = "setup"  // process start; with an in-process fake, starting and seeding it
	phaseClient = "client" // billing.NewClient
	phaseOp     = "op"     // the one operation
)

var phases = []string{phaseSetup, phaseClient, phaseOp}

// fakeSeed picks the generated data; any seed would do, a fixed one keeps
// runs comparable.
const fakeSeed = 21

// startFake starts a fake holding n generated invoices and returns it with
// the id of one of them.
func startFake(n int) (*billingtest.Server, int64, error) {
	srv := billingtest.NewServer(billingtest.WithGenerated(billingtest.GenerateOptions{Seed: fakeSeed, Invoices: n}))
	// Generated ids are assigned in sequence across entities, invoices
	// after customers and subscriptions: the first one that is an invoice.
	for id := int64(1); id <= 100*int64(n)+1000; id++ {
		if _, ok := srv.Invoice(id); ok {
			return srv, id, nil
		}
	}
	srv.Close()
	return nil, 0, errors.New("the generated fake holds no invoice")
}

// serve runs the fake for measured processes of its own: it prints the
// fake's URL and an invoice id on one line, and serves until stdin closes.
func serve(invoices int) error {
	srv, id, err := startFake(invoices)
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Println(srv.URL, id)
	_, err = io.Copy(io.Discard, os.Stdin)
	return err
}

// measure is a measured process: it runs the setup, one operation, and
// writes the counters of each phase under dir. With url empty, the fake
// runs in this process, started in the setup phase; otherwise the client
// talks to the fake at url, in another process, and invoiceID is the
// invoice to read.
func measure(op operation, dir, url string, invoiceID int64, w workload) error {
	if url == "" {
		srv, id, err := startFake(w.invoices)
		if err != nil {
			return err
		}
		defer srv.Close()
		url, invoiceID = srv.URL, id
	}
	w.invoiceID = invoiceID
	if err := checkpoint(dir, phaseSetup); err != nil {
		return err
	}

	c, err := billing.NewClient(billingtest.DefaultAPIKey, billing.WithBaseURL(url))
	if err != nil {
		return err
	}
	if err := checkpoint(dir, phaseClient); err != nil {
		return err
	}

	if err := op.run(context.Background(), c, w); err != nil {
		return fmt.Errorf("%s: %w", op.name, err)
	}
	return checkpoint(dir, phaseOp)
}

// checkpoint writes the counters since the last checkpoint to dir/name
// and clears them.
func checkpoint(dir, name string) error {
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	if err := coverage.WriteMetaDir(d); err != nil {
		return fmt.Errorf("not a coverage build (go build -cover -covermode=atomic): %w", err)
	}
	if err := coverage.WriteCountersDir(d); err != nil {
		return err
	}
	return coverage.ClearCounters()
}

// readServeLine reads the line serve prints.
func readServeLine(r io.Reader) (url string, id int64, err error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		return "", 0, fmt.Errorf("the fake's process printed no URL: %w", err)
	}
	if _, err := fmt.Sscan(line, &url, &id); err != nil {
		return "", 0, fmt.Errorf("the fake's process printed %q: %w", line, err)
	}
	return url, id, nil
}

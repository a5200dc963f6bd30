package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/billingapi/billing-go/billingtest"
)

// startFake runs the command in-process on a free port and returns its
// base URL and a function that stops it and returns run's error.
func startFake(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("reading the base URL: %v (run: %v)", err, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return strings.TrimSpace(line), func() error { cancel(); return <-done }
}

// parseFlags parses args with the flags add defines on a new flag set, and
// returns what add returned.
func parseFlags[T any](t *testing.T, args []string, add func(*flag.FlagSet) T) T {
	t.Helper()
	fs := flag.NewFlagSet("billing-fake", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	v := add(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return v
}

// flagErrorChecked checks the error of turning args into options: one
// naming bad when bad is set, none otherwise. It reports whether the case
// ends there (an error was wanted, or one came).
func flagErrorChecked(t *testing.T, args []string, err error, bad string) bool {
	t.Helper()
	switch {
	case bad != "" && (err == nil || !strings.Contains(err.Error(), bad)):
		t.Errorf("%q: %v, want an error naming %s", args, err, bad)
	case bad == "" && err != nil:
		t.Errorf("%q: %v", args, err)
	}
	return bad != "" || err != nil
}

func TestServesGeneratedDataAndStopsCleanly(t *testing.T) {
	t.Parallel()
	url, stop := startFake(t, "-generate", "50", "-seed", "7", "-api-key", "k1")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line = %q, want the base URL", url)
	}

	req, _ := http.NewRequest("GET", url+"/v1/Invoices?pageSize=10&pageNumber=1", nil)
	req.Header.Set("Authorization", "Basic k1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var invoices []map[string]any
	err = json.NewDecoder(resp.Body).Decode(&invoices)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, decode error %v", resp.StatusCode, err)
	}
	if len(invoices) != 10 {
		t.Errorf("got %d invoices, want a page of 10", len(invoices))
	}
	for _, h := range []string{"X-Count", "X-MaxCount", "X-CurrentPage", "X-NextPage", "X-PreviousPage", "X-PageSize", "X-MaxPageIndex", "X-SortOrder", "X-SortExpression", "X-Rate-Limit-Remaining-Minute"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("header %s missing", h)
		}
	}
	if got := resp.Header.Get("X-Count"); got != "50" {
		t.Errorf("X-Count = %q, want 50", got)
	}

	unauth, err := http.Get(url + "/v1/Invoices")
	if err != nil {
		t.Fatal(err)
	}
	unauth.Body.Close()
	if unauth.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a key: %d, want 401", unauth.StatusCode)
	}

	if err := stop(); err != nil {
		t.Errorf("run returned %v after a clean stop", err)
	}
	client := &http.Client{Timeout: 2 * time.Second}
	if _, err := client.Get(url + "/v1/Invoices"); err == nil {
		t.Error("the server still answers after stopping")
	}
}

func TestFlagErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-generate", "-1"}, {"extra"}, {"-nosuchflag"}, {"-fixtures", "/nonexistent/fixtures.json"}} {
		err := run(context.Background(), args, io.Discard, io.Discard)
		if err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

func TestHelpExitsCleanly(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"-h", "-help", "--help"} {
		var usage bytes.Buffer
		if err := run(context.Background(), []string{arg}, io.Discard, &usage); err != nil {
			t.Errorf("run(%s) = %v, want nil", arg, err)
		}
		if !strings.Contains(usage.String(), "-dump-fixtures") {
			t.Errorf("run(%s) printed %q, want the usage", arg, usage.String())
		}
	}
}

func TestDumpFixturesLoadsBack(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "seed.json")
	if err := run(context.Background(), []string{"-generate", "40", "-seed", "3", "-dump-fixtures", path}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Invoices, DraftInvoices, CreditCards, BulkJobs []struct{ ID int64 }
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Invoices) != 40 || len(doc.DraftInvoices) == 0 || len(doc.CreditCards) == 0 || len(doc.BulkJobs) == 0 {
		t.Errorf("dump has %d invoices, %d drafts, %d cards, %d jobs; want 40 and some of each", len(doc.Invoices), len(doc.DraftInvoices), len(doc.CreditCards), len(doc.BulkJobs))
	}
	fake, err := billingtest.NewHandler(billingtest.WithFixtures(path))
	if err != nil {
		t.Fatalf("the dump does not load: %v", err)
	}
	if n := fake.Counts()["invoices"]; n != 40 {
		t.Errorf("%d invoices loaded from the dump, want 40", n)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-fixtures", path, "-dump-fixtures", "-"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), data) {
		t.Error("dumping a loaded dump to stdout gives another document")
	}
}

// TestControlAPIOverTheBinary finds generated ids the way a test in
// another language would: through GET /_fake/state.
func TestControlAPIOverTheBinary(t *testing.T) {
	t.Parallel()
	url, stop := startFake(t, "-generate", "20", "-seed", "9")
	defer stop()
	get := func(path string) *http.Response {
		req, _ := http.NewRequest("GET", url+path, nil)
		req.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := get("/_fake/state")
	var state struct {
		DraftInvoices []struct{ ID int64 }
	}
	err := json.NewDecoder(resp.Body).Decode(&state)
	resp.Body.Close()
	if err != nil || len(state.DraftInvoices) == 0 {
		t.Fatalf("state: %v, %d drafts", err, len(state.DraftInvoices))
	}
	pdf := get("/v1/draftinvoices/pdf/" + strconv.FormatInt(state.DraftInvoices[0].ID, 10))
	pdf.Body.Close()
	if pdf.StatusCode != http.StatusOK || pdf.Header.Get("Content-Type") != "application/pdf" {
		t.Errorf("PDF of draft %d: %d %s", state.DraftInvoices[0].ID, pdf.StatusCode, pdf.Header.Get("Content-Type"))
	}
}

// A web page cannot drive the fake through DNS rebinding: a Host that is
// not the fake's is refused, unless -allowed-hosts names it.
func TestAllowedHostsFlag(t *testing.T) {
	t.Parallel()
	call := func(url, host string) int {
		req, _ := http.NewRequest("GET", url+"/_fake/state", nil)
		req.Host = host
		req.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	url, stop := startFake(t)
	for host, want := range map[string]int{"attacker.example": 400, "billing-fake:8080": 400, "localhost": 200, strings.TrimPrefix(url, "http://"): 200} {
		if got := call(url, host); got != want {
			t.Errorf("default flags, Host %s: status %d, want %d", host, got, want)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	url, stop = startFake(t, "-allowed-hosts", "billing-fake, fake.internal")
	for host, want := range map[string]int{"attacker.example": 400, "billing-fake:8080": 200, "fake.internal": 200} {
		if got := call(url, host); got != want {
			t.Errorf("-allowed-hosts, Host %s: status %d, want %d", host, got, want)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"-allowed-hosts", "fake:80"}, io.Discard, io.Discard); err == nil {
		t.Error("-allowed-hosts with a port accepted")
	}
}

// SIGTERM while a request waits in an injected delay of an hour: the
// delay ends with 503, and run returns nil (exit status 0) within the
// shutdown grace. Before, shutting down waited the whole 10 s grace and
// run failed with its deadline (exit status 1).
func TestShutdownEndsInjectedDelays(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-v"}, outW, errW)
		outW.Close()
		errW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the base URL: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	url := strings.TrimSpace(line)
	delaying := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(errR)
		signalled := false
		for sc.Scan() {
			if !signalled && strings.Contains(sc.Text(), "billingtest fault: delaying") {
				close(delaying)
				signalled = true
			}
		}
		_, _ = io.Copy(io.Discard, errR)
	}()

	fault, _ := http.NewRequest("POST", url+"/_fake/faults", strings.NewReader(`{"route":"Invoices.List","delayMilliseconds":3600000}`))
	fault.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
	resp, err := http.DefaultClient.Do(fault)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("injecting the delay: %v %v", err, resp)
	}
	resp.Body.Close()

	answered := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("GET", url+"/v1/Invoices", nil)
		req.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	<-delaying // the request is held by the delay
	cancel()   // as SIGTERM does, through signal.NotifyContext
	if err := <-done; err != nil {
		t.Fatalf("run returned %v on shutdown, want nil (exit status 0)", err)
	}
	if got := <-answered; got != http.StatusServiceUnavailable {
		t.Errorf("the delayed request got %d, want 503", got)
	}
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
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

func TestServesGeneratedDataAndStopsCleanly(t *testing.T) {
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
	for _, args := range [][]string{{"-generate", "-1"}, {"extra"}, {"-nosuchflag"}, {"-fixtures", "/nonexistent/fixtures.json"}} {
		err := run(context.Background(), args, io.Discard, io.Discard)
		if err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

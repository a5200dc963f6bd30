//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/billingapi/billing-go/billingtest"
)

// asProgram is the environment variable that makes the test binary run
// billing-fake's main instead of the tests (see TestMain), so that a test
// can signal the program as a user's shell or container runtime does.
const asProgram = "BILLING_FAKE_TEST_AS_PROGRAM"

func TestMain(m *testing.M) {
	if os.Getenv(asProgram) == "1" {
		main() // exits 1 on failure
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// SIGTERM to the program with sixty clients stalled mid-body: it exits
// with status 0, promptly. Before, it exited 1 after 10 s. The stalled
// connections are all accepted before the signal: a request on a
// further connection is answered first, and the kernel hands connections
// to accept in the order they were made. (Whether their headers were read
// yet is not observable from outside; an accepted connection holds up a
// plain Shutdown either way, and TestStopClosesStalledConnections waits
// for the handlers.)
func TestSIGTERMWithStalledClientsExitsZero(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-addr", "127.0.0.1:0")
	// A binary built with -race sleeps a second on exit unless told not to.
	cmd.Env = append(os.Environ(), asProgram+"=1", "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := false
	defer func() {
		if !exited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the base URL: %v; stderr: %s", err, stderr.String())
	}
	url := strings.TrimSpace(line)
	hostport := strings.TrimPrefix(url, "http://")
	for range stalledClients {
		stallMidBody(t, hostport)
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	req, _ := http.NewRequest("GET", url+"/v1/Invoices", nil)
	req.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a request beside the stalled ones: status %d", resp.StatusCode)
	}

	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	exited = true
	took := time.Since(start)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("exit status %d after SIGTERM, want 0; stderr: %s", exit.ExitCode(), stderr.String())
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("exited %v after SIGTERM", took)
	if took > stopBound {
		t.Errorf("the program took %v to exit after SIGTERM, want well under %v", took, stopBound)
	}
	if !closedLine.MatchString(stderr.String()) {
		t.Errorf("stderr %q does not say that it closed the stalled connections", stderr.String())
	}
}

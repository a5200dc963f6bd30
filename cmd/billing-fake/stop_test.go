package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/billingapi/billing-go/billingtest"
)

// stalledClients is how many clients of the report stall in the middle
// of a request body.
const stalledClients = 60

// stopBound bounds how long stopping may take. Stopping takes about
// shutdownGrace; before, clients stalled mid-body held it up for its
// whole timeout of 10 s, and then run failed (exit status 1). The bound
// is generous so that a loaded machine cannot fail the test, and still
// half of the old wait.
const stopBound = 5 * time.Second

// stallMidBody opens a connection to the server at hostport and sends a
// request whose headers announce a body of 1,000 bytes, and only 10 bytes
// of the body, as the report's clients did.
func stallMidBody(t *testing.T, hostport string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", hostport)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	req := "POST /v1/invoices/writeoff HTTP/1.1\r\n" +
		"Host: " + hostport + "\r\n" +
		"Authorization: Basic " + billingtest.DefaultAPIKey + "\r\n" +
		"Content-Type: application/json\r\n" +
		"Content-Length: 1000\r\n\r\n" +
		`{"invoice"` // 10 of the 1,000 bytes
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	return conn
}

// connStates records the server's connections by state, for a test to
// wait until its clients are where it wants them.
type connStates struct {
	mu      sync.Mutex
	state   map[net.Conn]http.ConnState
	changed chan struct{} // closed and replaced at every change
}

func newConnStates() *connStates {
	return &connStates{state: map[net.Conn]http.ConnState{}, changed: make(chan struct{})}
}

func (s *connStates) hook(c net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state[c] = state
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitFor waits until want says yes to the count of connections in each
// state, or fails the test after a minute.
func (s *connStates) waitFor(t *testing.T, what string, want func(map[http.ConnState]int) bool) {
	t.Helper()
	deadline := time.NewTimer(time.Minute) // only a failure waits this long
	defer deadline.Stop()
	for {
		s.mu.Lock()
		counts := map[http.ConnState]int{}
		for _, st := range s.state {
			counts[st]++
		}
		changed := s.changed
		s.mu.Unlock()
		if want(counts) {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("waiting for %s: connections by state %v", what, counts)
		}
	}
}

// closedByServer fails the test unless the server closed conn: a read
// ends with EOF or a reset, not with the client's own deadline.
func closedByServer(t *testing.T, conn net.Conn, name string) {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(stopBound)); err != nil {
		t.Fatal(err)
	}
	_, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("%s: the connection is still open after the stop", name)
	}
}

var closedLine = regexp.MustCompile(`billing-fake: closed (\d+) connection\(s\) still open`)

// Clients stalled in every way, at once: sixty in the middle of a request
// body (as in the report), one in the middle of a request line and one
// that sent nothing. Every one of them is accepted and, for the sixty,
// in the handler (their headers read) before the stop, as the server's
// connection states show. The stop takes about the grace, run returns nil
// (exit status 0), and every stalled connection is closed.
func TestStopClosesStalledConnections(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	states := newConnStates()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer // written only by run's goroutine, read after it returns
	done := make(chan error, 1)
	go func() {
		done <- runWith(ctx, []string{"-addr", "127.0.0.1:0"}, outW, &stderr, states.hook)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the base URL: %v (run: %v)", err, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	hostport := strings.TrimPrefix(strings.TrimSpace(line), "http://")

	var conns []net.Conn
	for range stalledClients {
		conns = append(conns, stallMidBody(t, hostport))
	}
	states.waitFor(t, "the clients stalled mid-body to be in their handlers", func(n map[http.ConnState]int) bool {
		return n[http.StateActive] == stalledClients
	})
	halfLine, err := net.Dial("tcp", hostport)
	if err != nil {
		t.Fatal(err)
	}
	defer halfLine.Close()
	if _, err := io.WriteString(halfLine, "GET /v1/Invoi"); err != nil {
		t.Fatal(err)
	}
	silent, err := net.Dial("tcp", hostport)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	states.waitFor(t, "the other two clients to be accepted", func(n map[http.ConnState]int) bool {
		return n[http.StateActive] == stalledClients && n[http.StateNew] == 2
	})

	start := time.Now()
	cancel() // as SIGTERM does, through signal.NotifyContext
	err = <-done
	took := time.Since(start)
	if err != nil {
		t.Fatalf("run returned %v on stopping, want nil (exit status 0)", err)
	}
	t.Logf("stopped in %v", took)
	if took > stopBound {
		t.Errorf("stopping took %v with stalled clients, want well under %v", took, stopBound)
	}
	for i, c := range conns {
		closedByServer(t, c, fmt.Sprintf("client %d, stalled mid-body", i+1))
	}
	closedByServer(t, halfLine, "the client stalled mid-line")
	closedByServer(t, silent, "the silent client")

	// A plain Shutdown closes a connection that has sent nothing once it
	// is 5 s old, so on a machine slow enough the two new ones may be gone
	// before the grace ends; the sixty busy ones never are.
	m := closedLine.FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("stderr %q does not say what was closed", stderr.String())
	}
	if n, _ := strconv.Atoi(m[1]); n < stalledClients || n > stalledClients+2 {
		t.Errorf("stderr says %d connections were closed, want %d to %d", n, stalledClients, stalledClients+2)
	}
	if c, err := net.Dial("tcp", hostport); err == nil {
		c.Close()
		t.Error("the server still accepts connections after stopping")
	}
}

// A stop with nothing in flight says nothing and returns nil.
func TestStopWithoutStalledClientsIsSilent(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, outW, &stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the base URL: %v (run: %v)", err, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	req, _ := http.NewRequest("GET", strings.TrimSpace(line)+"/v1/Invoices", nil)
	req.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req) // leaves an idle keep-alive connection
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run returned %v, want nil", err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr = %q, want nothing", stderr.String())
	}
}

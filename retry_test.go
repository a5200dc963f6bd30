package billing_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
)

// The retry rule, one budget of attempts per call: which statuses and
// errors are retried for a read and for a write, the policy's fields, and
// the answers cut off or lost on the way. Writes in particular are tested
// in writes_at_most_once_test.go, the waits a server asks for in
// throttling_test.go, redirects in redirects_test.go.

// scriptServer answers the n-th request (from 0) with script[n], and the
// last entry from then on. An entry of 0 drops the connection after
// reading the request.
func scriptServer(t *testing.T, script ...int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		n := int(hits.Add(1)) - 1
		status := script[min(n, len(script)-1)]
		if status == 0 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status >= 400 {
			_, _ = io.WriteString(w, errorBody(status, "Api Error", "scripted failure"))
			return
		}
		_, _ = io.WriteString(w, `{"id":7,"outstandingBalance":0}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// writeOff writes off invoice 7.
func writeOff(c *billing.Client) error {
	_, err := c.Invoices.WriteOff(context.Background(), &billing.WriteOffParams{InvoiceID: 7, Amount: billing.Ptr(decimal.NewFromInt(5))})
	return err
}

func TestRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		op           func(*billing.Client) error
		script       []int
		wantAttempts int32
		wantErr      error // nil: success
		wantUnknown  bool
	}{
		{"read retried on 503 then succeeds", readInvoice, []int{503, 200}, 2, nil, false},
		{"read retried on 429", readInvoice, []int{429, 200}, 2, nil, false},
		{"read retried on 500, 502, 504", readInvoice, []int{500, 502, 504}, 3, billing.ErrServer, false},
		{"read retried on a dropped connection", readInvoice, []int{0, 200}, 2, nil, false},
		{"read not retried on 400", readInvoice, []int{400, 200}, 1, billing.ErrBadRequest, false},
		{"read not retried on 404", readInvoice, []int{404, 200}, 1, billing.ErrNotFound, false},
		{"read not retried on 409", readInvoice, []int{409, 200}, 1, billing.ErrConflict, false},
		{"read gives the last APIError when retries run out", readInvoice, []int{503}, 3, billing.ErrServer, false},
		{"write retried on 429", writeOff, []int{429, 200}, 2, nil, false},
		{"write not retried on 503, outcome unknown", writeOff, []int{503, 200}, 1, billing.ErrServer, true},
		{"write not retried on 500, outcome unknown", writeOff, []int{500, 200}, 1, billing.ErrServer, true},
		{"write not retried on 502, outcome unknown", writeOff, []int{502, 200}, 1, billing.ErrServer, true},
		{"write not retried on 504, outcome unknown", writeOff, []int{504, 200}, 1, billing.ErrServer, true},
		{"write 400 proves nothing was done", writeOff, []int{400, 200}, 1, billing.ErrBadRequest, false},
		{"write 404 proves nothing was done", writeOff, []int{404, 200}, 1, billing.ErrNotFound, false},
		{"write 409 proves nothing was done", writeOff, []int{409, 200}, 1, billing.ErrConflict, false},
		{"write not retried once the request reached the server", writeOff, []int{0, 200}, 1, billing.ErrOutcomeUnknown, true},
		{"write 429 until retries run out", writeOff, []int{429}, 3, billing.ErrRateLimited, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, hits := scriptServer(t, tt.script...)
			err := tt.op(newLoopbackClient(t, srv.URL))
			if got := hits.Load(); got != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, tt.wantAttempts)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got := errors.Is(err, billing.ErrOutcomeUnknown); got != tt.wantUnknown {
				t.Errorf("ErrOutcomeUnknown = %v, want %v (%v)", got, tt.wantUnknown, err)
			}
			var apiErr *billing.APIError
			if errors.As(err, &apiErr) && (len(apiErr.Errors) != 1 || apiErr.Errors[0].Value != "scripted failure") {
				t.Errorf("APIError lost the body: %+v", apiErr)
			}
		})
	}
}

// A partly filled policy keeps the defaults for what it leaves zero;
// NoRetries is the way to say none.
func TestRetryPolicyKeepsDefaultsForZeroFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		policy   billing.RetryPolicy
		wantSent int32
	}{
		{billing.RetryPolicy{MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}, 3}, // the default 2 retries
		{billing.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}, 2},
		{billing.RetryPolicy{MaxRetries: billing.NoRetries}, 1},
	}
	for _, tt := range tests {
		srv, hits := scriptServer(t, 503)
		c := newLoopbackClient(t, srv.URL, billing.WithRetryPolicy(tt.policy))
		if err := readInvoice(c); !errors.Is(err, billing.ErrServer) {
			t.Fatalf("%+v: err = %v", tt.policy, err)
		}
		if got := hits.Load(); got != tt.wantSent {
			t.Errorf("%+v: sent %d requests, want %d", tt.policy, got, tt.wantSent)
		}
	}
	if _, err := billing.NewClient(testKey, billing.WithBaseURL(testBaseURL), billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: -2})); !errors.Is(err, billing.ErrInvalidParams) {
		t.Errorf("MaxRetries -2: err = %v, want ErrInvalidParams", err)
	}
}

func TestPerRequestRetryOverride(t *testing.T) {
	t.Parallel()
	srv, hits := scriptServer(t, 503, 200)
	c := newLoopbackClient(t, srv.URL)
	_, err := c.Invoices.Get(context.Background(), 7, nil, billing.WithRetries(billing.RetryPolicy{MaxRetries: billing.NoRetries}))
	if !errors.Is(err, billing.ErrServer) || hits.Load() != 1 {
		t.Errorf("err = %v after %d attempts, want ErrServer after 1", err, hits.Load())
	}
}

// step is one scripted answer of budgetServer.
type step string

const (
	step503 step = "503"
	stepCut step = "cut" // a 200 whose body breaks off
	stepOK  step = "ok"
)

// budgetServer answers the n-th request with script[n] (the last step
// repeats) and counts the requests.
func budgetServer(t *testing.T, body string, script ...step) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(hits.Add(1)) - 1
		s := script[min(n, len(script)-1)]
		w.Header().Set("Content-Type", "application/json")
		switch s {
		case step503:
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, errorBody(503, "Api Error", "busy"))
		case stepCut:
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = io.WriteString(w, body[:len(body)/2])
			// Flushed first: a connection cut before any answer is retried
			// by net/http itself, which is not what this step is about.
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // cuts the connection mid-body
		case stepOK:
			_, _ = io.WriteString(w, body)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// A call makes at most MaxRetries+1 attempts, whatever mixture of failed
// answers and cut-off bodies it meets: the re-read of a cut-off answer is
// one of those attempts.
func TestOneRetryBudgetPerCall(t *testing.T) {
	t.Parallel()
	policy := billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}
	tests := []struct {
		name     string
		op       hostileOp
		body     string
		script   []step
		wantHits int32
		wantErr  bool
	}{
		{"get: 503, 503, cut", opGet, `{"id":7,"invoiceNumber":7}`, []step{step503, step503, stepCut}, 3, true},
		{"list: 503, 503, cut", opList, `[{"id":7},{"id":8}]`, []step{step503, step503, stepCut}, 3, true},
		{"get: cut, cut, cut", opGet, `{"id":7,"invoiceNumber":7}`, []step{stepCut}, 3, true},
		{"list: cut, 503, cut", opList, `[{"id":7},{"id":8}]`, []step{stepCut, step503, stepCut}, 3, true},
		{"list: cut, 503, ok", opList, `[{"id":7},{"id":8}]`, []step{stepCut, step503, stepOK}, 3, false},
		{"get: cut, ok", opGet, `{"id":7,"invoiceNumber":7}`, []step{stepCut, stepOK}, 2, false},
		{"write: cut is never re-sent", opWriteOff, `{"id":7,"invoiceNumber":7}`, []step{stepCut, stepOK}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, hits := budgetServer(t, tt.body, tt.script...)
			err := noHang(t, func() error {
				return tt.op.call(context.Background(), hostileClient(t, srv.URL, billing.WithRetryPolicy(policy)))
			})
			if got := hits.Load(); got != tt.wantHits {
				t.Errorf("the server received %d requests, want %d", got, tt.wantHits)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tt.wantErr)
			}
			if tt.op.write && !errors.Is(err, billing.ErrOutcomeUnknown) {
				t.Errorf("err = %v, want ErrOutcomeUnknown for a write whose answer was cut off", err)
			}
		})
	}
}

// A read whose answer is cut off mid-body is asked again; a write is not,
// and says its outcome is unknown.
func TestCutOffAnswers(t *testing.T) {
	t.Parallel()
	full := `[{"id":1},{"id":2},{"id":3}]`
	cut := func(n *int) func(r *http.Request) (*http.Response, error) {
		return func(r *http.Request) (*http.Response, error) {
			*n++
			if *n == 1 {
				resp := httpmock.NewStringResponse(200, full)
				resp.Body = io.NopCloser(io.MultiReader(strings.NewReader(full[:10]), errReader{io.ErrUnexpectedEOF}))
				return resp, nil
			}
			return httpmock.NewStringResponse(200, full), nil
		}
	}
	t.Run("read", func(t *testing.T) {
		t.Parallel()
		w := newWire(t, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
		n := 0
		w.onResponder("GET", "/v1/Invoices", cut(&n))
		page, err := w.client.Invoices.List(context.Background(), nil)
		if err != nil || len(page.Items) != 3 || w.sent() != 2 {
			t.Fatalf("page = %v, err = %v after %d requests", page, err, w.sent())
		}
	})
	t.Run("write", func(t *testing.T) {
		t.Parallel()
		w := newWire(t, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
		n := 0
		w.onResponder("POST", "/v1/invoices/writeoff", cut(&n))
		_, err := w.client.Invoices.WriteOff(context.Background(), &billing.WriteOffParams{InvoiceID: 1, Amount: billing.Ptr(decimal.NewFromInt(1))})
		if !errors.Is(err, billing.ErrOutcomeUnknown) || w.sent() != 1 {
			t.Fatalf("err = %v after %d requests; want ErrOutcomeUnknown after 1", err, w.sent())
		}
	})
	t.Run("syntax errors are not retried", func(t *testing.T) {
		t.Parallel()
		w := newWire(t, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
		w.on("GET", "/v1/Invoices", 200, `[{"id":1},}`)
		_, err := w.client.Invoices.List(context.Background(), nil)
		var de *billing.DecodeError
		if !errors.As(err, &de) || w.sent() != 1 {
			t.Fatalf("err = %v after %d requests", err, w.sent())
		}
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// A server that closes the connection in the middle of its headers: a read
// is retried and then fails with a *RequestError; a write is not retried
// and says its outcome is unknown.
func TestHostileConnectionClosedMidHeaders(t *testing.T) {
	t.Parallel()
	for _, op := range []hostileOp{opGet, opList, opWriteOff, opPDF} {
		t.Run(op.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				_, _ = io.Copy(io.Discard, r.Body)
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					return
				}
				_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: applic")
				_ = buf.Flush()
				_ = conn.Close()
			}))
			defer srv.Close()
			err := noHang(t, func() error { return op.call(context.Background(), hostileClient(t, srv.URL)) })
			var reqErr *billing.RequestError
			if !errors.As(err, &reqErr) {
				t.Fatalf("err = %v (%T), want a *billing.RequestError", err, err)
			}
			want := int32(2)
			if op.write {
				want = 1
			}
			if n := hits.Load(); n != want || reqErr.Attempts != int(want) {
				t.Errorf("requests = %d, Attempts = %d, want %d", n, reqErr.Attempts, want)
			}
			if got := errors.Is(err, billing.ErrOutcomeUnknown); got != op.write {
				t.Errorf("ErrOutcomeUnknown = %v, want %v: %v", got, op.write, err)
			}
		})
	}
}

// A write whose connection never opened is safe to retry: the server
// cannot have acted on it.
func TestWriteRetriedWhenConnectionNeverOpened(t *testing.T) {
	t.Parallel()
	var dials atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connection refused")}
	}}
	c := newLoopbackClient(t, "http://127.0.0.1:1", billing.WithHTTPClient(&http.Client{Transport: tr}))
	err := writeOff(c)
	if got := dials.Load(); got != 3 {
		t.Errorf("dials = %d, want 3 (1 + 2 retries)", got)
	}
	var reqErr *billing.RequestError
	if !errors.As(err, &reqErr) {
		t.Fatalf("err = %v (%T), want *billing.RequestError", err, err)
	}
	if errors.Is(err, billing.ErrOutcomeUnknown) {
		t.Errorf("a write that never left is not of unknown outcome: %v", err)
	}
	if reqErr.Attempts != 3 || reqErr.Method != "POST" || reqErr.Path != "/v1/invoices/writeoff" {
		t.Errorf("RequestError = %+v", reqErr)
	}
}

// TLS is verified with the system's roots, and a certificate that does
// not verify is final: retrying cannot mend it, so it is not retried.
func TestUntrustedCertificateIsRefusedAndNotRetried(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("a request reached a server whose certificate does not verify")
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	srv.StartTLS()
	defer srv.Close()
	c, err := billing.NewClient(testKey, billing.WithBaseURL(srv.URL), billing.WithRetryPolicy(fastRetries))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Invoices.Get(context.Background(), 7, nil)
	var certErr *tls.CertificateVerificationError
	if !errors.As(err, &certErr) {
		t.Fatalf("err = %v, want a certificate verification error", err)
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("connections = %d, want 1: a bad certificate is not retried", got)
	}
}

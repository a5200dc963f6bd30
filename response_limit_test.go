package billing_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	billing "github.com/billingapi/billing-go"
)

// How much of an answer the SDK reads: successful answers (JSON and the
// PDF stream) to WithMaxResponseBytes, failing with ErrResponseTooLarge
// rather than cutting them silently; error bodies to 1 MiB; and the memory
// held while reading stays near the limit.

func TestMaxResponseBytes(t *testing.T) {
	t.Parallel()
	body := `{"id":7,"notes":"` + strings.Repeat("x", 1000) + `"}`
	tests := []struct {
		name  string
		limit int64
		ok    bool
	}{
		{"well under", 10_000, true},
		{"exactly the body", int64(len(body)), true},
		{"one byte short", int64(len(body)) - 1, false},
		{"far under", 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, billing.WithMaxResponseBytes(tt.limit))
			w.on("GET", "/v1/Invoices/7", 200, body)
			_, err := w.client.Invoices.Get(context.Background(), 7, nil)
			if tt.ok && err != nil {
				t.Fatalf("err = %v", err)
			}
			if !tt.ok && !errors.Is(err, billing.ErrResponseTooLarge) {
				t.Fatalf("err = %v, want ErrResponseTooLarge", err)
			}
		})
	}
	if _, err := billing.NewClient(testKey, billing.WithBaseURL(testBaseURL), billing.WithMaxResponseBytes(0)); err == nil {
		t.Error("a zero limit was accepted")
	}
}

func TestMaxResponseBytesBoundsPages(t *testing.T) {
	t.Parallel()
	items := "[" + strings.Repeat(`{"id":1},`, 500) + `{"id":2}]`
	w := newWire(t, billing.WithMaxResponseBytes(1000))
	w.on("GET", "/v1/Invoices", 200, items)
	_, err := w.client.Invoices.List(context.Background(), nil)
	if !errors.Is(err, billing.ErrResponseTooLarge) {
		t.Fatalf("err = %v, want ErrResponseTooLarge", err)
	}
}

func TestMaxResponseBytesBoundsThePDFStream(t *testing.T) {
	t.Parallel()
	w := newWire(t, billing.WithMaxResponseBytes(64))
	w.on("GET", "/v1/draftInvoices/pdf/3", 200, "%PDF-1.4\n"+strings.Repeat("0", 200), "Content-Type", "application/pdf")
	rc, err := w.client.DraftInvoices.PDF(context.Background(), 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if !errors.Is(err, billing.ErrResponseTooLarge) || len(b) != 64 {
		t.Errorf("read %d bytes, err = %v; want 64 and ErrResponseTooLarge", len(b), err)
	}
}

// countingTransport counts, per answer, the body bytes the client read.
type countingTransport struct {
	base http.RoundTripper

	mu    sync.Mutex
	reads []*atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if resp != nil {
		n := new(atomic.Int64)
		c.mu.Lock()
		c.reads = append(c.reads, n)
		c.mu.Unlock()
		resp.Body = &countingBody{ReadCloser: resp.Body, n: n}
	}
	return resp, err
}

// most returns the largest number of bytes read from one answer, and how
// many answers there were.
func (c *countingTransport) most() (int64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var m int64
	for _, n := range c.reads {
		m = max(m, n.Load())
	}
	return m, len(c.reads)
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// endless is an endless body of a repeated byte, counting what was taken.
type endless struct {
	b     byte
	limit int64 // stop after this many bytes
	taken atomic.Int64
}

func (e *endless) Read(p []byte) (int, error) {
	left := e.limit - e.taken.Load()
	if left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	for i := range p {
		p[i] = e.b
	}
	e.taken.Add(int64(len(p)))
	return len(p), nil
}

// An error body is read to at most 1 MiB, however long the server makes it:
// the APIError still comes back, with an excerpt, and memory stays bounded.
func TestHostileErrorBodyIsReadToOneMiB(t *testing.T) {
	t.Parallel()
	const served = 256 << 20 // what the server would send if it were read whole
	for _, status := range []int{http.StatusBadRequest, http.StatusBadGateway} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			var written atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(status)
				body := &endless{b: 'x', limit: served}
				n, _ := io.Copy(w, body) // ends when the client hangs up
				written.Add(n)
			}))
			defer srv.Close()
			ct := &countingTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
			defer ct.base.(*http.Transport).CloseIdleConnections()
			c := hostileClient(t, srv.URL, billing.WithHTTPClient(&http.Client{Transport: ct}))

			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := noHang(t, func() error { return opGet.call(context.Background(), c) })
			runtime.ReadMemStats(&after)

			var apiErr *billing.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
				t.Fatalf("err = %v (%T), want an *APIError with status %d", err, err, status)
			}
			if !strings.HasPrefix(apiErr.Body, "xxxx") || len(apiErr.Body) > 512 {
				t.Errorf("Body excerpt has %d bytes (%.20q...), want a non-empty excerpt of at most 512", len(apiErr.Body), apiErr.Body)
			}
			most, answers := ct.most()
			if most > 1<<20 {
				t.Errorf("the client read %d bytes of one error body, want at most 1 MiB", most)
			}
			if most == 0 {
				t.Errorf("no body bytes were counted: the counting transport was not used")
			}
			if status == http.StatusBadGateway && answers != 2 {
				t.Errorf("answers = %d, want 2 (a 502 is retried once)", answers)
			}
			srv.Close() // waits for the handlers: written is final
			if w := written.Load(); w >= served/4 {
				t.Errorf("the server got %d of its %d bytes out: the client kept reading", w, served)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("the call allocated %d MiB for a 1 MiB bound", grew>>20)
			}
		})
	}
}

// A successful answer longer than WithMaxResponseBytes fails with
// ErrResponseTooLarge after reading no more than the limit; it is not
// retried, and a write that ran into it says its outcome is unknown.
func TestHostileBodyBeyondMaxResponseBytes(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	tests := []struct {
		op          hostileOp
		contentType string
		prefix      string
	}{
		{opGet, "application/json", `{"id":7,"notes":"`},
		{opList, "application/json", `[{"id":7,"notes":"`},
		{opWriteOff, "application/json", `{"id":7,"notes":"`},
		{opPDF, "application/pdf", "%PDF-1.4\n"},
	}
	for _, tt := range tests {
		t.Run(tt.op.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.Header().Set("Content-Type", tt.contentType)
				_, _ = io.WriteString(w, tt.prefix)
				_, _ = io.Copy(w, &endless{b: 'a', limit: 64 << 20})
			}))
			defer srv.Close()
			ct := &countingTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
			defer ct.base.(*http.Transport).CloseIdleConnections()
			c := hostileClient(t, srv.URL, billing.WithHTTPClient(&http.Client{Transport: ct}), billing.WithMaxResponseBytes(limit))

			err := noHang(t, func() error { return tt.op.call(context.Background(), c) })
			if !errors.Is(err, billing.ErrResponseTooLarge) {
				t.Fatalf("err = %v, want ErrResponseTooLarge", err)
			}
			if got := errors.Is(err, billing.ErrOutcomeUnknown); got != tt.op.write {
				t.Errorf("ErrOutcomeUnknown = %v, want %v: %v", got, tt.op.write, err)
			}
			if most, _ := ct.most(); most > limit+16 {
				t.Errorf("the client read %d bytes, want at most the limit (%d) and a probe", most, limit)
			}
			if n := hits.Load(); n != 1 {
				t.Errorf("requests = %d, want 1: a body over the limit is not fetched again", n)
			}
		})
	}
}

// heapAfterGC is the live heap.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// sampledBody samples the live heap while the SDK reads a body, every
// step bytes, and keeps the peak.
type sampledBody struct {
	io.ReadCloser
	read, next, step int64
	peak             *uint64
}

func (b *sampledBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.read += int64(n); b.read >= b.next {
		b.next += b.step
		*b.peak = max(*b.peak, heapAfterGC())
	}
	return n, err
}

type sampledTransport struct {
	base http.RoundTripper
	step int64
	peak uint64
}

func (s *sampledTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(r)
	if resp != nil {
		resp.Body = &sampledBody{ReadCloser: resp.Body, next: s.step, step: s.step, peak: &s.peak}
	}
	return resp, err
}

// Reading one resource, or one page, holds little more than the client's
// response limit however long the answer is: a 200 MB answer against a
// 16 MiB limit. Live heap is sampled as the body is read (after a GC), and
// the bytes allocated are counted; both are deterministic enough to bound.
// Not parallel: it measures the process's heap.
func TestMemoryStaysNearTheResponseLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips the memory test that reads four answers of 200 MB and samples the heap (not parallel); it runs without -short")
	}
	const limit = 16 << 20
	for _, tt := range []struct {
		op     hostileOp
		prefix string
	}{
		{opGet, `{"id":7,"notes":"`},
		{opList, `[{"id":7,"notes":"`},
	} {
		for _, declared := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/Content-Length %v", tt.op.name, declared), func(t *testing.T) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					if declared {
						w.Header().Set("Content-Length", strconv.Itoa(200e6))
					}
					_, _ = io.WriteString(w, tt.prefix)
					_, _ = io.Copy(w, &endless{b: 'a', limit: 200e6 - int64(len(tt.prefix))})
				}))
				defer srv.Close()
				tr := &sampledTransport{base: http.DefaultTransport.(*http.Transport).Clone(), step: 1 << 20}
				defer tr.base.(*http.Transport).CloseIdleConnections()
				c := hostileClient(t, srv.URL, billing.WithHTTPClient(&http.Client{Transport: tr}), billing.WithMaxResponseBytes(limit),
					billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}))

				base := heapAfterGC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				err := tt.op.call(context.Background(), c)
				runtime.ReadMemStats(&after)
				if !errors.Is(err, billing.ErrResponseTooLarge) {
					t.Fatalf("err = %v, want ErrResponseTooLarge", err)
				}
				held := int64(max(tr.peak, base) - base)
				allocated := after.TotalAlloc - before.TotalAlloc
				t.Logf("live heap at most %.1f MiB over the base, %.1f MiB allocated in all (limit %d MiB)", float64(held)/(1<<20), float64(allocated)/(1<<20), limit>>20)
				if held > limit*3/2 {
					t.Errorf("held %d bytes while reading, want at most 1.5x the limit (%d)", held, limit*3/2)
				}
				// Doubling up to the limit allocates twice the limit in all.
				if allocated > limit*21/10 {
					t.Errorf("allocated %d bytes, want at most 2.1x the limit (%d)", allocated, limit*21/10)
				}
				if declared && allocated > limit/10 {
					t.Errorf("allocated %d bytes for an answer that declared its length beyond the limit, want it refused unread", allocated)
				}
			})
		}
	}
}

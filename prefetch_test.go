package billing_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"go.uber.org/goleak"
)

// verifyNoLeaks fails the test if a goroutine it started outlives it. It
// is registered first so that it runs last, after the servers and their
// connections are closed.
func verifyNoLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// prefetchServer is a fake with n invoices, read in pages of size.
func prefetchServer(t *testing.T, n int) *billingtest.Server {
	t.Helper()
	srv := billingtest.NewServer(billingtest.WithGenerated(billingtest.GenerateOptions{Seed: 3, Invoices: n}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPrefetchYieldsWhatSequentialYields(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	verifyNoLeaks(t)
	srv := prefetchServer(t, 537)
	c := contractClient(t, srv)
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 20}}
	want, err := collect(t, c.Invoices.All(context.Background(), params))
	if err != nil || len(want) != 537 {
		t.Fatalf("sequential: %d ids, %v", len(want), err)
	}
	for _, n := range []int{2, 3, 8, 64} {
		t.Run(fmt.Sprint("prefetch ", n), func(t *testing.T) {
			srv.ClearRequests()
			got, err := collect(t, c.Invoices.All(context.Background(), params, billing.Prefetch(n)))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("prefetch(%d) yielded %d ids in another order or set than sequential", n, len(got))
			}
			if reqs := len(srv.Requests()); reqs != 27 {
				t.Errorf("requests = %d, want 27 (one per page, none wasted)", reqs)
			}
		})
	}
}

func TestPrefetchStopsOnBreakWithoutLeaks(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	verifyNoLeaks(t)
	srv := prefetchServer(t, 400)
	// Count requests where they start, in the client: one cancelled at the
	// break may still reach the server a moment later, which is fine.
	var started atomic.Int32
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		started.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := srv.Client(billing.WithHTTPClient(hc))
	n := 0
	for _, err := range c.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 10}}, billing.Prefetch(8)) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 25 {
			break
		}
	}
	// When the loop is over, the pipeline has stopped: no request starts
	// afterwards, and at most the first page, the window of 2×8 queued
	// pages and the pages launched while 25 items were yielded were
	// requested.
	before := started.Load()
	time.Sleep(50 * time.Millisecond)
	if after := started.Load(); after != before || after > 1+2*8+3 {
		t.Errorf("requests started: %d at the break, %d after it", before, after)
	}
}

func TestPrefetchStopsOnCancel(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	verifyNoLeaks(t)
	srv := prefetchServer(t, 400)
	c := contractClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var got error
	for _, err := range c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 10}}, billing.Prefetch(8)) {
		if err != nil {
			got = err
			break
		}
		if n++; n == 15 {
			cancel()
		}
	}
	if !errors.Is(got, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", got)
	}
}

func TestPrefetchYieldsErrorOnce(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	verifyNoLeaks(t)
	srv := prefetchServer(t, 300)
	// The first pages pass; the fourth request fails for good.
	var pageRequests atomic.Int32
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if pageRequests.Add(1) == 4 {
			if err := srv.InjectFault(billingtest.RouteInvoicesList, billingtest.Fault{Status: 500}); err != nil {
				t.Error(err)
			}
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := srv.Client(billing.WithHTTPClient(hc), billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}))
	errs, items := 0, 0
	for _, err := range c.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 10}}, billing.Prefetch(4)) {
		if err != nil {
			errs++
			if !errors.Is(err, billing.ErrServer) {
				t.Errorf("err = %v", err)
			}
			continue
		}
		items++
	}
	if errs != 1 {
		t.Errorf("errors yielded = %d, want exactly 1", errs)
	}
	if items%10 != 0 || items >= 300 {
		t.Errorf("items before the error = %d, want whole pages and fewer than all", items)
	}
}

// A 429 holds back every worker of the pipeline, not only the one that
// got it: no request may start while the server's wait is in force.
func TestPrefetchThrottlingPausesThePipeline(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	verifyNoLeaks(t)
	srv := prefetchServer(t, 300)
	var (
		count    atomic.Int32
		throttle atomic.Int64 // when the 429 came back, in UnixNano
		early    atomic.Int32
	)
	const wait = time.Second
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if at := throttle.Load(); at != 0 {
			// Margins well inside the wait: scheduling noise can only delay
			// a request, never make it start early.
			if since := time.Since(time.Unix(0, at)); since > 200*time.Millisecond && since < wait-200*time.Millisecond {
				early.Add(1)
			}
		}
		if count.Add(1) == 5 {
			resp := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"1"}}, Body: http.NoBody, Request: r}
			throttle.Store(time.Now().UnixNano())
			return resp, nil
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := srv.Client(billing.WithHTTPClient(hc))
	ids, err := collect(t, c.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 10}}, billing.Prefetch(8)))
	if err != nil || len(ids) != 300 {
		t.Fatalf("%d ids, %v", len(ids), err)
	}
	if early.Load() != 0 {
		t.Errorf("%d requests started while the pipeline should have been paused", early.Load())
	}
}

func TestPrefetchOptionValidation(t *testing.T) {
	t.Parallel()
	srv := prefetchServer(t, 10)
	for _, n := range []int{-1, 65} {
		_, err := collect(t, contractClient(t, srv).Invoices.All(context.Background(), nil, billing.Prefetch(n)))
		assertValidation(t, err, "RequestOption")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// inFlight is a transport that counts the requests on the wire, from
// RoundTrip until their answer's body has been read to the end or closed,
// and records the most at once. The first wide requests (but those
// alone says the pipeline needs answered before it can widen) wait at a
// barrier until wide requests are out, so that a pipeline that never
// reaches its width fails (after 10 s) instead of passing by luck; every
// seventh request gets a 503 (never the retry of one that got it), which
// the SDK retries within the same bound.
type inFlight struct {
	base    http.RoundTripper
	wide    int
	alone   func(*http.Request) bool
	now     atomic.Int32
	most    atomic.Int32
	started atomic.Int32
	waiting atomic.Int32
	barrier chan struct{}
	opened  sync.Once
	timeout atomic.Bool
	failed  sync.Map // URLs answered with a 503 once
}

func newInFlight(base http.RoundTripper, wide int, alone func(*http.Request) bool) *inFlight {
	return &inFlight{base: base, wide: wide, alone: alone, barrier: make(chan struct{})}
}

func (f *inFlight) RoundTrip(r *http.Request) (*http.Response, error) {
	n := f.now.Add(1)
	for m := f.most.Load(); n > m && !f.most.CompareAndSwap(m, n); m = f.most.Load() {
	}
	k := f.started.Add(1)
	if n >= int32(f.wide) {
		f.opened.Do(func() { close(f.barrier) })
	}
	if !f.alone(r) && f.waiting.Add(1) <= int32(f.wide) {
		select {
		case <-f.barrier:
		case <-time.After(10 * time.Second):
			f.timeout.Store(true) // never reached the width: fail, but do not hang
			f.opened.Do(func() { close(f.barrier) })
		}
	}
	if k%7 == 0 && f.failOnce(r.URL.String()) {
		return &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {"0"}}, Body: &doneBody{ReadCloser: http.NoBody, done: f.finish}, Request: r}, nil
	}
	resp, err := f.base.RoundTrip(r)
	if err != nil {
		f.finish()
		return nil, err
	}
	resp.Body = &doneBody{ReadCloser: resp.Body, done: f.finish}
	return resp, nil
}

func (f *inFlight) finish() { f.now.Add(-1) }

// failOnce reports whether the request for url has not been failed yet,
// and records that it now is: a retry is never failed again, so that no
// call runs out of retries whatever the interleaving.
func (f *inFlight) failOnce(url string) bool {
	_, failed := f.failed.LoadOrStore(url, true)
	return !failed
}

// doneBody calls done once, at the end of the body or when it is closed.
type doneBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *doneBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.done)
	}
	return n, err
}

func (b *doneBody) Close() error {
	b.once.Do(b.done)
	return b.ReadCloser.Close()
}

// TestPrefetchKeepsAtMostNRequestsInFlight: Prefetch(n), plain and
// stable, has at most n requests on the wire at any moment, retries
// included, and does reach n.
func TestPrefetchKeepsAtMostNRequestsInFlight(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	verifyNoLeaks(t)
	srv := prefetchServer(t, 2000)
	for _, tc := range []struct {
		name  string
		opts  func() []billing.IterOption
		alone func(*http.Request) bool
	}{
		// A plain iteration reads its first page alone, to learn the
		// number of pages.
		{"plain", func() []billing.IterOption { return nil }, func(r *http.Request) bool { return r.URL.Query().Get("pageNumber") == "0" }},
		// A stable one places its windows with one-item requests, which
		// the windows wait for.
		{"stable", func() []billing.IterOption { return []billing.IterOption{billing.Stable(new(billing.Cursor))} }, func(r *http.Request) bool {
			return r.URL.Query().Get("pageSize") == "1"
		}},
	} {
		for _, n := range []int{2, 5} {
			t.Run(fmt.Sprint(tc.name, " ", n), func(t *testing.T) {
				f := newInFlight(http.DefaultTransport, n, tc.alone)
				c := srv.Client(billing.WithHTTPClient(&http.Client{Transport: f}))
				opts := append(tc.opts(), billing.Prefetch(n))
				ids, err := collect(t, c.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 40}}, opts...))
				if err != nil || len(ids) != 2000 {
					t.Fatalf("%d ids, %v", len(ids), err)
				}
				if got := f.most.Load(); got != int32(n) || f.timeout.Load() {
					t.Errorf("at most %d requests in flight (barrier timed out: %v), want exactly %d at the most", got, f.timeout.Load(), n)
				}
			})
		}
	}
}

package billing_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// Every iterator and Count, sequential, prefetching and stable, run to the
// end, broken off, cancelled and failing: it stops as told, yields an
// error at most once, and leaves no goroutine behind (verifyNoLeaks, from
// prefetch_test.go, checks when the test and its servers are done).

// leakClientFailingAfterFirst is leakClient on a transport that answers
// every request after the first with a 500 and the API's error body, on a
// connection pool of its own, emptied before the leak check.
func leakClientFailingAfterFirst(t *testing.T, srv *billingtest.Server) *billing.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return srv.Client(
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second}),
		billing.WithHTTPClient(&http.Client{Transport: &failingAfterFirst{next: tr}}),
	)
}

// failingAfterFirst passes the first request to next and answers every
// later one with a 500 itself, whichever goroutine sends it and whenever:
// which requests fail does not depend on scheduling.
type failingAfterFirst struct {
	next http.RoundTripper
	sent atomic.Int32
}

func (f *failingAfterFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.sent.Add(1) == 1 {
		return f.next.RoundTrip(r)
	}
	if r.Body != nil {
		_ = r.Body.Close()
	}
	body := errorBody(http.StatusInternalServerError, "Api Error", "failing after the first request")
	return &http.Response{
		Status: "500 Internal Server Error", StatusCode: http.StatusInternalServerError,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       r,
	}, nil
}

// Each iterator, sequential and with Prefetch(8), run to the end, broken
// off after one item, cancelled after one item and failing after one item:
// it stops as told, yields an error at most once, and leaves no goroutine
// behind.
func TestNoLeaksIterators(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	type run struct {
		ids    []int64
		errs   []error
		cancel context.CancelFunc
		stable bool // pages hold only the items not yielded before
		items  bool // an All iterator: a cancel stops it at the next item
	}
	scenarios := []struct {
		name string
		// after is called with the first id yielded; it returns false to
		// break out of the loop.
		after func(srv *billingtest.Server, route billingtest.Route, r *run) bool
		check func(t *testing.T, r *run)
		// client, when set, replaces leakClient.
		client func(t *testing.T, srv *billingtest.Server) *billing.Client
	}{
		{"to the end", func(*billingtest.Server, billingtest.Route, *run) bool { return true }, func(t *testing.T, r *run) {
			if len(r.errs) != 0 || len(r.ids) != leakItems {
				t.Fatalf("%d ids, errors %v; want %d ids", len(r.ids), r.errs, leakItems)
			}
			for i := 1; i < len(r.ids); i++ {
				if r.ids[i] <= r.ids[i-1] {
					t.Fatalf("ids out of order at %d: %v", i, r.ids)
				}
			}
		}, nil},
		{"early break", func(*billingtest.Server, billingtest.Route, *run) bool { return false }, func(t *testing.T, r *run) {
			if len(r.errs) != 0 || len(r.ids) != 1 {
				t.Fatalf("%d ids, errors %v; want 1 id", len(r.ids), r.errs)
			}
		}, nil},
		{"cancelled", func(_ *billingtest.Server, _ billingtest.Route, r *run) bool { r.cancel(); return true }, func(t *testing.T, r *run) {
			if len(r.errs) != 1 || !errors.Is(r.errs[0], context.Canceled) {
				t.Fatalf("errors %v, want context.Canceled once", r.errs)
			}
			if len(r.ids) >= leakItems {
				t.Fatalf("%d ids after cancelling at the first", len(r.ids))
			}
			if r.items && len(r.ids) != 1 {
				t.Fatalf("%d ids after cancelling at the first, want 1: the rest of a page already read is not yielded", len(r.ids))
			}
		}, nil},
		// Every request after the first fails (failingAfterFirst). Not a
		// fault injected once the first item is yielded: a prefetching
		// iteration may have read every page by then, and whether any
		// request met the fault would depend on scheduling.
		{"server error", func(*billingtest.Server, billingtest.Route, *run) bool { return true }, func(t *testing.T, r *run) {
			if len(r.errs) != 1 || !errors.Is(r.errs[0], billing.ErrServer) {
				t.Fatalf("errors %v, want ErrServer once", r.errs)
			}
			if r.stable && len(r.ids) >= leakItems || !r.stable && len(r.ids) != leakPageSize {
				t.Fatalf("%d ids before the error, want the first page's %d (in stable mode, not all %d)", len(r.ids), leakPageSize, leakItems)
			}
		}, leakClientFailingAfterFirst},
	}
	for _, it := range leakIterators() {
		for _, mode := range []struct {
			name   string
			opts   func() []billing.IterOption
			stable bool
		}{
			{"sequential", func() []billing.IterOption { return nil }, false},
			{"prefetch 8", func() []billing.IterOption { return []billing.IterOption{billing.Prefetch(8)} }, false},
			{"stable", func() []billing.IterOption { return []billing.IterOption{billing.Stable(new(billing.Cursor))} }, true},
			{"stable prefetch 8", func() []billing.IterOption {
				return []billing.IterOption{billing.Stable(new(billing.Cursor)), billing.Prefetch(8)}
			}, true},
		} {
			for _, sc := range scenarios {
				t.Run(it.name+"/"+mode.name+"/"+sc.name, func(t *testing.T) {
					verifyNoLeaks(t)
					srv, f := leakServer(t)
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					r := &run{cancel: cancel, stable: mode.stable, items: strings.Contains(it.name, ".All")}
					c := leakClient(t, srv)
					if sc.client != nil {
						c = sc.client(t, srv)
					}
					noHang(t, func() error {
						for id, err := range it.seq(ctx, c, f, mode.opts()...) {
							if err != nil {
								r.errs = append(r.errs, err)
								continue // an iterator yields an error once, then stops
							}
							r.ids = append(r.ids, id)
							if len(r.ids) == 1 && !sc.after(srv, it.route, r) {
								break
							}
						}
						return nil
					})
					sc.check(t, r)
				})
			}
		}
	}
}

// Count succeeds, fails and is cancelled without leaking.
func TestNoLeaksCount(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	for _, it := range leakIterators() {
		if it.count == nil {
			continue
		}
		t.Run(it.name, func(t *testing.T) {
			verifyNoLeaks(t)
			srv, f := leakServer(t)
			c := leakClient(t, srv)
			n, err := it.count(context.Background(), c, f)
			if err != nil || n != leakItems {
				t.Fatalf("Count = %d, %v; want %d", n, err, leakItems)
			}
			if err := srv.InjectFault(it.route, billingtest.Fault{Status: 503, Times: 2}); err != nil {
				t.Fatal(err)
			}
			if _, err := it.count(context.Background(), c, f); !errors.Is(err, billing.ErrServer) {
				t.Errorf("Count with 503s: err = %v, want ErrServer", err)
			}
			if err := srv.InjectFault(it.route, billingtest.Fault{Delay: 10 * time.Second}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			if _, err := it.count(ctx, c, f); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Count cancelled: err = %v, want context.DeadlineExceeded", err)
			}
		})
	}
}

package billing_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// The client's pause is shared by every call of the client. These tests
// run in synctest bubbles, against the fake served in memory (memTransport)
// so that every wait of the test, the SDK's and the server's alike, is on
// the bubble's clock: a second's pause takes no time, and which request
// arrives when is a fact of the schedule, not of the machine's load.

// memTransport serves each request with a handler, in the calling
// goroutine, without a network: inside a synctest bubble every wait is
// then durably blocking, so the bubble's clock moves only when every
// goroutine waits.
type memTransport struct{ h http.Handler }

func (t memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	sreq := req.Clone(req.Context())
	sreq.RequestURI = req.URL.RequestURI()
	sreq.Host = req.URL.Host
	sreq.RemoteAddr = "127.0.0.1:50000"
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, sreq)
	if req.Body != nil {
		_ = req.Body.Close()
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// arrival is a request as the server saw it: when (from the bubble's
// start), and what it answered.
type arrival struct {
	at     time.Duration
	status int
}

// burstServer is a service that throttles the account once: the
// burstAt-th request to arrive is answered 429 with Retry-After: 1, and
// so is every request that arrives in the second after it, as a real
// service throttles an account, not a request. Every other request is
// served by next after latency; a 429 is answered at once.
type burstServer struct {
	next    http.Handler
	latency time.Duration
	burstAt int
	start   time.Time

	mu       sync.Mutex
	arrivals []arrival
	until    time.Time // throttled until
}

func (s *burstServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	s.mu.Lock()
	if len(s.arrivals)+1 == s.burstAt {
		s.until = now.Add(time.Second)
	}
	throttled := now.Before(s.until)
	status := http.StatusOK
	if throttled {
		status = http.StatusTooManyRequests
	}
	s.arrivals = append(s.arrivals, arrival{now.Sub(s.start), status})
	s.mu.Unlock()
	if throttled {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", strconv.Itoa(int((s.until.Sub(now)+time.Second-1)/time.Second)))
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(errorBody(http.StatusTooManyRequests, "Api Error", "throttled")))
		return
	}
	time.Sleep(s.latency)
	s.next.ServeHTTP(w, r)
}

func (s *burstServer) seen() []arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.arrivals)
}

// memFake is a fake with n invoices, served in memory, and its key.
func memFake(t *testing.T, n int, opts ...billingtest.Option) *billingtest.Server {
	t.Helper()
	fake, err := billingtest.NewHandler(append([]billingtest.Option{billingtest.WithGenerated(billingtest.GenerateOptions{Seed: 7, Invoices: n})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	return fake
}

// memClient is a client of h served in memory, with the default retry
// policy but for MaxRetryAfter (0: the default's).
func memClient(t *testing.T, key string, h http.Handler, opts ...billing.Option) *billing.Client {
	t.Helper()
	c, err := billing.NewClient(key, append([]billing.Option{
		billing.WithBaseURL("http://127.0.0.1"),
		billing.WithHTTPClient(&http.Client{Transport: memTransport{h}}),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestOneBurstCostsOne429 runs 16 callers on one client, each reading 20
// invoices one request at a time, against a service that throttles the
// account once. The callers start a millisecond apart and every answer
// takes 100 ms, so that no two answers ever arrive at the same instant
// and the schedule is fixed: the 49th request (the first caller's fourth)
// gets the 429, and at that instant the other 15 callers each have a
// request on the wire, sent before the 429 existed and answered before
// the throttle (they were accepted on arrival). After those answers each
// caller's next request waits for the client's pause, so the second of
// throttling receives no other request: exactly one 429 in all. With the
// pause kept by the call that got the 429 alone, each of the 15 others
// sent its next request into the throttled second: 16 in all.
func TestOneBurstCostsOne429(t *testing.T) {
	t.Parallel()
	const callers, invoices = 16, 20
	tests := []struct {
		name string
		// run reads the invoices of one caller and returns their ids.
		run func(ctx context.Context, c *billing.Client, ids []int64) ([]int64, error)
	}{
		{"iterations", func(ctx context.Context, c *billing.Client, _ []int64) ([]int64, error) {
			var got []int64
			for inv, err := range c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 1}}) {
				if err != nil {
					return got, err
				}
				got = append(got, inv.ID)
			}
			return got, nil
		}},
		{"single calls", func(ctx context.Context, c *billing.Client, ids []int64) ([]int64, error) {
			var got []int64
			for _, id := range ids {
				inv, err := c.Invoices.Get(ctx, id, nil)
				if err != nil {
					return got, err
				}
				got = append(got, inv.ID)
			}
			return got, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				fake := memFake(t, invoices)
				// The ids, read straight from the fake, not counted.
				want, err := collect(t, memClient(t, fake.APIKey(), fake).Invoices.All(t.Context(), nil))
				if err != nil || len(want) != invoices {
					t.Fatalf("%d invoices, %v", len(want), err)
				}
				slices.Sort(want)
				srv := &burstServer{next: fake, latency: 100 * time.Millisecond, burstAt: 3*callers + 1, start: time.Now()}
				c := memClient(t, fake.APIKey(), srv)

				got := make([][]int64, callers)
				errs := make([]error, callers)
				var wg sync.WaitGroup
				for i := range callers {
					wg.Go(func() {
						time.Sleep(time.Duration(i) * time.Millisecond)
						got[i], errs[i] = tt.run(t.Context(), c, want)
					})
				}
				wg.Wait()

				for i := range callers {
					if errs[i] != nil {
						t.Errorf("caller %d: %v", i, errs[i])
					}
					slices.Sort(got[i])
					if d := diff(want, got[i]); d != "" {
						t.Errorf("caller %d read:\n%s", i, d)
					}
				}
				arrivals := srv.seen()
				var throttled []arrival
				for _, a := range arrivals {
					if a.status == http.StatusTooManyRequests {
						throttled = append(throttled, a)
					}
				}
				burst := arrivals[srv.burstAt-1]
				if d := diff([]arrival{burst}, throttled); d != "" {
					t.Fatalf("429 answers (of %d requests), want the burst's alone:\n%s", len(arrivals), d)
				}
				// Nothing arrived during the throttled second but the 429,
				// and the requests held went out when it ended, at once.
				end := burst.at + time.Second
				var atEnd int
				for i, a := range arrivals[srv.burstAt:] {
					if a.at < end {
						t.Errorf("request %d arrived %v into the throttled second", srv.burstAt+i+1, a.at-burst.at)
					}
					if a.at == end {
						atEnd++
					}
				}
				if atEnd != callers {
					t.Errorf("%d requests went out when the pause ended, want one per caller, %d", atEnd, callers)
				}
			})
		})
	}
}

// TestSpentRateLimitWindowPausesEveryCall: an answer that says a window
// has nothing left holds every call of the client until the window
// resets, whichever call it answered, before any 429; one with something
// left, or without a reset, holds nothing.
func TestSpentRateLimitWindowPausesEveryCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header []string // of the first answer, a 200
		wait   time.Duration
	}{
		{"minute spent", []string{"X-Rate-Limit-Remaining-Minute", "0", "X-Rate-Limit-Reset-Minute", "5"}, 5 * time.Second},
		{"day spent", []string{"X-Rate-Limit-Remaining-Day", "0", "X-Rate-Limit-Reset-Day", "40"}, 40 * time.Second},
		{"both spent: the later reset", []string{"X-Rate-Limit-Remaining-Minute", "0", "X-Rate-Limit-Reset-Minute", "5",
			"X-Rate-Limit-Remaining-Day", "0", "X-Rate-Limit-Reset-Day", "12"}, 12 * time.Second},
		{"reset as an HTTP date", []string{"X-Rate-Limit-Remaining-Minute", "0", "X-Rate-Limit-Reset-Minute", "Sat, 01 Jan 2000 00:00:07 GMT"}, 7 * time.Second},
		{"one left", []string{"X-Rate-Limit-Remaining-Minute", "1", "X-Rate-Limit-Reset-Minute", "5"}, 0},
		{"spent, no reset", []string{"X-Rate-Limit-Remaining-Minute", "0"}, 0},
		{"a 200's Retry-After is no pause", []string{"Retry-After", "5"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				start := time.Now() // the bubble's: 2000-01-01 00:00:00 UTC
				var mu sync.Mutex
				var arrivals []time.Duration
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					first := len(arrivals) == 0
					arrivals = append(arrivals, time.Since(start))
					mu.Unlock()
					if first {
						for i := 0; i < len(tt.header); i += 2 {
							w.Header().Set(tt.header[i], tt.header[i+1])
						}
					}
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(`{"Id":7}`))
				})
				c := memClient(t, "key", h)
				if _, err := c.Invoices.Get(t.Context(), 7, nil); err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				for range 4 {
					wg.Go(func() {
						if _, err := c.Invoices.Get(t.Context(), 7, nil); err != nil {
							t.Error(err)
						}
					})
				}
				wg.Wait()
				want := []time.Duration{0, tt.wait, tt.wait, tt.wait, tt.wait}
				if d := diff(want, arrivals); d != "" {
					t.Fatalf("arrivals after the start:\n%s", d)
				}
			})
		})
	}
}

// pausedOp is a call made while the client is paused.
type pausedOp struct {
	name  string
	write bool
	call  func(ctx context.Context, c *billing.Client) error
}

var pausedOps = []pausedOp{
	{"read", false, func(ctx context.Context, c *billing.Client) error { return errOf(c.Invoices.Get(ctx, 7, nil)) }},
	{"write", true, func(ctx context.Context, c *billing.Client) error { return errOf(c.Bulk.Process(ctx, 7)) }},
	{"iteration", false, func(ctx context.Context, c *billing.Client) error {
		for _, err := range c.Invoices.All(ctx, nil) {
			if err != nil {
				return err
			}
		}
		return nil
	}},
}

// pauseServer answers its first request 429 with Retry-After: 30, and
// every other with an empty 200 JSON answer, recording when each arrived.
type pauseServer struct {
	mu       sync.Mutex
	start    time.Time
	arrivals []time.Duration
}

func (s *pauseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	first := len(s.arrivals) == 0
	s.arrivals = append(s.arrivals, time.Since(s.start))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case first:
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(errorBody(http.StatusTooManyRequests, "Api Error", "throttled")))
	case r.Method == http.MethodGet && r.URL.Path == "/v1/Invoices":
		w.Header().Set("X-Count", "0")
		_, _ = w.Write([]byte(`[]`))
	default:
		_, _ = w.Write([]byte(`{"Id":7}`))
	}
}

func (s *pauseServer) seen() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.arrivals)
}

// TestPausedCallFailsAtOnceWhenThePauseOutlastsItsDeadline: a call whose
// deadline comes before the client's pause ends is not sent, and fails at
// once with a RequestError of a ThrottledError, which matches
// ErrRateLimited, not ErrOutcomeUnknown (nothing was sent), and is not an
// attempt for observers. One whose deadline comes after waits and goes.
func TestPausedCallFailsAtOnceWhenThePauseOutlastsItsDeadline(t *testing.T) {
	t.Parallel()
	for _, op := range pausedOps {
		for _, deadline := range []time.Duration{time.Second, 29 * time.Second, 30 * time.Second, 31 * time.Second, 0} {
			t.Run(fmt.Sprintf("%s/deadline %v", op.name, deadline), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					srv := &pauseServer{start: time.Now()}
					var observed sweepAttempts
					c := memClient(t, "key", srv, billing.WithAttemptObserver(observed.observe),
						billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}))
					if _, err := c.Invoices.Get(t.Context(), 7, nil); !errors.Is(err, billing.ErrRateLimited) {
						t.Fatalf("first call: %v, want the 429", err)
					}
					ctx := t.Context()
					if deadline > 0 {
						var cancel context.CancelFunc
						ctx, cancel = context.WithTimeout(ctx, deadline)
						defer cancel()
					}
					begin := time.Now()
					err := op.call(ctx, c)
					took := time.Since(begin)
					attempts := len(observed.all()) - 1

					if deadline > 0 && deadline <= 30*time.Second {
						want := &billing.RequestError{Method: map[bool]string{false: "GET", true: "POST"}[op.write],
							Path: map[bool]string{false: "/v1/Invoices/7", true: "/v1/BulkApi/Process"}[op.write],
							Err:  &billing.ThrottledError{RetryAfter: 30 * time.Second}}
						if op.name == "iteration" {
							want.Path = "/v1/Invoices"
						}
						var reqErr *billing.RequestError
						if !errors.As(err, &reqErr) {
							t.Fatalf("err = %v, want a *RequestError", err)
						}
						if d := diff(want, reqErr); d != "" {
							t.Errorf("the error:\n%s", d)
						}
						if !errors.Is(err, billing.ErrRateLimited) || errors.Is(err, billing.ErrOutcomeUnknown) || errors.Is(err, context.DeadlineExceeded) {
							t.Errorf("err = %v: want it to match ErrRateLimited alone", err)
						}
						if took != 0 || len(srv.seen()) != 1 || attempts != 0 {
							t.Errorf("took %v, %d requests, %d attempts observed; want at once, nothing sent or observed", took, len(srv.seen())-1, attempts)
						}
						return
					}
					if err != nil {
						t.Fatalf("err = %v, want the call to wait for the pause and succeed", err)
					}
					if d := diff([]time.Duration{0, 30 * time.Second}, srv.seen()); d != "" {
						t.Errorf("arrivals:\n%s", d)
					}
					if took != 30*time.Second || attempts != 1 {
						t.Errorf("took %v with %d attempts, want 30s and 1", took, attempts)
					}
				})
			})
		}
	}
}

// TestPausedCallReturnsWhenItsContextEnds: a call waiting for the
// client's pause returns with its context's error as soon as the context
// is cancelled, without sending anything.
func TestPausedCallReturnsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	for _, op := range pausedOps {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := &pauseServer{start: time.Now()}
				c := memClient(t, "key", srv, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}))
				_, _ = c.Invoices.Get(t.Context(), 7, nil) // the 429: a 30s pause
				ctx, cancel := context.WithCancel(t.Context())
				begin := time.Now()
				time.AfterFunc(3*time.Second, cancel)
				err := op.call(ctx, c)
				if took := time.Since(begin); took != 3*time.Second {
					t.Errorf("returned after %v, want 3s, when the context was cancelled", took)
				}
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want context.Canceled", err)
				}
				if n := len(srv.seen()); n != 1 {
					t.Errorf("%d requests sent during the pause", n-1)
				}
			})
		})
	}
}

// TestOwn429PastTheDeadlineIsReturnedAtOnce: a 429 whose wait would end
// after the call's deadline ends the call at once with the 429's
// APIError, rather than sleeping into a context error.
func TestOwn429PastTheDeadlineIsReturnedAtOnce(t *testing.T) {
	t.Parallel()
	for _, deadline := range []time.Duration{10 * time.Second, 30 * time.Second, 31 * time.Second} {
		t.Run(fmt.Sprint("deadline ", deadline), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := &pauseServer{start: time.Now()}
				c := memClient(t, "key", srv)
				ctx, cancel := context.WithTimeout(t.Context(), deadline)
				defer cancel()
				_, err := c.Invoices.Get(ctx, 7, nil)
				if deadline > 30*time.Second {
					if err != nil || time.Since(srv.start) != 30*time.Second {
						t.Fatalf("err = %v after %v, want the retry to succeed after 30s", err, time.Since(srv.start))
					}
					return
				}
				var apiErr *billing.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests || apiErr.RetryAfter != 30*time.Second {
					t.Fatalf("err = %v, want the 429's APIError", err)
				}
				if took := time.Since(srv.start); took != 0 || len(srv.seen()) != 1 {
					t.Errorf("returned after %v and %d requests, want at once after 1", took, len(srv.seen()))
				}
			})
		})
	}
}

// TestPauseBeyondMaxRetryAfterIsNotImposed: a pause longer than a call's
// MaxRetryAfter does not hold it: it goes out at once and gets the
// service's own answer, as the conformance tests of the fake expect.
func TestPauseBeyondMaxRetryAfterIsNotImposed(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := &pauseServer{start: time.Now()}
		c := memClient(t, "key", srv, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetryAfter: 10 * time.Second}))
		_, err := c.Invoices.Get(t.Context(), 7, nil) // 429, 30s: beyond the cap, not retried
		if !errors.Is(err, billing.ErrRateLimited) {
			t.Fatalf("err = %v, want the 429", err)
		}
		if _, err := c.Invoices.Get(t.Context(), 7, nil); err != nil {
			t.Fatal(err)
		}
		// A call allowing longer waits does wait for what is left.
		time.Sleep(5 * time.Second)
		if _, err := c.Invoices.Get(t.Context(), 7, nil, billing.WithRetries(billing.RetryPolicy{MaxRetryAfter: time.Minute})); err != nil {
			t.Fatal(err)
		}
		if d := diff([]time.Duration{0, 0, 30 * time.Second}, srv.seen()); d != "" {
			t.Fatalf("arrivals:\n%s", d)
		}
	})
}

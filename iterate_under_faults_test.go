package billing_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// soakLong turns the soak test's long mode on: more invoices and several
// rounds, each with other faults.
//
//	go test -race -run TestSoak -soak.long -timeout 30m ./
var soakLong = flag.Bool("soak.long", false, "run the soak test in its long mode: 200,000 invoices, 3 rounds, Prefetch 2, 8 and 64 too")

// soakFault is a kind of failure the flaky proxy answers with.
type soakFault int

const (
	soak503      soakFault = iota // 503 with the error envelope
	soak429                       // 429 with a wait: Retry-After: 1, or X-Rate-Limit-Reset-Minute in fractions of a second
	soakDrop                      // the connection is closed before any answer
	soakTruncate                  // the page is served whole by the fake, then cut after half its body
	soak500                       // 500 with the error envelope
	soakFaultKinds
)

func (k soakFault) String() string {
	return [...]string{"503", "429", "dropped connection", "truncated body", "500"}[k]
}

// flakyProxy sits in front of the fake and fails a share of the requests,
// chosen by a seeded math/rand/v2 source (so a run is reproducible: the
// sequential one exactly, the prefetching one up to the order in which
// concurrent requests arrive), cycling through the kinds of soakFault so
// that every kind happens.
//
// The faults are made here rather than with srv.InjectFault, whose queue
// is per route: with requests in flight concurrently, a fault injected for
// one request could be taken by another, and the counts below would no
// longer say which request failed how.
type flakyProxy struct {
	next http.Handler
	rate float64

	mu       sync.Mutex
	rng      *rand.Rand
	cycle    int
	slow429s int // 429s still to send with Retry-After: 1 (whole seconds, so few)

	requests atomic.Int64
	faults   [soakFaultKinds]atomic.Int64
	slow     atomic.Int64 // 429s sent with Retry-After: 1
}

func newFlakyProxy(next http.Handler, seed uint64, rate float64, slow429s int) *flakyProxy {
	return &flakyProxy{next: next, rate: rate, rng: rand.New(rand.NewPCG(seed, 0x50a6)), slow429s: slow429s}
}

func (p *flakyProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	p.mu.Lock()
	failing := p.rng.Float64() < p.rate
	kind, slow := soakFault(p.cycle%int(soakFaultKinds)), false
	if failing {
		p.cycle++
		if kind == soak429 && p.slow429s > 0 {
			p.slow429s--
			slow = true
		}
	}
	p.mu.Unlock()
	if !failing {
		p.next.ServeHTTP(w, r)
		return
	}
	p.faults[kind].Add(1)
	switch kind {
	case soak503, soak500:
		status := map[soakFault]int{soak503: http.StatusServiceUnavailable, soak500: http.StatusInternalServerError}[kind]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = fmt.Fprint(w, errorBody(status, "Api Error", "soak: injected "+kind.String()))
	case soak429:
		if slow {
			p.slow.Add(1)
			w.Header().Set("Retry-After", "1")
		} else {
			// No Retry-After: the SDK takes the wait from the exhausted
			// window's reset, which it reads as (fractional) seconds.
			w.Header().Set("X-Rate-Limit-Limit-Minute", "1000")
			w.Header().Set("X-Rate-Limit-Remaining-Minute", "0")
			w.Header().Set("X-Rate-Limit-Reset-Minute", "0.02")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = fmt.Fprint(w, errorBody(http.StatusTooManyRequests, "Api Error", "soak: throttled"))
	case soakDrop:
		panic(http.ErrAbortHandler) // net/http closes the connection without an answer
	case soakTruncate:
		rec := httptest.NewRecorder()
		p.next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
}

func (p *flakyProxy) report() string {
	s := fmt.Sprintf("%d requests", p.requests.Load())
	for k := range soakFaultKinds {
		s += fmt.Sprintf(", %d %s", p.faults[k].Load(), k)
	}
	return s + fmt.Sprintf(" (%d of the 429s with Retry-After: 1)", p.slow.Load())
}

// pageCache serves each distinct GET from one answer of the fake, rendered
// the first time it is asked for. The data does not change during the soak,
// so the answers are the fake's own; rendering 1,000 invoices again for
// every retry and every run would measure the fake's JSON encoder under the
// race detector rather than the SDK.
type pageCache struct {
	next    http.Handler
	noStore bool // render every answer afresh

	mu      sync.Mutex
	answers map[string]*cachedAnswer
}

type cachedAnswer struct {
	status int
	header http.Header
	body   []byte
}

func (c *pageCache) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Method + " " + r.URL.RequestURI()
	c.mu.Lock()
	a, ok := c.answers[key]
	c.mu.Unlock()
	if !ok {
		rec := httptest.NewRecorder()
		c.next.ServeHTTP(rec, r)
		a = &cachedAnswer{status: rec.Code, header: rec.Header().Clone(), body: rec.Body.Bytes()}
		if !c.noStore && r.Method == http.MethodGet && a.status == http.StatusOK {
			c.mu.Lock()
			if c.answers == nil {
				c.answers = map[string]*cachedAnswer{}
			}
			c.answers[key] = a
			c.mu.Unlock()
		}
	}
	for k, v := range a.header {
		w.Header()[k] = v
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// TestSoak iterates over every invoice of a large account while a fifth of
// the requests fail, sequentially and with Prefetch(8): every id comes
// exactly once and in order, and the total is X-Count. Under -race it takes
// about 25 s on two idle cores (most of it the race detector watching
// encoding/json decode 100,000 invoices); -soak.long reads 200,000
// invoices three times over, with Prefetch 2, 8 and 64 as well.
//
// Why the iteration never gives up: whether an attempt fails is drawn
// independently, with probability 0.2, for every request. A page is lost
// only if nine attempts in a row fail: nine failed attempts of one send
// (MaxRetries 8), or nine answers in a row cut off mid-body (sendAndRead
// re-reads a cut-off page within the same budget, each time with a fresh
// send), and either needs nine failures in a row, 0.2^9 ≈ 5.1e-7. A page
// takes about 1.25 attempts, so over the 50 pages of a run the chance that
// any page runs out of retries is about 50 × 1.25 × 5.1e-7 ≈ 3.2e-5; and
// the draws come from a fixed seed, so a given run either always passes or
// always fails (the prefetching run up to the order in which concurrent
// requests take the draws).
func TestSoak(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: skips the soak test, 50,000 invoices read twice through a proxy that fails a fifth of the requests (about 8 s, 25 s under -race); it runs without -short")
	}
	invoices, rounds := 50_000, 1
	if *soakLong {
		invoices, rounds = 200_000, 3
	}
	start := time.Now()
	srv := billingtest.NewServer(
		billingtest.WithGenerated(billingtest.GenerateOptions{Seed: 42, Invoices: invoices}),
		billingtest.WithRequestLogLimit(0), // a long run keeps no request log
	)
	t.Cleanup(srv.Close)
	// The long mode renders every answer afresh: keeping its 200 pages
	// would cost hundreds of MB.
	cache := &pageCache{next: srv.Handler(), noStore: *soakLong}
	t.Logf("generated %d invoices in %s", invoices, time.Since(start).Round(time.Millisecond))
	if got := srv.Counts()["invoices"]; got != invoices {
		t.Fatalf("the fake holds %d invoices, want %d", got, invoices)
	}

	policy := billing.RetryPolicy{MaxRetries: 8, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond, MaxRetryAfter: 5 * time.Second}
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 1000}}
	type soakMode struct {
		name string
		opts []billing.IterOption
	}
	modes := []soakMode{
		{"sequential", nil},
		{"prefetch 8", []billing.IterOption{billing.Prefetch(8)}},
	}
	if *soakLong {
		modes = append(modes,
			soakMode{"prefetch 2", []billing.IterOption{billing.Prefetch(2)}},
			soakMode{"prefetch 64", []billing.IterOption{billing.Prefetch(64)}})
	}
	var reference []int64 // what the first run yielded; every later run must yield the same
	for round := range rounds {
		for i, mode := range modes {
			t.Run(fmt.Sprintf("round %d/%s", round, mode.name), func(t *testing.T) {
				runStart := time.Now()
				proxy := newFlakyProxy(cache, uint64(1000*round+i+1), 0.2, 1)
				ts := httptest.NewServer(proxy)
				defer ts.Close()
				c, err := billing.NewClient(srv.APIKey(), billing.WithBaseURL(ts.URL), billing.WithRetryPolicy(policy))
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()

				count, err := c.Invoices.Count(ctx, params)
				if err != nil {
					t.Fatalf("Count: %v (%s)", err, proxy.report())
				}
				if count != invoices {
					t.Fatalf("Count = %d, want %d", count, invoices)
				}

				ids := make([]int64, 0, invoices)
				pages := 0
				for page, err := range c.Invoices.Pages(ctx, params, mode.opts...) {
					if err != nil {
						t.Fatalf("after %d pages (%d ids): %v (%s)", pages, len(ids), err, proxy.report())
					}
					if page.Count != count {
						t.Fatalf("page %d: X-Count = %d, want %d", page.CurrentPage, page.Count, count)
					}
					for _, inv := range page.Items {
						if n := len(ids); n > 0 && inv.ID <= ids[n-1] {
							t.Fatalf("page %d: id %d after %d: not strictly ascending (a repeat or a step back)", page.CurrentPage, inv.ID, ids[n-1])
						}
						ids = append(ids, inv.ID)
					}
					pages++
				}
				// Strictly ascending ids are distinct; as many as X-Count, all
				// served by the fake, they are every invoice exactly once.
				if len(ids) != count {
					t.Fatalf("iterated %d invoices in %d pages, X-Count says %d (%s)", len(ids), pages, count, proxy.report())
				}
				if wantPages := (count + 999) / 1000; pages != wantPages {
					t.Errorf("pages = %d, want %d", pages, wantPages)
				}
				if reference == nil {
					reference = ids
				} else if !slices.Equal(ids, reference) {
					t.Errorf("this run yielded other ids than the first run")
				}
				for _, id := range []int64{ids[0], ids[len(ids)/2], ids[len(ids)-1]} {
					if _, ok := srv.Invoice(id); !ok {
						t.Errorf("id %d was yielded but the fake has no such invoice", id)
					}
				}

				// The faults really happened, every kind of them.
				total := proxy.requests.Load()
				var failed int64
				for k := range soakFaultKinds {
					n := proxy.faults[k].Load()
					failed += n
					if n == 0 {
						t.Errorf("no %s was injected (%s)", k, proxy.report())
					}
				}
				if proxy.slow.Load() == 0 {
					t.Errorf("no 429 with Retry-After: 1 was sent (%s)", proxy.report())
				}
				if share := float64(failed) / float64(total); share < 0.1 || share > 0.35 {
					t.Errorf("%.0f%% of the requests failed, want about 20%% (%s)", 100*share, proxy.report())
				}
				t.Logf("%d invoices in %d pages in %s; %s", len(ids), pages, time.Since(runStart).Round(time.Millisecond), proxy.report())
			})
		}
	}
}

package benchmarks

import (
	"context"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// maxHeapGrowth bounds how much the live heap may grow between the
// 10,000th and the 100,000th invoice of an iteration.
//
// One page of 1,000 invoices as GET /v1/Invoices answers them (no
// charges) is about 2 MB of JSON and a little under 2 MiB of heap once
// decoded (about 1.8 KiB an invoice). An iteration holds the page being
// yielded and the one before it, plus, with Prefetch(8), up to 16 pages
// fetched ahead (8 in flight, the rest waiting their turn): whatever the
// total, about 18 pages at most, and the pipeline is fuller at the first
// mark than at the last, where nothing is left to fetch. So a correct iteration grows by about zero, and 16 MiB,
// the size of 8 pages, leaves room for noise (pools, buffers, connections)
// while staying far below what retention proportional to the total shows:
// keeping the 90,000 invoices read between the marks would add about
// 160 MiB, and keeping as few as one in ten of them already reaches the
// bound.
const maxHeapGrowth = 16 << 20

// TestIterationMemoryIsFlat checks that memory while iterating does not
// grow with the number of items read, only with the pages in flight: it
// iterates all 100,000 invoices of the fake (GET /v1/Invoices in pages of
// 1,000, no latency), sequentially and with Prefetch(8), keeping nothing
// but a counter, and compares the live heap (HeapAlloc right after
// runtime.GC) when 10,000 and when 100,000 invoices have been seen. It
// asserts memory, never time.
//
// The server replays a fake's answers from memory: the ten pages of a fake
// of 10,000 invoices, recorded once and served in a cycle as pages 0 to 99
// of 100,000 invoices, with the paging headers the fake would send for
// those (see replayHandler). The client decodes 100,000 invoices exactly
// as the fake sends them, into fresh values page after page; what it
// cannot tell is that the pages repeat every ten, which does not matter
// to memory. This keeps the fake's rendering out of the heap at the marks and
// the test within a minute under -race, where generating and rendering
// 100,000 invoices would cost more than the iterations themselves. The
// recording is live throughout, so it adds the same amount to both marks.
func TestIterationMemoryIsFlat(t *testing.T) {
	// Not parallel: it compares the live heap of the whole process at two
	// marks, which another test running alongside would move.
	if testing.Short() {
		t.Skip("-short: skips the memory test that iterates 100,000 invoices twice and compares the live heap at 10,000 and 100,000 (seconds); it runs without -short")
	}
	const distinct = 10_000
	start := time.Now()
	srv, err := billingtest.NewHandler(billingtest.WithGenerated(billingtest.GenerateOptions{Seed: seed, Invoices: distinct}))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := record(srv, distinct)
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, b := range rec.bodies {
		size += len(b)
	}
	t.Logf("%d pages of a fake of %d invoices recorded in %v, %.1f MB on average",
		len(rec.bodies), distinct, time.Since(start).Round(time.Millisecond), float64(size)/float64(len(rec.bodies))/1e6)
	ts := httptest.NewServer(replayHandler(rec, bigTotal/billingtest.MaxPageSize))
	t.Cleanup(ts.Close)

	for _, tc := range []struct {
		name string
		opts []billing.IterOption
	}{
		{"Sequential", nil},
		{"Prefetch8", []billing.IterOption{billing.Prefetch(8)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			began := time.Now()
			c := fakeClient(t, ts.URL)
			var n int
			var at10k, at100k uint64
			for _, err := range c.Invoices.All(context.Background(), allParams(), tc.opts...) {
				if err != nil {
					t.Fatal(err)
				}
				n++
				switch n {
				case 10_000:
					at10k = liveHeap()
				case bigTotal:
					at100k = liveHeap()
				}
			}
			if n != bigTotal {
				t.Fatalf("iterated %d invoices, want %d", n, bigTotal)
			}
			growth := int64(at100k) - int64(at10k)
			t.Logf("live heap at 10,000 invoices %.1f MiB, at 100,000 %.1f MiB: growth %+.1f MiB (bound %d MiB); %v",
				mib(at10k), mib(at100k), float64(growth)/(1<<20), maxHeapGrowth>>20, time.Since(began).Round(time.Millisecond))
			if growth > maxHeapGrowth {
				t.Errorf("live heap grew by %.1f MiB between 10,000 and 100,000 invoices, more than %d MiB: the iteration keeps what it has yielded",
					float64(growth)/(1<<20), maxHeapGrowth>>20)
			}
		})
	}
}

// liveHeap is the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

package billingtest_test

import (
	"bufio"
	"flag"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/internal/procstat"
)

// The fake's memory and speed at scale, measured only when asked for:
//
//	go test ./billingtest -run TestFakeBigSweep -bench FakeBig -benchtime 20x -fake.big
//
// They generate a million and a hundred thousand invoices, which takes
// minutes and gigabytes, too much for the normal suite.
var fakeBig = flag.Bool("fake.big", false, "measure the fake with 1M and 100k generated invoices")

// discard is a ResponseWriter that keeps the status and counts the bytes.
type discard struct {
	header http.Header
	status int
	n      int
}

func (d *discard) Header() http.Header { return d.header }
func (d *discard) WriteHeader(code int) {
	if d.status == 0 {
		d.status = code
	}
}
func (d *discard) Write(b []byte) (int, error) {
	if d.status == 0 {
		d.status = http.StatusOK
	}
	d.n += len(b)
	return len(b), nil
}

func get(tb testing.TB, srv *billingtest.Server, path string) int {
	tb.Helper()
	n, status := fetch(srv, path)
	if status != http.StatusOK {
		tb.Fatalf("GET %s: status %d", path, status)
	}
	return n
}

// fetch answers a GET of path and returns the size of the body and the
// status.
func fetch(srv *billingtest.Server, path string) (n, status int) {
	r := httptest.NewRequest(http.MethodGet, "http://fake"+path, nil)
	r.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
	w := &discard{header: http.Header{}}
	srv.ServeHTTP(w, r)
	return w.n, w.status
}

// vmHWM reads the peak resident set size of this process, in MiB.
func vmHWM(tb testing.TB) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		tb.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			if err != nil {
				tb.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb / 1024
		}
	}
	tb.Skip("no VmHWM in /proc/self/status")
	return 0
}

func bigServer(tb testing.TB, invoices int) *billingtest.Server {
	tb.Helper()
	if !*fakeBig {
		tb.Skip("a measurement: run with -fake.big")
	}
	start := time.Now()
	srv := genServer(tb, invoices)
	tb.Logf("generated %d invoices in %v", invoices, time.Since(start).Round(time.Millisecond))
	return srv
}

// TestFakeBigSweep pages through every invoice of a fake of 10,000 and
// of a million, 1,000 a page with 8 pages in flight (an integration job's
// prefetching reader), and logs the CPU time the process spends on a
// sweep per invoice, after a first sweep has warmed the fake up (at
// 10,000, over a hundred sweeps). Both write every invoice from its
// packed record, so the two figures should be close: a sweep's cost is
// linear in the account. It checks that the peak resident memory stays
// within 3 GB: what the fake holds must stay proportional to its data,
// however much is listed.
func TestFakeBigSweep(t *testing.T) {
	const pageSize = 1000
	for _, invoices := range []int{10_000, 1_000_000} {
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		srv := bigServer(t, invoices)
		var live runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&live)
		heap := int64(live.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("%d invoices: live heap after generating: %d MiB, %d bytes an invoice in %.1f objects",
			invoices, heap>>20, heap/int64(invoices), float64(int64(live.HeapObjects)-int64(before.HeapObjects))/float64(invoices))
		afterGen := vmHWM(t)
		sweep(t, srv, invoices, pageSize) // warm-up
		// A small account is swept as many times as it takes to list a
		// million invoices, so that its figure is not a few clock ticks.
		sweeps := max(1, 1_000_000/invoices)
		cpu0, cpuOK := procstat.Self()
		start := time.Now()
		var total int
		for range sweeps {
			total = sweep(t, srv, invoices, pageSize)
		}
		elapsed := time.Since(start) / time.Duration(sweeps)
		cpu1, _ := procstat.Self()
		peak := vmHWM(t)
		cpu := "not measured"
		if cpuOK {
			perSweep := (cpu1 - cpu0) / time.Duration(sweeps)
			cpu = perSweep.Round(time.Millisecond).String() + ", " +
				strconv.FormatFloat(float64(perSweep)/float64(time.Microsecond)/float64(invoices), 'f', 2, 64) + " µs an invoice"
		}
		t.Logf("%d invoices: VmHWM after generating: %.0f MiB; after %d full sweeps (%d pages, %d MiB of JSON each, %v each after the first): %.0f MiB; CPU of a sweep after the first: %s",
			invoices, afterGen, sweeps+1, invoices/pageSize, total>>20, elapsed.Round(time.Millisecond), peak, cpu)
		if peak > 3000/1.048576 { // 3 GB in MiB
			t.Errorf("peak resident memory %.0f MiB, over 3 GB", peak)
		}
		runtime.KeepAlive(srv)
	}
}

// sweep reads every page of the list of all invoices with 8 requests in
// flight and returns the bytes of JSON read.
func sweep(t *testing.T, srv *billingtest.Server, invoices, pageSize int) int {
	const inFlight = 8
	var next, total atomic.Int64
	var wg sync.WaitGroup
	for range inFlight {
		wg.Go(func() {
			for {
				page := int(next.Add(1) - 1)
				if page >= invoices/pageSize {
					return
				}
				path := "/v1/Invoices?pageSize=" + strconv.Itoa(pageSize) + "&pageNumber=" + strconv.Itoa(page)
				n, status := fetch(srv, path)
				if status != http.StatusOK {
					t.Errorf("GET %s: status %d", path, status) // not Fatal: another goroutine
					return
				}
				total.Add(int64(n))
			}
		})
	}
	wg.Wait()
	return int(total.Load())
}

// BenchmarkFakeBig measures, over 100k generated invoices, a filtered,
// sorted page (the target: within 30 ms) and an unfiltered page of 1,000.
func BenchmarkFakeBig(b *testing.B) {
	srv := bigServer(b, 100_000)
	filtered := "/v1/Invoices?pageSize=100&pageNumber=3&sortExpression=poNumber&sortOrder=Descending&query=" +
		url.QueryEscape("postedTimestamp:2024-03-01|2025-06-01;closingArBalance:10|")
	get(b, srv, filtered) // warm up
	b.Run("filtered_sorted_page", func(b *testing.B) {
		for b.Loop() {
			get(b, srv, filtered)
		}
	})
	b.Run("page_of_1000", func(b *testing.B) {
		var n int
		page := 0
		for b.Loop() {
			n = get(b, srv, "/v1/Invoices?pageSize=1000&pageNumber="+strconv.Itoa(page%100))
			page++
		}
		b.SetBytes(int64(n))
	})
}

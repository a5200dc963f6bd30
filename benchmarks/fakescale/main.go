// Command fakescale measures the fake as a load target at several account
// sizes: for each size it starts billing-fake with that many generated
// invoices as a process of its own, pages through all of them with the SDK
// (pages of 1,000, a simulated service time before each request), first
// sequentially and then with billing.Prefetch(8), and reports the wall
// time of each sweep, the fake's CPU per invoice in it (from
// /proc/<pid>/stat) and the fake's peak resident memory (VmHWM) after the
// prefetched one. Linux only. Run it on an idle machine:
//
//	go run ./benchmarks/fakescale -sizes 10000,1000000
//
// The ratios it prints (wall and fake CPU an invoice against the first
// size) are the figures of the fake's linearity in BENCHMARKS.md. The
// speed of a shared host drifts within minutes, so the first size is
// measured just before and just after each larger one, on a fake of its
// own that runs beside it, and a ratio is taken against the mean of the
// two; every fake is warmed up first (see start). Each sweep adds a
// parameter of its own to its requests, sweep=N, which the fake ignores,
// so that no sweep is answered from pages the fake's page cache kept
// from an earlier sweep. The cache keeps a page asked for again within
// four requests, and a Prefetch(8) sweep's requests reach the fake in
// any order, so a page asked for at the end of one sweep may come again
// early in the next: at ten thousand invoices four of the account's ten
// pages came to be answered from the cache on every sweep, at a million
// a few of a thousand, so that the smaller account's figures counted
// cache hits the larger cannot have.
// -tag-sweeps=false sends the same requests every sweep. With -rev
// before=<commit> it also builds billing-fake at that commit (in a
// temporary git worktree) and measures the two fakes in turn, -rounds
// times (A B A B), with this tree's SDK as the client.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/internal/procstat"
)

func main() {
	sizes := flag.String("sizes", "10000,1000000", "comma-separated numbers of invoices")
	latency := flag.Duration("latency", 20*time.Millisecond, "simulated service time before each request")
	rev := flag.String("rev", "", "name=commit: also measure billing-fake built at commit, e.g. before=bde6aeb")
	rounds := flag.Int("rounds", 1, "times each fake is measured at each size, in turn")
	minInvoices := flag.Int("min-invoices", 1_000_000, "repeat the sweeps of a smaller account until this many invoices are read, and average them: the CPU clock of /proc ticks in 10 ms")
	tagSweeps := flag.Bool("tag-sweeps", true, "give each sweep's requests a parameter of their own (sweep=N), so that no sweep is answered from pages the fake kept from another")
	flag.Parse()
	if err := run(*sizes, *latency, *rev, *rounds, *minInvoices, *tagSweeps); err != nil {
		fmt.Fprintln(os.Stderr, "fakescale:", err)
		os.Exit(1)
	}
}

// sweep is what the sweeps of all invoices measured, averaged.
type sweep struct {
	wall    time.Duration
	fakeCPU time.Duration
	n       int
}

func (s sweep) cpuPerInvoice() time.Duration { return s.fakeCPU / time.Duration(s.n) }

// sweeps sweeps all n invoices repeatedly, until minInvoices are read,
// and returns the average sweep.
func sweeps(ctx context.Context, r *running, minInvoices int, opts ...billing.IterOption) (sweep, error) {
	times := max(1, (minInvoices+r.n-1)/r.n)
	var total sweep
	for range times {
		s, err := sweepAll(ctx, r, opts...)
		if err != nil {
			return sweep{}, err
		}
		total.wall += s.wall
		total.fakeCPU += s.fakeCPU
	}
	return sweep{wall: total.wall / time.Duration(times), fakeCPU: total.fakeCPU / time.Duration(times), n: r.n}, nil
}

// fake is a billing-fake binary to measure.
type fake struct{ label, bin string }

// settings are how each fake is measured.
type settings struct {
	sizes       []int
	latency     time.Duration
	minInvoices int
	tagSweeps   bool
}

func run(sizesFlag string, latency time.Duration, rev string, rounds, minInvoices int, tagSweeps bool) error {
	var sizes []int
	for f := range strings.SplitSeq(sizesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("-sizes: %q is not a positive number", f)
		}
		sizes = append(sizes, n)
	}
	dir, err := os.MkdirTemp("", "fakescale")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fakes := []fake{{"current", filepath.Join(dir, "billing-fake")}}
	if err := build(".", fakes[0].bin); err != nil {
		return err
	}
	if rev != "" {
		label, commit, ok := strings.Cut(rev, "=")
		if !ok {
			return fmt.Errorf("-rev: %q, want name=commit", rev)
		}
		f := fake{label, filepath.Join(dir, "billing-fake-"+label)}
		if err := buildAt(commit, filepath.Join(dir, "src-"+label), f.bin); err != nil {
			return err
		}
		fakes = []fake{f, fakes[0]}
	}
	busy0, _ := procstat.Busy()
	self0, _ := procstat.Self()
	began := time.Now()
	var fakesCPU time.Duration // every fake's whole CPU, generation included
	fmt.Printf("%-8s %-9s %-10s %10s %14s %12s\n", "fake", "invoices", "sweep", "wall", "fake CPU/inv", "fake VmHWM")
	for range rounds {
		for _, f := range fakes {
			cpu, err := measureAround(f, settings{sizes, latency, minInvoices, tagSweeps})
			fakesCPU += cpu
			if err != nil {
				return fmt.Errorf("%s: %w", f.label, err)
			}
		}
	}
	if busy1, ok := procstat.Busy(); ok {
		wall := time.Since(began)
		self1, _ := procstat.Self()
		outside := busy1 - busy0 - (self1 - self0) - fakesCPU
		fmt.Printf("CPU used by other processes while measuring: %.1f%% of one CPU (%s over %s)\n",
			100*float64(outside)/float64(wall), outside.Round(10*time.Millisecond), wall.Round(time.Second))
	}
	return nil
}

// measureAround measures fake f at every size, each larger size between
// two measurements of the first, which runs as a fake of its own beside
// it. It prints a line a sweep and returns the CPU its fakes used in all.
func measureAround(f fake, set settings) (cpu time.Duration, err error) {
	base, err := start(f.bin, set.sizes[0], set)
	if err != nil {
		return 0, err
	}
	defer func() { cpu += base.stop() }()
	before, err := base.measure(set.minInvoices)
	if err != nil {
		return cpu, err
	}
	base.print(f.label, before, nil)
	for _, n := range set.sizes[1:] {
		big, err := start(f.bin, n, set)
		if err != nil {
			return cpu, err
		}
		got, err := big.measure(set.minInvoices)
		cpu += big.stop()
		if err != nil {
			return cpu, err
		}
		after, err := base.measure(set.minInvoices)
		if err != nil {
			return cpu, err
		}
		ref := mean(before, after)
		big.print(f.label, got, &ref)
		base.print(f.label, after, nil)
		before = after
	}
	return cpu, nil
}

// measured is what the sweeps of one fake measured: sequential, then
// with Prefetch(8), and its peak memory after them.
type measured struct {
	seq, pre sweep
	hwmMiB   float64
}

// mean is the mean of two measurements of one size, for the ratios.
func mean(a, b measured) measured {
	avg := func(x, y sweep) sweep {
		return sweep{wall: (x.wall + y.wall) / 2, fakeCPU: (x.fakeCPU + y.fakeCPU) / 2, n: x.n}
	}
	return measured{seq: avg(a.seq, b.seq), pre: avg(a.pre, b.pre)}
}

// print prints m's two sweeps, with their ratios to ref when ref is not
// nil.
func (r *running) print(label string, m measured, ref *measured) {
	for j, s := range [2]sweep{m.seq, m.pre} {
		ratios, hw := "", ""
		if ref != nil {
			base := [2]sweep{ref.seq, ref.pre}[j]
			ratios = fmt.Sprintf("  (to %d: wall %.1f, fake CPU/inv %.2f)", base.n,
				float64(s.wall)/float64(base.wall), float64(s.cpuPerInvoice())/float64(base.cpuPerInvoice()))
		}
		if j == 1 {
			hw = fmt.Sprintf("%.0f MiB", m.hwmMiB)
		}
		fmt.Printf("%-8s %-9d %-10s %10s %14s %12s%s\n", label, r.n, [2]string{"sequential", "prefetch8"}[j],
			s.wall.Round(time.Millisecond), s.cpuPerInvoice(), hw, ratios)
	}
}

// build builds billing-fake from the module in dir into bin.
func build(dir, bin string) error {
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/billing-fake")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building billing-fake in %s: %v\n%s", dir, err, out)
	}
	return nil
}

// buildAt builds billing-fake at commit, checked out into a temporary
// worktree at src, which it removes.
func buildAt(commit, src, bin string) error {
	if out, err := exec.Command("git", "worktree", "add", "--detach", src, commit).CombinedOutput(); err != nil {
		return fmt.Errorf("checking out %s: %v\n%s", commit, err, out)
	}
	defer func() { _ = exec.Command("git", "worktree", "remove", "--force", src).Run() }()
	return build(src, bin)
}

// running is a billing-fake process serving n generated invoices.
type running struct {
	n      int
	pid    int
	client *billing.Client
	cmd    *exec.Cmd
	cancel context.CancelFunc
	// sweep numbers the sweeps, for their requests' tag; nil when
	// sweeps are not tagged.
	sweep *atomic.Int64
}

// start starts bin with n generated invoices, waits for its URL and
// warms it up: it sweeps minInvoices invoices with Prefetch(8),
// unmeasured. A fake's first sweeps cost more than its later ones (at
// 10,000 invoices the first hundred cost up to half as much again), and
// a size measured cold against one measured warm would compare the two
// states, not the two sizes.
func start(bin string, n int, set settings) (*running, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-addr", "127.0.0.1:0", "-generate", strconv.Itoa(n),
		"-rate-limit-minute", "0", "-rate-limit-day", "0")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	r := &running{n: n, pid: cmd.Process.Pid, cmd: cmd, cancel: cancel}
	if set.tagSweeps {
		r.sweep = new(atomic.Int64)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		r.stop()
		return nil, fmt.Errorf("reading the fake's base URL: %w", err)
	}
	r.client, err = billing.NewClient(billingtest.DefaultAPIKey, billing.WithBaseURL(strings.TrimSpace(line)),
		billing.WithHTTPClient(&http.Client{Transport: slowTransport{set.latency, r.sweep, http.DefaultTransport}}))
	if err == nil {
		_, err = sweeps(context.Background(), r, set.minInvoices, billing.Prefetch(8))
	}
	if err != nil {
		r.stop()
		return nil, err
	}
	return r, nil
}

// stop stops the fake and returns the CPU it used in all, 0 when that
// cannot be read.
func (r *running) stop() time.Duration {
	cpu, _ := procstat.Process(r.pid)
	r.cancel()
	_ = r.cmd.Wait()
	return cpu
}

// measure sweeps the fake sequentially, then with Prefetch(8), and reads
// its peak memory.
func (r *running) measure(minInvoices int) (m measured, err error) {
	ctx := context.Background()
	if m.seq, err = sweeps(ctx, r, minInvoices); err != nil {
		return m, err
	}
	if m.pre, err = sweeps(ctx, r, minInvoices, billing.Prefetch(8)); err != nil {
		return m, err
	}
	m.hwmMiB, err = vmHWM(r.pid)
	return m, err
}

// sweepAll pages through every invoice of r and checks that it saw them
// all.
func sweepAll(ctx context.Context, r *running, opts ...billing.IterOption) (sweep, error) {
	if r.sweep != nil {
		r.sweep.Add(1)
	}
	cpu0, err := procstat.Process(r.pid)
	if err != nil {
		return sweep{}, err
	}
	start := time.Now()
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: billingtest.MaxPageSize}}
	seen := 0
	for _, err := range r.client.Invoices.All(ctx, params, opts...) {
		if err != nil {
			return sweep{}, err
		}
		seen++
	}
	wall := time.Since(start)
	cpu1, err := procstat.Process(r.pid)
	if err != nil {
		return sweep{}, err
	}
	if seen != r.n {
		return sweep{}, fmt.Errorf("the sweep saw %d invoices, want %d", seen, r.n)
	}
	return sweep{wall: wall, fakeCPU: cpu1 - cpu0, n: r.n}, nil
}

// slowTransport waits d before each request, as a service that takes d to
// answer would; the wait costs no CPU. When sweep is not nil it adds
// sweep=<its value> to each request's query.
type slowTransport struct {
	d     time.Duration
	sweep *atomic.Int64
	next  http.RoundTripper
}

func (t slowTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case <-time.After(t.d):
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	if t.sweep != nil {
		// A RoundTripper must not change the request it is given.
		req = req.Clone(req.Context())
		tag := "sweep=" + strconv.FormatInt(t.sweep.Load(), 10)
		if req.URL.RawQuery != "" {
			tag = "&" + tag
		}
		req.URL.RawQuery += tag
	}
	return t.next.RoundTrip(req)
}

// vmHWM is process pid's peak resident memory in MiB.
func vmHWM(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/<pid>/status")
}

// Command interleave runs the comparisons of BENCHMARKS.md as ratios of
// contenders interleaved in one run: it builds the benchmarks' test binary
// once, then, round after round, runs each contender of a comparison once,
// in its own process, with the order rotated every round, so that load
// from elsewhere on a shared machine falls on every contender alike. Each
// ratio is computed within a round; the summary gives its median and its
// spread (min–max) over the rounds. The raw results, in the format of go
// test -bench, go to -out for benchstat.
//
// From the module root:
//
//	go run ./benchmarks/interleave -rounds 7 -out bench.txt
//
// -only DecodePage (or ListCall, Iterate, Stable, 100k) keeps the
// comparisons whose name contains it, -contenders SDK,TokenPass the
// contenders so named.
//
// A before/after claim compares two commits side by side:
//
//	go run ./benchmarks/interleave -rev before=d1371fe -only DecodePage -contenders SDK,TokenPass
//
// checks the revision out into a temporary git worktree, builds its
// benchmarks there, and runs every contender of both binaries in the same
// rotation; besides the ratios within each binary, it prints each
// contender's current/before ratio. Two revisions (-rev before=X -rev
// after=Y) also give after/before, for a claim about two older commits.
// A revision must have the benchmark and the contenders asked for.
//
// The output names the commits built, the CPU (from lscpu, else
// /proc/cpuinfo), the load average, and for each comparison the CPU time
// its benchmark processes used against what the rest of the machine used
// meanwhile (from /proc/stat): a figure taken while something else ran is
// not a figure of this code.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// comparison is a set of contenders measured together.
type comparison struct {
	name       string
	bench      string // the benchmark, e.g. BenchmarkDecodePage
	contenders []string
	benchtime  map[string]string
	ratios     []ratio
	metrics    []metric // per-contender metrics to summarise
}

// ratio is num's metric over den's, both from the same round.
type ratio struct {
	label, num, den, unit string
}

type metric struct{ contender, unit string }

var comparisons = []comparison{
	{
		name: "DecodePage", bench: "BenchmarkDecodePage",
		contenders: []string{"SDK", "Before", "FloatFloor", "TokenPass", "TokenPassLax", "Map"},
		benchtime:  map[string]string{"": "30x"},
		ratios: []ratio{
			{"SDK/TokenPass (time)", "SDK", "TokenPass", "ns/op"},
			{"SDK/TokenPassLax (time)", "SDK", "TokenPassLax", "ns/op"},
			{"SDK/FloatFloor (time)", "SDK", "FloatFloor", "ns/op"},
			{"SDK/Before (time)", "SDK", "Before", "ns/op"},
			{"SDK/Map (time)", "SDK", "Map", "ns/op"},
			{"SDK/Before (allocs)", "SDK", "Before", "allocs/op"},
			{"SDK/Before (bytes)", "SDK", "Before", "B/op"},
		},
		metrics: []metric{{"SDK", "MB/s"}, {"Before", "MB/s"}, {"FloatFloor", "MB/s"}, {"SDK", "allocs/op"}, {"Before", "allocs/op"}},
	},
	{
		name: "ListCall", bench: "BenchmarkListCall",
		contenders: []string{"SDK", "Floor"},
		benchtime:  map[string]string{"": "300x"},
		ratios: []ratio{
			{"SDK/Floor (time)", "SDK", "Floor", "ns/op"},
			{"SDK/Floor (allocs)", "SDK", "Floor", "allocs/op"},
		},
	},
	{
		name: "FakeFilteredSortedPage", bench: "BenchmarkFakeFilteredSortedPage",
		contenders: []string{"Fake", "FakeFirst", "Bare"},
		benchtime:  map[string]string{"": "300x", "FakeFirst": "30x"},
		ratios: []ratio{
			{"Bare/Fake (time: fake rate of bare)", "Bare", "Fake", "ns/op"},
			{"Bare/FakeFirst (time: first page)", "Bare", "FakeFirst", "ns/op"},
		},
		metrics: []metric{{"Fake", "ns/op"}, {"FakeFirst", "ns/op"}, {"Bare", "ns/op"}},
	},
	{
		name: "Iterate100k/Pages1000", bench: "BenchmarkIterate100k",
		contenders: []string{"Pages1000/Sequential", "Pages1000/Prefetch8"},
		benchtime:  map[string]string{"Pages1000/Sequential": "1x", "Pages1000/Prefetch8": "3x"},
		ratios: []ratio{
			{"Sequential/Prefetch8 (speed-up)", "Pages1000/Sequential", "Pages1000/Prefetch8", "ns/op"},
		},
		metrics: []metric{{"Pages1000/Prefetch8", "%cpu-floor"}, {"Pages1000/Prefetch8", "%cpu-avail"}, {"Pages1000/Prefetch8", "cpu-s/op"}, {"Pages1000/Sequential", "cpu-s/op"}, {"Pages1000/Prefetch8", "B/op"}},
	},
	{
		name: "Stable100k", bench: "BenchmarkStable100k",
		contenders: []string{"StableSequential", "StablePrefetch8"},
		benchtime:  map[string]string{"StableSequential": "1x", "StablePrefetch8": "3x"},
		ratios: []ratio{
			{"StableSequential/StablePrefetch8 (speed-up)", "StableSequential", "StablePrefetch8", "ns/op"},
		},
		metrics: []metric{{"StablePrefetch8", "%cpu-floor"}, {"StablePrefetch8", "%cpu-avail"}, {"StablePrefetch8", "cpu-s/op"}, {"StableSequential", "cpu-s/op"}, {"StablePrefetch8", "B/op"}},
	},
}

func main() {
	if err := interleave(); err != nil {
		log.Fatal(err)
	}
}

// interleave is the command; it returns once the revisions' worktrees
// are removed.
func interleave() (err error) {
	rounds := flag.Int("rounds", 7, "rounds: each contender runs once per round")
	out := flag.String("out", "bench.txt", "raw results, go test -bench format")
	only := flag.String("only", "", "run only the comparisons whose name contains this")
	subs := flag.String("contenders", "", "comma-separated contenders to run (e.g. SDK,TokenPass); all when empty")
	var revs revFlags
	flag.Var(&revs, "rev", "label=commit: also build the benchmarks at that git revision and run each contender of it\ninterleaved with the current tree's (repeatable)")
	flag.Parse()

	dir, err := os.MkdirTemp("", "interleave")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bins, cleanup, err := buildAll(".", dir, revs)
	defer func() { err = errors.Join(err, cleanup()) }()
	if err != nil {
		return err
	}
	raw, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer raw.Close()

	fmt.Printf("machine: %s\n", machine())
	for _, b := range bins {
		fmt.Printf("binary %s: commit %s\n", b.label, b.commit)
	}
	fmt.Printf("load at start: %s\n", load())
	total := startAccount()
	for _, cmp := range comparisons {
		if !strings.Contains(cmp.name, *only) {
			continue
		}
		entries := plan(cmp, bins, *subs)
		if len(entries) == 0 {
			continue
		}
		acct := startAccount()
		// results[entry key][round][unit] = value
		results := map[string][]map[string]float64{}
		for r := range *rounds {
			k := r % len(entries)
			for _, e := range append(slices.Clone(entries[k:]), entries[:k]...) {
				bt := cmp.benchtime[e.sub]
				if bt == "" {
					bt = cmp.benchtime[""]
				}
				line, vals, st, err := run(e.bin, cmp.bench, e.sub, bt)
				acct.add(st)
				total.add(st)
				if err != nil {
					return fmt.Errorf("%s %s/%s round %d: %w", e.bin.label, cmp.bench, e.sub, r, err)
				}
				fmt.Fprintln(raw, rawLine(line, e, len(bins)))
				results[e.key] = append(results[e.key], vals)
			}
		}
		fmt.Printf("\n%s: %d rounds, order rotated each round\n", cmp.name, *rounds)
		for _, e := range entries {
			fmt.Printf("  %-30s median %s\n", e.key, summary(results[e.key], "ns/op", 1e-6, "ms"))
		}
		for _, b := range bins {
			for _, m := range cmp.metrics {
				key := entryKey(b, m.contender, len(bins))
				if _, ok := results[key]; ok {
					fmt.Printf("  %-30s %-10s median %s\n", key, m.unit, summary(results[key], m.unit, 1, ""))
				}
			}
		}
		for _, rt := range ratios(cmp, bins) {
			if vs := roundRatios(results[rt.num], results[rt.den], rt.unit); len(vs) > 0 {
				fmt.Printf("  %-44s median %.3f  (min %.3f, max %.3f)\n", rt.label, median(vs), slices.Min(vs), slices.Max(vs))
			}
		}
		fmt.Printf("  CPU: %s\n", acct.report())
	}
	fmt.Printf("\nload at end: %s\n", load())
	fmt.Printf("CPU over the whole run: %s\n", total.report())
	return nil
}

// buildAll builds the current tree's benchmarks and those of each
// revision into dir. cleanup removes the revisions' worktrees; call it
// even when err is not nil.
func buildAll(root, dir string, revs []revision) (bins []binary, cleanup func() error, err error) {
	var removes []func() error
	cleanup = func() error {
		var errs []error
		for _, rm := range removes {
			errs = append(errs, rm())
		}
		return errors.Join(errs...)
	}
	cur := binary{label: currentLabel, path: filepath.Join(dir, "bench-current.test"), dir: filepath.Join(root, "benchmarks"), commit: treeCommit(root)}
	if err := buildBenchmarks(root, cur.path, os.Stderr); err != nil {
		return nil, cleanup, err
	}
	for _, rev := range revs {
		b, remove, err := buildRevision(root, dir, rev, os.Stderr)
		if err != nil {
			return nil, cleanup, err
		}
		removes = append(removes, remove)
		bins = append(bins, b)
	}
	// The revisions first: with one, "before" and "current" read in order.
	return append(bins, cur), cleanup, nil
}

// entry is one contender of a comparison as run: a sub-benchmark of one
// binary.
type entry struct {
	bin *binary
	sub string // the sub-benchmark, e.g. "SDK"
	key string // its name in the output
}

// entryKey names sub of b: the sub-benchmark alone when there is one
// binary, else label:sub.
func entryKey(b binary, sub string, nbins int) string {
	if nbins == 1 {
		return sub
	}
	return b.label + ":" + sub
}

// plan lists the entries of cmp: each of its contenders kept by the
// -contenders list (all when it is empty), for each binary.
func plan(cmp comparison, bins []binary, only string) []entry {
	keep := map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		if s = strings.TrimSpace(s); s != "" {
			keep[s] = true
		}
	}
	var es []entry
	for _, sub := range cmp.contenders {
		if len(keep) > 0 && !keep[sub] {
			continue
		}
		for i := range bins {
			es = append(es, entry{bin: &bins[i], sub: sub, key: entryKey(bins[i], sub, len(bins))})
		}
	}
	return es
}

// ratios are cmp's ratios within each binary and, with revisions, each
// contender of a later binary over the same contender of each earlier one
// (the revisions in the order given, then the current tree): with
// -rev before=X, current/before; with -rev before=X -rev after=Y also
// after/before.
func ratios(cmp comparison, bins []binary) []ratio {
	var rs []ratio
	for _, b := range bins {
		for _, rt := range cmp.ratios {
			r := rt
			r.num, r.den = entryKey(b, rt.num, len(bins)), entryKey(b, rt.den, len(bins))
			if len(bins) > 1 {
				r.label = b.label + ": " + rt.label
			}
			rs = append(rs, r)
		}
	}
	for j := len(bins) - 1; j > 0; j-- {
		for i := range j {
			later, earlier := bins[j], bins[i]
			for _, sub := range cmp.contenders {
				for _, unit := range []string{"ns/op", "allocs/op"} {
					rs = append(rs, ratio{
						label: fmt.Sprintf("%s %s/%s (%s)", sub, later.label, earlier.label, unit),
						num:   entryKey(later, sub, len(bins)), den: entryKey(earlier, sub, len(bins)), unit: unit,
					})
				}
			}
		}
	}
	return rs
}

// roundRatios is num's unit over den's, round by round, for the rounds
// where both have it.
func roundRatios(num, den []map[string]float64, unit string) []float64 {
	var vs []float64
	for i := range min(len(num), len(den)) {
		n, ok1 := num[i][unit]
		d, ok2 := den[i][unit]
		if ok1 && ok2 && d != 0 {
			vs = append(vs, n/d)
		}
	}
	return vs
}

// rawLine is a result line for benchstat; with several binaries the
// benchmark's name carries the binary's label, so that benchstat keeps
// them apart.
func rawLine(line string, e entry, nbins int) string {
	if nbins == 1 {
		return line
	}
	name, rest, _ := strings.Cut(line, "\t")
	return name + "/bin=" + e.bin.label + "\t" + rest
}

// run runs one contender once and returns its result line, its values and
// the process's state (for its CPU time).
func run(b *binary, bench, contender, benchtime string) (string, map[string]float64, *os.ProcessState, error) {
	pattern := "^" + bench + "$"
	for _, part := range strings.Split(contender, "/") {
		pattern += "/^" + part + "$"
	}
	cmd := exec.Command(b.path, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", benchtime,
		"-test.count", "1", "-test.benchmem")
	cmd.Dir = b.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		return "", nil, cmd.ProcessState, fmt.Errorf("%v\n%s%s", err, outb, stderr.Bytes())
	}
	line, vals, err := parseResult(outb, bench)
	return line, vals, cmd.ProcessState, err
}

// parseResult finds bench's result line in a test binary's output and
// reads its value-unit pairs.
func parseResult(out []byte, bench string) (string, map[string]float64, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, bench+"/") {
			continue
		}
		f := strings.Fields(line)
		vals := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return "", nil, fmt.Errorf("parsing %q: %v", line, err)
			}
			vals[f[i+1]] = v
		}
		return line, vals, nil
	}
	return "", nil, fmt.Errorf("no result line in:\n%s", out)
}

func summary(rs []map[string]float64, unit string, scale float64, suffix string) string {
	var vs []float64
	for _, r := range rs {
		if v, ok := r[unit]; ok {
			vs = append(vs, v*scale)
		}
	}
	if len(vs) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.4g%s (min %.4g, max %.4g)", median(vs), suffix, slices.Min(vs), slices.Max(vs))
}

func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

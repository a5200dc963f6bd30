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
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
		contenders: []string{"SDK", "Before", "FloatFloor", "TokenPass", "Map"},
		benchtime:  map[string]string{"": "30x"},
		ratios: []ratio{
			{"SDK/TokenPass (time)", "SDK", "TokenPass", "ns/op"},
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
	rounds := flag.Int("rounds", 7, "rounds: each contender runs once per round")
	out := flag.String("out", "bench.txt", "raw results, go test -bench format")
	only := flag.String("only", "", "run only the comparisons whose name contains this")
	flag.Parse()

	dir, err := os.MkdirTemp("", "interleave")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "bench.test")
	build := exec.Command("go", "test", "-c", "-o", bin, "./benchmarks")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		log.Fatalf("building the benchmarks: %v", err)
	}
	raw, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	defer raw.Close()

	fmt.Printf("machine: %s\n", machine())
	fmt.Printf("load at start: %s\n", load())
	for _, cmp := range comparisons {
		if !strings.Contains(cmp.name, *only) {
			continue
		}
		// results[contender][round][unit] = value
		results := map[string][]map[string]float64{}
		for r := range *rounds {
			order := append(slices.Clone(cmp.contenders[r%len(cmp.contenders):]), cmp.contenders[:r%len(cmp.contenders)]...)
			for _, c := range order {
				bt := cmp.benchtime[c]
				if bt == "" {
					bt = cmp.benchtime[""]
				}
				line, vals, err := run(bin, cmp.bench, c, bt)
				if err != nil {
					log.Fatalf("%s/%s round %d: %v", cmp.bench, c, r, err)
				}
				fmt.Fprintln(raw, line)
				results[c] = append(results[c], vals)
			}
		}
		fmt.Printf("\n%s: %d rounds, order rotated each round\n", cmp.name, *rounds)
		for _, c := range cmp.contenders {
			fmt.Printf("  %-22s median %s\n", c, summary(results[c], "ns/op", 1e-6, "ms"))
		}
		for _, m := range cmp.metrics {
			fmt.Printf("  %-22s %-10s median %s\n", m.contender, m.unit, summary(results[m.contender], m.unit, 1, ""))
		}
		for _, rt := range cmp.ratios {
			var vs []float64
			for i := range results[rt.num] {
				vs = append(vs, results[rt.num][i][rt.unit]/results[rt.den][i][rt.unit])
			}
			fmt.Printf("  %-34s median %.3f  (min %.3f, max %.3f)\n", rt.label, median(vs), slices.Min(vs), slices.Max(vs))
		}
	}
	fmt.Printf("\nload at end: %s\n", load())
}

// run runs one contender once and returns its result line and values.
func run(bin, bench, contender, benchtime string) (string, map[string]float64, error) {
	pattern := "^" + bench + "$"
	for _, part := range strings.Split(contender, "/") {
		pattern += "/^" + part + "$"
	}
	cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", benchtime,
		"-test.count", "1", "-test.benchmem")
	cmd.Dir = "benchmarks"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("%v\n%s%s", err, outb, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(outb))
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
	return "", nil, fmt.Errorf("no result line in:\n%s", outb)
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

// machine describes the machine from lscpu, not from memory.
func machine() string {
	out, err := exec.Command("lscpu").Output()
	if err != nil {
		return fmt.Sprintf("lscpu unavailable (%v); %s/%s, GOMAXPROCS %d", err, runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	}
	var parts []string
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Model name", "CPU(s)", "Thread(s) per core", "Hypervisor vendor", "L3":
			parts = append(parts, strings.TrimSpace(k)+": "+strings.TrimSpace(v))
		}
	}
	return strings.Join(parts, "; ") + fmt.Sprintf("; %s, GOMAXPROCS %d", runtime.Version(), runtime.GOMAXPROCS(0))
}

func load() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

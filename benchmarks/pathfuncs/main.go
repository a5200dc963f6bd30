// Command pathfuncs counts the functions of the SDK that one operation
// runs, and the hand-written lines of the root and internal packages:
// the two size figures of issue 21 (the weight under the service methods).
//
// From the module root:
//
//	go run ./benchmarks/pathfuncs
//
// It builds this command with coverage on every package of the module
// (go build -cover -covermode=atomic -coverpkg=<module>/...), then runs
// each operation once per process, in a fresh process, -repeat times,
// against the bundled fake (billingtest) seeded with -invoices generated
// invoices:
//
//   - get: client.Invoices.Get(ctx, id, nil)
//   - all-prefetch8: client.Invoices.All(ctx, params, billing.Prefetch(8))
//   - stable-prefetch8: the same with billing.Stable(&cur) as well
//   - all, stable: the two without Prefetch (one request at a time)
//
// where params asks for pages of -pagesize invoices, so that 5,000
// invoices are 50 pages and the prefetch pipeline fills (-pagesize 0
// passes nil params: pages of the fake's default 100, and of 1,000 in
// stable iteration). Every iteration is checked to yield each
// invoice exactly once.
//
// A measured process has three phases: setup (process start and, with
// the fake in the process, starting and seeding it), client
// (billing.NewClient) and the operation. After each it writes the
// coverage counters of that phase alone and clears them
// (runtime/coverage), so that setup is left out exactly, without a
// second process. A function counts as run when go tool cover -func would
// give it more than 0.0%: one of its statements ran (a function literal
// belongs to the function it is written in, as there).
//
// The headline is reading "op" with the fake in another process (a second
// process of this command, whose coverage is not read): the functions of
// the module's non-test code that the operation alone ran on the client
// side. That is how issue 21's figures were most likely counted: on the
// commit the issue measured (d1371fe, where the root package had the
// issue's 6,1xx lines) it gives Get 78, All with Prefetch(8) 123 and
// stable with Prefetch(8) 149 against the 78, 122 and 147, the
// closest of the readings below (op-new 77, 119, 145; client+op 82, 127,
// 153; op with the fake in the process 91, 136, 166).
//
// With the fake in the measured process (-fake inprocess), its package,
// billingtest, is counted in a column of its own, but the root-package
// functions the fake runs to build its answers (it renders billing types)
// land in the root column: that run is printed for the split, not as the
// headline. For both placements, the other readings are printed for
// comparison with figures counted another way:
//
//   - op-new: the operation's functions that setup and client
//     construction had not already run, as subtracting what a setup-only
//     process runs would give;
//   - client+op: client construction and the operation;
//   - process: everything the process ran, setup included, which is what
//     go test -coverpkg=./... -coverprofile reports for a test that seeds
//     the fake, builds a client and runs the operation.
//
// The root column also says how many of its functions are in generated
// files (resources_json.go), which a refactor of the hand-written code
// does not change. Then come the hand-written lines (wc -l, comments and
// blank lines included, generated files apart) of the root package and
// of each package under internal/.
//
// Counts that differ between repeats are printed as min-max (the prefetch
// pipeline's scheduling can take a branch in one run and not another);
// -v lists the functions of reading op.
//
// It needs no network: the fake listens on loopback. It is not a test, so
// go test ./... never runs it (it takes about ten seconds).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

const modulePath = "github.com/billingapi/billing-go"

// Where the fake runs.
const (
	fakeInProcess = "inprocess"
	fakeProcess   = "process"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("pathfuncs: ")
	var (
		repeat   = flag.Int("repeat", 3, "measured processes per operation and fake placement")
		opsFlag  = flag.String("ops", "", "comma-separated operations (default: get,all-prefetch8,stable-prefetch8,all,stable)")
		fake     = flag.String("fake", "both", "where the fake runs: inprocess, process or both")
		invoices = flag.Int("invoices", 5000, "generated invoices the fake holds")
		pageSize = flag.Int("pagesize", 100, "PageSize of the iterations; 0 passes nil params")
		verbose  = flag.Bool("v", false, "list the functions of reading op")
		keep     = flag.Bool("keep", false, "keep the work directory (binary, coverage data, profiles)")
		// The measured processes: this command, built with coverage.
		child     = flag.String("child", "", "internal: run this one operation and write its phases' coverage under -dir")
		dir       = flag.String("dir", "", "internal: with -child, the directory for the coverage data")
		url       = flag.String("url", "", "internal: with -child, the fake's URL (empty: a fake in the process)")
		invoiceID = flag.Int64("invoice", 0, "internal: with -child and -url, the invoice Get reads")
		serveFake = flag.Bool("serve", false, "internal: serve the fake, print its URL and an invoice id, stop when stdin closes")
	)
	flag.Parse()
	w := workload{invoices: *invoices, pageSize: *pageSize}
	switch {
	case *serveFake:
		if err := serve(*invoices); err != nil {
			log.Fatal(err)
		}
	case *child != "":
		op, ok := lookupOperation(*child)
		if !ok {
			log.Fatalf("unknown operation %q", *child)
		}
		if err := measure(op, *dir, *url, *invoiceID, w); err != nil {
			log.Fatal(err)
		}
	default:
		ops, err := selectOperations(*opsFlag)
		if err != nil {
			log.Fatal(err)
		}
		var places []string
		switch *fake {
		case "both":
			places = []string{fakeInProcess, fakeProcess}
		case fakeInProcess, fakeProcess:
			places = []string{*fake}
		default:
			log.Fatalf("-fake must be inprocess, process or both, not %q", *fake)
		}
		if *repeat < 1 || *invoices < 1 || *pageSize < 0 {
			log.Fatal("-repeat and -invoices must be at least 1, -pagesize at least 0")
		}
		r := runner{ops: ops, places: places, repeat: *repeat, workload: w, verbose: *verbose, keep: *keep}
		if err := r.run(); err != nil {
			log.Fatal(err)
		}
	}
}

func selectOperations(list string) ([]operation, error) {
	if list == "" {
		return operations, nil
	}
	var ops []operation
	for name := range strings.SplitSeq(list, ",") {
		op, ok := lookupOperation(strings.TrimSpace(name))
		if !ok {
			return nil, fmt.Errorf("unknown operation %q", name)
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// runner measures and reports.
type runner struct {
	ops      []operation
	places   []string
	repeat   int
	workload workload
	verbose  bool
	keep     bool

	mod  *module
	work string // the work directory
	bin  string // this command, built with coverage
}

func (r *runner) run() (err error) {
	modPath, modDir, err := mainModule()
	if err != nil {
		return err
	}
	if modPath != modulePath {
		return fmt.Errorf("run it inside module %s, not %s", modulePath, modPath)
	}
	r.mod = newModule(modPath, modDir)
	if r.work, err = os.MkdirTemp("", "pathfuncs-"); err != nil {
		return err
	}
	if r.keep {
		fmt.Println("work directory:", r.work)
	} else {
		defer os.RemoveAll(r.work)
	}
	r.bin = filepath.Join(r.work, "measured")
	build := exec.Command("go", "build", "-cover", "-covermode=atomic", "-coverpkg="+modulePath+"/...",
		"-o", r.bin, modulePath+"/benchmarks/pathfuncs")
	build.Dir = modDir
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", build, err, out)
	}

	results := map[string]map[string][]phaseSets{} // place, operation: one per repeat
	for _, place := range r.places {
		results[place] = map[string][]phaseSets{}
		var url string
		var id int64
		if place == fakeProcess {
			var stop func() error
			if url, id, stop, err = r.startFake(); err != nil {
				return err
			}
			defer func() { err = errors.Join(err, stop()) }()
		}
		for _, op := range r.ops {
			for i := range r.repeat {
				ps, err := r.measure(op, place, i, url, id)
				if err != nil {
					return err
				}
				results[place][op.name] = append(results[place][op.name], ps)
			}
		}
	}
	r.report(results)
	lines, err := countLines(modDir)
	if err != nil {
		return err
	}
	fmt.Println()
	lines.print()
	return nil
}

func mainModule() (path, dir string, err error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Dir}}").Output()
	if err != nil {
		return "", "", fmt.Errorf("go list -m: %w", err)
	}
	path, dir, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok || strings.Contains(dir, "\n") {
		return "", "", fmt.Errorf("go list -m printed %q: run it inside module %s", out, modulePath)
	}
	return path, dir, nil
}

// startFake starts the fake in a process of its own; stop ends it.
func (r *runner) startFake() (url string, id int64, stop func() error, err error) {
	cmd := exec.Command(r.bin, "-serve", "-invoices", itoa(r.workload.invoices))
	cmd.Env = append(os.Environ(), "GOCOVERDIR="+r.discardDir()) // its coverage is not measured
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", 0, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	stop = func() error {
		stdin.Close()
		return cmd.Wait()
	}
	if url, id, err = readServeLine(stdout); err != nil {
		return "", 0, nil, errors.Join(err, stop())
	}
	return url, id, stop, nil
}

func (r *runner) discardDir() string {
	d := filepath.Join(r.work, "discard")
	_ = os.MkdirAll(d, 0o755)
	return d
}

// phaseSets are the functions each phase of one measured process ran.
type phaseSets map[string]map[function]bool

// measure runs one measured process and reads its coverage.
func (r *runner) measure(op operation, place string, i int, url string, id int64) (phaseSets, error) {
	dir := filepath.Join(r.work, place, op.name, itoa(i))
	args := []string{"-child", op.name, "-dir", dir, "-invoices", itoa(r.workload.invoices), "-pagesize", itoa(r.workload.pageSize)}
	if url != "" {
		args = append(args, "-url", url, "-invoice", fmt.Sprint(id))
	}
	cmd := exec.Command(r.bin, args...)
	// The runtime writes the whole process's counters at exit too: away
	// from the phases'.
	cmd.Env = append(os.Environ(), "GOCOVERDIR="+r.discardDir())
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s (fake %s): %v\n%s", op.name, place, err, stderr.Bytes())
	}
	ps := phaseSets{}
	for _, ph := range phases {
		d := filepath.Join(dir, ph)
		prof := d + ".txt"
		textfmt := exec.Command("go", "tool", "covdata", "textfmt", "-i="+d, "-o="+prof)
		if out, err := textfmt.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", textfmt, err, out)
		}
		f, err := os.Open(prof)
		if err != nil {
			return nil, err
		}
		blocks, err := parseProfile(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", prof, err)
		}
		if ps[ph], err = r.mod.ranFuncs(blocks); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

// reading is one way of counting the functions of a process.
type reading struct {
	name string
	of   func(phaseSets) map[function]bool
}

var readings = []reading{
	{"op", func(ps phaseSets) map[function]bool { return ps[phaseOp] }},
	{"op-new", func(ps phaseSets) map[function]bool {
		return minus(ps[phaseOp], union(ps[phaseSetup], ps[phaseClient]))
	}},
	{"client+op", func(ps phaseSets) map[function]bool { return union(ps[phaseClient], ps[phaseOp]) }},
	{"process", func(ps phaseSets) map[function]bool { return union(ps[phaseSetup], ps[phaseClient], ps[phaseOp]) }},
}

func union(sets ...map[function]bool) map[function]bool {
	u := map[function]bool{}
	for _, s := range sets {
		for f := range s {
			u[f] = true
		}
	}
	return u
}

func minus(a, b map[function]bool) map[function]bool {
	d := map[function]bool{}
	for f := range a {
		if !b[f] {
			d[f] = true
		}
	}
	return d
}

// cell is a count over the repeats: n, or min-max when they differ.
func cell(counts []int) string {
	lo, hi := slices.Min(counts), slices.Max(counts)
	if lo == hi {
		return itoa(lo)
	}
	return itoa(lo) + "-" + itoa(hi)
}

func (r *runner) report(results map[string]map[string][]phaseSets) {
	params := fmt.Sprintf("PageSize %d", r.workload.pageSize)
	if r.workload.pageSize == 0 {
		params = "nil params"
	}
	fmt.Printf("Functions of the module's non-test code run by one operation per process (%d processes each; fake seeded with %d invoices; iterations with %s)\n",
		r.repeat, r.workload.invoices, params)
	fmt.Println("SDK = root + query + internal + other SDK packages; root(gen) = of root, in generated files; billingtest (the fake) is counted apart, not in SDK.")
	if results[fakeProcess] != nil {
		fmt.Print("\nHeadline (reading op, fake in another process):")
		for i, op := range r.ops {
			var counts []int
			for _, ps := range results[fakeProcess][op.name] {
				counts = append(counts, r.mod.tally(ps[phaseOp]).sdk())
			}
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Printf("%s %s %s", sep, op.name, cell(counts))
		}
		fmt.Println()
	}
	for _, place := range r.places {
		fmt.Println()
		switch place {
		case fakeInProcess:
			fmt.Println("Fake in the measured process (billingtest apart; root includes what the fake ran of it):")
		case fakeProcess:
			fmt.Println("Fake in another process (the client side only; the headline is reading op):")
		}
		fmt.Printf("  %-17s %-10s %7s %7s %9s %6s %9s %6s %12s\n", "operation", "reading", "SDK", "root", "root(gen)", "query", "internal", "other", "billingtest")
		for _, op := range r.ops {
			runs := results[place][op.name]
			for _, rd := range readings {
				cols := map[string][]int{}
				for _, ps := range runs {
					t := r.mod.tally(rd.of(ps))
					cols["sdk"] = append(cols["sdk"], t.sdk())
					for _, a := range []string{areaRoot, areaRootGenerated, areaQuery, areaInternal, areaOther, areaBillingtest} {
						cols[a] = append(cols[a], t[a])
					}
				}
				fmt.Printf("  %-17s %-10s %7s %7s %9s %6s %9s %6s %12s\n", op.name, rd.name, cell(cols["sdk"]), cell(cols[areaRoot]),
					cell(cols[areaRootGenerated]), cell(cols[areaQuery]), cell(cols[areaInternal]), cell(cols[areaOther]), cell(cols[areaBillingtest]))
			}
		}
	}
	if r.verbose {
		for _, place := range r.places {
			for _, op := range r.ops {
				r.list(place, op, results[place][op.name])
			}
		}
	}
}

// list prints the SDK functions of reading op, marking with * those that
// did not run in every repeat.
func (r *runner) list(place string, op operation, runs []phaseSets) {
	seen := map[function]int{}
	for _, ps := range runs {
		for f := range ps[phaseOp] {
			if a := r.mod.area(f.file); a != areaBillingtest && a != areaTool {
				seen[f]++
			}
		}
	}
	fmt.Printf("\n%s (fake %s): %s\n", op.name, place, op.call)
	fs := slices.SortedFunc(func(yield func(function) bool) {
		for f := range seen {
			if !yield(f) {
				return
			}
		}
	}, func(a, b function) int { return strings.Compare(a.String(), b.String()) })
	for _, f := range fs {
		mark := " "
		if seen[f] < len(runs) {
			mark = "*"
		}
		rel, _ := r.mod.rel(f.file)
		fmt.Printf("  %s %s:%d %s\n", mark, rel, f.line, f.name)
	}
}

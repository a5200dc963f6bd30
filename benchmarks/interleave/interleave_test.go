package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRevFlagsSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		want    revFlags
		wantErr string
	}{
		{name: "one", args: []string{"-rev", "before=d1371fe"}, want: revFlags{{"before", "d1371fe"}}},
		{name: "two in order", args: []string{"-rev", "old=HEAD~2", "-rev", "mid=v1.2.0"}, want: revFlags{{"old", "HEAD~2"}, {"mid", "v1.2.0"}}},
		{name: "commit with equals sign kept whole", args: []string{"-rev", "a=x=y"}, want: revFlags{{"a", "x=y"}}},
		{name: "no label", args: []string{"-rev", "=abc"}, wantErr: "want label=commit"},
		{name: "no commit", args: []string{"-rev", "before="}, wantErr: "want label=commit"},
		{name: "no equals sign", args: []string{"-rev", "abc"}, wantErr: "want label=commit"},
		{name: "label of the current tree", args: []string{"-rev", "current=abc"}, wantErr: "names the current tree"},
		{name: "label twice", args: []string{"-rev", "a=1", "-rev", "a=2"}, wantErr: "given twice"},
		{name: "label with a colon", args: []string{"-rev", "a:b=1"}, wantErr: "only letters"},
		{name: "commit like an option", args: []string{"-rev", "a=--exec=x"}, wantErr: "not a revision"},
		{name: "commit with a space", args: []string{"-rev", "a=HEAD 1"}, wantErr: "not a revision"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := flag.NewFlagSet("interleave", flag.ContinueOnError)
			fs.SetOutput(new(strings.Builder))
			var got revFlags
			fs.Var(&got, "rev", "")
			err := fs.Parse(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(revision{})); diff != "" {
				t.Errorf("revisions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanAndRatios(t *testing.T) {
	t.Parallel()
	c := comparison{
		name: "DecodePage", bench: "BenchmarkDecodePage",
		contenders: []string{"SDK", "Before", "TokenPass"},
		ratios:     []ratio{{"SDK/TokenPass (time)", "SDK", "TokenPass", "ns/op"}},
	}
	type plannedEntry struct{ Label, Sub, Key string }
	flatten := func(es []entry) []plannedEntry {
		var out []plannedEntry
		for _, e := range es {
			out = append(out, plannedEntry{e.bin.label, e.sub, e.key})
		}
		return out
	}
	one := []binary{{label: currentLabel}}
	two := []binary{{label: "before"}, {label: currentLabel}}
	three := []binary{{label: "before"}, {label: "after"}, {label: currentLabel}}
	tests := []struct {
		name       string
		bins       []binary
		contenders string
		want       []plannedEntry
		wantRatios []ratio
	}{
		{
			name: "one binary, every contender",
			bins: one,
			want: []plannedEntry{{"current", "SDK", "SDK"}, {"current", "Before", "Before"}, {"current", "TokenPass", "TokenPass"}},
			wantRatios: []ratio{
				{"SDK/TokenPass (time)", "SDK", "TokenPass", "ns/op"},
			},
		},
		{
			name: "a revision, two contenders", bins: two, contenders: "SDK, TokenPass",
			want: []plannedEntry{
				{"before", "SDK", "before:SDK"}, {"current", "SDK", "current:SDK"},
				{"before", "TokenPass", "before:TokenPass"}, {"current", "TokenPass", "current:TokenPass"},
			},
			wantRatios: []ratio{
				{"before: SDK/TokenPass (time)", "before:SDK", "before:TokenPass", "ns/op"},
				{"current: SDK/TokenPass (time)", "current:SDK", "current:TokenPass", "ns/op"},
				{"SDK current/before (ns/op)", "current:SDK", "before:SDK", "ns/op"},
				{"SDK current/before (allocs/op)", "current:SDK", "before:SDK", "allocs/op"},
				{"Before current/before (ns/op)", "current:Before", "before:Before", "ns/op"},
				{"Before current/before (allocs/op)", "current:Before", "before:Before", "allocs/op"},
				{"TokenPass current/before (ns/op)", "current:TokenPass", "before:TokenPass", "ns/op"},
				{"TokenPass current/before (allocs/op)", "current:TokenPass", "before:TokenPass", "allocs/op"},
			},
		},
		{
			name: "two revisions", bins: three, contenders: "SDK",
			want: []plannedEntry{{"before", "SDK", "before:SDK"}, {"after", "SDK", "after:SDK"}, {"current", "SDK", "current:SDK"}},
			wantRatios: []ratio{
				{"before: SDK/TokenPass (time)", "before:SDK", "before:TokenPass", "ns/op"},
				{"after: SDK/TokenPass (time)", "after:SDK", "after:TokenPass", "ns/op"},
				{"current: SDK/TokenPass (time)", "current:SDK", "current:TokenPass", "ns/op"},
				{"SDK current/before (ns/op)", "current:SDK", "before:SDK", "ns/op"},
				{"SDK current/before (allocs/op)", "current:SDK", "before:SDK", "allocs/op"},
				{"Before current/before (ns/op)", "current:Before", "before:Before", "ns/op"},
				{"Before current/before (allocs/op)", "current:Before", "before:Before", "allocs/op"},
				{"TokenPass current/before (ns/op)", "current:TokenPass", "before:TokenPass", "ns/op"},
				{"TokenPass current/before (allocs/op)", "current:TokenPass", "before:TokenPass", "allocs/op"},
				{"SDK current/after (ns/op)", "current:SDK", "after:SDK", "ns/op"},
				{"SDK current/after (allocs/op)", "current:SDK", "after:SDK", "allocs/op"},
				{"Before current/after (ns/op)", "current:Before", "after:Before", "ns/op"},
				{"Before current/after (allocs/op)", "current:Before", "after:Before", "allocs/op"},
				{"TokenPass current/after (ns/op)", "current:TokenPass", "after:TokenPass", "ns/op"},
				{"TokenPass current/after (allocs/op)", "current:TokenPass", "after:TokenPass", "allocs/op"},
				{"SDK after/before (ns/op)", "after:SDK", "before:SDK", "ns/op"},
				{"SDK after/before (allocs/op)", "after:SDK", "before:SDK", "allocs/op"},
				{"Before after/before (ns/op)", "after:Before", "before:Before", "ns/op"},
				{"Before after/before (allocs/op)", "after:Before", "before:Before", "allocs/op"},
				{"TokenPass after/before (ns/op)", "after:TokenPass", "before:TokenPass", "ns/op"},
				{"TokenPass after/before (allocs/op)", "after:TokenPass", "before:TokenPass", "allocs/op"},
			},
		},
		{
			// The ratios do not depend on the contenders run: one whose
			// contenders did not run has no values and is not printed.
			name: "no contender of that name", bins: one, contenders: "Floor",
			wantRatios: []ratio{{"SDK/TokenPass (time)", "SDK", "TokenPass", "ns/op"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, flatten(plan(c, tt.bins, tt.contenders))); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRatios, ratios(c, tt.bins), cmp.AllowUnexported(ratio{})); diff != "" {
				t.Errorf("ratios (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRoundRatios(t *testing.T) {
	t.Parallel()
	num := []map[string]float64{{"ns/op": 3}, {"ns/op": 4}, {"B/op": 1}}
	den := []map[string]float64{{"ns/op": 2}, {"ns/op": 0}, {"ns/op": 1}, {"ns/op": 9}}
	// Round 2 divides by zero and round 3 lacks the unit: both left out;
	// den's fourth round has no partner.
	if diff := cmp.Diff([]float64{1.5}, roundRatios(num, den, "ns/op")); diff != "" {
		t.Errorf("ratios (-want +got):\n%s", diff)
	}
}

func TestParseResult(t *testing.T) {
	t.Parallel()
	out := []byte("goos: linux\ngoarch: amd64\npkg: x\ncpu: AMD EPYC\n" +
		"BenchmarkDecodePage/SDK-2   \t      30\t   8760000 ns/op\t 418.00 MB/s\t 1234 B/op\t   18800 allocs/op\nPASS\n")
	line, vals, err := parseResult(out, "BenchmarkDecodePage")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(line, "BenchmarkDecodePage/SDK-2") {
		t.Errorf("line %q", line)
	}
	want := map[string]float64{"ns/op": 8760000, "MB/s": 418, "B/op": 1234, "allocs/op": 18800}
	if diff := cmp.Diff(want, vals); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if _, _, err := parseResult([]byte("PASS\n"), "BenchmarkDecodePage"); err == nil {
		t.Error("no result line: no error")
	}
	if _, _, err := parseResult([]byte("BenchmarkDecodePage/SDK-2 30 fast ns/op\n"), "BenchmarkDecodePage"); err == nil {
		t.Error("a value that is not a number: no error")
	}
}

func TestRawLine(t *testing.T) {
	t.Parallel()
	line := "BenchmarkDecodePage/SDK-2\t30\t8760000 ns/op"
	e := entry{bin: &binary{label: "before"}, sub: "SDK"}
	if got := rawLine(line, e, 1); got != line {
		t.Errorf("one binary: %q", got)
	}
	if got, want := rawLine(line, e, 2), "BenchmarkDecodePage/SDK-2/bin=before\t30\t8760000 ns/op"; got != want {
		t.Errorf("two binaries: %q, want %q", got, want)
	}
}

func TestMachineSummaries(t *testing.T) {
	t.Parallel()
	lscpu := "Architecture:  x86_64\nCPU(s):  2\nModel name:  AMD EPYC 9B14\nCPU family:  25\nModel:  17\nThread(s) per core:  1\nHypervisor vendor:  KVM\nL3 cache:  32 MiB (1 instance)\nFlags: fpu vme\n"
	if got, want := lscpuSummary(lscpu), "CPU(s): 2; Model name: AMD EPYC 9B14; CPU family: 25; Model: 17; Thread(s) per core: 1; Hypervisor vendor: KVM; L3 cache: 32 MiB (1 instance)"; got != want {
		t.Errorf("lscpu: %q, want %q", got, want)
	}
	cpuinfo := "processor\t: 0\nmodel name\t: AMD EPYC 9B14\n\nprocessor\t: 1\nmodel name\t: AMD EPYC 9B14\n"
	if got, want := cpuinfoSummary(cpuinfo), "Model name: AMD EPYC 9B14; CPU(s): 2"; got != want {
		t.Errorf("cpuinfo: %q, want %q", got, want)
	}
	if got := cpuinfoSummary("processor\t: 0\n"); got != "" {
		t.Errorf("cpuinfo without a model: %q", got)
	}
}

// TestBuildRevision builds the benchmarks of an older commit of a
// throwaway repository: the binary is that commit's (it lists only the
// benchmark the commit had), it runs in that commit's benchmarks
// directory, and removing the worktree leaves the repository as it was.
func TestBuildRevision(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(repo, "git", "init", "-q")
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("benchmarks/a_test.go", "package benchmarks\n\nimport \"testing\"\n\nfunc BenchmarkOld(b *testing.B) { for b.Loop() {} }\n")
	run(repo, "git", "add", ".")
	run(repo, "git", "commit", "-q", "-m", "old")
	old := run(repo, "git", "rev-parse", "HEAD")
	write("benchmarks/b_test.go", "package benchmarks\n\nimport \"testing\"\n\nfunc BenchmarkNew(b *testing.B) { for b.Loop() {} }\n")
	run(repo, "git", "add", ".")
	run(repo, "git", "commit", "-q", "-m", "new")

	dir := t.TempDir()
	var log strings.Builder
	b, remove, err := buildRevision(repo, dir, revision{label: "before", commit: "HEAD~1"}, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	want := binary{
		label:  "before",
		path:   filepath.Join(dir, "bench-before.test"),
		dir:    filepath.Join(dir, "worktree-before", "benchmarks"),
		commit: old,
	}
	if diff := cmp.Diff(want, b, cmp.AllowUnexported(binary{})); diff != "" {
		t.Errorf("binary (-want +got):\n%s", diff)
	}
	if got := run(b.dir, b.path, "-test.list", "."); got != "BenchmarkOld" {
		t.Errorf("the revision's binary lists %q, want only BenchmarkOld", got)
	}
	if err := remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "worktree-before")); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if got := run(repo, "git", "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
		t.Errorf("the repository still lists the revision's worktree:\n%s", got)
	}
	if got, want := treeCommit(repo), run(repo, "git", "rev-parse", "HEAD"); got != want {
		t.Errorf("treeCommit = %q, want %q", got, want)
	}
	write("benchmarks/b_test.go", "package benchmarks\n")
	if got, want := treeCommit(repo), run(repo, "git", "rev-parse", "HEAD")+"+dirty"; got != want {
		t.Errorf("treeCommit of a changed tree = %q, want %q", got, want)
	}

	if _, _, err := buildRevision(repo, dir, revision{label: "gone", commit: "no-such-branch"}, &log); err == nil || !strings.Contains(err.Error(), "-rev gone=no-such-branch") {
		t.Errorf("an unknown revision: error %v", err)
	}
	// A revision whose benchmarks do not build: the error says so, and
	// the worktree made for it is removed.
	write("benchmarks/b_test.go", "package benchmarks\n\nfunc broken() { undefined() }\n")
	run(repo, "git", "commit", "-q", "-am", "broken")
	if _, _, err := buildRevision(repo, dir, revision{label: "broken", commit: "HEAD"}, &log); err == nil || !strings.Contains(err.Error(), "go test -c ./benchmarks") {
		t.Errorf("a revision that does not build: error %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "worktree-broken")); !os.IsNotExist(err) {
		t.Errorf("the broken revision's worktree is still there: %v", err)
	}
}

package billing_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestIteratorOptionsDoNotCompileOnSingleCalls builds two small packages
// against the SDK: one that passes Stable, StableBy and Prefetch to calls
// that send one request (List, Get, Count, Client.Do), which must fail to
// compile on each of those lines, and one that passes them, request
// options and EachRequest to iterators, which must compile.
func TestIteratorOptionsDoNotCompileOnSingleCalls(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build with")
	}
	t.Parallel()
	build := func(name string) (string, error) {
		src, err := os.ReadFile(filepath.Join("testdata", "misuse", name+".go.txt"))
		if err != nil {
			t.Fatal(err)
		}
		// Inside the module, so that the package builds against this SDK.
		dir, err := os.MkdirTemp("testdata", "build-"+name+"-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.WriteFile(filepath.Join(dir, name+".go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("go", "build", "./"+filepath.ToSlash(dir)).CombinedOutput()
		return string(out), err
	}
	if out, err := build("accepted"); err != nil {
		t.Fatalf("iterator options on iterators do not compile: %v\n%s", err, out)
	}
	out, err := build("misuse")
	if err == nil {
		t.Fatal("iterator options on single calls compile")
	}
	want := map[string]string{
		"10": "billing.Stable(cur)", "11": "billing.Prefetch(4)",
		"12": `billing.StableBy(cur, "postedTimestamp")`, "13": "billing.Prefetch(2)",
	}
	for _, m := range regexp.MustCompile(`misuse\.go:(\d+):\d+: cannot use (.*?) \(value of interface type billing\.IterOption\) as billing\.RequestOption value`).FindAllStringSubmatch(out, -1) {
		if want[m[1]] == m[2] {
			delete(want, m[1])
		}
	}
	if len(want) != 0 {
		t.Errorf("lines without the expected error: %v\n%s", want, strings.TrimSpace(out))
	}
}

package unittest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fromMarker precedes a README code block that is a verbatim part of a
// file of the repository, named relative to its root.
var fromMarker = regexp.MustCompile("(?m)^<!-- from ([^ ]+) -->\n```[a-z]*\n((?s:.*?))```\n")

// TestREADMEBlocksAreTheTests: every README block marked as coming from a
// file is in that file word for word, so the README shows code that CI
// runs; and the README shows each test file of this package.
func TestREADMEBlocksAreTheTests(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, m := range fromMarker.FindAllSubmatch(readme, -1) {
		name, block := string(m[1]), string(m[2])
		src, err := os.ReadFile(filepath.Join("../..", filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("README shows %s: %v", name, err)
			continue
		}
		if !strings.Contains(string(src), block) {
			t.Errorf("README's block from %s is not in that file word for word:\n%s", name, block)
		}
		shown[filepath.Base(name)] = true
	}
	// The package documentation opens on the same test.
	doc, err := os.ReadFile("../../doc.go")
	if err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile("first_test.go")
	if err != nil {
		t.Fatal(err)
	}
	test := string(first[strings.Index(string(first), "func TestOpenBalance"):])
	var commented strings.Builder
	for line := range strings.Lines(strings.TrimRight(test, "\n")) {
		if line = strings.TrimRight(line, "\n"); line == "" {
			commented.WriteString("//\n")
		} else {
			commented.WriteString("//\t" + line + "\n")
		}
	}
	if !strings.Contains(string(doc), commented.String()) {
		t.Errorf("doc.go does not open on TestOpenBalance of first_test.go word for word")
	}
	for _, want := range []string{"first_test.go", "httpmock_test.go", "fake_test.go", "inprocess_test.go", "billing-fake.sh"} {
		if !shown[want] {
			t.Errorf("README shows nothing from examples/unittest/%s", want)
		}
	}
}

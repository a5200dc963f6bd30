package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun writes the page, decodes it with every contender, and refuses
// what it cannot run.
func TestRun(t *testing.T) {
	t.Parallel()
	page := filepath.Join(t.TempDir(), "page.json")
	if err := run(page, "", "", 0); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) < 1_000_000 || body[0] != '[' {
		t.Fatalf("the page is %d bytes starting %q, want a JSON array of over a megabyte", len(body), body[:min(len(body), 20)])
	}
	for _, c := range []string{"SDK", "TokenPass", "TokenPassLax"} {
		if err := run("", page, c, 2); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
	tests := []struct {
		name, page, contender, want string
	}{
		{"no page", "", "SDK", "-page or -write"},
		{"missing page", filepath.Join(t.TempDir(), "none.json"), "SDK", "no such file"},
		{"unknown contender", page, "Map", `unknown contender "Map"`},
	}
	for _, tt := range tests {
		if err := run("", tt.page, tt.contender, 1); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	// A page a contender cannot read is an error, not a count of nothing.
	dir := t.TempDir()
	for _, tt := range []struct{ contender, body string }{
		{"SDK", `[{"id": "x"}]`},
		{"TokenPass", `[{"id": }]`},
		{"TokenPassLax", `[{"id": 1}`},
	} {
		p := filepath.Join(dir, tt.contender+".json")
		if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := run("", p, tt.contender, 1); err == nil {
			t.Errorf("%s read %s without an error", tt.contender, tt.body)
		}
	}
}

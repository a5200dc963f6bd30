package billing

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedFilesAreCurrent fails when resources_json.go is not what
// go generate writes for the resource types as they are: a field added
// to a resource without running go generate would otherwise be silently
// dropped into Extra by the stale decoder. CI runs it as
//
//	go test -run '^TestGeneratedFilesAreCurrent$' .
func TestGeneratedFilesAreCurrent(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to run the generator: %v", err)
	}
	out := filepath.Join(t.TempDir(), "resources_json.go")
	cmd := exec.Command(goTool, "run", "./internal/jsongen", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/jsongen: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("resources_json.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("resources_json.go is stale: run go generate in the module root")
	}
}

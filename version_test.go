package billing

import (
	"os"
	"regexp"
	"testing"
)

// Version, which every request sends in its User-Agent, is the newest
// release the CHANGELOG names: releasing means renaming the Unreleased
// section and changing the constant in the same commit.
func TestVersionIsTheNewestReleaseInTheChangelog(t *testing.T) {
	t.Parallel()
	log, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$`).FindSubmatch(log)
	if m == nil {
		t.Fatal("CHANGELOG.md names no release (## [x.y.z] - yyyy-mm-dd)")
	}
	if got := string(m[1]); got != Version {
		t.Errorf("billing.Version is %q, the newest release in CHANGELOG.md is %q", Version, got)
	}
}

//go:build unix

package procstat

import "testing"

func TestSelfGrows(t *testing.T) {
	t.Parallel()
	before, ok := Self()
	if !ok {
		t.Fatal("no CPU time of the process")
	}
	for n := 0; ; n++ {
		if now, _ := Self(); now > before {
			return
		}
		if n > 1e9 {
			t.Fatal("the process's CPU time never grew")
		}
	}
}

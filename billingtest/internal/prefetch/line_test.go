package prefetch

import (
	"bytes"
	"testing"
	"unsafe"
)

// TestLineIsOnlyAHint checks what callers rely on: Line returns for any
// address, mapped or not, and leaves the memory it names as it was.
func TestLineIsOnlyAHint(t *testing.T) {
	t.Parallel()
	block := make([]byte, 384)
	for i := range block {
		block[i] = byte(i)
	}
	want := bytes.Clone(block)
	base := uintptr(unsafe.Pointer(&block[0]))
	for _, addr := range []uintptr{base, base + 64, base + 383, 0, ^uintptr(0) >> 1, ^uintptr(0)} {
		Line(addr)
	}
	if !bytes.Equal(block, want) {
		t.Errorf("after Line, the block is %v, want %v", block, want)
	}
}

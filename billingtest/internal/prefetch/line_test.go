package prefetch

import (
	"bytes"
	"slices"
	"testing"
	"unsafe"
)

// TestLineIsOnlyAHint checks what callers rely on: Line and Lines return
// for any address, mapped or not, and leave the memory they name as it
// was.
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
	Lines(base+1, 383)
	Lines(^uintptr(0)-63, 64)
	if !bytes.Equal(block, want) {
		t.Errorf("after Line and Lines, the block is %v, want %v", block, want)
	}
}

// TestEachLineNamesEveryLineOfTheRange checks which lines Lines asks for.
func TestEachLineNamesEveryLineOfTheRange(t *testing.T) {
	t.Parallel()
	top := ^uintptr(0) &^ 63 // the last line of the address space
	for _, tc := range []struct {
		name    string
		addr, n uintptr
		want    []uintptr
	}{
		{"nothing", 0x1000, 0, nil},
		{"one byte", 0x1010, 1, []uintptr{0x1000}},
		{"one whole line", 0x1000, 64, []uintptr{0x1000}},
		{"a line's bytes across two lines", 0x1010, 64, []uintptr{0x1000, 0x1040}},
		{"two bytes across two lines", 0x103f, 2, []uintptr{0x1000, 0x1040}},
		{"a customer block", 0x2000, 384, []uintptr{0x2000, 0x2040, 0x2080, 0x20c0, 0x2100, 0x2140}},
		{"the top of the address space", top + 8, 56, []uintptr{top}},
		{"up to the top", top - 64, 128, []uintptr{top - 64, top}},
	} {
		var got []uintptr
		eachLine(tc.addr, tc.n, func(a uintptr) { got = append(got, a) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: lines %#x, want %#x", tc.name, got, tc.want)
		}
	}
}

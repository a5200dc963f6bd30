// Package prefetch asks the CPU to start reading memory that a loop will
// need soon, so that a miss of the caches (and of the TLB) on it overlaps
// with the work before it instead of stalling that work.
//
// Go has no portable prefetch: an ordinary load of the line would do
// the same only for as long as the CPU can run ahead of a load it has
// not got yet (a few hundred instructions), where writing one listed
// invoice takes thousands. So Line is one instruction of assembly on
// amd64 (PREFETCHT0) and arm64 (PRFM PLDL1KEEP), and nothing elsewhere.
// A prefetch is a hint: it never faults, whatever the address, and
// changes no memory, so a wrong or stale address costs a wasted read and
// nothing else.
package prefetch

// Lines asks for every cache line that holds a byte of the n bytes from
// addr (see Line), which must not run past the top of the address space:
// an object's bytes, or part of them.
func Lines(addr, n uintptr) { eachLine(addr, n, Line) }

// eachLine calls do with the address of each cache line that holds a byte
// of the n bytes from addr, in order.
func eachLine(addr, n uintptr, do func(uintptr)) {
	if n == 0 {
		return
	}
	last := (addr + n - 1) &^ (cacheLine - 1)
	for a := addr &^ (cacheLine - 1); ; a += cacheLine {
		do(a)
		if a == last {
			return
		}
	}
}

// cacheLine is the size of a line of the CPU's caches on amd64 and arm64.
const cacheLine = 64

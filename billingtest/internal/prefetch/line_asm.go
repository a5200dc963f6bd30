//go:build amd64 || arm64

package prefetch

// Line asks the CPU to bring the cache line holding addr into its
// caches, and returns at once. It never faults and changes nothing.
//
//go:noescape
func Line(addr uintptr)

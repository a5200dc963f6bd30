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

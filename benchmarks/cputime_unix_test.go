//go:build unix

package benchmarks

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used so far, user and
// system, on all threads: the client, the in-process server and the GC.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

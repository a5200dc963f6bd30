//go:build unix

package billingtest_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used so far, user and
// system, on all threads: the requests, the fake and the GC.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

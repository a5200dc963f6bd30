//go:build unix

package procstat

import (
	"syscall"
	"time"
)

// Self is the CPU time this process has used so far, user and system, on
// all threads (the GC's included). It is false where it cannot be read.
func Self() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

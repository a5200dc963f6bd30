package benchmarks

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// machineBusy is the CPU time every process of the machine has used so
// far, from the first line of /proc/stat (user, nice, system, irq,
// softirq and steal: time the hypervisor gave to other guests is not
// ours to use either). It is false where /proc/stat does not exist.
//
// Subtracting the process's own CPU from its change over a benchmark gives
// what the rest of the machine took meanwhile: on a shared machine, the
// least time an iteration could have taken is the process's CPU divided
// by the cores the others left, not by all of them.
func machineBusy() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, false
	}
	var ticks int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system irq softirq steal
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	// USER_HZ is 100 on every Linux the Go toolchain targets.
	return time.Duration(ticks) * 10 * time.Millisecond, true
}

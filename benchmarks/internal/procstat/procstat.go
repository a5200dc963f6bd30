// Package procstat reads how much CPU the whole machine has used, for the
// benchmarks and the interleave command, which compare it with their own
// processes' CPU to tell whether anything else ran meanwhile.
package procstat

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// Busy is the CPU time every process of the machine has used so far,
// from the first line of /proc/stat: user, nice, system, irq, softirq and
// steal (time the hypervisor gave other guests was not ours either). It
// is false where /proc/stat cannot be read.
func Busy() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	return parseBusy(string(b))
}

func parseBusy(stat string) (time.Duration, bool) {
	line, _, _ := strings.Cut(stat, "\n")
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

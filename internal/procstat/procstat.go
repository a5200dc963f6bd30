// Package procstat reads how much CPU the whole machine, this process and
// another process have used, for the benchmarks and measuring commands
// (benchmarks, interleave, fakescale, the fake's -fake.big tests), which
// compare them to tell whether anything else ran meanwhile. It is not
// part of the SDK.
package procstat

import (
	"errors"
	"fmt"
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

// Process is the user and system CPU time process pid has used so far,
// from /proc/<pid>/stat.
func Process(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseProcess(string(b))
}

func parseProcess(stat string) (time.Duration, error) {
	// The command name (field 2) may hold spaces and parentheses; the
	// fields after it start after its last closing parenthesis.
	i := strings.LastIndexByte(stat, ')')
	f := strings.Fields(stat[i+1:])
	if i < 0 || len(f) < 13 {
		return 0, errors.New("procstat: unreadable /proc/<pid>/stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("procstat: /proc/<pid>/stat: %w", err)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil // USER_HZ ticks
}

package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/billingapi/billing-go/internal/procstat"
)

// machine describes the machine from lscpu, else from /proc/cpuinfo: the
// CPU model is part of every figure's claim.
func machine() string {
	suffix := fmt.Sprintf("; %s, GOMAXPROCS %d", runtime.Version(), runtime.GOMAXPROCS(0))
	if out, err := exec.Command("lscpu").Output(); err == nil {
		if s := lscpuSummary(string(out)); s != "" {
			return s + suffix
		}
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if s := cpuinfoSummary(string(b)); s != "" {
			return s + suffix
		}
	}
	return fmt.Sprintf("CPU model unknown; %s/%s", runtime.GOOS, runtime.GOARCH) + suffix
}

// lscpuSummary keeps the lines of lscpu's output that say what the CPU is.
func lscpuSummary(out string) string {
	var parts []string
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Model name", "CPU family", "Model", "CPU(s)", "Thread(s) per core", "Hypervisor vendor", "L3", "L3 cache":
			parts = append(parts, strings.TrimSpace(k)+": "+strings.TrimSpace(v))
		}
	}
	return strings.Join(parts, "; ")
}

// cpuinfoSummary is the model name of the first processor of
// /proc/cpuinfo and the number of processors.
func cpuinfoSummary(info string) string {
	model, n := "", 0
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			n++
		case "model name":
			if model == "" {
				model = strings.TrimSpace(v)
			}
		}
	}
	if model == "" {
		return ""
	}
	return fmt.Sprintf("Model name: %s; CPU(s): %d", model, n)
}

func load() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// cpuAccount compares the CPU the whole machine used during a stretch of
// the run with what the run's own benchmark processes used, so that a
// figure can say whether anything else ran meanwhile.
type cpuAccount struct {
	start     time.Time
	busy0     time.Duration
	busyOK    bool
	children  time.Duration // user + system of the benchmark processes
	processes int
}

func startAccount() *cpuAccount {
	busy, ok := procstat.Busy()
	return &cpuAccount{start: time.Now(), busy0: busy, busyOK: ok}
}

// add counts one finished benchmark process.
func (a *cpuAccount) add(st *os.ProcessState) {
	if st != nil {
		a.children += st.UserTime() + st.SystemTime()
		a.processes++
	}
}

// report says how much CPU the benchmark processes used and how much the
// rest of the machine used beside them.
func (a *cpuAccount) report() string {
	wall := time.Since(a.start)
	own := fmt.Sprintf("wall %.1f s; the %d benchmark processes used %.1f CPU-s", wall.Seconds(), a.processes, a.children.Seconds())
	busy1, ok := procstat.Busy()
	if !a.busyOK || !ok {
		return own + "; the machine's CPU use is unknown (no /proc/stat)"
	}
	others := busy1 - a.busy0 - a.children
	capacity := time.Duration(runtime.NumCPU()) * wall
	return own + fmt.Sprintf("; everything else on the machine %.1f CPU-s (%.1f%% of %d CPUs over the wall time; /proc/stat counts in 10 ms ticks)",
		others.Seconds(), 100*others.Seconds()/capacity.Seconds(), runtime.NumCPU())
}

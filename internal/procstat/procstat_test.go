package procstat

import (
	"testing"
	"time"
)

// TestParseStat checks both readers of a stat text: parseBusy of
// /proc/stat's cpu line and parseProcess of /proc/<pid>/stat, each with
// the text it takes, the time it reads and whether it could.
func TestParseStat(t *testing.T) {
	t.Parallel()
	process := func(stat string) (time.Duration, bool) {
		d, err := parseProcess(stat)
		return d, err == nil
	}
	tests := []struct {
		name  string
		parse func(string) (time.Duration, bool)
		stat  string
		want  time.Duration
		ok    bool
	}{
		// user nice system idle iowait irq softirq steal guest guest_nice:
		// idle and iowait are not busy, guest is inside user already.
		{"busy: busy fields", parseBusy, "cpu  100 2 30 5000 40 5 6 7 50 0\ncpu0 1 2 3\n", (100 + 2 + 30 + 5 + 6 + 7) * 10 * time.Millisecond, true},
		{"busy: too short", parseBusy, "cpu  1 2 3\n", 0, false},
		{"busy: not the cpu line", parseBusy, "intr 1 2 3 4 5 6 7 8 9\n", 0, false},
		{"busy: not a number", parseBusy, "cpu  a 2 3 4 5 6 7 8 9\n", 0, false},
		// pid (comm) state ppid pgrp session tty tpgid flags minflt
		// cminflt majflt cmajflt utime stime ...: utime and stime are
		// fields 14 and 15, after a name that may hold ") (".
		{"process: plain name", process, "4242 (billing-fake) S 1 2 3 4 5 6 7 8 9 10 250 37 0 0 20", (250 + 37) * 10 * time.Millisecond, true},
		{"process: name with spaces and parentheses", process, "7 (a) (b c) R 1 2 3 4 5 6 7 8 9 10 1 2 0", 3 * 10 * time.Millisecond, true},
		{"process: too short", process, "7 (x) R 1 2 3", 0, false},
		{"process: no name", process, "7 x R 1 2 3 4 5 6 7 8 9 10 1 2 0", 0, false},
		{"process: not a number", process, "7 (x) R 1 2 3 4 5 6 7 8 9 10 u 2 0", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := tt.parse(tt.stat)
			if got != tt.want || ok != tt.ok {
				t.Errorf("parse(%q) = %v, %v; want %v, %v", tt.stat, got, ok, tt.want, tt.ok)
			}
		})
	}
}

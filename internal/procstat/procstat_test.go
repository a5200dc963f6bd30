package procstat

import (
	"testing"
	"time"
)

func TestParseBusy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		stat string
		want time.Duration
		ok   bool
	}{
		// user nice system idle iowait irq softirq steal guest guest_nice:
		// idle and iowait are not busy, guest is inside user already.
		{"busy fields", "cpu  100 2 30 5000 40 5 6 7 50 0\ncpu0 1 2 3\n", (100 + 2 + 30 + 5 + 6 + 7) * 10 * time.Millisecond, true},
		{"too short", "cpu  1 2 3\n", 0, false},
		{"not the cpu line", "intr 1 2 3 4 5 6 7 8 9\n", 0, false},
		{"not a number", "cpu  a 2 3 4 5 6 7 8 9\n", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := parseBusy(tt.stat)
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseBusy = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseProcess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		stat string
		want time.Duration
		ok   bool
	}{
		// pid (comm) state ppid pgrp session tty tpgid flags minflt
		// cminflt majflt cmajflt utime stime ...: utime and stime are
		// fields 14 and 15, after a name that may hold ") (".
		{"plain name", "4242 (billing-fake) S 1 2 3 4 5 6 7 8 9 10 250 37 0 0 20", (250 + 37) * 10 * time.Millisecond, true},
		{"name with spaces and parentheses", "7 (a) (b c) R 1 2 3 4 5 6 7 8 9 10 1 2 0", 3 * 10 * time.Millisecond, true},
		{"too short", "7 (x) R 1 2 3", 0, false},
		{"no name", "7 x R 1 2 3 4 5 6 7 8 9 10 1 2 0", 0, false},
		{"not a number", "7 (x) R 1 2 3 4 5 6 7 8 9 10 u 2 0", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseProcess(tt.stat)
			if got != tt.want || (err == nil) != tt.ok {
				t.Errorf("parseProcess = %v, %v; want %v, ok %v", got, err, tt.want, tt.ok)
			}
		})
	}
}

package main

import "testing"

// TestVariationFlags: each flag turns into an option the fake accepts,
// and a value it cannot mean is an error naming the flag.
func TestVariationFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args    []string
		options int
		bad     string
	}{
		{args: nil, options: 1},
		{args: []string{"-tie-order", "random", "-page-cap", "1000", "-other-paging-headers", "-timestamp-digits", "0", "-timestamp-zone", "+00:00", "-unknown-members", "-unlisted-enum-values"}, options: 6},
		{args: []string{"-page-cap", "5", "-page-cap-honest"}, options: 2},
		{args: []string{"-all-variations", "1000"}, options: 2},
		{args: []string{"-tie-order", "sideways"}, bad: "-tie-order"},
		{args: []string{"-page-cap", "-1"}, bad: "-page-cap"},
		{args: []string{"-page-cap-honest"}, bad: "-page-cap-honest"},
		{args: []string{"-timestamp-zone", "Z"}, bad: "-timestamp-zone"},
		{args: []string{"-all-variations", "-3"}, bad: "-all-variations"},
	} {
		opts, err := parseFlags(t, tt.args, addVariationFlags).options()
		if flagErrorChecked(t, tt.args, err, tt.bad) {
			continue
		}
		if len(opts) != tt.options {
			t.Errorf("%q: %d options, want %d", tt.args, len(opts), tt.options)
		}
	}
}

package jsonwire

import (
	"math"
	"testing"

	"github.com/shopspring/decimal"
)

// TestAppendFixedMatchesAppendDecimal checks that a coefficient and an
// exponent are written as their decimal is, and that the text depends on
// the value alone: the same number scaled differently is written the same.
func TestAppendFixedMatchesAppendDecimal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		coef int64
		exp  int32
		want string
	}{
		{0, 0, "0"}, {0, -5, "0"}, {0, 3, "0"},
		{1, 0, "1"}, {-1, 0, "-1"}, {1, 2, "100"}, {10, 1, "100"}, {100, 0, "100"}, {10000, -2, "100"},
		{15, -1, "1.5"}, {150, -2, "1.5"}, {-1500, -3, "-1.5"},
		{1, -9, "0.000000001"}, {-1, -9, "-0.000000001"}, {100, -9, "0.0000001"},
		{2212499, -3, "2212.499"}, {-105360, -3, "-105.36"},
		{999999999999999999, -18, "0.999999999999999999"},
		{math.MaxInt64, 0, "9223372036854775807"}, {math.MinInt64, 0, "-9223372036854775808"},
		{math.MaxInt64, -19, "0.9223372036854775807"}, {math.MinInt64, -4, "-922337203685477.5808"},
	} {
		got := string(AppendFixed([]byte("x"), tc.coef, tc.exp))
		fromDecimal := string(AppendDecimal([]byte("x"), decimal.New(tc.coef, tc.exp)))
		if got != "x"+tc.want || fromDecimal != got {
			t.Errorf("AppendFixed(%d, %d) = %q, AppendDecimal %q, want %q", tc.coef, tc.exp, got, fromDecimal, "x"+tc.want)
		}
	}
}

package billing

import (
	"testing"
	"time"
)

// TestDaysSinceEpochMatchesTime checks the calendar arithmetic of
// parseTimestamp against time.Date over every day of the years the API's
// four-digit format can write, 0001 to 9999.
func TestDaysSinceEpochMatchesTime(t *testing.T) {
	t.Parallel()
	for d := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 10000; d = d.AddDate(0, 0, 1) {
		if got, want := daysSinceEpoch(d.Year(), int(d.Month()), d.Day()), d.Unix()/86400-boolInt(d.Unix()%86400 < 0); got != want {
			t.Fatalf("%s: %d days, want %d", d.Format(time.DateOnly), got, want)
		}
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

package billing_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
)

func TestTimestampDecode(t *testing.T) {
	t.Parallel()
	base := time.Date(2024, 3, 1, 10, 15, 30, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
	}{
		{`"2024-03-01T10:15:30"`, base},
		{`"2024-03-01T10:15:30Z"`, base},
		{`"2024-03-01T10:15:30+00:00"`, base},
		{`"2024-03-01T10:15:30.1"`, base.Add(100 * time.Millisecond)},
		{`"2024-03-01T10:15:30.12"`, base.Add(120 * time.Millisecond)},
		{`"2024-03-01T10:15:30.123"`, base.Add(123 * time.Millisecond)},
		{`"2024-03-01T10:15:30.1234"`, base.Add(123400 * time.Microsecond)},
		{`"2024-03-01T10:15:30.12345"`, base.Add(123450 * time.Microsecond)},
		{`"2024-03-01T10:15:30.123456"`, base.Add(123456 * time.Microsecond)},
		{`"2024-03-01T10:15:30.1234567"`, base.Add(1234567 * 100 * time.Nanosecond)},
		{`"2024-03-01T10:15:30.1234567Z"`, base.Add(1234567 * 100 * time.Nanosecond)},
		{`"2024-03-01T10:15:30.5+00:00"`, base.Add(500 * time.Millisecond)},
		{`"2024-03-01T12:15:30+02:00"`, base},
		{`"2024-03-01T05:15:30-05:00"`, base},
		{`"2024-02-29T00:00:00"`, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		{`"0001-01-01T00:00:00"`, time.Time{}},
		{`"0001-01-01T00:00:00Z"`, time.Time{}},
		{`null`, time.Time{}},
		{`""`, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			var ts billing.Timestamp
			if err := json.Unmarshal([]byte(tt.in), &ts); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if !ts.Time.Equal(tt.want) {
				t.Errorf("got %v, want %v", ts.Time, tt.want)
			}
			if ts.Location() != time.UTC {
				t.Errorf("location = %v, want UTC", ts.Location())
			}
			if tt.want.IsZero() != ts.IsZero() {
				t.Errorf("IsZero = %v", ts.IsZero())
			}
		})
	}
}

func TestTimestampDecodeErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`"2024-03-01"`, `"2024-03-01 10:15:30"`, `"2024-13-01T00:00:00"`, `"2023-02-29T00:00:00"`,
		`"2024-03-01T24:00:00"`, `"2024-03-01T10:15:30."`, `"2024-03-01T10:15:30.1234567890"`,
		`"2024-03-01T10:15:30+0200"`, `"2024-03-01T10:15:30 Z"`, `"yesterday"`, `1709288130`, `"2024-03-01T10:15:3x"`,
	} {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			var ts billing.Timestamp
			err := json.Unmarshal([]byte(in), &ts)
			var te *billing.TimestampError
			if !errors.As(err, &te) {
				t.Fatalf("error = %v, want *billing.TimestampError", err)
			}
		})
	}
}

func TestTimestampEncode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2024, 3, 1, 10, 15, 30, 0, time.UTC), `"2024-03-01T10:15:30"`},
		{time.Date(2024, 3, 1, 10, 15, 30, 120_000_000, time.UTC), `"2024-03-01T10:15:30.12"`},
		{time.Date(2024, 3, 1, 10, 15, 30, 123456700, time.UTC), `"2024-03-01T10:15:30.1234567"`},
		{time.Date(2024, 3, 1, 12, 15, 30, 0, time.FixedZone("CEST", 2*3600)), `"2024-03-01T10:15:30"`},
		{time.Time{}, `null`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(billing.NewTimestamp(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("Marshal(%v) = %s, want %s", tt.in, b, tt.want)
		}
		var back billing.Timestamp
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !back.Equal(tt.in.Truncate(100 * time.Nanosecond)) {
			t.Errorf("round trip of %v gave %v", tt.in, back.Time)
		}
	}
}

func FuzzTimestamp(f *testing.F) {
	for _, s := range []string{"2024-03-01T10:15:30", "2024-03-01T10:15:30.1234567Z", "0001-01-01T00:00:00", "2024-03-01T10:15:30+05:30", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := billing.ParseTimestamp(s)
		if err != nil {
			return
		}
		// Whatever parses must encode and parse back to the same instant.
		b, err := json.Marshal(ts)
		if err != nil {
			t.Fatal(err)
		}
		var back billing.Timestamp
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		if !back.Equal(ts.Time) && !(back.IsZero() && ts.IsZero()) {
			t.Fatalf("%q -> %s -> %v, want %v", s, b, back.Time, ts.Time)
		}
	})
}

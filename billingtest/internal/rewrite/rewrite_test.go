package rewrite

import (
	"testing"
	"time"
)

func TestFormatStamp(t *testing.T) {
	t.Parallel()
	at := time.Date(2024, 3, 5, 6, 7, 8, 123456789, time.UTC)
	whole := time.Date(2024, 3, 5, 6, 7, 8, 0, time.UTC)
	tests := []struct {
		t      time.Time
		digits int
		want   string
	}{
		{at, -1, "2024-03-05T06:07:08.1234567"}, // cut at 7, never rounded
		{at, 0, "2024-03-05T06:07:08"},
		{at, 3, "2024-03-05T06:07:08.123"},
		{at, 7, "2024-03-05T06:07:08.1234567"},
		{time.Date(2024, 3, 5, 6, 7, 8, 120000000, time.UTC), -1, "2024-03-05T06:07:08.12"},
		{time.Date(2024, 3, 5, 6, 7, 8, 99, time.UTC), -1, "2024-03-05T06:07:08"}, // below 7 digits
		{whole, -1, "2024-03-05T06:07:08"},
		{whole, 3, "2024-03-05T06:07:08.000"},
		{time.Time{}, -1, "0001-01-01T00:00:00"},
	}
	for _, tc := range tests {
		if got := FormatStamp(tc.t, tc.digits); got != tc.want {
			t.Errorf("FormatStamp(%v, %d) = %q, want %q", tc.t, tc.digits, got, tc.want)
		}
	}
}

func TestStamps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		digits int
		zone   string
		want   string
	}{
		{"no zone is UTC", `{"a":"2024-03-05T06:07:08.1234567"}`, 3, "Z", `{"a":"2024-03-05T06:07:08.123Z"}`},
		{"Z", `["2024-03-05T06:07:08Z"]`, 7, "+00:00", `["2024-03-05T06:07:08.0000000+00:00"]`},
		{"offset moved to UTC", `"2024-03-05T06:07:08.5+05:30"`, -1, "", `"2024-03-05T00:37:08.5"`},
		{"nine digits cut", `"2024-03-05T06:07:08.123456789Z"`, -1, "", `"2024-03-05T06:07:08.1234567"`},
		{"the none date", `"0001-01-01T00:00:00"`, 2, "Z", `"0001-01-01T00:00:00.00Z"`},
		{"not a date stays", `"2024-02-30T00:00:00","2024-03-05T24:00:00"`, 3, "Z", `"2024-02-30T00:00:00","2024-03-05T24:00:00"`},
		{"dates only stay", `"2024-03-05","text 2024-03-05T06:07:08 inside"`, 3, "Z", `"2024-03-05","text 2024-03-05T06:07:08 inside"`},
		{"several", `["2024-03-05T06:07:08.1","2025-01-01T00:00:00.99Z"]`, 1, "", `["2024-03-05T06:07:08.1","2025-01-01T00:00:00.9"]`},
	}
	for _, tc := range tests {
		if got := string(Stamps([]byte(tc.in), tc.digits, tc.zone)); got != tc.want {
			t.Errorf("%s: Stamps(%s, %d, %q) = %s, want %s", tc.name, tc.in, tc.digits, tc.zone, got, tc.want)
		}
	}
}

func TestAddMembers(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"a":1}`, `{` + UnknownMember + `"a":1}`},
		{`{}`, `{}`}, // no members: nothing to put it before
		{`[{"a":{"b":[]}},{}]`, `[{` + UnknownMember + `"a":{` + UnknownMember + `"b":[]}},{}]`},
		{`{"s":"{\"x\":1}","t":"\\"}`, `{` + UnknownMember + `"s":"{\"x\":1}","t":"\\"}`}, // braces in strings, escapes
	}
	for _, tc := range tests {
		if got := string(AddMembers([]byte(tc.in))); got != tc.want {
			t.Errorf("AddMembers(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// Package rewrite changes the text of the fake's JSON answers as the
// variations of what the reference leaves open ask: the digits and zone
// of timestamps, and members the reference does not list.
package rewrite

import (
	"regexp"
	"strings"
	"time"
)

// UnknownMember is what AddMembers adds to every object.
const UnknownMember = `"billingtestUnlisted":{"note":"a member the reference does not list","n":[1,2.50]},`

var timestampPattern = regexp.MustCompile(`"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,9})?(Z|[+-]\d\d:\d\d)?"`)

// Stamps rewrites every timestamp of JSON text b with digits fractional
// digits (0 to 7, cut; -1: up to 7, trailing zeros trimmed) and zone
// after them ("", "Z" or "+00:00").
func Stamps(b []byte, digits int, zone string) []byte {
	return timestampPattern.ReplaceAllFunc(b, func(m []byte) []byte {
		stamp := string(m[1 : len(m)-1])
		if len(timestampPattern.FindSubmatch(m)[3]) == 0 {
			stamp += "Z" // a stamp without a zone is UTC
		}
		t, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil {
			return m
		}
		return []byte(`"` + FormatStamp(t.UTC(), digits) + zone + `"`)
	})
}

// AddMembers adds UnknownMember to every object of JSON text b that has
// members, outside strings.
func AddMembers(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	inString, escaped := false, false
	for i, ch := range b {
		out = append(out, ch)
		switch {
		case inString && escaped:
			escaped = false
		case inString && ch == '\\':
			escaped = true
		case ch == '"':
			inString = !inString
		case !inString && ch == '{' && i+1 < len(b) && b[i+1] == '"':
			out = append(out, UnknownMember...)
		}
	}
	return out
}

// FormatStamp writes t with digits fractional digits, cut; -1: up to 7,
// trailing zeros trimmed.
func FormatStamp(t time.Time, digits int) string {
	// Go's layouts cut fractions, never round them.
	if digits < 0 {
		return t.Format("2006-01-02T15:04:05.9999999")
	}
	return t.Format(strings.TrimSuffix("2006-01-02T15:04:05."+strings.Repeat("0", digits), "."))
}

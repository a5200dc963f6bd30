package billing

import (
	"errors"
	"time"
)

// Timestamp is a point in time as the API writes it: ISO 8601 in UTC,
// without offset, e.g. 2024-03-01T10:15:00.1234567.
//
// Decoding accepts every form the service sends: 0 to 7 fractional digits
// (8 or 9 are accepted too, and cut to the service's 100 ns resolution),
// with or without a trailing Z or a numeric offset such as +00:00 (any
// offset is converted to UTC). JSON null, "" and the service's
// 0001-01-01T00:00:00 all mean "none" and decode to the zero Timestamp,
// for which IsZero reports true. Encoding writes UTC without offset and
// without trailing fractional zeros, at most 7 digits (a time given with
// finer precision is cut to 100 ns); the zero Timestamp encodes as null.
type Timestamp struct {
	time.Time
}

// wireLayout is how the service writes timestamps: no offset, fraction
// trimmed of trailing zeros.
const wireLayout = "2006-01-02T15:04:05.9999999"

// NewTimestamp returns t as a Timestamp in UTC.
func NewTimestamp(t time.Time) Timestamp {
	if t.IsZero() {
		return Timestamp{}
	}
	return Timestamp{t.UTC()}
}

// String returns the wire form, or "" for the zero Timestamp.
func (t Timestamp) String() string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(wireLayout)
}

// MarshalJSON writes the wire form, or null for the zero Timestamp.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(wireLayout)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, wireLayout)
	return append(b, '"'), nil
}

// UnmarshalJSON accepts null or a JSON string in any of the forms described
// on [Timestamp].
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = Timestamp{}
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return &TimestampError{Text: truncateForError(string(b)), Reason: "not a JSON string"}
	}
	return t.UnmarshalText(b[1 : len(b)-1])
}

// MarshalText writes the wire form; the zero Timestamp is empty text.
func (t Timestamp) MarshalText() ([]byte, error) {
	return []byte(t.String()), nil
}

// UnmarshalText accepts the forms described on [Timestamp]; empty text is
// the zero Timestamp.
func (t *Timestamp) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*t = Timestamp{}
		return nil
	}
	tm, err := parseTimestamp(b)
	if err != nil {
		return &TimestampError{Text: truncateForError(string(b)), Reason: err.Error()}
	}
	*t = Timestamp{tm}
	return nil
}

// ParseTimestamp parses s in any of the forms described on [Timestamp].
func ParseTimestamp(s string) (Timestamp, error) {
	var t Timestamp
	err := t.UnmarshalText([]byte(s))
	return t, err
}

// TimestampError reports text that is not a timestamp in a form the API uses.
type TimestampError struct {
	// Text is the offending text, truncated.
	Text string
	// Reason says what is wrong with it.
	Reason string
}

// Error names the text and the problem.
func (e *TimestampError) Error() string {
	return "billing: invalid timestamp " + quoteForError(e.Text) + ": " + e.Reason
}

var errTimestampShape = errors.New("want YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM]")

// parseTimestamp reads YYYY-MM-DDTHH:MM:SS[.f{1,9}][Z|±HH:MM] by hand:
// pages of invoices hold thousands of timestamps (some 19,000 in a page
// of 1,000), and trying several time.Parse layouts in turn costs several
// times as much. Digits are read as unsigned differences from '0', so
// that one comparison rejects anything else.
func parseTimestamp(b []byte) (time.Time, error) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != 't') || b[13] != ':' || b[16] != ':' {
		return time.Time{}, errTimestampShape
	}
	y0, y1, y2, y3 := b[0]-'0', b[1]-'0', b[2]-'0', b[3]-'0'
	mo0, mo1, d0, d1 := b[5]-'0', b[6]-'0', b[8]-'0', b[9]-'0'
	h0, h1, mi0, mi1, s0, s1 := b[11]-'0', b[12]-'0', b[14]-'0', b[15]-'0', b[17]-'0', b[18]-'0'
	if y0 > 9 || y1 > 9 || y2 > 9 || y3 > 9 || mo0 > 9 || mo1 > 9 || d0 > 9 || d1 > 9 ||
		h0 > 9 || h1 > 9 || mi0 > 9 || mi1 > 9 || s0 > 9 || s1 > 9 {
		return time.Time{}, errTimestampShape
	}
	year := int(y0)*1000 + int(y1)*100 + int(y2)*10 + int(y3)
	month, day := int(mo0)*10+int(mo1), int(d0)*10+int(d1)
	hour, minute, sec := int(h0)*10+int(h1), int(mi0)*10+int(mi1), int(s0)*10+int(s1)
	if month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, errors.New("date or time out of range")
	}
	rest := b[19:]
	nsec := 0
	if len(rest) > 0 && rest[0] == '.' {
		// Seven digits is the service's resolution (100 ns); an eighth or
		// ninth digit is dropped, so that what is read encodes back the same.
		n := 1
		for ; n < len(rest); n++ {
			c := rest[n] - '0'
			if c > 9 {
				break
			}
			if n <= 7 {
				nsec = nsec*10 + int(c)
			}
		}
		if n == 1 || n > 10 {
			return time.Time{}, errors.New("fraction must have 1 to 9 digits")
		}
		for i := n; i <= 7; i++ {
			nsec *= 10
		}
		nsec *= 100
		rest = rest[n:]
	}
	offset := 0
	switch {
	case len(rest) == 0:
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, okh := digits(rest[1:3])
		om, okm := digits(rest[4:6])
		if !okh || !okm || oh > 23 || om > 59 {
			return time.Time{}, errors.New("invalid offset")
		}
		offset = (oh*60 + om) * 60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return time.Time{}, errTimestampShape
	}
	// The fields are in range, so the Unix time is a sum; time.Date would
	// normalise them first, at several times the cost.
	unix := daysSinceEpoch(year, month, day)*86400 + int64(hour*3600+minute*60+sec)
	t := time.Unix(unix, int64(nsec)).UTC()
	if offset != 0 {
		t = t.Add(-time.Duration(offset) * time.Second)
		// An offset can carry a date just past the ends of the four-digit
		// years, which the API's format cannot write back.
		if y := t.Year(); y < 1 || y > 9999 {
			return time.Time{}, errors.New("date out of range once converted to UTC")
		}
	}
	return t, nil
}

// daysSinceEpoch is the number of days from 1970-01-01 to the given date
// of the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
func daysSinceEpoch(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400                     // [0, 399]
	mp := (int64(month) + 9) % 12          // March is 0
	doy := (153*mp+2)/5 + int64(day) - 1   // [0, 365]
	doe := yoe*365 + yoe/4 - yoe/100 + doy // [0, 146096]
	return era*146097 + doe - 719468
}

func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(m time.Month, year int) int {
	switch m {
	case time.February:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

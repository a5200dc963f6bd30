package query

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// Text is a condition on a string field, for use as a field of a filter
// struct. The zero value means "no condition"; the constructors below give
// the others. Wildcards and other special characters in the value are taken
// literally.
type Text struct {
	op    textOp
	value string
}

type textOp uint8

const (
	noText textOp = iota
	textEquals
	textStartsWith
	textEndsWith
	textContains
	textEmpty
)

// Equals matches the value exactly (case-insensitively, per the reference).
// Equals("") is a real condition, distinct from the zero Text.
func Equals(v string) Text { return Text{op: textEquals, value: v} }

// StartsWith matches values that begin with v (v*). An empty v matches any
// value.
func StartsWith(v string) Text { return Text{op: textStartsWith, value: v} }

// EndsWith matches values that end with v (*v). An empty v matches any value.
func EndsWith(v string) Text { return Text{op: textEndsWith, value: v} }

// Contains matches values that contain v (*v*). An empty v matches any value.
func Contains(v string) Text { return Text{op: textContains, value: v} }

// IsEmpty matches null or empty values ([empty]).
func IsEmpty() Text { return Text{op: textEmpty} }

// IsZero reports whether t is the zero Text, which adds no condition.
func (t Text) IsZero() bool { return t.op == noText }

// condition returns t as a condition on name; ok is false for the zero Text.
func (t Text) condition(name string) (c Condition, ok bool) {
	switch t.op {
	case textEquals:
		return CondEquals(name, t.value), true
	case textStartsWith:
		return CondStartsWith(name, t.value), true
	case textEndsWith:
		return CondEndsWith(name, t.value), true
	case textContains:
		return CondContains(name, t.value), true
	case textEmpty:
		return CondIsEmpty(name), true
	}
	return Condition{}, false
}

// Ints is a condition on an integer field: one value is an exact match
// (name:5), several are a set (name:1,2). Empty means "no condition".
type Ints []int64

func (v Ints) condition(name string) Condition {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.FormatInt(n, 10)
	}
	return CondIn(name, s...)
}

// TimeRange is a condition on a date-time field: From <= field < To. A zero
// time is an open end; the zero TimeRange means "no condition".
//
// Bounds are sent in UTC. With DateOnly they are written as YYYY-MM-DD, the
// UTC date of the bound (which the service reads as midnight UTC); otherwise
// as YYYY-MM-DDTHH:MM:SS, with any fraction of a second dropped. Years must be
// between 1 and 9999, the range of a four-digit year.
type TimeRange struct {
	From, To time.Time
	DateOnly bool
}

// IsZero reports whether both ends are open, which adds no condition.
// DateOnly does not count: it only shapes the rendering of set ends.
func (r TimeRange) IsZero() bool { return r.From.IsZero() && r.To.IsZero() }

// condition checks the order on the rendered bounds, since those are what the
// service compares: two times on the same date are an empty DateOnly range.
func (r TimeRange) condition(name string) (Condition, error) {
	from, fromText, err := r.bound(r.From)
	if err != nil {
		return Condition{}, fmt.Errorf("from: %w", err)
	}
	to, toText, err := r.bound(r.To)
	if err != nil {
		return Condition{}, fmt.Errorf("to: %w", err)
	}
	if fromText != "" && toText != "" && !from.Before(to) {
		return Condition{}, fmt.Errorf("empty range: from %s is not before to %s", fromText, toText)
	}
	return CondRange(name, fromText, toText), nil
}

// bound returns t as sent, and its text; the zero time is an open end ("").
func (r TimeRange) bound(t time.Time) (time.Time, string, error) {
	if t.IsZero() {
		return time.Time{}, "", nil
	}
	t = t.UTC().Truncate(time.Second)
	if y := t.Year(); y < 1 || y > 9999 {
		return time.Time{}, "", fmt.Errorf("year %d is outside 1 to 9999", y)
	}
	if r.DateOnly {
		t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return t, t.Format(time.DateOnly), nil
	}
	return t, t.Format("2006-01-02T15:04:05"), nil
}

// DecimalRange is a condition on a decimal field: From <= field < To. A nil
// end is open; the zero DecimalRange means "no condition".
type DecimalRange struct {
	From, To *decimal.Decimal
}

// AtLeast returns the range d <= field.
func AtLeast(d decimal.Decimal) DecimalRange { return DecimalRange{From: &d} }

// Below returns the range field < d.
func Below(d decimal.Decimal) DecimalRange { return DecimalRange{To: &d} }

// DecimalBetween returns the range from <= field < to. Build rejects it
// unless from < to.
func DecimalBetween(from, to decimal.Decimal) DecimalRange {
	return DecimalRange{From: &from, To: &to}
}

// IsZero reports whether both ends are open, which adds no condition.
func (r DecimalRange) IsZero() bool { return r.From == nil && r.To == nil }

func (r DecimalRange) condition(name string) (Condition, error) {
	if r.From != nil && r.To != nil && !r.From.LessThan(*r.To) {
		return Condition{}, errors.New("empty range: from " + decimalText(r.From) + " is not below to " + decimalText(r.To))
	}
	return CondRange(name, decimalText(r.From), decimalText(r.To)), nil
}

// decimalText renders d exactly and without exponent, like Decimal.String
// with the decimal package's default settings, but independent of its global
// TrimTrailingZeros and UseScientificNotation switches, which a program may
// have changed. A nil d is an open end.
func decimalText(d *decimal.Decimal) string {
	if d == nil {
		return ""
	}
	n := d.Normalize()
	return n.StringFixed(max(0, -n.Exponent()))
}

package filter

import (
	"cmp"
	"math"
	"time"

	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// Conditions on a packed form of a row: a date as
// UTC nanoseconds, an amount as an int64 coefficient and an exponent. A
// filter over a large list visits many rows, and building a time.Time or
// a decimal.Decimal (a big.Int) for each, to compare it with the
// condition's value, was most of its cost. The compiled conditions here
// compare integers and give the same answers; for a row that is not
// packed, or an amount that the integers cannot compare exactly, the
// caller falls back to the general matcher.

// ZeroInstant is the packed form of the missing date (the zero time.Time),
// which is outside the range of UTC nanoseconds.
const ZeroInstant = math.MinInt64

// Packable times lie strictly inside the int64 nanoseconds, the sentinel
// excluded. Read only.
var (
	MinInstant = time.Unix(0, math.MinInt64+1)
	MaxInstant = time.Unix(0, math.MaxInt64)
)

// instantRange is a TimeRange over UTC nanoseconds: lo inclusive, hi
// exclusive unless hiOpen, and none when no packed instant is in it.
// lo is never below math.MinInt64+1, so the missing date (ZeroInstant)
// is never admitted.
type instantRange struct {
	lo, hi int64
	hiOpen bool
	none   bool
}

// instants is r over packed instants, which all lie in
// [MinInstant, MaxInstant].
func (r TimeRange) instants() instantRange {
	out := instantRange{lo: math.MinInt64 + 1, hi: math.MaxInt64, hiOpen: true}
	if r.HasLo {
		switch {
		case r.Lo.After(MaxInstant):
			out.none = true
		case !r.Lo.Before(MinInstant):
			out.lo = r.Lo.UnixNano()
		}
	}
	if r.HasHi && !r.Hi.After(MaxInstant) {
		if !r.Hi.After(MinInstant) {
			out.none = true // every packed instant is at or after hi
		} else {
			out.hi, out.hiOpen = r.Hi.UnixNano(), false
		}
	}
	return out
}

func (r instantRange) admits(n int64) bool {
	return !r.none && n >= r.lo && (r.hiOpen || n < r.hi)
}

// instantMatcher is timeMatcher over packed instants (ZeroInstant is the
// missing date); nil when the condition is not one it answers.
func instantMatcher(c query.Condition) func(int64) bool {
	switch c.Kind {
	case query.Empty:
		return func(n int64) bool { return n == ZeroInstant }
	case query.Match, query.Range:
		b, err := TimeBounds(c)
		if err != nil {
			return nil
		}
		return b.instants().admits
	}
	return nil
}

// packedBound is an amount a condition names, as a coefficient and an
// exponent when its coefficient fits an int64 (ok), for comparing with
// packed amounts without building a decimal.
type packedBound struct {
	d    decimal.Decimal
	coef int64
	exp  int64
	ok   bool
}

func newPackedBound(d decimal.Decimal) packedBound {
	b := packedBound{d: d}
	if d.NumDigits() <= 18 {
		b.coef, b.exp, b.ok = d.CoefficientInt64(), int64(d.Exponent()), true
	}
	return b
}

// maxUnscaled[k] is the largest magnitude that can be multiplied by 10^k
// without overflowing an int64.
var maxUnscaled = func() (m [19]int64) {
	for k := range m {
		m[k] = math.MaxInt64 / pow10[k]
	}
	return m
}()

// compare is CmpDecimal(the amount coef·10^exp, b.d): integer arithmetic
// when the two align within an int64, which amounts of the same currency
// always do, else the decimal comparison (kept out of line, so that this
// inlines into the filter's loop).
func (b *packedBound) compare(coef int64, exp int8) int {
	if b.ok {
		e := int64(exp)
		switch {
		case e == b.exp:
			return cmp.Compare(coef, b.coef)
		case e > b.exp && e-b.exp <= 18 && abs64(coef) <= maxUnscaled[e-b.exp]:
			return cmp.Compare(coef*pow10[e-b.exp], b.coef)
		case e < b.exp && b.exp-e <= 18 && abs64(b.coef) <= maxUnscaled[b.exp-e]:
			return cmp.Compare(coef, b.coef*pow10[b.exp-e])
		}
	}
	return b.compareDecimal(coef, exp)
}

func (b *packedBound) compareDecimal(coef int64, exp int8) int {
	return CmpDecimal(decimal.New(coef, int32(exp)), b.d)
}

// abs64 is |n| for the coefficients of packed amounts, which have at most
// 18 digits (so never math.MinInt64).
func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// packedDecimalMatcher is decimalMatcher over packed amounts; nil when the
// condition is not one it answers. The condition has compiled with
// decimalMatcher, so its values parse.
func packedDecimalMatcher(c query.Condition) func(int64, int8) bool {
	bound := func(s string) (packedBound, error) {
		d, err := parseDecimal(s)
		return newPackedBound(d), err
	}
	switch c.Kind {
	case query.Empty:
		return func(int64, int8) bool { return false }
	case query.Match:
		b, err := exactAs(c, bound)
		if err != nil {
			return nil
		}
		return func(coef int64, exp int8) bool { return b.compare(coef, exp) == 0 }
	case query.Range:
		lo, hi, err := bounds(c, bound)
		if err != nil {
			return nil
		}
		openLo, openHi := c.Lower == "", c.Upper == ""
		return func(coef int64, exp int8) bool {
			return (openLo || lo.compare(coef, exp) >= 0) && (openHi || hi.compare(coef, exp) < 0)
		}
	}
	return nil
}

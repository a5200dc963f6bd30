package filter

import (
	"cmp"
	"math"

	"github.com/shopspring/decimal"
)

// A filter on amounts over a large list visits many rows, and building a
// decimal.Decimal (a big.Int) for each, to compare it with the
// condition's value, was most of its cost. A store that keeps amounts
// packed, as an int64 coefficient and an exponent, gives the field a
// Packed reader; the bounds here compare with it in integers and give the
// same answers as CmpDecimal.

// packedBound is an amount a condition names, with its coefficient and
// exponent when the coefficient fits an int64 (ok).
type packedBound struct {
	d    decimal.Decimal
	coef int64
	exp  int64
	ok   bool
}

func parseBound(s string) (packedBound, error) {
	d, err := parseDecimal(s)
	b := packedBound{d: d}
	if err == nil && d.NumDigits() <= 18 {
		b.coef, b.exp, b.ok = d.CoefficientInt64(), int64(d.Exponent()), true
	}
	return b, err
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

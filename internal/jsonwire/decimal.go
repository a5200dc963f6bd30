package jsonwire

import (
	"strconv"

	"github.com/shopspring/decimal"
)

// MaxDigitRun bounds a run of digits in a decimal. Parsing a decimal is
// superlinear in its length, and once the body has arrived no timeout can
// stop it; real amounts have a few dozen digits at most.
const MaxDigitRun = 256

// ParseDecimal reads a decimal from the bytes of a JSON value as
// decimal.Decimal.UnmarshalJSON does (a bare number, a quoted one, or null
// for the zero value), refusing a run of more than MaxDigitRun digits.
// Plain numbers of up to 18 digits, the amounts the API sends, are read
// straight into an int64 coefficient; anything else goes through the
// exact path of the decimal package.
func ParseDecimal(raw []byte) (decimal.Decimal, error) {
	if d, ok := parseShortDecimal(raw); ok {
		return d, nil
	}
	run := 0
	for _, c := range raw {
		if c >= '0' && c <= '9' {
			if run++; run > MaxDigitRun {
				return decimal.Decimal{}, ErrNumberTooLong
			}
		} else {
			run = 0
		}
	}
	var d decimal.Decimal
	err := d.UnmarshalJSON(raw)
	return d, err
}

// parseShortDecimal is shortDecimal's value as a Decimal.
func parseShortDecimal(raw []byte) (decimal.Decimal, bool) {
	coef, exp, ok := shortDecimal(raw)
	if !ok || coef == 0 && exp == 0 {
		// 0 and -0: the zero Decimal has the same coefficient and
		// exponent as decimal.New(0, 0), without allocating a big.Int.
		return decimal.Decimal{}, ok
	}
	return decimal.New(coef, exp), true
}

// shortDecimal reads -?digits[.digits] with at most 18 digits, the
// numbers whose value NewFromString also reads into an int64, and returns
// the same coefficient and exponent.
func shortDecimal(raw []byte) (coef int64, exp int32, ok bool) {
	i, neg := 0, false
	if len(raw) > 0 && raw[0] == '-' {
		i, neg = 1, true
	}
	digits, frac, point := 0, 0, false
	for ; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c >= '0' && c <= '9':
			coef = coef*10 + int64(c-'0')
			digits++
			if point {
				frac++
			}
		case c == '.' && !point && digits > 0:
			point = true
		default:
			return 0, 0, false
		}
	}
	if digits == 0 || digits > 18 || (point && frac == 0) || frac > int(decimal.MaxDecodeExponent) {
		return 0, 0, false
	}
	if neg {
		coef = -coef
	}
	return coef, int32(-frac), true
}

// AppendDecimal appends d as a plain decimal number with the same digits
// Decimal.String prints under decimal's default settings. It works from the
// coefficient and exponent instead of calling String, because String obeys
// the program-wide decimal.TrimTrailingZeros and decimal.UseScientificNotation
// switches and the wire format must not; as a bonus the common case (a
// coefficient that fits in an int64) does not allocate.
func AppendDecimal(dst []byte, d decimal.Decimal) []byte {
	if d.NumDigits() <= 18 {
		return AppendFixed(dst, d.CoefficientInt64(), d.Exponent())
	}
	start := len(dst)
	return placePoint(d.Coefficient().Append(dst, 10), start, d.Exponent())
}

// AppendFixed appends coef×10^exp as AppendDecimal appends the decimal of
// that coefficient and exponent. The text depends only on the value, not
// on how it is scaled (1.50 and 1.5 are both 1.5), so a caller that adds
// amounts in int64s, without a decimal's big.Int, writes what adding the
// decimals would have.
func AppendFixed(dst []byte, coef int64, exp int32) []byte {
	start := len(dst)
	return placePoint(strconv.AppendInt(dst, coef, 10), start, exp)
}

// placePoint turns the integer written at dst[start:] into the
// coefficient times 10^exp.
func placePoint(dst []byte, start int, exp32 int32) []byte {
	if dst[start] == '-' {
		start++
	}
	digits := len(dst) - start
	if digits == 1 && dst[start] == '0' {
		return dst // zero is "0" whatever its exponent
	}

	exp := int(exp32)
	if exp >= 0 {
		for range exp {
			dst = append(dst, '0')
		}
		return dst
	}

	// Trailing zeros of the fraction are dropped, like String; zeros of
	// the integer part are not.
	frac := -exp
	for frac > 0 && dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
		frac--
		digits--
	}
	switch {
	case frac == 0:
		return dst
	case digits > frac:
		point := len(dst) - frac
		dst = append(dst, 0)
		copy(dst[point+1:], dst[point:])
		dst[point] = '.'
		return dst
	default:
		// 0.000ddd: shift the digits right past "0." and the leading zeros.
		shift := 2 + frac - digits
		for range shift {
			dst = append(dst, 0)
		}
		copy(dst[start+shift:], dst[start:start+digits])
		dst[start] = '0'
		dst[start+1] = '.'
		for i := start + 2; i < start+shift; i++ {
			dst[i] = '0'
		}
		return dst
	}
}

package wirejson

import (
	"reflect"
	"strconv"

	"github.com/shopspring/decimal"
)

// decimalTypeEncoder returns the bare-number encoder for the decimal types
// and pointers to them, or nil for any other type.
func decimalTypeEncoder(t reflect.Type) encoderFunc {
	switch t {
	case reflect.TypeFor[decimal.Decimal]():
		return decimalEncoder
	case reflect.TypeFor[decimal.NullDecimal]():
		return nullDecimalEncoder
	case reflect.TypeFor[*decimal.Decimal](), reflect.TypeFor[*decimal.NullDecimal]():
		// *Decimal implements json.Marshaler too, so it has to be caught
		// here rather than left to the generic pointer path.
		return newPtrEncoder(t)
	}
	return nil
}

func decimalEncoder(_ *encodeState, dst []byte, v reflect.Value, _ bool) ([]byte, error) {
	d, _ := reflect.TypeAssert[decimal.Decimal](v)
	return appendDecimal(dst, d), nil
}

func nullDecimalEncoder(_ *encodeState, dst []byte, v reflect.Value, _ bool) ([]byte, error) {
	nd, _ := reflect.TypeAssert[decimal.NullDecimal](v)
	if !nd.Valid {
		return append(dst, "null"...), nil
	}
	return appendDecimal(dst, nd.Decimal), nil
}

// appendDecimal appends d as a plain decimal number with the same digits
// Decimal.String prints under decimal's default settings. It works from the
// coefficient and exponent instead of calling String, because String obeys
// the program-wide decimal.TrimTrailingZeros and decimal.UseScientificNotation
// switches and the wire format must not; as a bonus the common case (a
// coefficient that fits in an int64) does not allocate.
func appendDecimal(dst []byte, d decimal.Decimal) []byte {
	start := len(dst)
	if d.NumDigits() <= 18 {
		dst = strconv.AppendInt(dst, d.CoefficientInt64(), 10)
	} else {
		dst = d.Coefficient().Append(dst, 10)
	}
	if dst[start] == '-' {
		start++
	}
	digits := len(dst) - start
	if digits == 1 && dst[start] == '0' {
		return dst // zero is "0" whatever its exponent
	}

	exp := int(d.Exponent())
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

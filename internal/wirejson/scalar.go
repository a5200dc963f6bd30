package wirejson

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

func boolEncoder(_ *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	dst = appendQuoteIf(dst, quoted)
	dst = strconv.AppendBool(dst, v.Bool())
	return appendQuoteIf(dst, quoted), nil
}

func intEncoder(_ *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	dst = appendQuoteIf(dst, quoted)
	dst = strconv.AppendInt(dst, v.Int(), 10)
	return appendQuoteIf(dst, quoted), nil
}

func uintEncoder(_ *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	dst = appendQuoteIf(dst, quoted)
	dst = strconv.AppendUint(dst, v.Uint(), 10)
	return appendQuoteIf(dst, quoted), nil
}

func float32Encoder(_ *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	return appendFloat(dst, v, 32, quoted)
}

func float64Encoder(_ *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	return appendFloat(dst, v, 64, quoted)
}

// appendFloat formats like encoding/json (ES6 number-to-string: %f unless the
// magnitude is below 1e-6 or at least 1e21, exponent without zero padding).
func appendFloat(dst []byte, v reflect.Value, bits int, quoted bool) ([]byte, error) {
	f := v.Float()
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, &json.UnsupportedValueError{Value: v, Str: strconv.FormatFloat(f, 'g', -1, bits)}
	}
	dst = appendQuoteIf(dst, quoted)
	abs := math.Abs(f)
	format := byte('f')
	// The cutoffs must be compared at the value's own precision.
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// e-09 becomes e-9.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return appendQuoteIf(dst, quoted), nil
}

func stringEncoder(_ *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	if quoted {
		return appendDoubleQuotedString(dst, v.String()), nil
	}
	return appendString(dst, v.String()), nil
}

// numberEncoder writes a json.Number verbatim after checking it is a JSON
// number; the empty Number is 0 for compatibility, as in encoding/json.
func numberEncoder(_ *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	s := v.String()
	if s == "" {
		s = "0"
	}
	if !isValidNumber(s) {
		return dst, fmt.Errorf("json: invalid number literal %q", s)
	}
	dst = appendQuoteIf(dst, quoted)
	dst = append(dst, s...)
	return appendQuoteIf(dst, quoted), nil
}

// isValidNumber reports whether s is exactly one number in JSON's grammar
// (RFC 8259 section 6), with no surrounding space.
func isValidNumber(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	switch {
	case s == "":
		return false
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = skipDigits(s[1:])
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && isDigit(s[1]) {
		s = skipDigits(s[2:])
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
		}
		if s == "" || !isDigit(s[0]) {
			return false
		}
		s = skipDigits(s[1:])
	}
	return s == ""
}

func skipDigits(s string) string {
	for s != "" && isDigit(s[0]) {
		s = s[1:]
	}
	return s
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func appendQuoteIf(dst []byte, quoted bool) []byte {
	if quoted {
		return append(dst, '"')
	}
	return dst
}

func unsupportedTypeEncoder(_ *encodeState, dst []byte, v reflect.Value, _ bool) ([]byte, error) {
	return dst, &json.UnsupportedTypeError{Type: v.Type()}
}

package wirejson

import "unicode/utf8"

const hex = "0123456789abcdef"

// Bitmaps of the ASCII bytes that encoding/json copies into a string
// unescaped when HTML escaping is on (as it always is for json.Marshal):
// printable characters other than '"', '\\', '<', '>' and '&'. DEL is
// printable for this purpose. Constants rather than a table keep the
// package free of variables.
const (
	safeBelow64 uint64 = 0xFFFF_FFFF_0000_0000 &^ (1<<'"' | 1<<'&' | 1<<'<' | 1<<'>')
	safeAbove64 uint64 = ^uint64(0) &^ (1 << ('\\' - 64))
)

// isSafeASCII reports whether b (< utf8.RuneSelf) is copied unescaped.
func isSafeASCII(b byte) bool {
	if b < 64 {
		return safeBelow64>>b&1 == 1
	}
	return safeAbove64>>(b-64)&1 == 1
}

// appendString appends src as a JSON string escaped exactly as
// encoding/json.Marshal escapes it: short escapes for \b \f \n \r \t " and
// \\, \u00XX for other control characters and for < > &, \u2028 and \u2029
// for the JavaScript line terminators, and \ufffd for each invalid UTF-8 byte.
func appendString[S []byte | string](dst []byte, src S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		if b := src[i]; b < utf8.RuneSelf {
			if isSafeASCII(b) {
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		// Converting at most UTFMax bytes lets the compiler keep the
		// string on the stack when src is a []byte.
		n := min(len(src)-i, utf8.UTFMax)
		c, size := utf8.DecodeRuneInString(string(src[i : i+n]))
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, src[start:]...)
	return append(dst, '"')
}

// appendDoubleQuotedString implements the ",string" option for strings: the
// JSON string literal of s, itself encoded as a JSON string. The inner
// literal is built in dst's spare room instead of a temporary buffer, then
// the outer encoding is slid down over it. Escaping the inner literal again
// with HTML escaping on is harmless: it no longer contains < > or &.
func appendDoubleQuotedString(dst []byte, s string) []byte {
	start := len(dst)
	dst = appendString(dst, s)
	mid := len(dst)
	// The source aliases dst, but appendString only writes past mid, and
	// if it reallocates the old array still holds the inner literal.
	dst = appendString(dst, dst[start:mid])
	n := copy(dst[start:], dst[mid:])
	return dst[:start+n]
}

package query

import (
	"strings"
	"unicode/utf8"
)

const upperHex = "0123456789ABCDEF"

// mustEscape reports whether b has to be percent-encoded inside a value. The
// set is the reference's "characters with a meaning in a query string" plus
// this grammar's own delimiters and the control bytes, which no transport
// carries reliably.
func mustEscape(b byte) bool {
	switch b {
	case '%', ';', ':', '|', ',', '*', '[', ']', '&', '=', '+', '#', '?':
		return true
	}
	return b < 0x20 || b == 0x7F
}

// escape renders a literal value. Bytes that are not part of valid UTF-8 are
// percent-encoded as well: the output stays valid UTF-8, and since Parse
// rejects values that decode to invalid UTF-8, such input fails closed.
// keepColon leaves ':' literal for range bounds (see the package doc).
func escape(s string, keepColon bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size > 1 {
				b.WriteString(s[i : i+size])
				i += size
				continue
			}
		} else if !mustEscape(c) || (keepColon && c == ':') {
			b.WriteByte(c)
			i++
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&0x0F])
		i++
	}
	return b.String()
}

// unescape decodes %XX sequences with url.PathUnescape's rules ('+' is not a
// space). It is written out rather than calling net/url so that a bad escape
// can be reported with its position; bad is the offset of the offending '%'
// in s, or -1.
func unescape(s string) (out string, bad int) {
	if strings.IndexByte(s, '%') < 0 {
		return s, -1
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", i
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	return string(b), -1
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}

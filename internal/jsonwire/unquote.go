package jsonwire

import (
	"bytes"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// plain returns the contents of a quoted JSON string that needs no
// unescaping: no backslash and valid UTF-8.
func plain(v []byte) ([]byte, bool) {
	s := v[1 : len(v)-1]
	// Most strings are short and ASCII: one tight loop beats two calls.
	for _, c := range s {
		if c == '\\' || c >= utf8.RuneSelf {
			return s, bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
		}
	}
	return s, true
}

// Unquote returns the string a quoted JSON string (as the tokenizer
// validated it) stands for, as encoding/json decodes it: invalid UTF-8
// and unpaired surrogate escapes become U+FFFD.
func Unquote(v []byte) string {
	if b, ok := plain(v); ok {
		return string(b)
	}
	return string(unquoteBytes(nil, v))
}

// unquote is Unquote with the string's bytes from the arena.
func (a *Arena) unquote(v []byte) string {
	if b, ok := plain(v); ok {
		return a.String(b)
	}
	var buf [64]byte
	return a.String(unquoteBytes(buf[:0], v))
}

// unquoteBytes appends the unescaped contents of the quoted string v to b.
func unquoteBytes(b, v []byte) []byte {
	s := v[1 : len(v)-1]
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\' && r+1 < len(s):
			r++
			switch s[r] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(s[r-1:])
				if rr < 0 {
					b = append(b, "\uFFFD"...) // the tokenizer refuses this
					r++
					continue
				}
				r += 5
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // '"', '\\', '/'
				b = append(b, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return b
}

func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

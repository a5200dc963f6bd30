package jsonwire

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// plain returns the contents of a quoted JSON string, and whether they
// need no unescaping (see isPlain).
func plain(v []byte) ([]byte, bool) {
	s := v[1 : len(v)-1]
	return s, isPlain(s)
}

// isPlain reports whether the contents s of a JSON string stand for
// themselves: no backslash and valid UTF-8.
func isPlain(s []byte) bool {
	// Most strings are ASCII without escapes: eight bytes at a time,
	// then byte by byte; the first byte that is neither sends the whole
	// string to the exact checks.
	t := s
	for len(t) >= 8 {
		w := binary.LittleEndian.Uint64(t)
		const ones, highs = 0x0101010101010101, 0x8080808080808080
		x := w ^ (ones * '\\') // a zero byte where w has a backslash
		if (w|((x-ones)&^x))&highs != 0 {
			return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
		}
		t = t[8:]
	}
	for _, c := range t {
		if c == '\\' || c >= utf8.RuneSelf {
			return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
		}
	}
	return true
}

// appendUnquoted appends the string the quoted JSON string v (as the
// tokenizer validated it) stands for, as encoding/json decodes it: invalid
// UTF-8 and unpaired surrogate escapes become U+FFFD. The tokenizer's
// error says only that something was replaced, which encoding/json does
// silently.
func appendUnquoted(b, v []byte) []byte {
	b, _ = jsontext.AppendUnquote(b, v)
	return b
}

// Unquote returns the string the quoted JSON string v stands for (see
// appendUnquoted).
func Unquote(v []byte) string {
	if b, ok := plain(v); ok {
		return string(b)
	}
	return string(appendUnquoted(nil, v))
}

// unquote is Unquote with the string's bytes from the arena.
func (a *Arena) unquote(v []byte) string {
	if b, ok := plain(v); ok {
		return a.String(b)
	}
	var buf [64]byte
	return a.String(appendUnquoted(buf[:0], v))
}

// ValidSurrogates returns the JSON value v with every \u escape of half a
// UTF-16 surrogate pair that has no other half written as \ufffd, as
// encoding/json reads such an escape; v itself when it has none. A value
// kept as it came (Extra) must be one that every encoder writes back, and
// encoding/json/v2 refuses a lone half.
func ValidSurrogates(v []byte) []byte {
	if !bytes.Contains(v, []byte(`\u`)) {
		return v
	}
	var out []byte // nil until a half is replaced
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			continue
		}
		if v[i+1] != 'u' {
			i++ // an escape of another kind: skip its character
			continue
		}
		r, ok := escapedUnit(v[i:])
		switch {
		case !ok || !utf16.IsSurrogate(rune(r)):
		case r < 0xDC00: // the first half: the second must follow
			if r2, ok2 := escapedUnit(v[i+6:]); ok2 && r2 >= 0xDC00 && r2 <= 0xDFFF {
				i += 11
				continue
			}
			fallthrough
		default: // a half alone
			if out == nil {
				out = append(make([]byte, 0, len(v)), v...)
			}
			copy(out[i:i+6], `\ufffd`)
		}
		if ok {
			i += 5
		}
	}
	if out == nil {
		return v
	}
	return out
}

// escapedUnit reads the \uXXXX escape at the start of s: its UTF-16 code
// unit, and whether there is one.
func escapedUnit(s []byte) (uint16, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	v, n := HexValue(s[2:], 4)
	return uint16(v), n == 4
}

// HexValue reads at most limit hex digits (either case) from the start of
// s and returns their value and how many it read.
func HexValue(s []byte, limit int) (v, n int) {
	for n < limit && n < len(s) {
		c := s[n]
		switch {
		case '0' <= c && c <= '9':
			v = v*16 + int(c-'0')
		case 'a' <= c && c <= 'f':
			v = v*16 + int(c-'a') + 10
		case 'A' <= c && c <= 'F':
			v = v*16 + int(c-'A') + 10
		default:
			return v, n
		}
		n++
	}
	return v, n
}

// validUTF8 returns v with every byte that is not part of valid UTF-8
// replaced by U+FFFD, as encoding/json replaces them in the strings it
// decodes; v itself when it is valid. Outside strings a JSON value is
// ASCII, so only strings change.
func validUTF8(v []byte) []byte {
	if utf8.Valid(v) {
		return v
	}
	out := make([]byte, 0, len(v)+8)
	for len(v) > 0 {
		r, n := utf8.DecodeRune(v)
		if r == utf8.RuneError && n == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, v[:n]...)
		}
		v = v[n:]
	}
	return out
}

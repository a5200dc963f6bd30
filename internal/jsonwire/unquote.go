package jsonwire

import (
	"bytes"
	"encoding/binary"
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

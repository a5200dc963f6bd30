package wirejson

import (
	"bytes"
	"encoding/json"
	"errors"
)

// appendCompact appends src, the output of a MarshalJSON method, to dst the
// way encoding/json embeds it: validated, with insignificant whitespace
// removed and HTML-sensitive characters escaped. Invalid input yields the
// same *json.SyntaxError encoding/json reports.
func appendCompact(dst, src []byte) ([]byte, error) {
	if !json.Valid(src) {
		// Only the error is wanted; encoding/json's Compact reports it
		// with the offset encoding/json itself would give.
		var discard bytes.Buffer
		if err := json.Compact(&discard, src); err != nil {
			return dst, err
		}
		return dst, errors.New("json: invalid JSON from MarshalJSON")
	}

	// src is valid JSON from here on, so whitespace can only sit between
	// tokens, and < > & U+2028 U+2029 can only sit inside strings; a
	// string/escape tracker is all the scanning still needed.
	start := 0
	inString, escaped := false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !inString {
			switch c {
			case '"':
				inString = true
			case ' ', '\t', '\n', '\r':
				dst = append(dst, src[start:i]...)
				start = i + 1
			}
			continue
		}
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			inString = false
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(dst, src[start:]...), nil
}

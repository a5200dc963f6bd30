package billing

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/billingapi/billing-go/internal/jsonwire"
)

// A server may echo a secret back in escaped form: .NET's JSON encoder
// writes "+" as \u002B, a redirect carries the key percent-encoded, an
// HTML page writes &#43;. indexEscaped finds a secret spelled in any mix
// of these, byte by byte, so that scrubbing does not depend on how the
// echo was escaped.

// indexEscaped returns the start and end of the first place in s, from
// byte from on, that spells secret with each of its bytes as is or
// escaped (%XX, \uXXXX, \/, &#NN; or &#xHH;), or -1, -1. It looks only
// where such a spelling can start (the secret's first byte, %, \ or &),
// each found by bytes.IndexByte, so that a large body costs a few fast
// scans.
func indexEscaped(s []byte, secret string, from int) (start, end int) {
	if secret == "" {
		return -1, -1
	}
	starts := [...]byte{secret[0], '%', '\\', '&'}
	next := [len(starts)]int{-1, -1, -1, -1} // the next place of each at or after i
	for i := from; i < len(s); {
		c := len(s)
		for j, b := range starts {
			if next[j] < i {
				next[j] = len(s)
				if k := bytes.IndexByte(s[i:], b); k >= 0 {
					next[j] = i + k
				}
			}
			c = min(c, next[j])
		}
		if c == len(s) {
			break
		}
		if n := escapedPrefix(s[c:], secret); n > 0 {
			return c, c + n
		}
		i = c + 1
	}
	return -1, -1
}

// escapedPrefix returns the length of the text at the start of s that
// spells secret (see indexEscaped), or 0.
func escapedPrefix(s []byte, secret string) int {
	n := 0
	for k := range len(secret) {
		w := escapedByte(s[n:], secret[k])
		if w == 0 {
			return 0
		}
		n += w
	}
	return n
}

// escapedByte returns the length of the text at the start of s that
// spells b, as is or escaped, or 0.
func escapedByte(s []byte, b byte) int {
	switch {
	case len(s) == 0:
		return 0
	case s[0] == b:
		return 1
	case s[0] == '%':
		if v, n := jsonwire.HexValue(s[1:], 2); n == 2 && v == int(b) {
			return 3
		}
	case s[0] == '\\' && len(s) >= 2 && s[1] == '/':
		if b == '/' {
			return 2
		}
	case s[0] == '\\' && len(s) >= 2 && (s[1] == 'u' || s[1] == 'U'):
		if v, n := jsonwire.HexValue(s[2:], 4); n == 4 && v == int(b) {
			return 6
		}
	case s[0] == '&' && len(s) >= 2 && s[1] == '#':
		// &#43; or &#x2B;: at most five digits, then ";".
		var v, n int
		if len(s) >= 3 && (s[2] == 'x' || s[2] == 'X') {
			v, n = jsonwire.HexValue(s[3:], 5)
			n++
		} else {
			v, n = decimalValue(s[2:], 5)
		}
		if end := 2 + n; n > 0 && end < len(s) && s[end] == ';' && v == int(b) {
			return end + 1
		}
	}
	return 0
}

// decimalValue reads at most limit decimal digits from the start of s.
func decimalValue(s []byte, limit int) (v, n int) {
	for n < limit && n < len(s) && '0' <= s[n] && s[n] <= '9' {
		v = v*10 + int(s[n]-'0')
		n++
	}
	return v, n
}

// replaceEscaped replaces every place in s that spells secret, as is or
// escaped, with repl.
func replaceEscaped(s, secret, repl string) string {
	b := []byte(s)
	start, end := indexEscaped(b, secret, 0)
	if start < 0 {
		return s
	}
	var out strings.Builder
	last := 0
	for start >= 0 {
		out.Write(b[last:start])
		out.WriteString(repl)
		last = end
		start, end = indexEscaped(b, secret, end)
	}
	out.Write(b[last:])
	return out.String()
}

// longestPlainRun is the longest run of ASCII letters and digits in
// secret. No encoder escapes those (JSON, percent-encoding and HTML
// escape only other bytes), so a body that does not hold the run as is
// cannot hold the secret, escaped or not: one fast search rules out the
// common case before indexEscaped looks at every escape.
func longestPlainRun(secret string) string {
	best, start := "", 0
	for i := 0; i <= len(secret); i++ {
		if i < len(secret) && isPlain(secret[i]) {
			continue
		}
		if i-start > len(best) {
			best = secret[start:i]
		}
		start = i + 1
	}
	return best
}

func isPlain(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// indexEscapedStart is where indexEscaped finds secret in s, or -1.
func indexEscapedStart(s []byte, secret string) int {
	start, _ := indexEscaped(s, secret, 0)
	return start
}

// mayHoldEscapes reports whether s holds a byte that starts an escape
// indexEscaped reads; without one, a plain search is enough.
func mayHoldEscapes(s string) bool {
	return strings.ContainsAny(s, `%\&`)
}

// scrubRawJSON returns the JSON value b with scrub applied to its member
// names and strings, and with a number scrub would change (the CVV,
// standing alone) turned into the string "[REDACTED]": the value keeps its
// shape, and what else it holds. b that does not parse becomes that string.
func scrubRawJSON(b []byte, scrub func(string) string) []byte {
	tree, err := jsonwire.UnmarshalTree(b)
	if err == nil {
		var out []byte
		if out, err = jsonwire.Marshal(scrubTree(tree, scrub)); err == nil {
			return out
		}
	}
	return []byte(`"` + redacted + `"`)
}

// scrubTree is scrubRawJSON over a tree from jsonwire.UnmarshalTree.
func scrubTree(v any, scrub func(string) string) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[scrub(k)] = scrubTree(e, scrub)
		}
		return out
	case []any:
		for i, e := range t {
			t[i] = scrubTree(e, scrub)
		}
	case string:
		return scrub(t)
	case jsonwire.Number:
		if scrub(string(t)) != string(t) {
			return redacted
		}
	}
	return v
}

// rawMessageType is the type of Extra's values and of the fields the SDK
// keeps as the server sent them.
var rawMessageType = reflect.TypeFor[json.RawMessage]()

// scrubDecoded replaces, in place, every string that v holds (fields,
// elements, map keys and values, through pointers and interfaces) with
// scrub of it, and every raw JSON value (Extra's members, json.RawMessage
// fields) that scrub changes with scrubRawJSON of it, so that it can
// still be written back. Unexported fields are left alone: nothing can
// set them.
func scrubDecoded(v reflect.Value, scrub func(string) string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			scrubDecoded(v.Elem(), scrub)
		}
	case reflect.Interface:
		if v.IsNil() || !v.CanSet() {
			return
		}
		// What an interface holds cannot be set in place: scrub a copy.
		c := reflect.New(v.Elem().Type()).Elem()
		c.Set(v.Elem())
		scrubDecoded(c, scrub)
		v.Set(c)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				scrubDecoded(f, scrub)
			}
		}
	case reflect.Slice:
		switch {
		case v.Type() == rawMessageType:
			if b := v.Bytes(); len(b) > 0 && scrub(string(b)) != string(b) {
				v.SetBytes(scrubRawJSON(b, scrub))
			}
		case v.Type().Elem().Kind() != reflect.Uint8:
			for i := range v.Len() {
				scrubDecoded(v.Index(i), scrub)
			}
		}
	case reflect.Array:
		if v.CanSet() {
			for i := range v.Len() {
				scrubDecoded(v.Index(i), scrub)
			}
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		for _, k := range v.MapKeys() {
			// Map values cannot be set in place: scrub a copy, then put
			// it back under the key, itself scrubbed if it is a string.
			c := reflect.New(v.Type().Elem()).Elem()
			c.Set(v.MapIndex(k))
			scrubDecoded(c, scrub)
			nk := k
			if k.Kind() == reflect.String {
				if s := scrub(k.String()); s != k.String() {
					nk = reflect.New(k.Type()).Elem()
					nk.SetString(s)
					v.SetMapIndex(k, reflect.Value{})
				}
			}
			v.SetMapIndex(nk, c)
		}
	case reflect.String:
		if v.CanSet() {
			if s := scrub(v.String()); s != v.String() {
				v.SetString(s)
			}
		}
	}
}

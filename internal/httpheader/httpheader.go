// Package httpheader checks header names and values by the rules
// net/http's client applies when it writes a request (RFC 9110), so that
// what it would refuse at the first call is refused where it is given.
package httpheader

// ValidName reports whether name is an HTTP token: one or more visible
// ASCII characters, none of them a separator.
func ValidName(name string) bool {
	if name == "" {
		return false
	}
	for i := range len(name) {
		if c := name[i]; c <= ' ' || c >= 0x7f || separators[c] {
			return false
		}
	}
	return true
}

// ValidValue reports whether value can be sent as a header field's value:
// no control character but the horizontal tab, and no DEL. Bytes beyond
// ASCII pass, as net/http lets them.
func ValidValue(value string) bool {
	for i := range len(value) {
		if c := value[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// separators are the characters RFC 9110 excludes from tokens.
var separators = [128]bool{'(': true, ')': true, '<': true, '>': true, '@': true, ',': true, ';': true, ':': true, '\\': true, '"': true, '/': true, '[': true, ']': true, '?': true, '=': true, '{': true, '}': true}

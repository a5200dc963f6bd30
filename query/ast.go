package query

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is the form of a condition's value.
type Kind int

const (
	// Match compares the value with Pattern: exactly when Pattern has one
	// segment, otherwise with a wildcard between consecutive segments.
	Match Kind = iota + 1
	// Empty is the reference's [empty]: the field is null or the empty string.
	Empty
	// Set holds when the field equals one of two or more Values.
	Set
	// Range holds when Lower <= field < Upper; an empty bound is an open end.
	Range
)

// String returns the constant's name, or Kind(n) for a value outside the enum.
func (k Kind) String() string {
	return constName("Kind", int(k), "Match", "Empty", "Set", "Range")
}

// constName is the name of value v of an enumeration of type typ whose
// constants, named names in order, count from 1 (iota + 1); any other
// value is typ(v).
func constName(typ string, v int, names ...string) string {
	if v >= 1 && v <= len(names) {
		return names[v-1]
	}
	return typ + "(" + strconv.Itoa(v) + ")"
}

// Condition is one name:value pair of an expression. All strings hold the
// literal, unescaped text; escaping happens in String.
//
// Only the fields of Kind are meaningful. Conditions from Parse and from this
// package's constructors leave the others at their zero value, so that they
// can be compared with reflect.DeepEqual.
type Condition struct {
	// Name is the filter name, e.g. "postedTimestamp" or
	// "Customer.CustomerReference.Reference1".
	Name string
	Kind Kind
	// Pattern holds, for Match, the literal segments between '*' wildcards:
	// "abc" is ["abc"], "abc*" is ["abc" ""], "*abc*" is ["" "abc" ""],
	// "*abc" is ["" "abc"] and "a*b" is ["a" "b"]. Only the first and the last
	// segment may be empty, because "**" is not valid syntax.
	Pattern []string
	// Values holds, for Set, the two or more non-empty alternatives.
	Values []string
	// Lower and Upper are, for Range, the bounds; "" means open.
	Lower, Upper string
}

// invalidValue is what String writes for a condition that has no valid
// rendering: a raw '[' outside "[empty]" is a syntax error, so the condition
// is rejected instead of being read as something the caller did not build.
const invalidValue = "[invalid]"

// String renders the condition as name:value, escaping the value as described
// in the package documentation. An invalid condition renders as text that
// Parse rejects.
func (c Condition) String() string {
	name := c.Name
	if !validName(name) {
		// Escaping keeps a bad name from injecting structure; the result is
		// still not a valid name, so the condition still fails to parse.
		name = escape(name, false)
	}
	return name + ":" + c.value()
}

func (c Condition) value() string {
	switch c.Kind {
	case Match:
		if len(c.Pattern) == 0 {
			return invalidValue
		}
		return joinEscaped(c.Pattern, "*", false)
	case Empty:
		return "[empty]"
	case Set:
		// A single member would read back as a Match, and none as Match [""],
		// which matches something else than the empty set.
		if len(c.Values) < 2 {
			return invalidValue
		}
		return joinEscaped(c.Values, ",", false)
	case Range:
		return escape(c.Lower, true) + "|" + escape(c.Upper, true)
	}
	return invalidValue
}

func joinEscaped(parts []string, sep string, keepColon bool) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(escape(p, keepColon))
	}
	return b.String()
}

// Literal returns the value of an exact match, so that a caller can tell
// "name equals v" apart from wildcard, set, range and empty conditions.
func (c Condition) Literal() (string, bool) {
	if c.Kind == Match && len(c.Pattern) == 1 {
		return c.Pattern[0], true
	}
	return "", false
}

// Validate reports why the condition cannot be rendered so that it parses
// back to itself: a bad name, an unknown kind, a Match without segments or
// with an empty segment between wildcards, a Set with fewer than two values
// or an empty one, or a value that is not valid UTF-8.
func (c Condition) Validate() error {
	if err := c.check(); err != nil {
		return &contextError{context: "query", err: err}
	}
	return nil
}

// check is Validate without the package prefix, so that Build can put the Go
// field name in front instead.
func (c Condition) check() error {
	if !validName(c.Name) {
		return fmt.Errorf("invalid filter name %q", c.Name)
	}
	var values []string
	switch c.Kind {
	case Match:
		if len(c.Pattern) == 0 {
			return fmt.Errorf("condition %s: match without a pattern", c.Name)
		}
		for i := 1; i < len(c.Pattern)-1; i++ {
			if c.Pattern[i] == "" {
				return fmt.Errorf("condition %s: empty pattern segment between wildcards", c.Name)
			}
		}
		values = c.Pattern
	case Empty:
	case Set:
		if len(c.Values) < 2 {
			return fmt.Errorf("condition %s: a set needs at least 2 values, has %d", c.Name, len(c.Values))
		}
		for _, v := range c.Values {
			if v == "" {
				return fmt.Errorf("condition %s: empty value in set", c.Name)
			}
		}
		values = c.Values
	case Range:
		values = []string{c.Lower, c.Upper}
	default:
		return fmt.Errorf("condition %s: unknown kind %v", c.Name, c.Kind)
	}
	for _, v := range values {
		if !utf8.ValidString(v) {
			return fmt.Errorf("condition %s: value %q is not valid UTF-8", c.Name, v)
		}
	}
	return nil
}

// Expr is a list of conditions that must all hold.
type Expr []Condition

// String renders the conditions joined with ';'. An empty Expr renders as "".
func (e Expr) String() string {
	var b strings.Builder
	for i, c := range e {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(c.String())
	}
	return b.String()
}

// Validate returns the error of the first invalid condition, if any.
func (e Expr) Validate() error {
	for i, c := range e {
		if err := c.check(); err != nil {
			return &contextError{context: "query: condition " + strconv.Itoa(i+1), err: err}
		}
	}
	return nil
}

// validName reports whether s matches
// ^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$.
func validName(s string) bool {
	atStart := true // at the first byte of a dot-separated segment
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
		switch {
		case atStart:
			if !letter {
				return false
			}
			atStart = false
		case c == '.':
			atStart = true
		case !letter && c != '_' && !('0' <= c && c <= '9'):
			return false
		}
	}
	return s != "" && !atStart
}

// contextError puts context in front of an error without repeating the
// "query: " prefix of a wrapped error from this package, so that errors read
// "query: field Raw: syntax error ..." rather than "query: field Raw: query: ...".
type contextError struct {
	context string
	err     error
}

func (e *contextError) Error() string {
	return e.context + ": " + strings.TrimPrefix(e.err.Error(), "query: ")
}

func (e *contextError) Unwrap() error { return e.err }

package query

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SyntaxError describes why Parse rejected an expression.
type SyntaxError struct {
	Expr   string // the whole expression given to Parse
	Offset int    // byte offset in Expr where the problem was found
	Msg    string
}

// Error returns the message with the offset and the expression.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("query: syntax error at offset %d in %q: %s", e.Offset, e.Expr, e.Msg)
}

// Parse reads an expression. The empty string is the empty expression (nil).
// A single trailing ';' is accepted, as services commonly do; an empty
// condition anywhere else is an error. The error is always a *SyntaxError.
//
// Every condition Parse returns passes Condition.Validate, and Parse of its
// String is deep-equal to it.
func Parse(s string) (Expr, error) {
	if s == "" {
		return nil, nil
	}
	p := parser{src: s}
	if !utf8.ValidString(s) {
		for i := 0; ; {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, p.errorf(i, "invalid UTF-8")
			}
			i += size
		}
	}
	var e Expr
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], ';')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		c, err := p.condition(start, end)
		if err != nil {
			return nil, err
		}
		e = append(e, c)
		start = end + 1
	}
	return e, nil
}

// MustParse is Parse for expressions known to be valid, such as constants in
// tests; it panics on a syntax error.
func MustParse(s string) Expr {
	e, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return e
}

type parser struct {
	src string
}

func (p parser) errorf(offset int, format string, args ...any) error {
	return &SyntaxError{Expr: p.src, Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

// condition parses src[start:end], which holds no ';'.
func (p parser) condition(start, end int) (Condition, error) {
	part := p.src[start:end]
	if part == "" {
		return Condition{}, p.errorf(start, "empty condition")
	}
	colon := strings.IndexByte(part, ':')
	if colon < 0 {
		return Condition{}, p.errorf(end, "missing ':' after filter name")
	}
	name := part[:colon]
	if !validName(name) {
		return Condition{}, p.errorf(start, "invalid filter name %q", name)
	}
	at := start + colon + 1 // offset of the value
	raw := part[colon+1:]
	if raw == "[empty]" {
		return CondIsEmpty(name), nil
	}
	if i := strings.IndexAny(raw, "[]"); i >= 0 {
		return Condition{}, p.errorf(at+i, "unescaped %q outside [empty]", raw[i])
	}
	switch {
	case strings.IndexByte(raw, '|') >= 0:
		return p.rangeCond(name, raw, at)
	case strings.IndexByte(raw, ',') >= 0:
		return p.setCond(name, raw, at)
	}
	return p.matchCond(name, raw, at)
}

func (p parser) rangeCond(name, raw string, at int) (Condition, error) {
	bar := strings.IndexByte(raw, '|')
	if i := strings.IndexByte(raw[bar+1:], '|'); i >= 0 {
		return Condition{}, p.errorf(at+bar+1+i, "more than one '|' in a range")
	}
	if i := strings.IndexAny(raw, ",*"); i >= 0 {
		return Condition{}, p.errorf(at+i, "unescaped %q in a range", raw[i])
	}
	lower, err := p.literal(raw[:bar], at)
	if err != nil {
		return Condition{}, err
	}
	upper, err := p.literal(raw[bar+1:], at+bar+1)
	if err != nil {
		return Condition{}, err
	}
	return CondRange(name, lower, upper), nil
}

func (p parser) setCond(name, raw string, at int) (Condition, error) {
	if i := strings.IndexByte(raw, '*'); i >= 0 {
		return Condition{}, p.errorf(at+i, "wildcard in a set")
	}
	values, err := p.literals(raw, ',', at)
	if err != nil {
		return Condition{}, err
	}
	return Condition{Name: name, Kind: Set, Values: values}, nil
}

func (p parser) matchCond(name, raw string, at int) (Condition, error) {
	if i := strings.Index(raw, "**"); i >= 0 {
		return Condition{}, p.errorf(at+i, "consecutive wildcards")
	}
	pattern, err := p.literals(raw, '*', at)
	if err != nil {
		return Condition{}, err
	}
	return Condition{Name: name, Kind: Match, Pattern: pattern}, nil
}

// literals splits raw at sep and unescapes the pieces. Empty pieces are
// rejected for sets only: in a pattern they stand next to a leading or
// trailing wildcard, and "**" has been rejected before.
func (p parser) literals(raw string, sep byte, at int) ([]string, error) {
	out := make([]string, 0, strings.Count(raw, string(sep))+1)
	for {
		piece, rest, more := strings.Cut(raw, string(sep))
		if piece == "" && sep == ',' {
			return nil, p.errorf(at, "empty value in a set")
		}
		v, err := p.literal(piece, at)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !more {
			return out, nil
		}
		raw, at = rest, at+len(piece)+1
	}
}

// literal unescapes one piece of a value that starts at offset at.
func (p parser) literal(raw string, at int) (string, error) {
	v, bad := unescape(raw)
	if bad >= 0 {
		return "", p.errorf(at+bad, "invalid escape %q", raw[bad:min(bad+3, len(raw))])
	}
	if !utf8.ValidString(v) {
		return "", p.errorf(at, "value %q is not valid UTF-8 after unescaping", raw)
	}
	return v, nil
}

// Package route matches request paths against the fake's route patterns
// as the service matches them, and checks the patterns a test adds.
//
// A pattern is a path's segments after the leading "/", where "{name}" is
// a parameter. Segments compare without regard to case, one trailing
// slash is optional, and where patterns overlap a literal segment beats a
// parameter at the first position where they differ.
package route

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// MaxSegments bounds an added pattern, so that a match's specificity fits
// in Match's mask.
const MaxSegments = 32

// Parse checks the path of a pattern a test adds and returns its
// segments. Its first segment must not be reserved (the control API's,
// compared without case).
func Parse(pattern, reserved string) ([]string, error) {
	if !strings.HasPrefix(pattern, "/") {
		return nil, fmt.Errorf("pattern %q does not start with /", pattern)
	}
	segs := strings.Split(strings.TrimSuffix(pattern[1:], "/"), "/")
	if len(segs) > MaxSegments {
		return nil, fmt.Errorf("pattern %q has more than %d segments", pattern, MaxSegments)
	}
	if strings.EqualFold(segs[0], reserved) {
		return nil, fmt.Errorf("pattern %q is under the control API's /%s/", pattern, reserved)
	}
	seen := map[string]bool{}
	for _, seg := range segs {
		if name, isParam := strings.CutPrefix(seg, "{"); isParam {
			name, closed := strings.CutSuffix(name, "}")
			if !closed || !paramName.MatchString(name) {
				return nil, fmt.Errorf("pattern %q: parameter %q is not {name} with a name of letters, digits and _", pattern, seg)
			}
			if seen[name] {
				return nil, fmt.Errorf("pattern %q: parameter {%s} appears twice", pattern, name)
			}
			seen[name] = true
			continue
		}
		if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "{}\\?#%") {
			return nil, fmt.Errorf("pattern %q: segment %q cannot match a request (empty, dot, or holding one of {}\\?#%%)", pattern, seg)
		}
	}
	return segs, nil
}

var paramName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// SameShape reports whether two patterns match the same paths: literals
// equal without regard to case, parameters at the same places.
func SameShape(a, b []string) bool {
	return slices.EqualFunc(a, b, func(x, y string) bool {
		xp, yp := strings.HasPrefix(x, "{"), strings.HasPrefix(y, "{")
		if xp || yp {
			return xp && yp
		}
		return strings.EqualFold(x, y)
	})
}

// SplitPath returns the unescaped segments of the escaped path p, or false
// for a path the service knows not: one not starting with "/", or with
// empty, "." or ".." segments. A backslash, as sent or escaped (%5C),
// separates segments as "/" does: IIS reads it so.
func SplitPath(p string) ([]string, bool) {
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	var segs []string
	for part := range strings.SplitSeq(p[1:], "/") {
		seg, err := url.PathUnescape(part)
		if err != nil {
			return nil, false
		}
		segs = append(segs, strings.Split(seg, `\`)...)
	}
	if n := len(segs); n > 1 && segs[n-1] == "" {
		segs = segs[:n-1] // one trailing separator is optional
	}
	for _, seg := range segs {
		if seg == "" || seg == "." || seg == ".." {
			return nil, false
		}
	}
	return segs, true
}

// Match matches parts against a pattern's segments. mask has a bit per
// literal segment, the first segment highest, so that the more specific
// pattern has the larger mask. When providers is not nil, a {provider}
// segment matches only one of them, compared without case, and its value
// is the provider's spelling there.
func Match(segs, parts, providers []string) (values map[string]string, mask uint64, ok bool) {
	if len(segs) != len(parts) {
		return nil, 0, false
	}
	for i, seg := range segs {
		mask <<= 1
		if name, isParam := strings.CutPrefix(seg, "{"); isParam {
			name = strings.TrimSuffix(name, "}")
			v := parts[i]
			if name == "provider" && providers != nil {
				var known bool
				if v, known = Provider(providers, v); !known {
					return nil, 0, false
				}
			}
			if values == nil {
				values = map[string]string{}
			}
			values[name] = v
			continue
		}
		if !strings.EqualFold(seg, parts[i]) {
			return nil, 0, false
		}
		mask |= 1
	}
	return values, mask, true
}

// Provider returns the spelling in providers of provider, compared
// without regard to case, and whether it is one.
func Provider(providers []string, provider string) (string, bool) {
	for _, p := range providers {
		if strings.EqualFold(p, provider) {
			return p, true
		}
	}
	return "", false
}

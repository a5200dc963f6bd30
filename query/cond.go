package query

// The Cond constructors build one condition of a raw expression, for a
// field named by the caller; the value constructors (Equals, StartsWith,
// ...) fill a typed filter field, whose name the filter struct gives.
//
// The constructors below never fail, so that they fit in composite literals
// such as Expr{CondEquals("customerId", "42"), ...}. A bad name or value is
// reported by Condition.Validate, and an invalid condition renders as text
// that Parse rejects (see the package documentation).

// CondEquals returns the condition "name is exactly value". An empty value renders
// as "name:" and parses back as Pattern [""].
func CondEquals(name, value string) Condition {
	return Condition{Name: name, Kind: Match, Pattern: []string{value}}
}

// CondStartsWith returns the condition "name starts with prefix" (prefix*).
// With an empty prefix it matches any value ("*").
func CondStartsWith(name, prefix string) Condition {
	return Condition{Name: name, Kind: Match, Pattern: []string{prefix, ""}}
}

// CondEndsWith returns the condition "name ends with suffix" (*suffix).
// With an empty suffix it is the same condition as CondStartsWith(name, "").
func CondEndsWith(name, suffix string) Condition {
	if suffix == "" {
		return CondStartsWith(name, "")
	}
	return Condition{Name: name, Kind: Match, Pattern: []string{"", suffix}}
}

// CondContains returns the condition "name contains part" (*part*). With an
// empty part it is the same condition as CondStartsWith(name, ""), because
// "**" is not valid syntax.
func CondContains(name, part string) Condition {
	if part == "" {
		return CondStartsWith(name, "")
	}
	return Condition{Name: name, Kind: Match, Pattern: []string{"", part, ""}}
}

// CondIsEmpty returns the condition "name is null or empty" ([empty]).
func CondIsEmpty(name string) Condition {
	return Condition{Name: name, Kind: Empty}
}

// CondIn returns the condition "name is one of values". One value gives an exact
// Match, because that is how "name:v" parses; two or more give a Set. No
// values gives a Set that fails Validate: an empty set cannot be written.
func CondIn(name string, values ...string) Condition {
	if len(values) == 1 {
		return CondEquals(name, values[0])
	}
	return Condition{Name: name, Kind: Set, Values: append([]string(nil), values...)}
}

// CondRange returns the condition lower <= name < upper; an empty bound is an
// open end. The bounds are not compared: their order depends on the field's
// type, which the typed TimeRange and DecimalRange check instead.
func CondRange(name, lower, upper string) Condition {
	return Condition{Name: name, Kind: Range, Lower: lower, Upper: upper}
}

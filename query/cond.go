package query

// The constructors below never fail, so that they fit in composite literals
// such as Expr{Equal("customerId", "42"), ...}. A bad name or value is
// reported by Condition.Validate, and an invalid condition renders as text
// that Parse rejects (see the package documentation).

// Equal returns the condition "name is exactly value". An empty value renders
// as "name:" and parses back as Pattern [""].
func Equal(name, value string) Condition {
	return Condition{Name: name, Kind: Match, Pattern: []string{value}}
}

// StartsWithCond returns the condition "name starts with prefix" (prefix*).
// With an empty prefix it matches any value ("*").
func StartsWithCond(name, prefix string) Condition {
	return Condition{Name: name, Kind: Match, Pattern: []string{prefix, ""}}
}

// EndsWithCond returns the condition "name ends with suffix" (*suffix).
// With an empty suffix it is the same condition as StartsWithCond(name, "").
func EndsWithCond(name, suffix string) Condition {
	if suffix == "" {
		return StartsWithCond(name, "")
	}
	return Condition{Name: name, Kind: Match, Pattern: []string{"", suffix}}
}

// ContainsCond returns the condition "name contains part" (*part*). With an
// empty part it is the same condition as StartsWithCond(name, ""), because
// "**" is not valid syntax.
func ContainsCond(name, part string) Condition {
	if part == "" {
		return StartsWithCond(name, "")
	}
	return Condition{Name: name, Kind: Match, Pattern: []string{"", part, ""}}
}

// IsEmptyCond returns the condition "name is null or empty" ([empty]).
func IsEmptyCond(name string) Condition {
	return Condition{Name: name, Kind: Empty}
}

// In returns the condition "name is one of values". One value gives an exact
// Match, because that is how "name:v" parses; two or more give a Set. No
// values gives a Set that fails Validate: an empty set cannot be written.
func In(name string, values ...string) Condition {
	if len(values) == 1 {
		return Equal(name, values[0])
	}
	return Condition{Name: name, Kind: Set, Values: append([]string(nil), values...)}
}

// NewRange returns the condition lower <= name < upper; an empty bound is an
// open end. The bounds are not compared: their order depends on the field's
// type, which the typed TimeRange and DecimalRange check instead.
func NewRange(name, lower, upper string) Condition {
	return Condition{Name: name, Kind: Range, Lower: lower, Upper: upper}
}

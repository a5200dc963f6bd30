// Package filter is the lists' query language (section 4.0 of the
// reference): filter expressions parsed and compiled against an
// endpoint's schema, sorting, and the paging of a list, for any row type,
// so that each store of the fake evaluates them on its own rows.
package filter

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/billingapi/billing-go/billingtest/internal/bind"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// This file evaluates the reference's filter expressions (section 4.0).
// Each endpoint's filter names and their kinds come from the SDK's filter
// struct through query.Fields, so that the SDK and the fake cannot disagree
// on them; the fake adds only how to read each name from its own data (a
// getter). An expression is compiled once per request into closures, so
// that evaluating it over many rows costs a few indirect calls per row and
// condition and no parsing.
//
// Semantics, per kind of field:
//
//   - text: case-insensitive. "v" is an exact match, "v*", "*v", "*v*" and
//     "a*b" are wildcards, [empty] matches null or "", and "lo|hi" is a
//     case-insensitive lexicographic range. Null never falls in a range.
//   - integer: "n" exact, "a,b,c" a set, "lo|hi" a range; the value must be
//     an integer. [empty] matches null, which only the nullable integers
//     have (Customer.ParentId, accountingId: 0 means none).
//   - date: "lo|hi" with YYYY-MM-DD (midnight UTC) or YYYY-MM-DDTHH:MM:SS
//     (UTC; fractional seconds, as the service writes timestamps, and a
//     trailing Z accepted) bounds, lower inclusive, upper
//     exclusive, either end open. "YYYY-MM-DD" alone means that whole day
//     and a date-time alone that second. [empty] matches no date (the zero
//     time); a missing date never matches anything else.
//   - decimal: "lo|hi" compared exactly, or "n" for equality. Amounts are
//     never null, so [empty] matches nothing.
//   - enum: "v" or "a,b", case-insensitive, each one of the values the
//     reference lists. [empty] matches an unset value.
//   - boolean: "true" or "false", case-insensitive.
//
// Anything else (a wildcard on a non-text field, a set on a text, date,
// decimal or boolean field, a range on an enum or boolean, a value of the
// wrong form) is a 400, as is a name the endpoint does not have. Several
// conditions must all hold; the same name may appear more than once.

// Getter reads one filter name from a row of type T. Exactly one of the
// functions is set, the one for the field's kind; the schema checks that
// when it is built.
type Getter[T any] struct {
	Text func(T) string
	// Integer also reports whether the value is present; 0 reads as "none"
	// only for the integers that are nullable in the service.
	Integer func(T) (int64, bool)
	Time    func(T) time.Time
	Decimal func(T) decimal.Decimal
	Enum    func(T) string
	Boolean func(T) bool
	// Values are the enum's values, as the reference lists them.
	Values []string

	// Optional fast readers of a packed form (see packed.go), beside
	// Time and Decimal: Instant reads a date as UTC nanoseconds
	// (ZeroInstant when missing) and Packed an amount as coefficient and
	// exponent. Each reports false for a row that does not hold the
	// value packed, which the general getter then reads.
	Instant func(T) (int64, bool)
	Packed  func(T) (int64, int8, bool)
}

// Via is getters read from rows of type R through of: the names of a
// related entity (Customer.Status) read from the rows that name it.
func Via[R, T any](getters map[string]Getter[T], of func(R) T) map[string]Getter[R] {
	out := make(map[string]Getter[R], len(getters))
	for name, g := range getters {
		out[name] = Getter[R]{Text: via(g.Text, of), Integer: via2(g.Integer, of), Time: via(g.Time, of),
			Decimal: via(g.Decimal, of), Enum: via(g.Enum, of), Boolean: via(g.Boolean, of), Values: g.Values}
	}
	return out
}

func via[R, T, V any](get func(T) V, of func(R) T) func(R) V {
	if get == nil {
		return nil
	}
	return func(r R) V { return get(of(r)) }
}

func via2[R, T any](get func(T) (int64, bool), of func(R) T) func(R) (int64, bool) {
	if get == nil {
		return nil
	}
	return func(r R) (int64, bool) { return get(of(r)) }
}

// Field is one filter name of an endpoint.
type Field[T any] struct {
	Name string
	Kind query.FieldKind
	Get  Getter[T]
}

// Schema is the filter names of one endpoint.
type Schema[T any] struct {
	Endpoint string
	Fields   []Field[T]
	byName   map[string]int // lower-cased name → index in Fields
	// sortBufs recycles the *[]sortItem[T] that sorted lists key their
	// rows into: a sort over every invoice would otherwise allocate, and
	// leave the collector to scan, megabytes per request.
	sortBufs sync.Pool
	// related, when set, is a key of the related entity that the dotted
	// names (Customer.Status) read: rows with the same key have the same
	// values of those names, so a filter tests them once per key and
	// request, not once per row.
	related func(T) int64
}

// RelatedBy sets the key of the related entity that the dotted names
// read, and returns the schema.
func (sc *Schema[T]) RelatedBy(key func(T) int64) *Schema[T] {
	sc.related = key
	return sc
}

// NewSchema builds an endpoint's schema from the SDK's filter struct and
// the fake's getters, keyed by the exact filter name. It panics when a name
// has no getter of its kind: that is a mistake in the fake, which every
// test that touches the endpoint reports at once.
func NewSchema[T any](endpoint string, filter any, getters map[string]Getter[T]) *Schema[T] {
	fields, err := query.Fields(filter)
	if err != nil {
		panic("billingtest: " + endpoint + ": " + err.Error())
	}
	sc := &Schema[T]{Endpoint: endpoint, byName: make(map[string]int, len(fields))}
	for _, f := range fields {
		g, ok := getters[f.Name]
		if !ok || !g.has(f.Kind) {
			panic(fmt.Sprintf("billingtest: %s: no %v getter for filter name %q", endpoint, f.Kind, f.Name))
		}
		sc.byName[strings.ToLower(f.Name)] = len(sc.Fields)
		sc.Fields = append(sc.Fields, Field[T]{Name: f.Name, Kind: f.Kind, Get: g})
	}
	return sc
}

func (g Getter[T]) has(k query.FieldKind) bool {
	switch k {
	case query.TextField:
		return g.Text != nil
	case query.IntField:
		return g.Integer != nil
	case query.TimeField:
		return g.Time != nil
	case query.DecimalField:
		return g.Decimal != nil
	case query.EnumField:
		return g.Enum != nil && len(g.Values) > 0
	case query.BoolField:
		return g.Boolean != nil
	}
	return false
}

// Index finds a filter name, case-insensitively: its index in Fields.
func (sc *Schema[T]) Index(name string) (int, bool) {
	i, ok := sc.byName[strings.ToLower(name)]
	return i, ok
}

// Names lists the filter names, for error messages; with sortable, only
// those usable as sortExpression.
func (sc *Schema[T]) Names(sortable bool) string {
	var out []string
	for _, f := range sc.Fields {
		if !sortable || f.Kind.Sortable() {
			out = append(out, f.Name)
		}
	}
	return strings.Join(out, ", ")
}

// Parse parses and compiles the query parameter text; with unlisted, an
// enum condition may name values the reference does not list. A nil
// predicate means no condition. Its error is the message of a 400.
func (sc *Schema[T]) Parse(text string, unlisted bool) (query.Expr, func(T) bool, error) {
	expr, err := query.Parse(text)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid query: %s", strings.TrimPrefix(err.Error(), "query: "))
	}
	pred, err := sc.Compile(expr, unlisted)
	return expr, pred, err
}

// MaxConditions bounds what one filter may cost per row. Each
// condition costs at most one comparison of the row's value with the
// condition's own value (a set: one map lookup; an amount: bounded by the
// digits of the two numbers, at most 57 for the filter's, see
// parseDecimal, and never by their exponents, see CmpDecimal), so a row
// costs at most this many comparisons, and a list at most this many per
// row it visits.
const MaxConditions = 100

// Compile turns an expression into one predicate; nil means "all rows".
// All conditions must hold, so they can run in any order: the cheap ones
// go first, so that the costly ones see fewer rows.
func (sc *Schema[T]) Compile(expr query.Expr, unlisted bool) (func(T) bool, error) {
	type costed struct {
		cost int
		pred func(T) bool
	}
	if len(expr) > MaxConditions {
		return nil, fmt.Errorf("invalid query: %d conditions; a filter has at most %d", len(expr), MaxConditions)
	}
	compiled := make([]costed, 0, len(expr))
	var related []func(T) bool // conditions on dotted names, with sc.related
	relatedCost := 0
	for _, c := range expr {
		i, ok := sc.Index(c.Name)
		if !ok {
			return nil, fmt.Errorf("invalid query: unknown filter name %q for %s; valid names: %s", c.Name, sc.Endpoint, sc.Names(false))
		}
		f := &sc.Fields[i]
		p, err := f.compile(c, unlisted)
		if err != nil {
			return nil, fmt.Errorf("invalid query: filter %s: %v", f.Name, err)
		}
		if sc.related != nil && strings.Contains(f.Name, ".") {
			related = append(related, p)
			relatedCost = max(relatedCost, f.cost())
			continue
		}
		compiled = append(compiled, costed{f.cost(), p})
	}
	if len(related) > 0 {
		compiled = append(compiled, costed{relatedCost, memoized(sc.related, related)})
	}
	slices.SortStableFunc(compiled, func(a, b costed) int { return a.cost - b.cost })
	preds := make([]func(T) bool, len(compiled))
	for i, c := range compiled {
		preds[i] = c.pred
	}
	return All(preds), nil
}

// All is the conjunction of preds, in their order: nil (all rows) for
// none, the one for one.
func All[T any](preds []func(T) bool) func(T) bool {
	switch len(preds) {
	case 0:
		return nil
	case 1:
		return preds[0]
	case 2:
		a, b := preds[0], preds[1]
		return func(r T) bool { return a(r) && b(r) }
	}
	return func(r T) bool {
		for _, p := range preds {
			if !p(r) {
				return false
			}
		}
		return true
	}
}

// memoized is the conjunction of preds, which read only what key names,
// evaluated once per key: the predicate belongs to one request, during
// which the related entities do not change (the request holds the read
// lock while it filters, and customers never change once added).
// Results are kept in a slice indexed by the key when it is below
// maxDenseMemoKey (ids are handed out in sequence, so customers' are
// small), else in a map.
func memoized[T any](key func(T) int64, preds []func(T) bool) func(T) bool {
	var dense []uint8 // by key: 0 not tested yet, 1 fails, 2 holds
	var sparse map[int64]bool
	test := All(preds)
	return func(r T) bool {
		k := key(r)
		if uint64(k) >= maxDenseMemoKey {
			v, ok := sparse[k]
			if !ok {
				if sparse == nil {
					sparse = map[int64]bool{}
				}
				v = test(r)
				sparse[k] = v
			}
			return v
		}
		if int(k) >= len(dense) {
			dense = append(dense, make([]uint8, int(k)+1-len(dense))...)
		}
		if v := dense[k]; v != 0 {
			return v == 2
		}
		v := test(r)
		dense[k] = 1
		if v {
			dense[k] = 2
		}
		return v
	}
}

// maxDenseMemoKey bounds the slice a memoized predicate keeps: 1 MB.
const maxDenseMemoKey = 1 << 20

// cost ranks how expensive the field is to test, roughly: integers and
// dates are read directly, strings are compared byte by byte, amounts
// chase a pointer to a big.Int, and a dotted name (Customer.Status) reads a
// related entity, which can mean a map lookup.
func (f *Field[T]) cost() int {
	var c int
	switch f.Kind {
	case query.IntField, query.TimeField:
		c = 1
	case query.BoolField, query.EnumField:
		c = 2
	case query.TextField:
		c = 3
	default:
		c = 4
	}
	if strings.Contains(f.Name, ".") {
		c += 4
	}
	return c
}

// compile builds the predicate of one condition on this field. Dates and
// amounts try the packed reader first, when the field has one.
func (f *Field[T]) compile(c query.Condition, unlisted bool) (func(T) bool, error) {
	g := f.Get
	switch f.Kind {
	case query.TextField:
		m, err := textMatcher(c)
		return on(g.Text, m, err)
	case query.IntField:
		m, err := intMatcher(c)
		if err != nil {
			return nil, err
		}
		return func(r T) bool { return m(g.Integer(r)) }, nil
	case query.TimeField:
		m, err := timeMatcher(c)
		pred, err := on(g.Time, m, err)
		if inst, pm := g.Instant, instantMatcher(c); err == nil && inst != nil && pm != nil {
			return func(r T) bool {
				if n, ok := inst(r); ok {
					return pm(n)
				}
				return pred(r)
			}, nil
		}
		return pred, err
	case query.DecimalField:
		m, err := decimalMatcher(c)
		pred, err := on(g.Decimal, m, err)
		if packed, pm := g.Packed, packedDecimalMatcher(c); err == nil && packed != nil && pm != nil {
			return func(r T) bool {
				if coef, exp, ok := packed(r); ok {
					return pm(coef, exp)
				}
				return pred(r)
			}, nil
		}
		return pred, err
	case query.EnumField:
		m, err := enumMatcher(c, g.Values, unlisted)
		return on(g.Enum, m, err)
	case query.BoolField:
		m, err := boolMatcher(c)
		return on(g.Boolean, m, err)
	}
	return nil, fmt.Errorf("unsupported field kind %v", f.Kind)
}

// on is the predicate that matches what get reads with m, unless err.
func on[T, V any](get func(T) V, m func(V) bool, err error) (func(T) bool, error) {
	if err != nil {
		return nil, err
	}
	return func(r T) bool { return m(get(r)) }, nil
}

var (
	errWildcard = errors.New("wildcards (*) apply to text fields only")
	errSet      = errors.New("comma-separated alternatives apply to enum and integer fields only; URL-encode a literal comma as %2C")
	errRange    = errors.New("ranges (lower|upper) apply to text, integer, date and decimal fields only")
)

// exact returns the value of a Match without wildcards.
func exact(c query.Condition) (string, error) {
	if v, ok := c.Literal(); ok {
		return v, nil
	}
	return "", errWildcard
}

// exactAs is the value of a Match without wildcards, read with parse.
func exactAs[V any](c query.Condition, parse func(string) (V, error)) (V, error) {
	lit, err := exact(c)
	if err != nil {
		var zero V
		return zero, err
	}
	return parse(lit)
}

// bounds reads the ends of a Range with parse; an open end is the zero V.
func bounds[V any](c query.Condition, parse func(string) (V, error)) (lo, hi V, err error) {
	if c.Lower != "" {
		if lo, err = parse(c.Lower); err != nil {
			return lo, hi, err
		}
	}
	if c.Upper != "" {
		hi, err = parse(c.Upper)
	}
	return lo, hi, err
}

// textMatcher matches a string field; "" is null.
func textMatcher(c query.Condition) (func(string) bool, error) {
	switch c.Kind {
	case query.Empty:
		return func(v string) bool { return v == "" }, nil
	case query.Match:
		if lit, ok := c.Literal(); ok {
			return func(v string) bool { return CompareFold(v, lit) == 0 }, nil
		}
		pat := make([]string, len(c.Pattern))
		for i, p := range c.Pattern {
			pat[i] = strings.ToLower(p)
		}
		return func(v string) bool { return globMatchFold(pat, v) }, nil
	case query.Range:
		lo, hi := c.Lower, c.Upper
		return func(v string) bool {
			return v != "" && (lo == "" || CompareFold(v, lo) >= 0) && (hi == "" || CompareFold(v, hi) < 0)
		}, nil
	case query.Set:
		return nil, errSet
	}
	return nil, fmt.Errorf("unsupported condition %v", c.Kind)
}

// globMatchFold reports whether v's lower case matches the pattern's
// segments, lower-cased already, with a wildcard between each two. ASCII
// values, by far the most common, are folded byte by byte as they are
// compared rather than lower-cased into a new string: a wildcard filter
// over a hundred thousand rows would otherwise allocate for each value
// with a capital letter. Others are lower-cased first, which leaves the
// folding nothing to change.
func globMatchFold(pat []string, v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] >= utf8.RuneSelf {
			v = strings.ToLower(v)
			break
		}
	}
	first, last := pat[0], pat[len(pat)-1]
	if len(v) < len(first)+len(last) || !equalASCIIFold(v[:len(first)], first) || !equalASCIIFold(v[len(v)-len(last):], last) {
		return false
	}
	mid := v[len(first) : len(v)-len(last)]
	for _, p := range pat[1 : len(pat)-1] {
		i := indexASCIIFold(mid, p)
		if i < 0 {
			return false
		}
		mid = mid[i+len(p):]
	}
	return true
}

// equalASCIIFold reports whether ASCII s lower-cased equals lower, a
// lower-cased pattern (whose non-ASCII bytes then never match).
func equalASCIIFold(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// indexASCIIFold is strings.Index of lower in ASCII s lower-cased.
func indexASCIIFold(s, lower string) int {
	for i := 0; i+len(lower) <= len(s); i++ {
		if equalASCIIFold(s[i:i+len(lower)], lower) {
			return i
		}
	}
	return -1
}

// CompareFold compares strings case-insensitively, rune by rune on their
// lower-case forms, without allocating: sorting a hundred thousand names
// must not lower-case each of them at every comparison.
func CompareFold(a, b string) int {
	for a != "" && b != "" {
		var ra, rb rune
		if c := a[0]; c < utf8.RuneSelf {
			ra, a = rune(c), a[1:]
			if 'A' <= ra && ra <= 'Z' {
				ra += 'a' - 'A'
			}
		} else {
			r, n := utf8.DecodeRuneInString(a)
			ra, a = unicode.ToLower(r), a[n:]
		}
		if c := b[0]; c < utf8.RuneSelf {
			rb, b = rune(c), b[1:]
			if 'A' <= rb && rb <= 'Z' {
				rb += 'a' - 'A'
			}
		} else {
			r, n := utf8.DecodeRuneInString(b)
			rb, b = unicode.ToLower(r), b[n:]
		}
		if ra != rb {
			if ra < rb {
				return -1
			}
			return 1
		}
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// parseInt reads an integer value of a condition.
func parseInt(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	return n, nil
}

// intMatcher matches an integer field; present is false for null.
func intMatcher(c query.Condition) (func(int64, bool) bool, error) {
	switch c.Kind {
	case query.Empty:
		return func(_ int64, present bool) bool { return !present }, nil
	case query.Match:
		n, err := exactAs(c, parseInt)
		if err != nil {
			return nil, err
		}
		return func(v int64, present bool) bool { return present && v == n }, nil
	case query.Set:
		set := make(map[int64]struct{}, len(c.Values))
		for _, s := range c.Values {
			n, err := parseInt(s)
			if err != nil {
				return nil, err
			}
			set[n] = struct{}{}
		}
		return func(v int64, present bool) bool {
			_, ok := set[v]
			return present && ok
		}, nil
	case query.Range:
		lo, hi, err := bounds(c, parseInt)
		if err != nil {
			return nil, err
		}
		openLo, openHi := c.Lower == "", c.Upper == ""
		return func(v int64, present bool) bool { return present && (openLo || v >= lo) && (openHi || v < hi) }, nil
	}
	return nil, fmt.Errorf("unsupported condition %v", c.Kind)
}

// parseTimeBound reads a date (midnight UTC) or a date-time (UTC, with
// optional fractional seconds, which time.Parse accepts after the seconds
// of any layout, and an optional trailing Z); dateOnly says which it was.
func parseTimeBound(s string) (t time.Time, dateOnly bool, err error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, true, nil
	}
	if t, err := time.Parse("2006-01-02T15:04:05", strings.TrimSuffix(s, "Z")); err == nil {
		return t, false, nil
	}
	return time.Time{}, false, fmt.Errorf("%q is neither a date (YYYY-MM-DD) nor a date-time (YYYY-MM-DDTHH:MM:SS, UTC)", s)
}

// timeMatcher matches a date field; the zero time is null.
func timeMatcher(c query.Condition) (func(time.Time) bool, error) {
	switch c.Kind {
	case query.Empty:
		return func(v time.Time) bool { return v.IsZero() }, nil
	case query.Set:
		return nil, errSet
	}
	b, err := TimeBounds(c)
	if err != nil {
		return nil, err
	}
	return b.Admits, nil
}

// TimeRange is the dates [lo, hi) that a match or a range condition
// admits; an open end has its flag unset. A missing date (the zero time)
// is never admitted.
type TimeRange struct {
	Lo, Hi       time.Time
	HasLo, HasHi bool
}

// Admits reports whether v is in the range.
func (r TimeRange) Admits(v time.Time) bool {
	return !v.IsZero() && (!r.HasLo || !v.Before(r.Lo)) && (!r.HasHi || v.Before(r.Hi))
}

// TimeBounds is the range of a match condition (one second, or one day
// for a date) or of a range condition (lower bound inclusive, upper
// exclusive).
func TimeBounds(c query.Condition) (TimeRange, error) {
	var r TimeRange
	switch c.Kind {
	case query.Match:
		lit, err := exact(c)
		if err != nil {
			return r, err
		}
		at, dateOnly, err := parseTimeBound(lit)
		if err != nil {
			return r, err
		}
		r.Lo, r.Hi, r.HasLo, r.HasHi = at, at.Add(time.Second), true, true
		if dateOnly {
			r.Hi = at.AddDate(0, 0, 1)
		}
		return r, nil
	case query.Range:
		var err error
		r.Lo, r.Hi, err = bounds(c, func(s string) (time.Time, error) {
			t, _, err := parseTimeBound(s)
			return t, err
		})
		r.HasLo, r.HasHi = c.Lower != "", c.Upper != ""
		return r, err
	}
	return r, fmt.Errorf("unsupported condition %v", c.Kind)
}

// The amounts a filter may name: those the service's decimal type (.NET's
// System.Decimal) can hold, at most 28 decimal places and below 10^29 in
// magnitude, written in at most maxDecimalText characters. A bound beyond
// them (closingArBalance:|1e10000) can match no amount the service keeps
// any differently from a bound within them, and it would make every row
// compare against a number of thousands of digits: it is refused.
const (
	maxDecimalText   = 100
	maxDecimalPlaces = 28
	maxDecimalDigits = 29 // integer digits
)

func parseDecimal(s string) (decimal.Decimal, error) {
	if len(s) > maxDecimalText {
		return decimal.Decimal{}, fmt.Errorf("a decimal number of %d characters is longer than any amount (at most %d)", len(s), maxDecimalText)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%q is not a decimal number", s)
	}
	if d.IsZero() {
		return decimal.Zero, nil
	}
	// The coefficient has at most maxDecimalText digits, so stripping its
	// trailing zeros is cheap; the exponent is never used to scale.
	coef := strings.TrimLeft(d.Coefficient().String(), "-")
	trimmed := strings.TrimRight(coef, "0")
	exp := int64(d.Exponent()) + int64(len(coef)-len(trimmed))
	if exp < -maxDecimalPlaces || int64(len(trimmed))+exp > maxDecimalDigits {
		return decimal.Decimal{}, fmt.Errorf("%q is beyond any amount: amounts have at most %d decimal places and %d integer digits", s, maxDecimalPlaces, maxDecimalDigits)
	}
	return d, nil
}

// decimalMatcher matches an amount, exactly.
func decimalMatcher(c query.Condition) (func(decimal.Decimal) bool, error) {
	switch c.Kind {
	case query.Empty:
		return func(decimal.Decimal) bool { return false }, nil
	case query.Match:
		d, err := exactAs(c, parseDecimal)
		if err != nil {
			return nil, err
		}
		return func(v decimal.Decimal) bool { return CmpDecimal(v, d) == 0 }, nil
	case query.Range:
		lo, hi, err := bounds(c, parseDecimal)
		if err != nil {
			return nil, err
		}
		openLo, openHi := c.Lower == "", c.Upper == ""
		return func(v decimal.Decimal) bool {
			return (openLo || CmpDecimal(v, lo) >= 0) && (openHi || CmpDecimal(v, hi) < 0)
		}, nil
	case query.Set:
		return nil, errSet
	}
	return nil, fmt.Errorf("unsupported condition %v", c.Kind)
}

// pow10 holds the powers of ten that fit in an int64.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// CmpDecimal is a.Cmp(b), exactly, without ever scaling a number by its
// exponent: Cmp rescales the one with the larger exponent, which for a
// stored amount of 1e-100000 against a bound of 1 means a number of
// 100,000 digits for every row a range filter visits. Numbers of
// different signs or orders of magnitude are told apart at once; only two
// of the same order are aligned, by the difference of their digit counts,
// so the cost is bounded by their digits, whatever their exponents. When
// both fit in an int64 once aligned, as amounts do, no big.Int is made.
func CmpDecimal(a, b decimal.Decimal) int {
	ea, eb := a.Exponent(), b.Exponent()
	if ea == eb {
		return a.Cmp(b)
	}
	diff := int64(ea) - int64(eb)
	if diff < 0 {
		diff = -diff
	}
	if diff <= 18 && int64(a.NumDigits())+diff <= 18 && int64(b.NumDigits())+diff <= 18 {
		ca, cb := a.CoefficientInt64(), b.CoefficientInt64()
		if ea > eb {
			ca *= pow10[diff]
		} else {
			cb *= pow10[diff]
		}
		return cmp.Compare(ca, cb)
	}
	sa, sb := a.Sign(), b.Sign()
	if sa != sb || sa == 0 {
		return cmp.Compare(sa, sb)
	}
	// |x| lies in [10^(m-1), 10^m) for m its digits plus its exponent.
	ma := int64(a.NumDigits()) + int64(ea)
	mb := int64(b.NumDigits()) + int64(eb)
	if ma != mb {
		return sa * cmp.Compare(ma, mb)
	}
	// Same order of magnitude: the exponents differ by the difference of
	// the digit counts, so Cmp scales by at most that many digits.
	return a.Cmp(b)
}

// enumMatcher matches an enumeration, case-insensitively; every value in
// the condition must be one the reference lists, unless unlisted.
func enumMatcher(c query.Condition, values []string, unlisted bool) (func(string) bool, error) {
	member := func(s string) (string, error) {
		for _, v := range values {
			if strings.EqualFold(v, s) {
				return v, nil
			}
		}
		if unlisted && s != "" {
			return s, nil
		}
		return "", fmt.Errorf("%q is not one of %s", s, strings.Join(values, ", "))
	}
	switch c.Kind {
	case query.Empty:
		return func(v string) bool { return v == "" }, nil
	case query.Match, query.Set:
		alts := c.Values
		if c.Kind == query.Match {
			lit, err := exact(c)
			if err != nil {
				return nil, err
			}
			alts = []string{lit}
		}
		want := make([]string, 0, len(alts))
		for _, a := range alts {
			v, err := member(a)
			if err != nil {
				return nil, err
			}
			want = append(want, v)
		}
		return func(v string) bool {
			return slices.ContainsFunc(want, func(w string) bool { return strings.EqualFold(v, w) })
		}, nil
	case query.Range:
		return nil, errRange
	}
	return nil, fmt.Errorf("unsupported condition %v", c.Kind)
}

// boolMatcher matches a boolean given as true or false.
func boolMatcher(c query.Condition) (func(bool) bool, error) {
	switch c.Kind {
	case query.Empty:
		return func(bool) bool { return false }, nil
	case query.Match:
		b, err := exactAs(c, bind.Bool)
		if err != nil {
			return nil, err
		}
		return func(v bool) bool { return v == b }, nil
	case query.Set:
		return nil, errSet
	case query.Range:
		return nil, errRange
	}
	return nil, fmt.Errorf("unsupported condition %v", c.Kind)
}

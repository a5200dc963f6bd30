package query_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// hostile values contain every character with a meaning in the grammar or in
// a query string, in every position.
var hostile = []string{
	"", " ", "a", "*", "**", "a*b", "[empty]", "[", "]", "%", "%25", "%zz", "%3B",
	";", "a;b:c", "x:1;y:2", ":", "|", "a|b", ",", "a,b", "&", "=", "+", "#", "?",
	"\x00", "\n\r\t", "\x7f", "Müller & Söhne", "東京", "emoji 🙂", "'\"\\/", "a:1|2,3*4;5",
	"%%", "%2", "%2A", " leading", "trailing ", "\u2028", "\ufeff",
}

func TestRoundTripConstructors(t *testing.T) {
	t.Parallel()
	for _, v := range hostile {
		conds := []query.Condition{
			query.CondEquals("n", v),
			query.CondStartsWith("n", v),
			query.CondEndsWith("n", v),
			query.CondContains("n", v),
			query.CondIsEmpty("n"),
			query.CondRange("n", v, ""),
			query.CondRange("n", "", v),
			query.CondRange("n", v, v),
		}
		if v != "" {
			conds = append(conds, query.CondIn("n", v, v+"x"), query.CondIn("n", "x", v, "y"), query.CondIn("n", v))
		}
		for _, c := range conds {
			assertRoundTrip(t, query.Expr{query.CondEquals("before", "1"), c, query.CondEquals("after", "2")})
		}
	}
}

func TestRoundTripBuild(t *testing.T) {
	t.Parallel()
	for _, v := range hostile {
		texts := []query.Text{query.Equals(v), query.StartsWith(v), query.EndsWith(v), query.Contains(v), query.IsEmpty()}
		for _, text := range texts {
			f := invoiceFilter{ErpID: text, CustomerID: query.Ints{1}}
			if v != "" {
				f.Status = []status{status(v), "Active"}
			}
			e, err := query.Build(f)
			if err != nil {
				t.Fatalf("Build(%#v): %v", f, err)
			}
			assertRoundTrip(t, e)
		}
	}
}

func assertRoundTrip(t *testing.T, e query.Expr) {
	t.Helper()
	if err := e.Validate(); err != nil {
		t.Fatalf("%#v: %v", e, err)
	}
	s := e.String()
	back, err := query.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q) of %#v: %v", s, e, err)
	}
	if !reflect.DeepEqual(back, e) {
		t.Fatalf("Parse(%q) = %#v, want %#v", s, back, e)
	}
}

// fuzzFilter has every field type; its fields are set from fuzzer input.
type fuzzFilter struct {
	T query.Text         `query:"t"`
	E []string           `query:"e"`
	I query.Ints         `query:"i"`
	R query.TimeRange    `query:"r"`
	D query.DecimalRange `query:"d"`
	B *bool              `query:"b"`
}

func FuzzBuildParse(f *testing.F) {
	f.Add("abc", "def", uint8(1), int64(42), int64(0), int64(1_700_000_000), int64(1_800_000_000), int32(-2))
	f.Add("a;b:c", "x,y", uint8(2), int64(-1), int64(7), int64(0), int64(1_800_000_000), int32(0))
	f.Add("*", "[empty]", uint8(3), int64(0), int64(0), int64(-62135596800), int64(0), int32(3))
	f.Add("", "", uint8(4), int64(5), int64(5), int64(1_700_000_000), int64(1_700_000_000), int32(-30))
	f.Add("%zz|", "\x00\xff", uint8(5), int64(1), int64(2), int64(253402300799), int64(253402300800), int32(1))
	f.Add("Müller & Söhne", "+#?=", uint8(6), int64(9), int64(-9), int64(-1), int64(1), int32(-1))
	f.Fuzz(func(t *testing.T, a, b string, op uint8, n1, n2, t1, t2 int64, exp int32) {
		exp %= 40 // keeps decimal strings short; the rendering code does not care
		texts := []query.Text{{}, query.Equals(a), query.StartsWith(a), query.EndsWith(a), query.Contains(a), query.IsEmpty()}
		var f fuzzFilter
		f.T = texts[int(op)%len(texts)]
		switch op / 8 % 3 {
		case 1:
			f.E = []string{b}
		case 2:
			f.E = []string{a, b}
		}
		switch op / 32 % 3 {
		case 1:
			f.I = query.Ints{n1}
		case 2:
			f.I = query.Ints{n1, n2}
		}
		if t1 != 0 {
			f.R.From = time.Unix(t1, n1)
		}
		if t2 != 0 {
			f.R.To = time.Unix(t2, n2)
		}
		f.R.DateOnly = op&1 == 1
		if op&2 != 0 {
			f.D.From = ptr(decimal.New(n1, exp))
		}
		if op&4 != 0 {
			f.D.To = ptr(decimal.New(n2, -exp))
		}
		if n1 > n2 {
			f.B = ptr(a < b)
		}

		e, err := query.Build(f)
		if err != nil {
			if !expectedBuildError(err.Error()) {
				t.Fatalf("Build(%#v): unexpected error %v", f, err)
			}
			return
		}
		want := 0
		for _, zero := range []bool{f.T.IsZero(), len(f.E) == 0, len(f.I) == 0, f.R.IsZero(), f.D.IsZero(), f.B == nil} {
			if !zero {
				want++
			}
		}
		if len(e) != want {
			t.Fatalf("Build(%#v) made %d conditions, want %d: %#v", f, len(e), want, e)
		}
		s := e.String()
		back, err := query.Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q) of %#v: %v", s, e, err)
		}
		if len(back) != len(e) || !reflect.DeepEqual(back, e) {
			t.Fatalf("Parse(%q) = %#v, want %#v", s, back, e)
		}

		// Hand-made conditions either round-trip or fail closed.
		for _, c := range []query.Condition{query.CondEquals("x", a), query.CondIn("x", a, b), query.CondRange("x", a, b), query.CondContains("x", b)} {
			e := query.Expr{query.CondEquals("p", "1"), c, query.CondEquals("q", "2")}
			back, err := query.Parse(e.String())
			if c.Validate() != nil {
				if err == nil {
					t.Fatalf("invalid %#v renders as %q, which parses as %#v", c, e.String(), back)
				}
				continue
			}
			if err != nil || !reflect.DeepEqual(back, e) {
				t.Fatalf("Parse(%q) = %#v, %v; want %#v", e.String(), back, err, e)
			}
		}
	})
}

// expectedBuildError reports whether a Build error is one that fuzzed input
// may legitimately cause.
func expectedBuildError(msg string) bool {
	for _, s := range []string{"not valid UTF-8", "empty value in set", "empty range", "is outside 1 to 9999"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "a:1", "a:1;", ";", ";;", "a:", "a:*", "a:**", "a:b*c*", "a:[empty]", "a:[empty];b:[EMPTY]",
		"customerId:42;postedTimestamp:2024-01-01|2024-02-01;erpId:ABC*;Customer.Status:Active,Draft;crmId:[empty]",
		"x:|2024-01-01T10:00:00", "closingArBalance:-10.5|", "a:b|c|d", "a:x,*y", "a:%zz", "a:%3b%2C", "a:[foo]",
		"a:x,,y", "a.b.c:d:e", "1a:b", "a:%C3%BC,%FF", "a:\xff", "a: b ;c:d",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := query.Parse(s)
		if err != nil {
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("Parse(%q) = %#v, which is invalid: %v", s, e, err)
		}
		out := e.String()
		back, err := query.Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) = %#v renders as %q, which does not parse: %v", s, e, out, err)
		}
		if !reflect.DeepEqual(back, e) {
			t.Fatalf("Parse(%q) = %#v renders as %q, which parses as %#v", s, e, out, back)
		}
		if again := back.String(); again != out {
			t.Fatalf("rendering is not stable: %q then %q", out, again)
		}
	})
}

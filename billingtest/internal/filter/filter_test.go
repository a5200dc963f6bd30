package filter

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// feCond parses one condition, "v" standing for the value part.
func feCond(t *testing.T, value string) query.Condition {
	t.Helper()
	e, err := query.Parse("v:" + value)
	if err != nil || len(e) != 1 {
		t.Fatalf("parse %q: %v", value, err)
	}
	return e[0]
}

func TestTextMatcher(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cond  string
		match []string
		miss  []string
	}{
		{"abc", []string{"abc", "ABC", "aBc"}, []string{"", "abcd", "xabc"}},
		{"abc*", []string{"abc", "ABCdef"}, []string{"xabc", ""}},
		{"*abc", []string{"abc", "xxABC"}, []string{"abcx"}},
		{"*abc*", []string{"abc", "xAbCx"}, []string{"ab", "a-b-c"}},
		{"a*c", []string{"ac", "abc", "A--C"}, []string{"ab", "ca"}},
		{"a*b*c", []string{"abc", "a1b2c", "ABBC"}, []string{"acb", "ab"}},
		{"aa*aa", []string{"aaaa", "aa-aa"}, []string{"aaa"}},
		{"*", []string{"", "x"}, nil},
		{"[empty]", []string{""}, []string{" ", "x"}},
		{"", []string{""}, []string{"x"}},
		{"b|d", []string{"b", "B", "bzz", "C", "cat"}, []string{"", "a", "d", "D", "dog"}},
		{"|b", []string{"a", "A", "1"}, []string{"", "b", "B"}},
		{"b|", []string{"b", "z", "É"}, []string{"", "a"}},
		{"straße", []string{"Straße", "STRAßE"}, []string{"strasse"}},
		{"%2A", []string{"*"}, []string{"x"}},
	}
	for _, c := range cases {
		m, err := textMatcher(feCond(t, c.cond))
		if err != nil {
			t.Fatalf("%q: %v", c.cond, err)
		}
		for _, v := range c.match {
			if !m(v) {
				t.Errorf("%q does not match %q", c.cond, v)
			}
		}
		for _, v := range c.miss {
			if m(v) {
				t.Errorf("%q matches %q", c.cond, v)
			}
		}
	}
	if _, err := textMatcher(feCond(t, "a,b")); err == nil {
		t.Error("a set on a text field is accepted")
	}
}

func TestIntMatcher(t *testing.T) {
	t.Parallel()
	type v struct {
		n       int64
		present bool
	}
	cases := []struct {
		cond        string
		match, miss []v
	}{
		{"5", []v{{5, true}}, []v{{4, true}, {5, false}}},
		{"-5", []v{{-5, true}}, []v{{5, true}}},
		{"1,3", []v{{1, true}, {3, true}}, []v{{2, true}, {1, false}}},
		{"[empty]", []v{{0, false}}, []v{{0, true}, {3, true}}},
		{"2|4", []v{{2, true}, {3, true}}, []v{{1, true}, {4, true}, {3, false}}},
		{"|4", []v{{-100, true}, {3, true}}, []v{{4, true}}},
		{"4|", []v{{4, true}, {1 << 62, true}}, []v{{3, true}}},
	}
	for _, c := range cases {
		m, err := intMatcher(feCond(t, c.cond))
		if err != nil {
			t.Fatalf("%q: %v", c.cond, err)
		}
		for _, x := range c.match {
			if !m(x.n, x.present) {
				t.Errorf("%q does not match %+v", c.cond, x)
			}
		}
		for _, x := range c.miss {
			if m(x.n, x.present) {
				t.Errorf("%q matches %+v", c.cond, x)
			}
		}
	}
	for _, bad := range []string{"x", "1*", "1.5", "1,x", "x|", "|1e3", "99999999999999999999"} {
		if _, err := intMatcher(feCond(t, bad)); err == nil {
			t.Errorf("%q is accepted", bad)
		}
	}
}

func TestTimeMatcher(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		layout := "2006-01-02T15:04:05"
		if len(s) == len(time.DateOnly) {
			layout = time.DateOnly
		}
		t, err := time.Parse(layout, s)
		if err != nil {
			panic(err)
		}
		return t
	}
	cases := []struct {
		cond        string
		match, miss []time.Time
	}{
		// a date-only bound is midnight UTC; lower inclusive, upper exclusive
		{"2024-02-01|2024-03-01", []time.Time{at("2024-02-01T00:00:00"), at("2024-02-29T23:59:59"), at("2024-02-29T23:59:59").Add(999 * time.Millisecond)},
			[]time.Time{at("2024-01-31T23:59:59"), at("2024-03-01T00:00:00"), {}}},
		{"|2024-03-01", []time.Time{at("1999-01-01T00:00:00")}, []time.Time{at("2024-03-01T00:00:00"), {}}},
		{"2024-03-01|", []time.Time{at("2024-03-01T00:00:00"), at("2999-01-01T00:00:00")}, []time.Time{at("2024-02-29T23:59:59")}},
		{"2024-03-01T10:00:00|2024-03-01T10:00:05Z", []time.Time{at("2024-03-01T10:00:00"), at("2024-03-01T10:00:04")}, []time.Time{at("2024-03-01T10:00:05"), at("2024-03-01T09:59:59")}},
		// a date alone is that whole day; a date-time alone that second
		{"2024-03-01", []time.Time{at("2024-03-01T00:00:00"), at("2024-03-01T23:59:59")}, []time.Time{at("2024-03-02T00:00:00"), at("2024-02-29T23:59:59")}},
		{"2024-03-01T10:00:00Z", []time.Time{at("2024-03-01T10:00:00"), at("2024-03-01T10:00:00").Add(500 * time.Millisecond)}, []time.Time{at("2024-03-01T10:00:01")}},
		// fractional seconds, which the service writes, are accepted in bounds
		{"2024-03-01T10:00:00.5|", []time.Time{at("2024-03-01T10:00:01")}, []time.Time{at("2024-03-01T10:00:00")}},
		{"[empty]", []time.Time{{}}, []time.Time{at("2024-03-01T10:00:00")}},
	}
	for _, c := range cases {
		m, err := timeMatcher(feCond(t, c.cond))
		if err != nil {
			t.Fatalf("%q: %v", c.cond, err)
		}
		for _, x := range c.match {
			if !m(x) {
				t.Errorf("%q does not match %v", c.cond, x)
			}
		}
		for _, x := range c.miss {
			if m(x) {
				t.Errorf("%q matches %v", c.cond, x)
			}
		}
	}
	// Times in another zone compare as instants: 01:00 at UTC+2 is the
	// day before in UTC.
	m, _ := timeMatcher(feCond(t, "2024-03-01"))
	if m(time.Date(2024, 3, 1, 1, 0, 0, 0, time.FixedZone("UTC+2", 2*3600))) {
		t.Error("zones are not compared as instants")
	}
	for _, bad := range []string{"yesterday", "2024-02-30|", "2024-1-1|", "|2024-01-01T10:00", "2024-01-01 10:00:00|", "2024-01-01T10:00:00+01:00|", "2024*", "2024-01-01,2024-01-02"} {
		if _, err := timeMatcher(feCond(t, bad)); err == nil {
			t.Errorf("%q is accepted", bad)
		}
	}
}

func TestDecimalMatcher(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	cases := []struct {
		cond        string
		match, miss []string
	}{
		{"10|25.5", []string{"10", "10.00", "25.4999999"}, []string{"9.999", "25.5", "25.50"}},
		{"|0", []string{"-0.01", "-1000"}, []string{"0", "0.00"}},
		{"-3.25|", []string{"-3.25", "0"}, []string{"-3.26"}},
		{"0.1", []string{"0.1", "0.10"}, []string{"0.1000001"}},
		{"[empty]", nil, []string{"0"}},
	}
	for _, c := range cases {
		m, err := decimalMatcher(feCond(t, c.cond))
		if err != nil {
			t.Fatalf("%q: %v", c.cond, err)
		}
		for _, x := range c.match {
			if !m(d(x)) {
				t.Errorf("%q does not match %s", c.cond, x)
			}
		}
		for _, x := range c.miss {
			if m(d(x)) {
				t.Errorf("%q matches %s", c.cond, x)
			}
		}
	}
	for _, bad := range []string{"x|", "1|x", "1*", "1,2", "ten"} {
		if _, err := decimalMatcher(feCond(t, bad)); err == nil {
			t.Errorf("%q is accepted", bad)
		}
	}
}

func TestEnumAndBoolMatchers(t *testing.T) {
	t.Parallel()
	m, err := enumMatcher(feCond(t, "active,HOLD"), []string{"Draft", "Active", "Cancelled", "Hold", "Suspended"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !m("Active") || !m("Hold") || m("Draft") || m("") {
		t.Error("set of statuses")
	}
	if m, _ := enumMatcher(feCond(t, "[empty]"), []string{"Draft", "Active", "Cancelled", "Hold", "Suspended"}, false); !m("") || m("Active") {
		t.Error("[empty] on an enum")
	}
	for _, bad := range []string{"Gone", "Act*", "a|b", "Active,Gone"} {
		_, err := enumMatcher(feCond(t, bad), []string{"Draft", "Active", "Cancelled", "Hold", "Suspended"}, false)
		if err == nil {
			t.Errorf("%q is accepted", bad)
		} else if bad == "Gone" && !strings.Contains(err.Error(), "Suspended") {
			t.Errorf("error %q does not list the values", err)
		}
	}
	b, err := boolMatcher(feCond(t, "TRUE"))
	if err != nil || !b(true) || b(false) {
		t.Errorf("TRUE: %v", err)
	}
	b, err = boolMatcher(feCond(t, "false"))
	if err != nil || b(true) || !b(false) {
		t.Errorf("false: %v", err)
	}
	if b, _ := boolMatcher(feCond(t, "[empty]")); b(true) || b(false) {
		t.Error("[empty] matches a boolean")
	}
	for _, bad := range []string{"1", "yes", "", "true,false", "a|b", "t*"} {
		if _, err := boolMatcher(feCond(t, bad)); err == nil {
			t.Errorf("%q is accepted", bad)
		}
	}
}

func TestCompareFold(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "a", -1}, {"a", "", 1},
		{"abc", "ABC", 0}, {"abc", "abd", -1}, {"ABD", "abc", 1},
		{"ab", "abc", -1}, {"Z", "a", 1}, {"_", "a", -1}, {"[", "a", -1},
		{"É", "é", 0}, {"é", "f", 1}, {"Straße", "STRASSE", 1},
	}
	for _, c := range cases {
		if got := CompareFold(c.a, c.b); got != c.want {
			t.Errorf("CompareFold(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := CompareFold(c.b, c.a); got != -c.want {
			t.Errorf("CompareFold(%q, %q) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

// CmpDecimal orders amounts exactly like Cmp, and never scales a number
// by its exponent: comparing 1e-100000 with 1 allocates nothing (Cmp
// would build a 100,001-digit number).
func TestCmpDecimalNeverRescales(t *testing.T) { // not parallel: AllocsPerRun
	d := decimal.RequireFromString
	values := []decimal.Decimal{
		d("0"), d("1"), d("-1"), d("1.5"), d("15e-1"), d("0.001"), d("-0.001"), d("1e-30"), d("-1e-30"),
		d("123456789012345678901234567890"), d("1.23456789012345678901234567890e29"),
		d("99999999999999999999"), d("1e20"), d("-1e20"), d("1e-100"), d("1000e-103"), d("10000000000000000000e-119"),
		d("79228162514264337593543950335"), d("-79228162514264337593543950335"), d("0e50"), d("5e40"), d("49e39"),
	}
	for _, a := range values {
		for _, b := range values {
			if got, want := CmpDecimal(a, b), a.Cmp(b); got != want {
				t.Errorf("CmpDecimal(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	huge, tiny, one := decimal.New(1, 100000), decimal.New(1, -100000), d("1")
	for _, p := range [][2]decimal.Decimal{{tiny, one}, {one, tiny}, {huge, one}, {one, huge}, {tiny.Neg(), one}, {huge.Neg(), tiny.Neg()}} {
		var got int
		if allocs := testing.AllocsPerRun(10, func() { got = CmpDecimal(p[0], p[1]) }); allocs != 0 {
			t.Errorf("CmpDecimal(%de%d, %de%d) allocated %.0f times: it rescaled", p[0].Sign(), p[0].Exponent(), p[1].Sign(), p[1].Exponent(), allocs)
		}
		if got == 0 {
			t.Errorf("CmpDecimal of distinct numbers = 0")
		}
	}
	if CmpDecimal(tiny, one) != -1 || CmpDecimal(huge, one) != 1 || CmpDecimal(huge.Neg(), tiny.Neg()) != -1 || CmpDecimal(tiny.Neg(), one) != -1 {
		t.Error("CmpDecimal orders numbers of extreme exponents wrongly")
	}
}

func TestUntilDoneStopsTestingRows(t *testing.T) {
	t.Parallel()
	calls := 0
	pred := func(int) bool { calls++; return true }
	ctx, cancel := context.WithCancel(context.Background())
	p := UntilDone(ctx, pred)
	for i := range 1000 {
		if !p(i) {
			t.Fatalf("row %d refused before the context ended", i)
		}
	}
	cancel()
	admitted := 0
	for i := range 100_000 {
		if p(i) {
			admitted++
		}
	}
	if calls > 1000+CheckEvery || admitted >= CheckEvery {
		t.Errorf("after the context ended: pred called %d times in all, %d rows admitted; want at most %d more calls", calls, admitted, CheckEvery)
	}
	if UntilDone[int](ctx, nil) != nil {
		t.Error("UntilDone(nil) is not nil")
	}
}

// TestSelectWindow checks the partial sort against a full sort, on
// windows of every kind and keys with many ties.
func TestSelectWindow(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	f := &Field[int]{Kind: query.TextField, Get: Getter[int]{Text: func(int) string { return "" }}}
	for _, desc := range []bool{false, true} {
		_, cmp := keyer(f, desc, nil)
		for _, n := range []int{0, 1, 17, 300, 2000} {
			base := make([]sortItem[int], n)
			for i := range base {
				s := []string{"", "1a", "#x", "abc", "ABC", "b", "Zed", "é", "9"}[rng.IntN(9)]
				base[i] = sortItem[int]{row: i, id: int64(i), text: s, class: stringClass(s)}
			}
			rng.Shuffle(n, func(i, j int) { base[i], base[j] = base[j], base[i] })
			full := slices.Clone(base)
			slices.SortFunc(full, func(a, b sortItem[int]) int { return cmp(&a, &b) })
			for _, w := range [][2]int{{0, 10}, {0, n}, {n / 3, n/3 + 100}, {n - 5, n}, {n / 2, n/2 + 1}, {n + 1, n + 5}} {
				got := selectWindow(slices.Clone(base), w[0], w[1], cmp)
				lo, hi := min(max(w[0], 0), n), min(w[1], n)
				if lo > hi {
					lo = hi
				}
				want := full[lo:hi]
				if len(got) != len(want) {
					t.Fatalf("n %d window %v: %d items, want %d", n, w, len(got), len(want))
				}
				for i := range got {
					if got[i].id != want[i].id {
						t.Fatalf("n %d desc %v window %v: item %d is %d, want %d", n, desc, w, i, got[i].id, want[i].id)
					}
				}
			}
		}
	}
}

func TestStringClassOrder(t *testing.T) {
	t.Parallel()
	in := []string{"beta", "", "Alpha", "_x", "10", "2", " space", "alpha", "Ärger", "#1"}
	items := make([]sortItem[int], len(in))
	for i, s := range in {
		items[i] = sortItem[int]{id: int64(i), text: s, class: stringClass(s)}
	}
	_, cmp := keyer(&Field[int]{Kind: query.TextField, Get: Getter[int]{Text: func(int) string { return "" }}}, false, nil)
	slices.SortFunc(items, func(a, b sortItem[int]) int { return cmp(&a, &b) })
	var got []string
	for _, it := range items {
		got = append(got, it.text)
	}
	// "Alpha" and "alpha" tie and keep id order; "Ärger" sorts after the
	// ASCII letters, by code point of its lower case.
	want := []string{"", "10", "2", " space", "#1", "_x", "Alpha", "alpha", "beta", "Ärger"}
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}

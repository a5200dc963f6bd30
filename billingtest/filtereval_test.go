package billingtest

import (
	"reflect"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
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
	at := func(s string) time.Time { return ltTime(s) }
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
	m, err := enumMatcher(feCond(t, "active,HOLD"), customerStatuses, false)
	if err != nil {
		t.Fatal(err)
	}
	if !m("Active") || !m("Hold") || m("Draft") || m("") {
		t.Error("set of statuses")
	}
	if m, _ := enumMatcher(feCond(t, "[empty]"), customerStatuses, false); !m("") || m("Active") {
		t.Error("[empty] on an enum")
	}
	for _, bad := range []string{"Gone", "Act*", "a|b", "Active,Gone"} {
		_, err := enumMatcher(feCond(t, bad), customerStatuses, false)
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
		if got := compareFold(c.a, c.b); got != c.want {
			t.Errorf("compareFold(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := compareFold(c.b, c.a); got != -c.want {
			t.Errorf("compareFold(%q, %q) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

// TestSchemasFollowSDK checks that each endpoint's filter names are
// exactly the SDK filter struct's, with the same kinds, and that the enum
// values the fake accepts are the ones the SDK knows.
func TestSchemasFollowSDK(t *testing.T) {
	check := func(name string, filter any, fields []string, kinds []query.FieldKind, enums map[string][]string) {
		want, err := query.Fields(filter)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != len(fields) {
			t.Fatalf("%s: %d names, SDK has %d", name, len(fields), len(want))
		}
		for i, f := range want {
			if fields[i] != f.Name || kinds[i] != f.Kind {
				t.Errorf("%s: name %d is %s %v, SDK has %s %v", name, i, fields[i], kinds[i], f.Name, f.Kind)
			}
		}
		// The enum values must all be known to the SDK's enum type.
		ft := reflect.TypeOf(filter)
		for i, f := range want {
			if f.Kind != query.EnumField {
				continue
			}
			elem := ft.FieldByIndex([]int{fieldIndex(ft, f.GoName)}).Type.Elem()
			vals := enums[f.Name]
			if len(vals) == 0 {
				t.Errorf("%s: enum %s has no values", name, f.Name)
			}
			for _, v := range vals {
				x := reflect.New(elem).Elem()
				x.SetString(v)
				if k, ok := x.Interface().(interface{ IsKnown() bool }); !ok || !k.IsKnown() {
					t.Errorf("%s: %s value %q is not known to %v", name, want[i].Name, v, elem)
				}
			}
		}
	}
	describe := func(sc any) ([]string, []query.FieldKind, map[string][]string) {
		v := reflect.ValueOf(sc).Elem().FieldByName("fields")
		var names []string
		var kinds []query.FieldKind
		enums := map[string][]string{}
		for i := range v.Len() {
			f := v.Index(i)
			names = append(names, f.FieldByName("name").String())
			kinds = append(kinds, query.FieldKind(f.FieldByName("kind").Int()))
			vals := f.FieldByName("get").FieldByName("values")
			for j := range vals.Len() {
				enums[names[i]] = append(enums[names[i]], vals.Index(j).String())
			}
		}
		return names, kinds, enums
	}
	for _, c := range []struct {
		name   string
		filter any
		schema any
	}{
		{"invoices", billing.InvoiceFilter{}, invoiceSchema},
		{"customer invoices", billing.CustomerInvoiceFilter{}, customerInvoiceSchema},
		{"summaries", billing.InvoiceSummaryFilter{}, summarySchema},
		{"items", billing.SubscriptionProductItemFilter{}, itemSchema},
		{"subscribers", billing.SubscriberFilter{}, subscriberSchema},
	} {
		names, kinds, enums := describe(c.schema)
		check(c.name, c.filter, names, kinds, enums)
	}
}

func fieldIndex(t reflect.Type, name string) int {
	f, _ := t.FieldByName(name)
	return f.Index[0]
}

// TestCompileCombines checks that conditions are and-ed and names are
// matched case-insensitively.
func TestCompileCombines(t *testing.T) {
	pred, err := itemSchema.parseFilter("NAME:a*;Status:active;description:*x")
	if err != nil {
		t.Fatal(err)
	}
	item := func(name, desc string, status billing.ItemStatus) itemRow {
		return &billing.SubscriptionProductItem{Name: name, Description: desc, Status: status}
	}
	if !pred(item("ab", "yx", billing.ItemStatusActive)) {
		t.Error("all three hold, no match")
	}
	for _, it := range []itemRow{item("b", "x", billing.ItemStatusActive), item("a", "x", billing.ItemStatusDeleted), item("a", "xy", billing.ItemStatusActive)} {
		if pred(it) {
			t.Errorf("%+v matches though one condition fails", *it)
		}
	}
	if p, err := itemSchema.parseFilter(""); err != nil || p != nil {
		t.Errorf("empty query: %v, %v; want no predicate", p != nil, err)
	}
}

package query

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	match := func(name string, pattern ...string) Condition {
		return Condition{Name: name, Kind: Match, Pattern: pattern}
	}
	tests := []struct {
		in   string
		want Expr
	}{
		{"", nil},
		{"customerId:42", Expr{match("customerId", "42")}},
		{"erpId:", Expr{match("erpId", "")}},
		{"erpId:555*", Expr{match("erpId", "555", "")}},
		{"erpId:*555*", Expr{match("erpId", "", "555", "")}},
		{"erpId:*555", Expr{match("erpId", "", "555")}},
		{"erpId:*", Expr{match("erpId", "", "")}},
		{"erpId:5*5", Expr{match("erpId", "5", "5")}},
		{"crmId:[empty]", Expr{CondIsEmpty("crmId")}},
		{"status:Active,Draft", Expr{CondIn("status", "Active", "Draft")}},
		{"id:1,2,3", Expr{CondIn("id", "1", "2", "3")}},
		{"postedTimestamp:2024-01-01|2024-02-01", Expr{CondRange("postedTimestamp", "2024-01-01", "2024-02-01")}},
		{"x:|2024-01-01T10:00:00", Expr{CondRange("x", "", "2024-01-01T10:00:00")}},
		{"closingArBalance:-10.5|", Expr{CondRange("closingArBalance", "-10.5", "")}},
		{"x:|", Expr{CondRange("x", "", "")}},
		{"Customer.CustomerReference.Reference1:ABC", Expr{CondEquals("Customer.CustomerReference.Reference1", "ABC")}},
		{"a:b:c", Expr{CondEquals("a", "b:c")}}, // only the first ':' separates
		{"a:%3B%2C%7C%2A%5Bempty%5D", Expr{CondEquals("a", ";,|*[empty]")}},
		{"a:%3b", Expr{CondEquals("a", ";")}}, // lowercase hex is accepted
		{"a:x+y z", Expr{CondEquals("a", "x+y z")}},
		{"a:%2A*", Expr{match("a", "*", "")}},
		{"a:%2C,%7C", Expr{CondIn("a", ",", "|")}},
		{"a:%7C|%2C", Expr{CondRange("a", "|", ",")}},
		{"a:Müller", Expr{CondEquals("a", "Müller")}},
		{"a:%C3%BC", Expr{CondEquals("a", "ü")}},
		{"a:1;", Expr{CondEquals("a", "1")}},
		{
			"customerId:42;postedTimestamp:2024-01-01|2024-02-01;erpId:ABC*;Customer.Status:Active,Draft;crmId:[empty]",
			Expr{
				CondEquals("customerId", "42"),
				CondRange("postedTimestamp", "2024-01-01", "2024-02-01"),
				CondStartsWith("erpId", "ABC"),
				CondIn("Customer.Status", "Active", "Draft"),
				CondIsEmpty("crmId"),
			},
		},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("Parse(%q) returned an invalid Expr: %v", tt.in, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		offset int
		msg    string
	}{
		{"a", 1, "missing ':'"},
		{"a:1;b", 5, "missing ':'"},
		{":1", 0, "invalid filter name"},
		{"1a:1", 0, "invalid filter name"},
		{"a.:1", 0, "invalid filter name"},
		{"a:1; b:2", 4, "invalid filter name"},
		{"a:b|c|d", 5, "more than one '|'"},
		{"a:b|c,d", 5, `unescaped ',' in a range`},
		{"a:*|c", 2, `unescaped '*' in a range`},
		{"a:x,*y", 4, "wildcard in a set"},
		{"a:x,", 4, "empty value in a set"},
		{"a:,x", 2, "empty value in a set"},
		{"a:x,,y", 4, "empty value in a set"},
		{"a:%zz", 2, "invalid escape"},
		{"a:x,y%4", 5, "invalid escape"},
		{"a:1|%", 4, "invalid escape"},
		{"a:[foo]", 2, "unescaped '['"},
		{"a:x]", 3, "unescaped ']'"},
		{"a:[empty],x", 2, "unescaped '['"},
		{"a:[EMPTY]", 2, "unescaped '['"},
		{"a:b**c", 3, "consecutive wildcards"},
		{"a:**", 2, "consecutive wildcards"},
		{";;", 0, "empty condition"},
		{";", 0, "empty condition"},
		{"a:1;;b:2", 4, "empty condition"},
		{"a:1;;", 4, "empty condition"},
		{"a:\xff", 2, "invalid UTF-8"},
		{"a:%FF", 2, "not valid UTF-8"},
		{"a:x,%C3", 4, "not valid UTF-8"},
	}
	for _, tt := range tests {
		e, err := Parse(tt.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %#v, %v; want a *SyntaxError", tt.in, e, err)
			continue
		}
		if e != nil {
			t.Errorf("Parse(%q) returned %#v with its error", tt.in, e)
		}
		if se.Expr != tt.in || se.Offset != tt.offset || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("Parse(%q) error = %+v, want offset %d and message containing %q", tt.in, *se, tt.offset, tt.msg)
		}
		if !strings.HasPrefix(err.Error(), "query: syntax error at offset ") {
			t.Errorf("Parse(%q) error text = %q", tt.in, err)
		}
	}
}

func TestMustParse(t *testing.T) {
	t.Parallel()
	if got := MustParse("a:1"); !reflect.DeepEqual(got, Expr{CondEquals("a", "1")}) {
		t.Errorf("MustParse = %#v", got)
	}
	defer func() {
		if _, ok := recover().(*SyntaxError); !ok {
			t.Errorf("MustParse of a bad expression did not panic with a *SyntaxError")
		}
	}()
	MustParse("a")
}

package query

import (
	"errors"
	"strings"
	"testing"
)

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Match: "Match", Empty: "Empty", Set: "Set", Range: "Range", 0: "Kind(0)", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestConditionString(t *testing.T) {
	tests := []struct {
		c    Condition
		want string
	}{
		{Equal("customerId", "42"), "customerId:42"},
		{Equal("erpId", ""), "erpId:"},
		{Equal("erpId", "a;b:c"), "erpId:a%3Bb%3Ac"},
		{Equal("erpId", "[empty]"), "erpId:%5Bempty%5D"},
		{StartsWithCond("erpId", "555"), "erpId:555*"},
		{StartsWithCond("erpId", ""), "erpId:*"},
		{EndsWithCond("erpId", "555"), "erpId:*555"},
		{EndsWithCond("erpId", ""), "erpId:*"},
		{ContainsCond("erpId", "555"), "erpId:*555*"},
		{ContainsCond("erpId", ""), "erpId:*"},
		{ContainsCond("erpId", "a*b"), "erpId:*a%2Ab*"},
		{Condition{Name: "n", Kind: Match, Pattern: []string{"a", "b"}}, "n:a*b"},
		{IsEmptyCond("crmId"), "crmId:[empty]"},
		{In("Customer.Status", "Active", "Draft"), "Customer.Status:Active,Draft"},
		{In("id", "1"), "id:1"},
		{In("x", "a,b", "c|d"), "x:a%2Cb,c%7Cd"},
		{NewRange("postedTimestamp", "2024-01-01", "2024-02-01"), "postedTimestamp:2024-01-01|2024-02-01"},
		{NewRange("x", "", "2024-01-01T10:00:00"), "x:|2024-01-01T10:00:00"},
		{NewRange("closingArBalance", "-10.5", ""), "closingArBalance:-10.5|"},
		{NewRange("x", "a|b,c*", ""), "x:a%7Cb%2Cc%2A|"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.c, got, tt.want)
		}
		if err := tt.c.Validate(); err != nil {
			t.Errorf("%#v.Validate() = %v", tt.c, err)
		}
	}
}

func TestExprString(t *testing.T) {
	e := Expr{Equal("customerId", "42"), NewRange("postedTimestamp", "2024-01-01", "2024-02-01"), IsEmptyCond("crmId")}
	if got, want := e.String(), "customerId:42;postedTimestamp:2024-01-01|2024-02-01;crmId:[empty]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := Expr(nil).String(); got != "" {
		t.Errorf("nil Expr renders %q", got)
	}
}

func TestLiteral(t *testing.T) {
	tests := []struct {
		c    Condition
		want string
		ok   bool
	}{
		{Equal("a", "x"), "x", true},
		{Equal("a", ""), "", true},
		{StartsWithCond("a", "x"), "", false},
		{In("a", "x", "y"), "", false},
		{IsEmptyCond("a"), "", false},
		{NewRange("a", "1", "2"), "", false},
	}
	for _, tt := range tests {
		if got, ok := tt.c.Literal(); got != tt.want || ok != tt.ok {
			t.Errorf("%v.Literal() = %q, %v; want %q, %v", tt.c, got, ok, tt.want, tt.ok)
		}
	}
}

// An invalid condition must not render as something that parses: it either
// fails Parse or would be a different condition than the caller built.
func TestInvalidConditionsFailClosed(t *testing.T) {
	tests := []struct {
		c       Condition
		wantErr string
	}{
		{Equal("", "x"), `invalid filter name ""`},
		{Equal("1a", "x"), `invalid filter name "1a"`},
		{Equal("a;b:1;c", "x"), `invalid filter name`},
		{Equal("a b", "x"), `invalid filter name`},
		{Condition{Name: "a"}, "unknown kind Kind(0)"},
		{Condition{Name: "a", Kind: 7}, "unknown kind Kind(7)"},
		{Condition{Name: "a", Kind: Match}, "match without a pattern"},
		{Condition{Name: "a", Kind: Match, Pattern: []string{"", "", ""}}, "empty pattern segment"},
		{Condition{Name: "a", Kind: Match, Pattern: []string{"x", "", "y"}}, "empty pattern segment"},
		{In("a"), "a set needs at least 2 values, has 0"},
		{Condition{Name: "a", Kind: Set, Values: []string{"x"}}, "a set needs at least 2 values, has 1"},
		{In("a", "x", ""), "empty value in set"},
		{In("a", "", "x"), "empty value in set"},
		{Equal("a", "\xff"), "not valid UTF-8"},
		{In("a", "x", "y\xc3"), "not valid UTF-8"},
		{NewRange("a", "\xff", ""), "not valid UTF-8"},
		{StartsWithCond("a", "\xe2\x82"), "not valid UTF-8"},
	}
	for _, tt := range tests {
		err := tt.c.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "query: ") {
			t.Errorf("%#v.Validate() = %v, want error containing %q", tt.c, err, tt.wantErr)
		}
		s := tt.c.String()
		if e, err := Parse("x:1;" + s + ";y:2"); err == nil {
			t.Errorf("%#v renders as %q, which parses as %#v", tt.c, s, e)
		}
	}
}

func TestExprValidate(t *testing.T) {
	if err := (Expr{Equal("a", "1"), IsEmptyCond("b")}).Validate(); err != nil {
		t.Errorf("valid Expr: %v", err)
	}
	err := Expr{Equal("a", "1"), Equal("b", "1"), In("c")}.Validate()
	if err == nil || !strings.HasPrefix(err.Error(), "query: condition 3: condition c: a set needs") {
		t.Errorf("Validate() = %v", err)
	}
	if errors.Unwrap(err) == nil {
		t.Errorf("Validate() error does not wrap the condition's error")
	}
}

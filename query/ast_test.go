package query

import (
	"errors"
	"strings"
	"testing"
)

func TestKindString(t *testing.T) {
	t.Parallel()
	for k, want := range map[Kind]string{Match: "Match", Empty: "Empty", Set: "Set", Range: "Range", 0: "Kind(0)", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestConditionString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    Condition
		want string
	}{
		{CondEquals("customerId", "42"), "customerId:42"},
		{CondEquals("erpId", ""), "erpId:"},
		{CondEquals("erpId", "a;b:c"), "erpId:a%3Bb%3Ac"},
		{CondEquals("erpId", "[empty]"), "erpId:%5Bempty%5D"},
		{CondStartsWith("erpId", "555"), "erpId:555*"},
		{CondStartsWith("erpId", ""), "erpId:*"},
		{CondEndsWith("erpId", "555"), "erpId:*555"},
		{CondEndsWith("erpId", ""), "erpId:*"},
		{CondContains("erpId", "555"), "erpId:*555*"},
		{CondContains("erpId", ""), "erpId:*"},
		{CondContains("erpId", "a*b"), "erpId:*a%2Ab*"},
		{Condition{Name: "n", Kind: Match, Pattern: []string{"a", "b"}}, "n:a*b"},
		{CondIsEmpty("crmId"), "crmId:[empty]"},
		{CondIn("Customer.Status", "Active", "Draft"), "Customer.Status:Active,Draft"},
		{CondIn("id", "1"), "id:1"},
		{CondIn("x", "a,b", "c|d"), "x:a%2Cb,c%7Cd"},
		{CondRange("postedTimestamp", "2024-01-01", "2024-02-01"), "postedTimestamp:2024-01-01|2024-02-01"},
		{CondRange("x", "", "2024-01-01T10:00:00"), "x:|2024-01-01T10:00:00"},
		{CondRange("closingArBalance", "-10.5", ""), "closingArBalance:-10.5|"},
		{CondRange("x", "a|b,c*", ""), "x:a%7Cb%2Cc%2A|"},
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
	t.Parallel()
	e := Expr{CondEquals("customerId", "42"), CondRange("postedTimestamp", "2024-01-01", "2024-02-01"), CondIsEmpty("crmId")}
	if got, want := e.String(), "customerId:42;postedTimestamp:2024-01-01|2024-02-01;crmId:[empty]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := Expr(nil).String(); got != "" {
		t.Errorf("nil Expr renders %q", got)
	}
}

func TestLiteral(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    Condition
		want string
		ok   bool
	}{
		{CondEquals("a", "x"), "x", true},
		{CondEquals("a", ""), "", true},
		{CondStartsWith("a", "x"), "", false},
		{CondIn("a", "x", "y"), "", false},
		{CondIsEmpty("a"), "", false},
		{CondRange("a", "1", "2"), "", false},
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
	t.Parallel()
	tests := []struct {
		c       Condition
		wantErr string
	}{
		{CondEquals("", "x"), `invalid filter name ""`},
		{CondEquals("1a", "x"), `invalid filter name "1a"`},
		{CondEquals("a;b:1;c", "x"), `invalid filter name`},
		{CondEquals("a b", "x"), `invalid filter name`},
		{Condition{Name: "a"}, "unknown kind Kind(0)"},
		{Condition{Name: "a", Kind: 7}, "unknown kind Kind(7)"},
		{Condition{Name: "a", Kind: Match}, "match without a pattern"},
		{Condition{Name: "a", Kind: Match, Pattern: []string{"", "", ""}}, "empty pattern segment"},
		{Condition{Name: "a", Kind: Match, Pattern: []string{"x", "", "y"}}, "empty pattern segment"},
		{CondIn("a"), "a set needs at least 2 values, has 0"},
		{Condition{Name: "a", Kind: Set, Values: []string{"x"}}, "a set needs at least 2 values, has 1"},
		{CondIn("a", "x", ""), "empty value in set"},
		{CondIn("a", "", "x"), "empty value in set"},
		{CondEquals("a", "\xff"), "not valid UTF-8"},
		{CondIn("a", "x", "y\xc3"), "not valid UTF-8"},
		{CondRange("a", "\xff", ""), "not valid UTF-8"},
		{CondStartsWith("a", "\xe2\x82"), "not valid UTF-8"},
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
	t.Parallel()
	if err := (Expr{CondEquals("a", "1"), CondIsEmpty("b")}).Validate(); err != nil {
		t.Errorf("valid Expr: %v", err)
	}
	err := Expr{CondEquals("a", "1"), CondEquals("b", "1"), CondIn("c")}.Validate()
	if err == nil || !strings.HasPrefix(err.Error(), "query: condition 3: condition c: a set needs") {
		t.Errorf("Validate() = %v", err)
	}
	if errors.Unwrap(err) == nil {
		t.Errorf("Validate() error does not wrap the condition's error")
	}
}

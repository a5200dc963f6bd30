package query_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

type status string

// invoiceFilter has one field of every supported type, plus fields Build
// must ignore.
type invoiceFilter struct {
	CustomerID       query.Ints         `query:"customerId"`
	ErpID            query.Text         `query:"erpId"`
	PostedTimestamp  query.TimeRange    `query:"postedTimestamp"`
	ClosingArBalance query.DecimalRange `query:"closingArBalance"`
	Status           []status           `query:"Customer.Status"`
	Unsettled        *bool              `query:"unsettled"`
	Raw              string             `query:",raw"`
	Ignored          int                `query:"-"`
	Untagged         complex64
}

func ptr[T any](v T) *T { return &v }

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestBuild(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		filter any
		want   string
	}{
		{"nil", nil, ""},
		{"nil pointer", (*invoiceFilter)(nil), ""},
		{"zero", invoiceFilter{}, ""},
		{"empty slices", invoiceFilter{CustomerID: query.Ints{}, Status: []status{}}, ""},
		{"int", invoiceFilter{CustomerID: query.Ints{42}}, "customerId:42"},
		{"int set", invoiceFilter{CustomerID: query.Ints{1, -2, 3}}, "customerId:1,-2,3"},
		{"equals", invoiceFilter{ErpID: query.Equals("ABC")}, "erpId:ABC"},
		{"equals empty", invoiceFilter{ErpID: query.Equals("")}, "erpId:"},
		{"starts", invoiceFilter{ErpID: query.StartsWith("555")}, "erpId:555*"},
		{"ends", invoiceFilter{ErpID: query.EndsWith("555")}, "erpId:*555"},
		{"contains", invoiceFilter{ErpID: query.Contains("555")}, "erpId:*555*"},
		{"contains empty", invoiceFilter{ErpID: query.Contains("")}, "erpId:*"},
		{"is empty", invoiceFilter{ErpID: query.IsEmpty()}, "erpId:[empty]"},
		{"escaped text", invoiceFilter{ErpID: query.StartsWith("a;b:c*d")}, "erpId:a%3Bb%3Ac%2Ad*"},
		{
			"date range",
			invoiceFilter{PostedTimestamp: query.TimeRange{From: day(2024, 1, 1), To: day(2024, 2, 1), DateOnly: true}},
			"postedTimestamp:2024-01-01|2024-02-01",
		},
		{
			"date-time upper bound, converted to UTC and truncated",
			invoiceFilter{PostedTimestamp: query.TimeRange{To: time.Date(2024, 1, 1, 12, 0, 0, 999999999, time.FixedZone("CET", 3600))}},
			"postedTimestamp:|2024-01-01T11:00:00",
		},
		{
			"date-only takes the UTC date",
			invoiceFilter{PostedTimestamp: query.TimeRange{From: time.Date(2024, 1, 2, 0, 30, 0, 0, time.FixedZone("CET", 3600)), DateOnly: true}},
			"postedTimestamp:2024-01-01|",
		},
		{"decimal at least", invoiceFilter{ClosingArBalance: query.AtLeast(dec("-10.50"))}, "closingArBalance:-10.5|"},
		{"decimal below", invoiceFilter{ClosingArBalance: query.Below(dec("1e3"))}, "closingArBalance:|1000"},
		{"decimal between", invoiceFilter{ClosingArBalance: query.DecimalBetween(dec("0.001"), dec("12345678901234567890.5"))}, "closingArBalance:0.001|12345678901234567890.5"},
		{"enum", invoiceFilter{Status: []status{"Active"}}, "Customer.Status:Active"},
		{"enum set", invoiceFilter{Status: []status{"Active", "Draft"}}, "Customer.Status:Active,Draft"},
		{"bool true", invoiceFilter{Unsettled: ptr(true)}, "unsettled:true"},
		{"bool false", invoiceFilter{Unsettled: ptr(false)}, "unsettled:false"},
		{"raw only", invoiceFilter{Raw: "invoiceNumber:7;erpId:%3B"}, "invoiceNumber:7;erpId:%3B"},
		{"ignored fields", invoiceFilter{Ignored: 5, Untagged: 1}, ""},
		{
			"everything, in field order, raw last",
			&invoiceFilter{
				Raw:              "totalInstallments:3",
				Unsettled:        ptr(true),
				Status:           []status{"Active", "Draft"},
				ClosingArBalance: query.AtLeast(dec("100")),
				PostedTimestamp:  query.TimeRange{From: time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)},
				ErpID:            query.Contains("x"),
				CustomerID:       query.Ints{42},
			},
			"customerId:42;erpId:*x*;postedTimestamp:2024-01-01T10:00:00|;closingArBalance:100|;Customer.Status:Active,Draft;unsettled:true;totalInstallments:3",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := query.Build(tt.filter)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if got := e.String(); got != tt.want {
				t.Errorf("Build(...).String() = %q, want %q", got, tt.want)
			}
			back, err := query.Parse(e.String())
			if err != nil {
				t.Fatalf("Parse(%q): %v", e.String(), err)
			}
			if !reflect.DeepEqual(back, e) {
				t.Errorf("Parse(%q) = %#v, want %#v", e.String(), back, e)
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	type badName struct {
		X query.Text `query:"1x"`
	}
	type emptyName struct {
		X query.Text `query:""`
	}
	type unknownOption struct {
		X query.Text `query:"x,omitempty"`
	}
	type unsupported struct {
		A query.Text `query:"a"`
		N int        `query:"n"`
	}
	type pointerText struct {
		T *query.Text `query:"t"`
	}
	type duplicate struct {
		A query.Text `query:"a"`
		B query.Ints `query:"a"`
	}
	type twoRaw struct {
		R1 string `query:",raw"`
		R2 string `query:",raw"`
	}
	type rawNotString struct {
		R []byte `query:",raw"`
	}
	type unexported struct {
		x query.Text `query:"x"`
	}
	_ = unexported{}.x
	type badNameEmptyValue struct {
		Field query.Text `query:"bad name"`
	}
	tests := []struct {
		name   string
		filter any
		want   string
	}{
		{"not a struct", 5, "query: Build needs a struct or a pointer to a struct, got int"},
		{"pointer to non-struct", ptr(5), "query: Build needs a struct"},
		{"bad name", badName{}, `query: field X: invalid filter name "1x"`},
		{"bad name, zero value", badNameEmptyValue{}, `query: field Field: invalid filter name "bad name"`},
		{"empty name", emptyName{}, `query: field X: invalid filter name ""`},
		{"unknown option", unknownOption{}, `query: field X: unknown tag "x,omitempty"`},
		{"unsupported type", unsupported{}, "query: field N: unsupported type int"},
		{"pointer to Text", pointerText{}, "query: field T: unsupported type *query.Text"},
		{"duplicate", duplicate{}, `query: field B: duplicate filter name "a"`},
		{"two raw fields", twoRaw{}, "query: field R2: second raw field; R1 is raw already"},
		{"raw not string", rawNotString{}, "query: field R: a raw expression must be a string"},
		{"unexported", unexported{}, "query: field x: unexported fields cannot be read"},
		{
			"time range reversed",
			invoiceFilter{PostedTimestamp: query.TimeRange{From: day(2024, 2, 1), To: day(2024, 1, 1), DateOnly: true}},
			"query: field PostedTimestamp: empty range: from 2024-02-01 is not before to 2024-01-01",
		},
		{
			"time range equal after rendering",
			invoiceFilter{PostedTimestamp: query.TimeRange{From: day(2024, 1, 1), To: day(2024, 1, 1).Add(12 * time.Hour), DateOnly: true}},
			"query: field PostedTimestamp: empty range: from 2024-01-01 is not before to 2024-01-01",
		},
		{
			"time range equal after truncation",
			invoiceFilter{PostedTimestamp: query.TimeRange{From: day(2024, 1, 1), To: day(2024, 1, 1).Add(time.Millisecond)}},
			"empty range: from 2024-01-01T00:00:00 is not before to 2024-01-01T00:00:00",
		},
		{
			"year out of range",
			invoiceFilter{PostedTimestamp: query.TimeRange{To: day(10000, 1, 1)}},
			"query: field PostedTimestamp: to: year 10000 is outside 1 to 9999",
		},
		{
			"decimal range reversed",
			invoiceFilter{ClosingArBalance: query.DecimalBetween(dec("2"), dec("1.0"))},
			"query: field ClosingArBalance: empty range: from 2 is not below to 1",
		},
		{
			"decimal range empty",
			invoiceFilter{ClosingArBalance: query.DecimalBetween(dec("1.5"), dec("1.50"))},
			"empty range",
		},
		{"empty enum member", invoiceFilter{Status: []status{"Active", ""}}, "query: field Status: condition Customer.Status: empty value in set"},
		{"invalid UTF-8 text", invoiceFilter{ErpID: query.Equals("\xff")}, "query: field ErpID: condition erpId: value \"\\xff\" is not valid UTF-8"},
		{"invalid UTF-8 enum", invoiceFilter{Status: []status{"\xff"}}, "not valid UTF-8"},
		{"bad raw", invoiceFilter{Raw: "a:1;;b:2"}, `query: field Raw: syntax error at offset 4 in "a:1;;b:2": empty condition`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := query.Build(tt.filter)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Build() = %q, %v; want error containing %q", e, err, tt.want)
			}
			if e != nil {
				t.Errorf("Build returned %#v with its error", e)
			}
		})
	}
}

func TestBuildRawSyntaxErrorIsWrapped(t *testing.T) {
	t.Parallel()
	_, err := query.Build(invoiceFilter{Raw: "a:b|c|d"})
	var se *query.SyntaxError
	if !errors.As(err, &se) || se.Expr != "a:b|c|d" || se.Offset != 5 {
		t.Fatalf("Build error %v does not wrap the *SyntaxError", err)
	}
}

func TestFields(t *testing.T) {
	t.Parallel()
	want := []query.Field{
		{Name: "customerId", Kind: query.IntField, GoName: "CustomerID"},
		{Name: "erpId", Kind: query.TextField, GoName: "ErpID"},
		{Name: "postedTimestamp", Kind: query.TimeField, GoName: "PostedTimestamp"},
		{Name: "closingArBalance", Kind: query.DecimalField, GoName: "ClosingArBalance"},
		{Name: "Customer.Status", Kind: query.EnumField, GoName: "Status"},
		{Name: "unsettled", Kind: query.BoolField, GoName: "Unsettled"},
	}
	for _, filter := range []any{invoiceFilter{}, &invoiceFilter{}, (*invoiceFilter)(nil)} {
		got, err := query.Fields(filter)
		if err != nil {
			t.Fatalf("Fields(%T): %v", filter, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Fields(%T) = %+v, want %+v", filter, got, want)
		}
	}
	for _, bad := range []any{nil, 3, ptr("x")} {
		if _, err := query.Fields(bad); err == nil {
			t.Errorf("Fields(%#v) did not fail", bad)
		}
	}
	type unsupported struct {
		F float64 `query:"f"`
	}
	if _, err := query.Fields(unsupported{}); err == nil || err.Error() != "query: field F: unsupported type float64" {
		t.Errorf("Fields(unsupported) = %v", err)
	}
}

func TestFieldKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		k        query.FieldKind
		name     string
		sortable bool
	}{
		{query.TextField, "TextField", true},
		{query.IntField, "IntField", false},
		{query.TimeField, "TimeField", true},
		{query.DecimalField, "DecimalField", false},
		{query.EnumField, "EnumField", false},
		{query.BoolField, "BoolField", false},
		{0, "FieldKind(0)", false},
		{7, "FieldKind(7)", false},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.name {
			t.Errorf("String() = %q, want %q", got, tt.name)
		}
		if got := tt.k.Sortable(); got != tt.sortable {
			t.Errorf("%v.Sortable() = %v", tt.k, got)
		}
	}
}

func TestIsZero(t *testing.T) {
	t.Parallel()
	one := dec("1")
	tests := []struct {
		name string
		zero bool
		want bool
	}{
		{"Text{}", query.Text{}.IsZero(), true},
		{"Equals(\"\")", query.Equals("").IsZero(), false},
		{"IsEmpty()", query.IsEmpty().IsZero(), false},
		{"TimeRange{}", query.TimeRange{}.IsZero(), true},
		{"TimeRange{DateOnly}", query.TimeRange{DateOnly: true}.IsZero(), true},
		{"TimeRange{From}", query.TimeRange{From: day(2024, 1, 1)}.IsZero(), false},
		{"DecimalRange{}", query.DecimalRange{}.IsZero(), true},
		{"DecimalRange{To}", query.DecimalRange{To: &one}.IsZero(), false},
	}
	for _, tt := range tests {
		if tt.zero != tt.want {
			t.Errorf("%s.IsZero() = %v", tt.name, tt.zero)
		}
	}
}

// decimal's String depends on package-level switches a program may flip;
// the rendering must not.
func TestDecimalRenderingIgnoresDecimalGlobals(t *testing.T) {
	// Not parallel: it flips decimal's package-level switches, which every
	// other test of the package would see while it runs.
	if testing.Short() {
		t.Skip("changes decimal package globals")
	}
	defer func(trim, sci bool) { decimal.TrimTrailingZeros, decimal.UseScientificNotation = trim, sci }(decimal.TrimTrailingZeros, decimal.UseScientificNotation)
	decimal.TrimTrailingZeros, decimal.UseScientificNotation = false, true
	e, err := query.Build(invoiceFilter{ClosingArBalance: query.DecimalBetween(dec("1.50"), decimal.New(15, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.String(), "closingArBalance:1.5|1500"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

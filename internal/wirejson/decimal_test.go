//lint:file-ignore SA5008 odd and malformed tags on purpose: the encoder must read them as encoding/json does

package wirejson

import (
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"
)

func TestMarshalDecimalIsBareNumber(t *testing.T) {
	big25 := decimal.RequireFromString("1234567890123456789012345.000000001")
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"fraction", decimal.RequireFromString("10.125"), `10.125`},
		{"zero", decimal.Zero, `0`},
		{"zero from int", decimal.NewFromInt(0), `0`},
		{"zero with scale", decimal.RequireFromString("0.000"), `0`},
		{"negative", decimal.RequireFromString("-42.50"), `-42.5`},
		{"negative below one", decimal.RequireFromString("-0.0001"), `-0.0001`},
		{"exact beyond float64", big25, `1234567890123456789012345.000000001`},
		{"negative big", big25.Neg(), `-1234567890123456789012345.000000001`},
		{"positive exponent", decimal.New(12, 3), `12000`},
		{"trailing zeros trimmed", decimal.New(1500, -2), `15`},
		{"integer trailing zeros kept", decimal.New(1500, 0), `1500`},
		{"tiny", decimal.New(5, -20), `0.00000000000000000005`},
		{"huge", decimal.New(7, 25), `70000000000000000000000000`},
		{"19 digit coefficient", decimal.New(-9223372036854775808, -4), `-922337203685477.5808`},
		{"pointer", ptr(decimal.RequireFromString("1.5")), `1.5`},
		{"nil pointer", (*decimal.Decimal)(nil), `null`},
		{"pointer to pointer", ptr(ptr(decimal.New(3, -1))), `0.3`},
		{"null valid", decimal.NewNullDecimal(decimal.New(-7, -2)), `-0.07`},
		{"null invalid", decimal.NullDecimal{Decimal: decimal.New(1, 0)}, `null`},
		{"null pointer nil", (*decimal.NullDecimal)(nil), `null`},
		{"in any", any(decimal.New(25, -1)), `2.5`},
		{"slice", []decimal.Decimal{decimal.New(1, 0), decimal.New(-1, -1)}, `[1,-0.1]`},
		{"array addressable", &[2]decimal.Decimal{decimal.New(2, 0), decimal.New(3, 0)}, `[2,3]`},
		{"map values", map[string]decimal.Decimal{"b": decimal.New(2, -2), "a": decimal.New(1, 2)}, `{"a":100,"b":0.02}`},
		{"map of pointers", map[string]*decimal.Decimal{"x": nil, "y": ptr(decimal.New(9, 0))}, `{"x":null,"y":9}`},
		{"any slice", []any{decimal.New(1, -3), &decimal.NullDecimal{}, decimal.NewNullDecimal(decimal.New(4, 0))}, `[0.001,null,4]`},
		{"map key stays text", map[decimal.Decimal]int{decimal.New(15, -1): 1}, `{"1.5":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("Marshal = %s, want %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("output %s is not valid JSON", got)
			}
		})
	}
}

// amounts covers each way a decimal can sit in a struct.
type amounts struct {
	Amount    decimal.Decimal            `json:"amount"`
	Tax       decimal.Decimal            `json:"tax,omitempty"`
	Discount  decimal.Decimal            `json:"discount,omitzero"`
	Quoted    decimal.Decimal            `json:"quoted,string"`
	Credit    *decimal.Decimal           `json:"credit"`
	Optional  *decimal.Decimal           `json:"optional,omitempty"`
	ZeroPtr   *decimal.Decimal           `json:"zero_ptr,omitzero"`
	Null      decimal.NullDecimal        `json:"null"`
	NullPtr   *decimal.NullDecimal       `json:"null_ptr,omitempty"`
	Lines     []decimal.Decimal          `json:"lines"`
	ByCountry map[string]decimal.Decimal `json:"by_country"`
}

func TestMarshalDecimalStructTags(t *testing.T) {
	zero := decimal.Zero
	tests := []struct {
		name string
		v    amounts
		want string
	}{
		{
			name: "zero amounts",
			// omitempty keeps the zero tax (a Decimal is a struct, never
			// empty); omitzero drops the zero discount (Decimal.IsZero),
			// and drops a pointer to zero as well as nil.
			v:    amounts{ZeroPtr: &zero},
			want: `{"amount":0,"tax":0,"quoted":0,"credit":null,"null":null,"lines":null,"by_country":null}`,
		},
		{
			name: "all set",
			v: amounts{
				Amount:    decimal.RequireFromString("10.125"),
				Tax:       decimal.RequireFromString("-0.50"),
				Discount:  decimal.RequireFromString("1.000"),
				Quoted:    decimal.RequireFromString("3.3"),
				Credit:    ptr(decimal.RequireFromString("1234567890123456789012345.000000001")),
				Optional:  ptr(decimal.Zero),
				ZeroPtr:   ptr(decimal.New(1, -9)),
				Null:      decimal.NewNullDecimal(decimal.New(5, 0)),
				NullPtr:   &decimal.NullDecimal{},
				Lines:     []decimal.Decimal{decimal.New(1, -1), decimal.New(-25, 1)},
				ByCountry: map[string]decimal.Decimal{"US": decimal.New(7, -2), "DE": decimal.New(19, -2)},
			},
			want: `{"amount":10.125,"tax":-0.5,"discount":1,"quoted":3.3,` +
				`"credit":1234567890123456789012345.000000001,"optional":0,"zero_ptr":0.000000001,` +
				`"null":5,"null_ptr":null,"lines":[0.1,-250],"by_country":{"DE":0.19,"US":0.07}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []any{tc.v, &tc.v} { // unaddressable and addressable paths
				got, err := Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tc.want {
					t.Errorf("Marshal(%T) =\n%s\nwant\n%s", v, got, tc.want)
				}
			}

			got, _ := Marshal(tc.v)
			var back amounts
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("encoding/json cannot decode %s: %v", got, err)
			}
			assertAmountsEqual(t, back, tc.v)
		})
	}
}

// assertAmountsEqual compares with Decimal.Equal, since the round trip may
// change a decimal's scale (1.000 comes back as 1) but never its value.
func assertAmountsEqual(t *testing.T, got, want amounts) {
	t.Helper()
	eq := func(name string, a, b decimal.Decimal) {
		if !a.Equal(b) {
			t.Errorf("%s: round trip gave %s, want %s", name, a, b)
		}
	}
	eq("Amount", got.Amount, want.Amount)
	eq("Tax", got.Tax, want.Tax)
	eq("Discount", got.Discount, want.Discount)
	eq("Quoted", got.Quoted, want.Quoted)
	eqPtr := func(name string, a, b *decimal.Decimal) {
		switch {
		case b == nil || (name == "ZeroPtr" && b.IsZero()): // omitted on the wire
			if a != nil {
				t.Errorf("%s: round trip gave %s, want nil", name, a)
			}
		case a == nil:
			t.Errorf("%s: round trip gave nil, want %s", name, b)
		default:
			eq(name, *a, *b)
		}
	}
	eqPtr("Credit", got.Credit, want.Credit)
	eqPtr("Optional", got.Optional, want.Optional)
	eqPtr("ZeroPtr", got.ZeroPtr, want.ZeroPtr)
	if got.Null.Valid != want.Null.Valid || want.Null.Valid && !got.Null.Decimal.Equal(want.Null.Decimal) {
		t.Errorf("Null: round trip gave %v, want %v", got.Null, want.Null)
	}
	// A non-nil but invalid *NullDecimal is sent as null and so decodes as nil.
	if got.NullPtr != nil && got.NullPtr.Valid {
		t.Errorf("NullPtr: round trip gave %v, want %v", got.NullPtr, want.NullPtr)
	}
	if len(got.Lines) != len(want.Lines) {
		t.Fatalf("Lines: round trip gave %v, want %v", got.Lines, want.Lines)
	}
	for i := range want.Lines {
		eq("Lines", got.Lines[i], want.Lines[i])
	}
	if len(got.ByCountry) != len(want.ByCountry) {
		t.Fatalf("ByCountry: round trip gave %v, want %v", got.ByCountry, want.ByCountry)
	}
	for k := range want.ByCountry {
		eq("ByCountry["+k+"]", got.ByCountry[k], want.ByCountry[k])
	}
}

// TestMarshalDecimalMatchesString checks appendDecimal against the digits
// Decimal.String prints under decimal's default settings, across scales and
// coefficient sizes on both sides of the int64 fast path.
func TestMarshalDecimalMatchesString(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	coefficients := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(10), big.NewInt(-1000)}
	for range 300 {
		digits := 1 + r.IntN(40)
		s := make([]byte, digits)
		for i := range s {
			s[i] = byte('0' + r.IntN(10))
		}
		if r.IntN(3) == 0 { // trailing zeros are where trimming goes wrong
			s = append(s, "000"...)
		}
		c, _ := new(big.Int).SetString(string(s), 10)
		if r.IntN(2) == 0 {
			c.Neg(c)
		}
		coefficients = append(coefficients, c)
	}
	for _, c := range coefficients {
		for exp := int32(-45); exp <= 8; exp++ {
			d := decimal.NewFromBigInt(c, exp)
			want := d.String()
			got, err := Marshal(d)
			if err != nil || string(got) != want {
				t.Fatalf("Marshal(NewFromBigInt(%s, %d)) = %s, %v; want %s", c, exp, got, err, want)
			}
		}
	}
}

// TestMarshalDecimalIgnoresGlobalSettings flips decimal's string settings
// inside this test binary only, to show the wire format does not follow them
// (the SDK itself never writes them). Not parallel: the settings are global.
func TestDecimalTypesBypassMarshalJSON(t *testing.T) {
	// Guards the reason for this package: shopspring's own method quotes.
	if b, _ := json.Marshal(decimal.New(1, 0)); string(b) != `"1"` {
		t.Skipf("decimal.MarshalJSON no longer quotes (%s); this package may be unnecessary", b)
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[decimal.Decimal](), reflect.TypeFor[*decimal.Decimal](),
		reflect.TypeFor[decimal.NullDecimal](), reflect.TypeFor[*decimal.NullDecimal](),
	} {
		if decimalTypeEncoder(typ) == nil {
			t.Errorf("%s has no decimal encoder", typ)
		}
	}
}

// embeddedDecimal gets Decimal.MarshalJSON by promotion; like encoding/json,
// Marshal calls it (documented).
type embeddedDecimal struct {
	decimal.Decimal
	Currency string
}

func TestWrappedDecimalKeepsItsMarshaler(t *testing.T) {
	v := embeddedDecimal{decimal.New(5, -1), "EUR"}
	want, _ := json.Marshal(v)
	got, err := Marshal(v)
	if err != nil || string(got) != string(want) {
		t.Errorf("Marshal = %s, %v; want encoding/json's %s", got, err, want)
	}
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

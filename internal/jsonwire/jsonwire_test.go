package jsonwire

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestMarshalWritesDecimalsBare checks the seam's encoding: decimals as
// bare JSON numbers, whatever shopspring's package-level settings (which
// the SDK never changes, and must not depend on), nil and invalid ones as
// null, and everything else as encoding/json writes it.
func TestMarshalWritesDecimalsBare(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString("10.50")
	type body struct {
		Amount   decimal.Decimal     `json:"amount"`
		Optional *decimal.Decimal    `json:"optional"`
		Set      *decimal.Decimal    `json:"set,omitempty"`
		Null     decimal.NullDecimal `json:"null"`
		Valid    decimal.NullDecimal `json:"valid"`
		Tiny     decimal.Decimal     `json:"tiny"`
		Big      decimal.Decimal     `json:"big"`
		HTML     string              `json:"html"`
		Nil      []int               `json:"nil"`
	}
	got, err := Marshal(body{
		Amount: d, Set: &d, Valid: decimal.NewNullDecimal(decimal.New(-5, 3)),
		Tiny: decimal.New(1, -9), Big: decimal.RequireFromString("123456789012345678901234567890.5"),
		HTML: "<a&b>",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"amount":10.5,"optional":null,"set":10.5,"null":null,"valid":-5000,"tiny":0.000000001,` +
		`"big":123456789012345678901234567890.5,"html":"\u003ca\u0026b\u003e","nil":null}`
	if string(got) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", got, want)
	}
}

// TestParseDecimalMatchesTheDecimalPackage checks the int64 fast path
// against decimal.NewFromString: the same coefficient and exponent.
func TestParseDecimalMatchesTheDecimalPackage(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"0", "-0", "0.0", "0.00", "1", "-1", "10.125", "10.50", "0.000001", "-0.5", "999999999999999999",
		"99999999999999999.9", "-99999999999999999.9", "9999999999999999999", "1e2", "1.5E-3", "123456789.123456789",
		`"10.5"`, `"abc"`,
	} {
		got, err := ParseDecimal([]byte(s))
		want, wantErr := decimal.NewFromString(strings.Trim(s, `"`))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%s: error %v, decimal.NewFromString's %v", s, err, wantErr)
			continue
		}
		if err == nil && (got.Exponent() != want.Exponent() || got.Coefficient().Cmp(want.Coefficient()) != 0) {
			t.Errorf("%s: %s×10^%d, want %s×10^%d", s, got.Coefficient(), got.Exponent(), want.Coefficient(), want.Exponent())
		}
	}
}

// TestParseDecimalRefusesLongDigitRuns checks the guard that replaced the
// pass over every byte of an answer: a decimal of more than MaxDigitRun
// digits in a row is refused before it is parsed, in any form.
func TestParseDecimalRefusesLongDigitRuns(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("9", MaxDigitRun+1)
	for _, s := range []string{long, "-" + long, "0." + long, `"` + long + `"`, "1." + long + "e5"} {
		if _, err := ParseDecimal([]byte(s)); !errors.Is(err, ErrNumberTooLong) {
			t.Errorf("%.20s…: %v, want ErrNumberTooLong", s, err)
		}
	}
	ok := strings.Repeat("9", MaxDigitRun)
	if _, err := ParseDecimal([]byte(ok + "." + ok)); err != nil {
		t.Errorf("two runs of %d digits: %v", MaxDigitRun, err)
	}
}

// TestArenaSharesRepeatedAmounts checks that an amount read twice in one
// decode is one value, and that values handed out are independent.
func TestArenaSharesRepeatedAmounts(t *testing.T) {
	t.Parallel()
	var a Arena
	x, err1 := a.decimal([]byte("2.893"))
	y, err2 := a.decimal([]byte("2.893"))
	z, err3 := a.decimal([]byte("2.8930"))
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	if !x.Equal(y) || x.Exponent() != y.Exponent() || !x.Equal(z) || z.Exponent() != -4 {
		t.Errorf("got %s, %s, %s (exp %d)", x, y, z, z.Exponent())
	}
	s1 := a.String([]byte("abc"))
	b := a.Bytes([]byte("xyz"))
	b = append(b, '!') // appending must not write into the next value
	s2 := a.String([]byte("def"))
	if s1 != "abc" || s2 != "def" || string(b) != "xyz!" {
		t.Errorf("arena values: %q %q %q", s1, s2, b)
	}
}

// TestUnquoteMatchesEncodingJSON checks the unescaping of strings,
// invalid UTF-8 and surrogates included (the differential fuzz target of
// the root package covers it further).
func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`"plain"`:              "plain",
		`"a\"b\\c\/d"`:         `a"b\c/d`,
		`"\b\f\n\r\t"`:         "\b\f\n\r\t",
		`"\u00e9\ud83d\ude00"`: "é😀",
		`"\ud800"`:             "\uFFFD",
		`"\ud800\u0041"`:       "\uFFFDA",
		"\"\xff\"":             "\uFFFD",
		"\"é\"":                "é",
	} {
		if got := Unquote([]byte(in)); got != want {
			t.Errorf("Unquote(%s) = %q, want %q", in, got, want)
		}
	}
}

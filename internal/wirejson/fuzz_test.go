package wirejson

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/shopspring/decimal"
)

type fuzzInner struct {
	S string  `json:"s,omitempty"`
	F float64 `json:",omitzero"`
	B []byte
}

// fuzzPlain has no decimals, so encoding/json is the oracle for all of it.
type fuzzPlain struct {
	Name   string            `json:"name"`
	Quoted string            `json:"quoted,string"`
	N      int64             `json:",string"`
	U      uint32            `json:"u,omitempty"`
	F64    float64           `json:"f64"`
	F32    float32           `json:"f32,string"`
	Bool   bool              `json:",omitempty"`
	Map    map[string]string `json:"m"`
	IntKey map[int64]any
	Raw    json.RawMessage `json:",omitempty"`
	Num    json.Number     `json:",omitempty"`
	Inner  fuzzInner
	Ptr    *fuzzInner `json:",omitempty"`
	List   []any
	Text   valueText
}

// fuzzAmounts wraps fuzzPlain with every decimal shape.
type fuzzAmounts struct {
	Plain  fuzzPlain
	Amount decimal.Decimal            `json:"amount"`
	Parsed decimal.Decimal            `json:"parsed,omitzero"`
	Ptr    *decimal.Decimal           `json:"ptr"`
	Null   decimal.NullDecimal        `json:"null"`
	Any    any                        `json:"any"`
	Map    map[string]decimal.Decimal `json:"map"`
}

func FuzzMarshal(f *testing.F) {
	f.Add("name", "quo\"ted<", int64(-5), uint32(7), 1.5, float32(0.25), true, "k", "v", " [1, 2] ", "1e3", []byte("\xff\x00"), int64(12345), int32(-2), "10.125")
	f.Add("\u2028", "", int64(math.MinInt64), uint32(0), 1e21, float32(1e-7), false, "", "\xe2\x80", "{", "01", []byte(nil), int64(0), int32(5), "-0.000")
	f.Add("<&>", "\t", int64(1), uint32(1), math.Inf(1), float32(3), true, "a", "b", `"x"`, "", []byte{}, int64(-99), int32(-30), "1e-20")

	f.Fuzz(func(t *testing.T, name, quoted string, n int64, u uint32, f64 float64, f32 float32, b bool,
		key, val, raw, num string, bs []byte, coef int64, exp int32, amount string) {
		plain := fuzzPlain{
			Name: name, Quoted: quoted, N: n, U: u, F64: f64, F32: f32, Bool: b,
			Map:    map[string]string{key: val, val: name},
			IntKey: map[int64]any{n: name, int64(u): []byte(key)},
			Raw:    json.RawMessage(raw), Num: json.Number(num),
			Inner: fuzzInner{S: val, F: f64, B: bs},
			List:  []any{name, n, f32, b, nil, map[string]any{key: bs}},
			Text:  valueText{S: quoted},
		}
		if len(bs)%2 == 0 {
			plain.Ptr = &fuzzInner{S: key}
		}

		want, wantErr := json.Marshal(plain)
		got, gotErr := Marshal(plain)
		if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
			t.Fatalf("error = %v, encoding/json says %v", gotErr, wantErr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Marshal mismatch\n got: %s\nwant: %s", got, want)
		}
		if wantErr != nil {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("invalid JSON: %s", got)
		}

		// Keep exponents where String stays cheap; the formatting logic
		// does not depend on their size.
		d := decimal.New(coef, exp%64)
		parsed, err := decimal.NewFromString(amount)
		if err != nil || parsed.Exponent() < -200 || parsed.Exponent() > 200 {
			parsed = decimal.Zero
		}
		withDecimals := fuzzAmounts{
			Plain: plain, Amount: d, Parsed: parsed, Ptr: &parsed,
			Null: decimal.NullDecimal{Decimal: d, Valid: b}, Any: d,
			Map: map[string]decimal.Decimal{key: parsed},
		}
		out, err := Marshal(withDecimals)
		if err != nil {
			t.Fatalf("Marshal with decimals: %v", err)
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON: %s", out)
		}
		if !bytes.Contains(out, []byte(`"amount":`+d.String()+`,`)) {
			t.Fatalf("amount %s not written as bare %s in %s", d.String(), d.String(), out)
		}
		// Only the decimals are decoded back; Plain's text types have no
		// decoders and encoding/json already vouched for that part.
		var back struct {
			Amount decimal.Decimal            `json:"amount"`
			Parsed decimal.Decimal            `json:"parsed"`
			Ptr    *decimal.Decimal           `json:"ptr"`
			Null   decimal.NullDecimal        `json:"null"`
			Map    map[string]decimal.Decimal `json:"map"`
		}
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("decoding %s: %v", out, err)
		}
		if !back.Amount.Equal(d) || !back.Parsed.Equal(parsed) || back.Ptr == nil || !back.Ptr.Equal(parsed) ||
			back.Null.Valid != b || b && !back.Null.Decimal.Equal(d) || !onlyValue(back.Map).Equal(parsed) {
			t.Fatalf("round trip of %s lost a decimal: %+v", out, back)
		}
	})
}

// onlyValue returns the value of a one-entry map, whose key may have been
// rewritten on the wire (invalid UTF-8 becomes U+FFFD).
func onlyValue(m map[string]decimal.Decimal) decimal.Decimal {
	for _, v := range m {
		if len(m) == 1 {
			return v
		}
	}
	return decimal.New(-1, -1000) // never a fuzzed value, so the check fails
}

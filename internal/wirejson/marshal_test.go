package wirejson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"sync"
	"testing"
	"time"
)

// diffCases are values without decimals, on which Marshal must agree with
// encoding/json byte for byte.
func diffCases() []struct {
	name string
	v    any
} {
	one, seven := 1, 7
	pone := &one
	when := time.Date(2024, 2, 29, 13, 4, 5, 600, time.FixedZone("X", 3600))
	marshalers := []ptrMarshaler{{1}, {2}}
	full := allTags{
		Plain: 1, Renamed: 2, Skipped: 3, Dash: 4,
		OmitEmpty: "x", OmitEmptyS: []int{1}, OmitEmptyM: map[string]int{"a": 1}, OmitEmptyP: &one, OmitEmptyI: 0,
		OmitZero: when, OmitZeroS: struct{ A int }{1}, OmitZeroA: [2]int{0, 1}, OmitBoth: 5,
		Zeroer: zeroer{0}, PtrZeroer: ptrZeroer{0}, ZeroerPtr: &zeroer{1}, ZeroerIfc: zeroer{3},
		Str: -9, StrUint: 255, StrBool: true, StrFloat: 1.5e-9, StrString: "a\"b\\c<d>\n", StrPtr: &seven,
		StrNumber: "12.5", StrSlice: []int{1}, Weird: 6, Invalid: 7, Unicode: 8, OptsOnly: 9, unexported: 10,
	}
	return []struct {
		name string
		v    any
	}{
		{"nil", nil},
		{"bools", []bool{true, false}},
		{"ints", []any{int(-1), int8(math.MinInt8), int16(math.MaxInt16), int32(math.MinInt32), int64(math.MinInt64), int64(math.MaxInt64)}},
		{"uints", []any{uint(0), uint8(255), uint16(math.MaxUint16), uint32(math.MaxUint32), uint64(math.MaxUint64), uintptr(7)}},
		{"float64s", []float64{0, math.Copysign(0, -1), 0.1, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, -1.5e300, math.SmallestNonzeroFloat64, math.MaxFloat64}},
		{"float32s", []float32{1.0 / 3, 1e20, 1e21, 1e-6, 1e-7, math.MaxFloat32, 16777217}},
		{"string escapes", "\x00\x01\x07\x1f\b\f\n\r\t\"\\/<>&'\x7f \u2028\u2029"},
		{"string unicode", "héllo 世界 😀 \ufffd \u00a0"},
		{"string invalid utf8", "a\xffb\xc3(c\xe2\x80d\xed\xa0\x80e\xf0\x9f\x98"},
		{"string truncated rune", "\xe2\x80"},
		{"empty string", ""},
		{"bytes", []byte("hello\x00\xff<>")},
		{"nil bytes", []byte(nil)},
		{"empty bytes", []byte{}},
		{"byte array", [3]byte{1, 2, 3}},
		{"text bytes", []textByte{'x', 'y'}},
		{"nil slice", []int(nil)},
		{"empty slice", []string{}},
		{"nested slices", [][]any{{1, "a", nil}, nil, {}}},
		{"nil map", map[string]int(nil)},
		{"string map", map[string]any{"b": 1, "a": []int{2}, "": nil, "<&>": "x", "é": true}},
		{"int map", map[int]string{-10: "a", 2: "b", 10: "c", -2: "d"}},
		{"uint8 map", map[uint8]bool{200: true, 3: false}},
		{"text key map", map[textKey]int{3: 1, -1: 2, 20: 3}},
		{"map of marshalers", map[string]ptrMarshaler{"x": {5}}},
		{"raw message", json.RawMessage(" [1, {\"a\" : \"<b>\" } ]\n")},
		{"nil raw message", struct{ R json.RawMessage }{}},
		{"number", []json.Number{"0", "-1.5e+3", "12"}},
		{"empty number", json.Number("")},
		{"time", when},
		{"time ptr nil", (*time.Time)(nil)},
		{"pointer to pointer", &pone},
		{"interface holding pointer", []any{&one, (*int)(nil)}},
		{"value marshaler", valueMarshaler{3}},
		{"value marshaler ptr", &valueMarshaler{4}},
		{"ptr marshaler unaddressable", ptrMarshaler{5}},
		{"ptr marshaler addressable", &ptrMarshaler{6}},
		{"ptr marshaler nil", (*ptrMarshaler)(nil)},
		{"ptr marshaler slice elems", marshalers},
		{"ptr marshaler array unaddressable", [2]ptrMarshaler{{7}, {8}}},
		{"ptr marshaler array addressable", &[2]ptrMarshaler{{7}, {8}}},
		{"value text", []valueText{{"a&b"}}},
		{"ptr text unaddressable", ptrText{"u"}},
		{"ptr text addressable", &ptrText{"a"}},
		{"all tags full", full},
		{"all tags full ptr", &full},
		{"all tags zero", allTags{ZeroerPtr: &zeroer{42}, Zeroer: zeroer{42}, PtrZeroer: ptrZeroer{7}}},
		{"all tags zero ptr", &allTags{PtrZeroer: ptrZeroer{7}, ZeroerIfc: (*zeroer)(nil)}},
		{"conflicts", conflicts{conflictA{1, 2}, conflictB{3, 4}}},
		{"shadow", shadow{conflictA{1, 2}, "x"}},
		{"named embed", namedEmbed{Embedded{1, "b"}, 2}},
		{"ptr embed nil", ptrEmbed{Z: 1}},
		{"ptr embed set", ptrEmbed{&Embedded{1, "b"}, &embeddedUnexported{3, 4}, 5}},
		{"iface embed", ifaceEmbed{Stringer: when}},
		{"recursive", &node{1, &node{V: 2}, []node{{V: 3}, {V: 4, Kids: []node{}}}}},
		{"anonymous struct", struct {
			A int `json:"a"`
			B struct {
				C []string `json:"c,omitempty"`
			}
		}{A: 1}},
		{"empty struct", struct{}{}},
		{"array of any", [3]any{1, "x", map[string]int{"a": 1}}},
		{"nil marshaler interfaces", struct {
			M json.Marshaler
			T encoding.TextMarshaler
		}{}},
		{"nil text marshaler pointer", []*valueText{nil, {"x"}}},
		{"pointer text keys", map[*valueText]int{nil: 1, {"k"}: 2}},
	}
}

func TestMarshalMatchesEncodingJSON(t *testing.T) {
	for _, tc := range diffCases() {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			got, err := Marshal(tc.v)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Marshal mismatch\n got: %s\nwant: %s", got, want)
			}
			prefix := []byte("prefix:")
			app, err := Append(prefix, tc.v)
			if err != nil || !bytes.Equal(app, append(prefix, want...)) {
				t.Errorf("Append = %s, %v; want prefix:%s", app, err, want)
			}
		})
	}
}

// cyclic points at itself; both encoders give up after 1000 levels.
type cyclic struct{ Next *cyclic }

func TestMarshalErrorsMatchEncodingJSON(t *testing.T) {
	loop := &cyclic{}
	loop.Next = loop
	loopSlice := []any{nil}
	loopSlice[0] = loopSlice
	loopMap := map[string]any{}
	loopMap["m"] = loopMap

	tests := []struct {
		name string
		v    any
	}{
		{"chan", make(chan int)},
		{"func field", struct{ F func() }{func() {}}},
		{"complex", complex(1, 2)},
		{"NaN", math.NaN()},
		{"+Inf float32", float32(math.Inf(1))},
		{"-Inf quoted", struct {
			F float64 `json:",string"`
		}{math.Inf(-1)}},
		{"array map key", map[[2]int]int{{1, 2}: 3}},
		{"failing marshaler", []any{1, failingMarshaler{}}},
		{"invalid marshaler", map[string]any{"x": invalidMarshaler{}}},
		{"failing text", failingText{}},
		{"failing text key", map[failingTextKey]int{1: 1}},
		{"invalid number", json.Number("1e")},
		{"invalid number 2", json.Number("01")},
		{"cyclic pointer", loop},
		{"cyclic slice", loopSlice},
		{"cyclic map", loopMap},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, want := json.Marshal(tc.v)
			if want == nil {
				t.Fatal("encoding/json unexpectedly succeeded")
			}
			got, err := Marshal(tc.v)
			if err == nil {
				t.Fatalf("Marshal succeeded with %s, want error %q", got, want)
			}
			if got != nil {
				t.Errorf("Marshal returned %q alongside its error", got)
			}
			if err.Error() != want.Error() {
				t.Errorf("error = %q\nwant  %q", err, want)
			}
			if wantType, gotType := errorType(want), errorType(err); wantType != gotType {
				t.Errorf("error type = %s, want %s", gotType, wantType)
			}
			dst := []byte("keep")
			out, err := Append(dst, tc.v)
			if err == nil || string(out) != "keep" {
				t.Errorf("Append on error = %q, %v; want dst unchanged and an error", out, err)
			}
		})
	}
}

func errorType(err error) string {
	var (
		ute *json.UnsupportedTypeError
		uve *json.UnsupportedValueError
		me  *json.MarshalerError
	)
	switch {
	case errors.As(err, &ute):
		return "UnsupportedTypeError"
	case errors.As(err, &uve):
		return "UnsupportedValueError"
	case errors.As(err, &me):
		return "MarshalerError"
	}
	return "other"
}

type failingTextKey int

// MarshalText always fails, to exercise map key errors.
func (failingTextKey) MarshalText() ([]byte, error) { return nil, errors.New("bad key") }

func TestMarshalerErrorUnwraps(t *testing.T) {
	_, err := Marshal(failingText{})
	var me *json.MarshalerError
	if !errors.As(err, &me) || me.Type.String() != "wirejson.failingText" || me.Unwrap().Error() != "no text" {
		t.Fatalf("err = %#v", err)
	}
}

// TestConcurrentFirstUse races the first encodings of a recursive type, the
// case the forwarding encoder in typeEncoder exists for.
func TestConcurrentFirstUse(t *testing.T) {
	type tree struct {
		V    int
		Kids []*tree `json:",omitempty"`
		Any  any     `json:",omitempty"`
	}
	v := &tree{V: 1, Kids: []*tree{{V: 2, Any: &tree{V: 3}}}}
	want, _ := json.Marshal(v)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got, err := Marshal(v)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("Marshal = %s, %v; want %s", got, err, want)
			}
		})
	}
	wg.Wait()
}

func TestNumberValidationMatchesEncodingJSON(t *testing.T) {
	for _, n := range []string{
		"0", "-0", "7", "-12.5", "1e5", "1E+5", "1e-05", "0.5e3", "123456789012345678901234567890",
		"-", "+1", "01", "1.", ".5", "1e", "1e+", "1E-", "1.5e", "0x10", " 1", "1 ", "NaN", "1e5.5", "--1",
	} {
		want, wantErr := json.Marshal(json.Number(n))
		got, gotErr := Marshal(json.Number(n))
		if string(got) != string(want) || (wantErr == nil) != (gotErr == nil) ||
			wantErr != nil && wantErr.Error() != gotErr.Error() {
			t.Errorf("Number %q: got %s, %v; encoding/json %s, %v", n, got, gotErr, want, wantErr)
		}
	}
}

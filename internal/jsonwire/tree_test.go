package jsonwire

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"
)

// TestUnmarshalTree checks the tree decoder the fake binds requests
// with: numbers keep their text, and every way a body can be wrong has
// an error the caller can tell apart.
func TestUnmarshalTree(t *testing.T) {
	t.Parallel()
	got, err := UnmarshalTree([]byte(` {"a":[1.50,"x",true,null],"b":{"c":-0e3},"a2":1}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": []any{Number("1.50"), "x", true, nil}, "b": map[string]any{"c": Number("-0e3")}, "a2": Number("1")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UnmarshalTree = %#v, want %#v", got, want)
	}
	for _, tt := range []struct {
		in     string
		check  func(error) bool
		expect string
	}{
		{`{"a":1} {}`, func(err error) bool { return errors.Is(err, ErrTrailingData) }, "ErrTrailingData"},
		{`[1,2`, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }, "io.ErrUnexpectedEOF"},
		{`{"a":,}`, func(err error) bool {
			var se *SyntaxError
			return errors.As(err, &se) && se.Offset == stdlibSyntaxOffset(t, `{"a":,}`)
		}, "*SyntaxError at encoding/json's offset"},
	} {
		if _, err := UnmarshalTree([]byte(tt.in)); !tt.check(err) {
			t.Errorf("UnmarshalTree(%s) error %v, want %s", tt.in, err, tt.expect)
		}
	}
}

// stdlibSyntaxOffset is the Offset of encoding/json's SyntaxError for
// in, which the Go release and its JSON experiment decide.
func stdlibSyntaxOffset(t *testing.T, in string) int64 {
	var se *json.SyntaxError
	if err := json.Unmarshal([]byte(in), new(any)); !errors.As(err, &se) {
		t.Fatalf("encoding/json: %v, want a *SyntaxError", err)
	}
	return se.Offset
}

// TestMarshalIndent checks the indented form: decimals bare, empty
// arrays and objects on one line.
func TestMarshalIndent(t *testing.T) {
	t.Parallel()
	v := struct {
		Amount decimal.Decimal `json:"amount"`
		Empty  []int           `json:"empty"`
		Obj    map[string]int  `json:"obj"`
		List   []string        `json:"list"`
	}{decimal.RequireFromString("10.125"), []int{}, map[string]int{}, []string{"a", "b"}}
	got, err := MarshalIndent(v, "  ")
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"amount\": 10.125,\n  \"empty\": [],\n  \"obj\": {},\n  \"list\": [\n    \"a\",\n    \"b\"\n  ]\n}"
	if string(got) != want {
		t.Errorf("MarshalIndent =\n%s\nwant\n%s", got, want)
	}
}

// TestMarshalWithExtra checks how a resource's unmodelled members are
// written back: after the modelled ones, in the order of their names, a
// nil value as null, and only onto a JSON object.
func TestMarshalWithExtra(t *testing.T) {
	t.Parallel()
	type resource struct {
		A     int                        `json:"a"`
		Extra map[string]json.RawMessage `json:"-"`
	}
	for _, tt := range []struct {
		extra map[string]json.RawMessage
		want  string
	}{
		{nil, `{"a":1}`},
		{map[string]json.RawMessage{"z": []byte(`[1]`), "b": []byte(`{"c":2}`)}, `{"a":1,"b":{"c":2},"z":[1]}`},
		{map[string]json.RawMessage{"n": nil}, `{"a":1,"n":null}`},
		// A value as it came; the name quoted (escaping HTML characters is
		// left to the JSON API that writes the result, as it does anyway).
		{map[string]json.RawMessage{"<q>": []byte(`"\u00e9"`)}, `{"a":1,"<q>":"\u00e9"}`},
	} {
		got, err := MarshalWithExtra(resource{A: 1}, tt.extra)
		if err != nil || string(got) != tt.want {
			t.Errorf("MarshalWithExtra(%q) = %s, %v; want %s", tt.extra, got, err, tt.want)
		}
	}
	if b, err := MarshalWithExtra([]int{1}, map[string]json.RawMessage{"x": []byte(`1`)}); err == nil {
		t.Errorf("a value that is not an object: %s, no error", b)
	}
}

// TestValid checks Valid on what the fake asks of it: one number.
func TestValid(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{"20.00": true, "-1e3": true, ".5": false, "+5": false, "1 2": false, `"1"`: true, "": false} {
		if got := Valid([]byte(in)); got != want {
			t.Errorf("Valid(%q) = %v, want %v", in, got, want)
		}
	}
}

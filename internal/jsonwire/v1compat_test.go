package jsonwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// encoding/json is the reference in this file: what the seam replaced
// must accept, reject and produce what it did.

// TestUnmarshalStrictMatchesDisallowUnknownFields checks UnmarshalStrict
// against encoding/json's Decoder with DisallowUnknownFields, followed by
// a check that nothing but space comes after the value.
func TestUnmarshalStrictMatchesDisallowUnknownFields(t *testing.T) {
	t.Parallel()
	type state struct {
		Path string  `json:"p,omitempty"`
		IDs  []int64 `json:"i,omitempty"`
		On   bool    `json:"s,omitempty"`
	}
	for _, in := range []string{
		`{}`, ` {"p":"/a","i":[1,2],"s":true} `, `{"P":"/a"}`, `{"p":"/a","p":"/b"}`, `{"i":null}`, "{\"p\":\"\xff\"}",
		`{"x":1}`, `{"p":"/a","x":{}}`, `{"i":[1,"2"]}`, `{"i":[1.5]}`, `[]`, `null`, `{"p":`, `{}]`, `{}}`, `{} {}`, `{}x`,
	} {
		var want, got state
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		dec.DisallowUnknownFields()
		wantErr := dec.Decode(&want)
		if wantErr == nil {
			if _, err := dec.Token(); err != io.EOF {
				wantErr = errors.New("trailing data")
			}
		}
		gotErr := UnmarshalStrict([]byte(in), &got)
		if (gotErr != nil) != (wantErr != nil) {
			t.Errorf("%q: error %v, encoding/json's %v", in, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v, encoding/json's %+v", in, got, want)
		}
	}
}

// TestStdlibNumberAsEncodingJSON checks that encoding/json's Number, which
// the engine would take for a plain string, is read and written as
// encoding/json does: a caller's type may hold one (BulkPriceChangePreview
// and Extra decode into the caller's values).
func TestStdlibNumberAsEncodingJSON(t *testing.T) {
	t.Parallel()
	type doc struct {
		N   json.Number            `json:"n"`
		P   *json.Number           `json:"p,omitempty"`
		M   map[json.Number]string `json:"m,omitempty"`
		Any any                    `json:"any,omitempty"`
	}
	for _, in := range []string{
		`{"n":12.50}`, `{"n":-1e400,"p":7}`, `{"n":"10.125"}`, `{"n":null,"p":null}`, `{"m":{"1.5":"a"}}`,
		`{"n":"abc"}`, `{"n":""}`, `{"n":true}`, `{"n":{}}`, `{"p":[1]}`,
	} {
		var want, got doc
		wantErr := json.Unmarshal([]byte(in), &want)
		gotErr := Unmarshal([]byte(in), &got)
		if (gotErr != nil) != (wantErr != nil) {
			t.Errorf("Unmarshal %s: error %v, encoding/json's %v", in, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			var wantType *json.UnmarshalTypeError
			var gotType *json.UnmarshalTypeError
			// The SDK's decoder of Number does not say which field
			// (Struct, Field) holds it.
			if errors.As(wantErr, &wantType) && (!errors.As(gotErr, &gotType) ||
				kindOf(gotType.Value) != kindOf(wantType.Value) || gotType.Type.String() != wantType.Type.String()) {
				t.Errorf("Unmarshal %s: error %#v, want an *UnmarshalTypeError like %q", in, gotErr, wantErr)
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Unmarshal %s = %+v, encoding/json's %+v", in, got, want)
		}
	}
	seven := json.Number("7")
	for _, v := range []doc{
		{N: "12.50", P: &seven, M: map[json.Number]string{"1.5": "a"}},
		{N: "", Any: json.Number("-3")},
		{N: "abc"},
		{N: "1 "},
	} {
		want, wantErr := json.Marshal(v)
		got, gotErr := Marshal(v)
		if (gotErr != nil) != (wantErr != nil) || string(got) != string(want) {
			t.Errorf("Marshal %+v = %s, %v; encoding/json's %s, %v", v, got, gotErr, want, wantErr)
		}
	}
}

// kindOf is the JSON kind an UnmarshalTypeError's Value names: "string"
// for `string "abc"`, as Go 1.27's encoding/json words it.
func kindOf(value string) string {
	kind, _, _ := strings.Cut(value, " ")
	return kind
}

// TestUnmarshalEmptyIsUnexpectedEOF checks that a document with no value
// is an error a caller cannot take for the end of a stream, as
// encoding/json's "unexpected end of JSON input" is not.
func TestUnmarshalEmptyIsUnexpectedEOF(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", " \n"} {
		var v struct{}
		if err := Unmarshal([]byte(in), &v); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("Unmarshal(%q) = %v, want io.ErrUnexpectedEOF", in, err)
		}
		if err := UnmarshalStrict([]byte(in), &v); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("UnmarshalStrict(%q) = %v, want io.ErrUnexpectedEOF", in, err)
		}
	}
}

package jsonwire

import (
	"bytes"
	"errors"
	"io"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// What the fake server (billingtest) needs besides Marshal and Unmarshal:
// an indented encoding, a decoder that keeps numbers as their text, and
// the error types it inspects to word its messages. They are the engine's
// encoding/json (v1) compatibility types, so that errors.As works on what
// Unmarshal returns for types without a generated decoder.

// Number is a JSON number kept as its text, as UnmarshalTree leaves
// numbers. It encodes as the bare number it holds.
type Number = jsonv1.Number

// SyntaxError is malformed JSON. Its Offset counts the bytes read up to
// and including the offending one, as encoding/json counts them.
type SyntaxError = jsonv1.SyntaxError

// UnmarshalTypeError is a JSON value of a kind a Go value cannot hold,
// from Unmarshal into a type without a generated decoder (those report a
// *TypeError): Value describes the JSON ("string", "number 1.5"), Type is
// the Go type and Field the path to it.
type UnmarshalTypeError = jsonv1.UnmarshalTypeError

// ErrTrailingData is the error of a document with more after its one
// JSON value.
var ErrTrailingData = errTrailing

// MarshalIndent is Marshal with one member or element a line, each level
// indented by indent more than its parent, and a space after each colon.
func MarshalIndent(v any, indent string) ([]byte, error) {
	return json.Marshal(v, options(), jsontext.Multiline(true), jsontext.WithIndent(indent))
}

// UnmarshalTree decodes exactly one JSON value from b as encoding/json
// decodes into an interface with UseNumber: objects as map[string]any,
// arrays as []any, numbers as Number (their exact text), strings, bools
// and nil. A syntax error is a *SyntaxError, input that ends too early
// io.ErrUnexpectedEOF, and more after the value ErrTrailingData.
func UnmarshalTree(b []byte) (any, error) {
	dec := jsonv1.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, ErrTrailingData
	}
	return tree, nil
}

// Valid reports whether b is one valid JSON value.
func Valid(b []byte) bool { return jsontext.Value(b).IsValid() }

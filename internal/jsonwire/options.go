package jsonwire

import (
	"bytes"
	json1 "encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"sync"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/shopspring/decimal"
)

// Decoder is the engine's tokenizer, which generated decoders read from.
type Decoder = jsontext.Decoder

// Encoder is the engine's token writer.
type Encoder = jsontext.Encoder

// options are encoding/json's semantics with the SDK's decimal handling.
// encoding/json's Number is handled as the engine's own v1 Number (a bare
// number both ways), as encoding/json handles it in a caller's type: the
// engine knows only its own, and would take it for a plain string.
// They are built once, on first use, and never change: building them per
// call cost a sixth of the fake's CPU in a sweep, and fresh marshaler sets
// defeat the engine's per-type cache of arshalers.
var options = sync.OnceValue(func() json.Options {
	return json.JoinOptions(
		jsonv1.DefaultOptionsV1(),
		json.WithMarshalers(json.JoinMarshalers(
			json.MarshalToFunc(marshalDecimal),
			json.MarshalToFunc(marshalDecimalPtr),
			json.MarshalToFunc(marshalNullDecimal),
			json.MarshalToFunc(marshalNumber),
		)),
		json.WithUnmarshalers(json.JoinUnmarshalers(
			json.UnmarshalFromFunc(unmarshalNumber),
			json.UnmarshalFromFunc(func(d *Decoder, v *decimal.Decimal) error { return ReadDecimal(d, nil, v) }),
			json.UnmarshalFromFunc(func(d *Decoder, v **decimal.Decimal) error { return ReadDecimalPtr(d, nil, v) }),
		)),
	)
})

// decoderOptions make the tokenizer as permissive as encoding/json is
// about duplicate names and invalid UTF-8 (which it replaces when a
// string is decoded), and skip the bookkeeping of names that a strict
// tokenizer does.
var decoderOptions = sync.OnceValue(func() json.Options {
	return json.JoinOptions(options(), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
})

// strictOptions are decoderOptions that also refuse members no field
// matches, as encoding/json's Decoder.DisallowUnknownFields does.
var strictOptions = sync.OnceValue(func() json.Options {
	return json.JoinOptions(decoderOptions(), json.RejectUnknownMembers(true))
})

// Marshal encodes v with encoding/json's rules, except that decimals are
// bare JSON numbers.
func Marshal(v any) ([]byte, error) {
	return json.Marshal(v, options())
}

// NewDecoder is a tokenizer over r with the SDK's decoding options.
func NewDecoder(r io.Reader) *Decoder {
	return jsontext.NewDecoder(r, decoderOptions())
}

// Unmarshal decodes exactly one JSON value from b into v, as
// encoding/json.Unmarshal would, with the exceptions listed in the
// package documentation for types with generated decoders. Input with no
// value at all is io.ErrUnexpectedEOF.
func Unmarshal(b []byte, v any) error {
	dec := jsontext.NewDecoder(bytes.NewReader(b), decoderOptions())
	if err := UnmarshalDecode(dec, v); err != nil {
		return noEOF(err)
	}
	return ExpectEOF(dec)
}

// UnmarshalStrict is Unmarshal that also fails on an object member that
// no field of v matches (names match as in Unmarshal), as encoding/json
// does after Decoder.DisallowUnknownFields. It is for the SDK's own
// formats, such as a cursor's text, where an unknown member means the
// text was not made by this SDK; types with their own decoder (the
// generated ones among them) decide for themselves.
func UnmarshalStrict(b []byte, v any) error {
	dec := jsontext.NewDecoder(bytes.NewReader(b), strictOptions())
	if err := json.UnmarshalDecode(dec, v); err != nil {
		return noEOF(err)
	}
	return ExpectEOF(dec)
}

// noEOF turns io.EOF, the tokenizer's word for a stream with no more
// values, into io.ErrUnexpectedEOF: a document with no value is cut
// short, and a caller reading values in a loop must not take it for the
// end (encoding/json says "unexpected end of JSON input").
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// UnmarshalDecode decodes the next value of dec into v through the
// engine, with the options of Unmarshal.
func UnmarshalDecode(dec *Decoder, v any) error {
	return json.UnmarshalDecode(dec, v)
}

// ExpectEOF fails unless dec has reached the end of its input: a second
// value or trailing bytes are errors, not something to ignore.
func ExpectEOF(dec *Decoder) error {
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = errTrailing
		}
		return err
	}
	return nil
}

func marshalDecimal(enc *Encoder, d decimal.Decimal) error {
	return enc.WriteValue(AppendDecimal(enc.AvailableBuffer(), d))
}

func marshalDecimalPtr(enc *Encoder, d *decimal.Decimal) error {
	if d == nil {
		return enc.WriteToken(jsontext.Null)
	}
	return marshalDecimal(enc, *d)
}

func marshalNullDecimal(enc *Encoder, d decimal.NullDecimal) error {
	if !d.Valid {
		return enc.WriteToken(jsontext.Null)
	}
	return marshalDecimal(enc, d.Decimal)
}

// MarshalWithExtra encodes v, which must encode as a JSON object,
// followed by the members of extra in the order of their names: the
// members of a resource that the SDK does not model, written back as they
// came.
func MarshalWithExtra[M ~map[string]json1.RawMessage](v any, extra M) ([]byte, error) {
	b, err := json.Marshal(v, options())
	if err != nil || len(extra) == 0 {
		return b, err
	}
	if len(b) < 2 || b[len(b)-1] != '}' {
		return nil, fmt.Errorf("jsonwire: %T does not encode as a JSON object", v)
	}
	b = b[:len(b)-1]
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		if b, err = jsontext.AppendQuote(b, name); err != nil {
			return nil, err
		}
		raw := extra[name]
		if len(raw) == 0 {
			raw = json1.RawMessage("null")
		}
		b = append(append(b, ':'), raw...)
	}
	return append(b, '}'), nil
}

// marshalNumber writes encoding/json's Number as encoding/json does: the
// bare number, 0 for the empty one, and an error for text that is not a
// JSON number. Without it the engine, outside the jsonv2 experiment, would
// take Number for a plain string.
func marshalNumber(enc *Encoder, n json1.Number) error {
	if inName(enc.StackIndex(enc.StackDepth())) {
		return enc.WriteToken(jsontext.String(string(n))) // a map key, as in encoding/json
	}
	if n == "" {
		n = "0"
	}
	if !isNumber([]byte(n)) {
		return fmt.Errorf("json: invalid number literal %q", string(n))
	}
	return enc.WriteValue(jsontext.Value(n))
}

// unmarshalNumber reads encoding/json's Number as encoding/json does: a
// JSON number's text, or a string that holds one; null leaves it as it is.
func unmarshalNumber(dec *Decoder, n *json1.Number) error {
	if inName(dec.StackIndex(dec.StackDepth())) {
		tok, err := dec.ReadToken() // a map key, as in encoding/json
		*n = json1.Number(tok.String())
		return err
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	switch v.Kind() {
	case 'n':
		return nil
	case '0':
		*n = json1.Number(v)
		return nil
	case '"':
		if s := Unquote(v); isNumber([]byte(s)) {
			*n = json1.Number(s)
			return nil
		}
	}
	return &json1.UnmarshalTypeError{Value: KindName(v.Kind()), Type: reflect.TypeFor[json1.Number](), Offset: dec.InputOffset()}
}

// isNumber reports whether b is exactly one JSON number, with no space
// around it (a number ends with a digit).
func isNumber(b []byte) bool {
	return len(b) > 0 && (b[0] == '-' || '0' <= b[0] && b[0] <= '9') &&
		'0' <= b[len(b)-1] && b[len(b)-1] <= '9' && jsontext.Value(b).IsValid()
}

// inName reports whether the next value of an encoder or decoder whose
// innermost container is of kind k with n tokens so far is an object
// member's name.
func inName(k jsontext.Kind, n int64) bool { return k == '{' && n%2 == 0 }

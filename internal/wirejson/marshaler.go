package wirejson

import (
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
)

func marshalerEncoder(_ *encodeState, dst []byte, v reflect.Value, _ bool) ([]byte, error) {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return append(dst, "null"...), nil
	}
	m, ok := reflect.TypeAssert[json.Marshaler](v)
	if !ok { // a nil interface of a Marshaler interface type
		return append(dst, "null"...), nil
	}
	return appendMarshalJSON(dst, m, v.Type())
}

func addrMarshalerEncoder(_ *encodeState, dst []byte, v reflect.Value, _ bool) ([]byte, error) {
	m, _ := reflect.TypeAssert[json.Marshaler](v.Addr())
	return appendMarshalJSON(dst, m, v.Type())
}

// appendMarshalJSON appends m's output after checking and compacting it, as
// encoding/json does, so a broken method cannot corrupt the document.
func appendMarshalJSON(dst []byte, m json.Marshaler, t reflect.Type) ([]byte, error) {
	b, err := m.MarshalJSON()
	if err == nil {
		var out []byte
		if out, err = appendCompact(dst, b); err == nil {
			return out, nil
		}
	}
	return dst, &json.MarshalerError{Type: t, Err: err}
}

func textMarshalerEncoder(_ *encodeState, dst []byte, v reflect.Value, _ bool) ([]byte, error) {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return append(dst, "null"...), nil
	}
	m, ok := reflect.TypeAssert[encoding.TextMarshaler](v)
	if !ok {
		return append(dst, "null"...), nil
	}
	return appendMarshalText(dst, m, v.Type())
}

func addrTextMarshalerEncoder(_ *encodeState, dst []byte, v reflect.Value, _ bool) ([]byte, error) {
	m, _ := reflect.TypeAssert[encoding.TextMarshaler](v.Addr())
	return appendMarshalText(dst, m, v.Type())
}

func appendMarshalText(dst []byte, m encoding.TextMarshaler, t reflect.Type) ([]byte, error) {
	b, err := m.MarshalText()
	if err != nil {
		return dst, marshalTextError(t, err)
	}
	return appendString(dst, b), nil
}

// marshalTextError returns the *json.MarshalerError encoding/json returns for
// a failing MarshalText. Its "MarshalText" wording lives in an unexported
// field, so the error is obtained from encoding/json itself (on the failure
// path only, with a stand-in that just returns err) and retargeted at t.
func marshalTextError(t reflect.Type, err error) error {
	_, jerr := json.Marshal(failingTextMarshaler{err})
	var me *json.MarshalerError
	if errors.As(jerr, &me) && me.Type == reflect.TypeFor[failingTextMarshaler]() {
		me.Type = t
		return me
	}
	return &json.MarshalerError{Type: t, Err: err}
}

// failingTextMarshaler is the stand-in used by marshalTextError.
type failingTextMarshaler struct{ err error }

// MarshalText returns the wrapped error.
func (f failingTextMarshaler) MarshalText() ([]byte, error) { return nil, f.err }

// condAddrEncoder picks the pointer-receiver encoder when the value is
// addressable and the plain one otherwise, as encoding/json does.
type condAddrEncoder struct {
	canAddrEnc, elseEnc encoderFunc
}

func newCondAddrEncoder(canAddrEnc, elseEnc encoderFunc) encoderFunc {
	return condAddrEncoder{canAddrEnc: canAddrEnc, elseEnc: elseEnc}.encode
}

func (ce condAddrEncoder) encode(st *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	if v.CanAddr() {
		return ce.canAddrEnc(st, dst, v, quoted)
	}
	return ce.elseEnc(st, dst, v, quoted)
}

package wirejson

import "reflect"

// marshalBufSize is the initial capacity for Marshal. Without a buffer pool
// (this package keeps no state besides its encoder cache) a buffer grown from
// nothing reallocates many times for typical request bodies.
const marshalBufSize = 512

// Marshal returns the JSON encoding of v exactly as encoding/json.Marshal
// would, except that decimal.Decimal values (and *decimal.Decimal,
// decimal.NullDecimal) are written as bare JSON numbers using the digits of
// Decimal.String (exact; never exponent notation). A nil *decimal.Decimal or
// an invalid NullDecimal is null. See the package documentation for details.
func Marshal(v any) ([]byte, error) {
	b, err := Append(make([]byte, 0, marshalBufSize), v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Append appends the encoding of v, as produced by Marshal, to dst and
// returns the extended slice. Reusing dst across calls lets a caller stream
// large arrays element by element without re-allocating. On error it returns
// dst with its original length and the error; bytes past that length in
// dst's backing array may have been overwritten.
func Append(dst []byte, v any) ([]byte, error) {
	var st encodeState
	out, err := st.appendValue(dst, reflect.ValueOf(v))
	if err != nil {
		return dst, err
	}
	return out, nil
}

// encoderFunc appends the encoding of v to dst. quoted carries the ",string"
// tag option down to the scalar encoders that honour it.
type encoderFunc func(st *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error)

// appendValue encodes v with the cached encoder for its dynamic type; an
// invalid Value (a nil interface) is null, as in encoding/json.
func (st *encodeState) appendValue(dst []byte, v reflect.Value) ([]byte, error) {
	if !v.IsValid() {
		return append(dst, "null"...), nil
	}
	return typeEncoder(v.Type())(st, dst, v, false)
}

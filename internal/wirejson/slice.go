package wirejson

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
)

func newSliceEncoder(t reflect.Type) encoderFunc {
	// []byte is base64 unless its element type marshals itself; arrays of
	// bytes stay arrays of numbers.
	if t.Elem().Kind() == reflect.Uint8 {
		p := reflect.PointerTo(t.Elem())
		if !p.Implements(reflect.TypeFor[json.Marshaler]()) && !p.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
			return byteSliceEncoder
		}
	}
	return sliceEncoder{elemEnc: typeEncoder(t.Elem())}.encode
}

func byteSliceEncoder(_ *encodeState, dst []byte, v reflect.Value, _ bool) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, v.Bytes())
	return append(dst, '"'), nil
}

type sliceEncoder struct {
	elemEnc encoderFunc
}

func (se sliceEncoder) encode(st *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "null"...), nil
	}
	if st.ptrLevel++; st.ptrLevel > startDetectingCyclesAfter {
		// A slice is identified by where it starts and how long it is,
		// so distinct subslices of one array are not mistaken for a cycle.
		key := struct {
			ptr any // an unsafe.Pointer, held without importing unsafe
			len int
		}{v.UnsafePointer(), v.Len()}
		if err := st.see(key, v); err != nil {
			return dst, err
		}
		defer delete(st.ptrSeen, key)
	}
	dst, err := appendElems(st, dst, v, se.elemEnc, quoted)
	st.ptrLevel--
	return dst, err
}

func newArrayEncoder(t reflect.Type) encoderFunc {
	elemEnc := typeEncoder(t.Elem())
	return func(st *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
		return appendElems(st, dst, v, elemEnc, quoted)
	}
}

// appendElems appends the elements of slice or array v as a JSON array.
func appendElems(st *encodeState, dst []byte, v reflect.Value, elemEnc encoderFunc, quoted bool) ([]byte, error) {
	dst = append(dst, '[')
	n := v.Len()
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = elemEnc(st, dst, v.Index(i), quoted); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

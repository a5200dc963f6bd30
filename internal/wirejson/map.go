package wirejson

import (
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

func newMapEncoder(t reflect.Type) encoderFunc {
	switch t.Key().Kind() {
	case reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
	default:
		if !t.Key().Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
			return unsupportedTypeEncoder
		}
	}
	return mapEncoder{elemEnc: typeEncoder(t.Elem())}.encode
}

type mapEncoder struct {
	elemEnc encoderFunc
}

// mapEntry is a map value with its key already turned into the member name
// it is sorted and written by.
type mapEntry struct {
	key string
	val reflect.Value
}

func (me mapEncoder) encode(st *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "null"...), nil
	}
	if st.ptrLevel++; st.ptrLevel > startDetectingCyclesAfter {
		key := v.UnsafePointer()
		if err := st.see(key, v); err != nil {
			return dst, err
		}
		defer delete(st.ptrSeen, key)
	}

	entries := make([]mapEntry, 0, v.Len())
	for iter := v.MapRange(); iter.Next(); {
		k, err := resolveKeyName(iter.Key())
		if err != nil {
			return dst, fmt.Errorf("json: encoding error for type %q: %q", v.Type().String(), err.Error())
		}
		entries = append(entries, mapEntry{key: k, val: iter.Value()})
	}
	slices.SortFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })

	dst = append(dst, '{')
	for i, e := range entries {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, e.key)
		dst = append(dst, ':')
		var err error
		if dst, err = me.elemEnc(st, dst, e.val, quoted); err != nil {
			return dst, err
		}
	}
	st.ptrLevel--
	return append(dst, '}'), nil
}

// resolveKeyName turns a map key into a member name the way encoding/json
// does: string kinds as they are, then TextMarshaler, then integers.
func resolveKeyName(k reflect.Value) (string, error) {
	if k.Kind() == reflect.String {
		return k.String(), nil
	}
	if tm, ok := reflect.TypeAssert[encoding.TextMarshaler](k); ok {
		if k.Kind() == reflect.Pointer && k.IsNil() {
			return "", nil
		}
		buf, err := tm.MarshalText()
		return string(buf), err
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	panic("wirejson: map key type " + k.Type().String() + " passed newMapEncoder's check") // unreachable
}

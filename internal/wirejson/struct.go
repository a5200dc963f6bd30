package wirejson

import (
	"reflect"

	"github.com/shopspring/decimal"
)

type structEncoder struct {
	fields []field
}

func newStructEncoder(t reflect.Type) encoderFunc {
	se := &structEncoder{fields: typeFields(t)}
	for i := range se.fields {
		f := &se.fields[i]
		f.enc = typeEncoder(typeByIndex(t, f.index))
	}
	return se.encode
}

func (se *structEncoder) encode(st *encodeState, dst []byte, v reflect.Value, _ bool) ([]byte, error) {
	dst = append(dst, '{')
	first := true
fields:
	for i := range se.fields {
		f := &se.fields[i]

		fv := v
		for _, i := range f.index {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					// Fields promoted through a nil embedded pointer
					// do not exist in this value.
					continue fields
				}
				fv = fv.Elem()
			}
			fv = fv.Field(i)
		}

		if f.omitEmpty && isEmptyValue(fv) ||
			f.omitZero && (f.isZero == nil && fv.IsZero() || f.isZero != nil && f.isZero(fv)) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, f.nameJSON...)
		var err error
		if dst, err = f.enc(st, dst, fv, f.quoted); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// typeByIndex is the type of the field at index, looking through embedded
// pointers.
func typeByIndex(t reflect.Type, index []int) reflect.Type {
	for _, i := range index {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		t = t.Field(i).Type
	}
	return t
}

// isEmptyValue is encoding/json's omitempty test. Structs, and so decimals,
// are never empty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// isZeroer is what omitzero consults before falling back to the zero value.
type isZeroer interface {
	IsZero() bool
}

// isZeroFunc returns the omitzero test for a field of type t that has an
// IsZero method, following encoding/json's cases, or nil if it has none.
func isZeroFunc(t reflect.Type) func(reflect.Value) bool {
	isZeroerType := reflect.TypeFor[isZeroer]()
	switch {
	case t == reflect.TypeFor[decimal.Decimal]():
		// Same answer as the general case below, minus boxing every
		// amount into an interface.
		return func(v reflect.Value) bool {
			d, _ := reflect.TypeAssert[decimal.Decimal](v)
			return d.IsZero()
		}
	case t.Kind() == reflect.Interface && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			// Calling IsZero on a nil interface or a nil pointer in one
			// would panic.
			return v.IsNil() ||
				v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil() ||
				v.Interface().(isZeroer).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.IsNil() || v.Interface().(isZeroer).IsZero()
		}
	case t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.Interface().(isZeroer).IsZero()
		}
	case reflect.PointerTo(t).Implements(isZeroerType):
		return func(v reflect.Value) bool {
			if !v.CanAddr() {
				// Box a copy so the pointer method has an address.
				v2 := reflect.New(v.Type()).Elem()
				v2.Set(v)
				v = v2
			}
			return v.Addr().Interface().(isZeroer).IsZero()
		}
	}
	return nil
}

package wirejson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"
)

// encoders memoizes one encoderFunc per reflect.Type. Entries are only ever
// derived from the type itself, so the cache never changes what is encoded.
var encoders sync.Map // map[reflect.Type]encoderFunc

// typeEncoder returns the encoder for t, building it on first use.
func typeEncoder(t reflect.Type) encoderFunc {
	if f, ok := encoders.Load(t); ok {
		return f.(encoderFunc)
	}
	// A recursive type reaches itself while its encoder is being built, so
	// publish a forwarding encoder first; it is also what racing builders of
	// the same type briefly share.
	build := sync.OnceValue(func() encoderFunc { return newTypeEncoder(t, true) })
	f, loaded := encoders.LoadOrStore(t, encoderFunc(func(st *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
		return build()(st, dst, v, quoted)
	}))
	if loaded {
		return f.(encoderFunc)
	}
	enc := build()
	encoders.Store(t, enc)
	return enc
}

// newTypeEncoder builds the encoder for t. It follows encoding/json's
// newTypeEncoder, with decimals checked first: they implement json.Marshaler,
// and that method is the quoting we are here to avoid. allowAddr is false when
// building the fallback for values whose address cannot be taken.
func newTypeEncoder(t reflect.Type, allowAddr bool) encoderFunc {
	if enc := decimalTypeEncoder(t); enc != nil {
		return enc
	}

	marshalerType := reflect.TypeFor[json.Marshaler]()
	textMarshalerType := reflect.TypeFor[encoding.TextMarshaler]()
	// Pointer-receiver marshalers are used only when the value is
	// addressable, as in encoding/json; taking the address also spares the
	// allocation of boxing the value in an interface.
	if t.Kind() != reflect.Pointer && allowAddr && reflect.PointerTo(t).Implements(marshalerType) {
		return newCondAddrEncoder(addrMarshalerEncoder, newTypeEncoder(t, false))
	}
	if t.Implements(marshalerType) {
		return marshalerEncoder
	}
	if t.Kind() != reflect.Pointer && allowAddr && reflect.PointerTo(t).Implements(textMarshalerType) {
		return newCondAddrEncoder(addrTextMarshalerEncoder, newTypeEncoder(t, false))
	}
	if t.Implements(textMarshalerType) {
		return textMarshalerEncoder
	}

	switch t.Kind() {
	case reflect.Bool:
		return boolEncoder
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intEncoder
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintEncoder
	case reflect.Float32:
		return float32Encoder
	case reflect.Float64:
		return float64Encoder
	case reflect.String:
		if t == reflect.TypeFor[json.Number]() {
			return numberEncoder
		}
		return stringEncoder
	case reflect.Interface:
		return interfaceEncoder
	case reflect.Struct:
		return newStructEncoder(t)
	case reflect.Map:
		return newMapEncoder(t)
	case reflect.Slice:
		return newSliceEncoder(t)
	case reflect.Array:
		return newArrayEncoder(t)
	case reflect.Pointer:
		return newPtrEncoder(t)
	default:
		return unsupportedTypeEncoder
	}
}

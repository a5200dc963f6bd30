package wirejson

import "reflect"

type ptrEncoder struct {
	elemEnc encoderFunc
}

func newPtrEncoder(t reflect.Type) encoderFunc {
	return ptrEncoder{elemEnc: typeEncoder(t.Elem())}.encode
}

func (pe ptrEncoder) encode(st *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "null"...), nil
	}
	if st.ptrLevel++; st.ptrLevel > startDetectingCyclesAfter {
		key := v.Interface()
		if err := st.see(key, v); err != nil {
			return dst, err
		}
		defer delete(st.ptrSeen, key)
	}
	dst, err := pe.elemEnc(st, dst, v.Elem(), quoted)
	st.ptrLevel--
	return dst, err
}

// interfaceEncoder encodes the dynamic value; its encoder is looked up per
// value because the dynamic type can differ every time.
func interfaceEncoder(st *encodeState, dst []byte, v reflect.Value, quoted bool) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "null"...), nil
	}
	e := v.Elem()
	return typeEncoder(e.Type())(st, dst, e, quoted)
}

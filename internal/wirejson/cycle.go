package wirejson

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// startDetectingCyclesAfter matches encoding/json: below this depth the map
// work is skipped, so ordinary values pay only for a counter.
const startDetectingCyclesAfter = 1000

// encodeState is the per-call state of one Marshal or Append.
type encodeState struct {
	// ptrLevel counts the pointers, slices and maps on the current path.
	ptrLevel uint
	// ptrSeen holds the ones on the path once ptrLevel is past
	// startDetectingCyclesAfter; it stays nil for ordinary values.
	ptrSeen map[any]struct{}
}

// see records key as being on the current path, or reports a cycle if it
// already is. The caller removes key again when it leaves the value.
func (st *encodeState) see(key any, v reflect.Value) error {
	if _, ok := st.ptrSeen[key]; ok {
		return &json.UnsupportedValueError{Value: v, Str: fmt.Sprintf("encountered a cycle via %s", v.Type())}
	}
	if st.ptrSeen == nil {
		st.ptrSeen = make(map[any]struct{})
	}
	st.ptrSeen[key] = struct{}{}
	return nil
}

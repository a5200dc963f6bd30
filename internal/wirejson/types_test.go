//lint:file-ignore SA5008 odd and malformed tags on purpose: the encoder must read them as encoding/json does

package wirejson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Types for the differential tests: each exercises one encoding/json rule.

type valueMarshaler struct{ N int }

// MarshalJSON returns padded JSON with HTML characters, so compaction and
// escaping of Marshaler output are exercised.
func (v valueMarshaler) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, " {\n\t\"n\" : %d , \"html\": \"<a&b>\u2028\" } ", v.N), nil
}

type ptrMarshaler struct{ N int }

// MarshalJSON is reachable only through addressable values.
func (p *ptrMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(`"ptr` + strconv.Itoa(p.N) + `"`), nil
}

type valueText struct{ S string }

// MarshalText returns text that needs escaping.
func (v valueText) MarshalText() ([]byte, error) { return []byte("text<" + v.S + ">"), nil }

type ptrText struct{ S string }

// MarshalText is reachable only through addressable values.
func (p *ptrText) MarshalText() ([]byte, error) { return []byte("ptrtext:" + p.S), nil }

type textKey int

// MarshalText makes textKey usable as a map key.
func (k textKey) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "k<%d>", int(k)), nil }

type textByte byte

// MarshalText stops []textByte from being treated as []byte.
func (b textByte) MarshalText() ([]byte, error) { return []byte{'b', byte(b)}, nil }

type zeroer struct{ V int }

// IsZero deliberately disagrees with the zero value.
func (z zeroer) IsZero() bool { return z.V == 42 }

type ptrZeroer struct{ V int }

// IsZero has a pointer receiver, so omitzero must box unaddressable values.
func (z *ptrZeroer) IsZero() bool { return z.V == 7 }

type failingMarshaler struct{}

// MarshalJSON always fails.
func (failingMarshaler) MarshalJSON() ([]byte, error) { return nil, errors.New("boom") }

type invalidMarshaler struct{}

// MarshalJSON returns invalid JSON.
func (invalidMarshaler) MarshalJSON() ([]byte, error) { return []byte(`{"a":}`), nil }

type failingText struct{}

// MarshalText always fails.
func (failingText) MarshalText() ([]byte, error) { return nil, errors.New("no text") }

type Embedded struct {
	A int
	B string `json:"b"`
}

type embeddedUnexported struct {
	C int
	d int
}

type conflictA struct {
	X int
	Y int
}

type conflictB struct {
	X int
	Y int `json:"Y"`
}

// conflicts: X is ambiguous and dropped, Y comes from the tagged field.
type conflicts struct {
	conflictA
	conflictB
}

// shadow: the shallower X wins over the embedded one.
type shadow struct {
	conflictA
	X string
}

type namedEmbed struct {
	Embedded `json:"emb"`
	Z        int
}

type ptrEmbed struct {
	*Embedded
	*embeddedUnexported
	Z int
}

type ifaceEmbed struct {
	fmt.Stringer
	error `json:"err"`
}

type node struct {
	V    int
	Next *node `json:",omitempty"`
	Kids []node
}

type allTags struct {
	Plain      int
	Renamed    int                        `json:"renamed"`
	Skipped    int                        `json:"-"`
	Dash       int                        `json:"-,"`
	OmitEmpty  string                     `json:",omitempty"`
	OmitEmptyS []int                      `json:",omitempty"`
	OmitEmptyM map[string]int             `json:",omitempty"`
	OmitEmptyP *int                       `json:",omitempty"`
	OmitEmptyI any                        `json:",omitempty"`
	OmitEmptyT struct{}                   `json:",omitempty"`
	OmitZero   time.Time                  `json:",omitzero"`
	OmitZeroS  struct{ A int }            `json:",omitzero"`
	OmitZeroA  [2]int                     `json:",omitzero"`
	OmitBoth   int                        `json:",omitempty,omitzero"`
	Zeroer     zeroer                     `json:",omitzero"`
	PtrZeroer  ptrZeroer                  `json:",omitzero"`
	ZeroerPtr  *zeroer                    `json:",omitzero"`
	ZeroerIfc  interface{ IsZero() bool } `json:",omitzero"`
	Str        int64                      `json:",string"`
	StrUint    uint8                      `json:",string"`
	StrBool    bool                       `json:",string"`
	StrFloat   float64                    `json:",string"`
	StrString  string                     `json:",string"`
	StrPtr     *int                       `json:",string"`
	StrNumber  json.Number                `json:",string"`
	StrSlice   []int                      `json:",string"`
	Weird      int                        `json:"a<b>&c"`
	Invalid    int                        `json:"bad\"name"`
	Unicode    int                        `json:"ünï"`
	OptsOnly   int                        `json:",omitempty"`
	unexported int
}

package jsonwire

import (
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/shopspring/decimal"
)

// The readers below decode the next JSON value of a Decoder into one Go
// field, as encoding/json does for a field of that type: null leaves a
// value field as it is and sets a pointer field to nil; a value of the
// wrong kind is a *TypeError. They are what generated decoders call.

// KindName names a JSON kind in an error message ("number", "object").
func KindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "bool"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

func typeError(d *Decoder, k jsontext.Kind, goType string) error {
	return &TypeError{JSONKind: KindName(k), GoType: goType, Pointer: string(d.StackPointer())}
}

// ReadString reads a JSON string (or, unlike encoding/json, a number's
// text) into dst; null leaves dst as it is.
func ReadString[S ~string](d *Decoder, a *Arena, dst *S) error {
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	return setString(d, a, v, dst)
}

func setString[S ~string](d *Decoder, a *Arena, v jsontext.Value, dst *S) error {
	switch v.Kind() {
	case '"':
		*dst = S(a.unquote(v))
	case '0':
		*dst = S(a.String(v))
	case 'n':
	default:
		return typeError(d, v.Kind(), "string")
	}
	return nil
}

// ReadStringPtr reads a JSON string into a new string; null sets nil.
func ReadStringPtr(d *Decoder, a *Arena, dst **string) error {
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	if v.Kind() == 'n' {
		*dst = nil
		return nil
	}
	if *dst == nil {
		*dst = newIn(&a.strs)
	}
	return setString(d, a, v, *dst)
}

// ReadBool reads true or false; null leaves dst as it is.
func ReadBool(d *Decoder, dst *bool) error {
	t, err := d.ReadToken()
	if err != nil {
		return err
	}
	switch k := t.Kind(); k {
	case 't', 'f':
		*dst = k == 't'
	case 'n':
	default:
		return typeError(d, k, "bool")
	}
	return nil
}

// readInt reads an integer that fits in bits bits, as strconv.ParseInt
// reads the number's text: no fraction, no exponent; null leaves dst.
func readInt(d *Decoder, bits int, goType string) (n int64, null bool, err error) {
	v, err := d.ReadValue()
	if err != nil {
		return 0, false, err
	}
	switch v.Kind() {
	case '0':
		n, err := strconv.ParseInt(string(v), 10, bits)
		if err != nil {
			return 0, false, &TypeError{JSONKind: "number " + truncate(v), GoType: goType, Pointer: string(d.StackPointer())}
		}
		return n, false, nil
	case 'n':
		return 0, true, nil
	}
	return 0, false, typeError(d, v.Kind(), goType)
}

// ReadInt64 reads an integer into dst.
func ReadInt64(d *Decoder, dst *int64) error { return readIntInto(d, dst, 64, "int64") }

// ReadInt reads an integer into dst.
func ReadInt(d *Decoder, dst *int) error { return readIntInto(d, dst, strconv.IntSize, "int") }

func readIntInto[I int | int64](d *Decoder, dst *I, bits int, goType string) error {
	n, null, err := readInt(d, bits, goType)
	if err == nil && !null {
		*dst = I(n)
	}
	return err
}

// ReadInt64Ptr reads an integer into a new int64; null sets nil.
func ReadInt64Ptr(d *Decoder, a *Arena, dst **int64) error {
	n, null, err := readInt(d, 64, "int64")
	switch {
	case err != nil:
	case null:
		*dst = nil
	default:
		if *dst == nil {
			*dst = newIn(&a.ints)
		}
		**dst = n
	}
	return err
}

// ReadDecimal reads a decimal (see ParseDecimal) into dst; null leaves dst
// as it is, as decimal.Decimal.UnmarshalJSON does. With an arena, amounts
// that repeat within the decode share one value (see Arena.decimal).
func ReadDecimal(d *Decoder, a *Arena, dst *decimal.Decimal) error {
	x, null, err := readDecimal(d, a)
	if err == nil && !null {
		*dst = x
	}
	return err
}

// ReadDecimalPtr reads a decimal into a new one; null sets nil.
func ReadDecimalPtr(d *Decoder, a *Arena, dst **decimal.Decimal) error {
	x, null, err := readDecimal(d, a)
	switch {
	case err != nil:
	case null:
		*dst = nil
	case *dst == nil:
		p := new(decimal.Decimal) // not &x: x would escape, and be allocated for null too
		*p = x
		*dst = p
	default:
		**dst = x // into the value already there, as encoding/json does
	}
	return err
}

func readDecimal(d *Decoder, a *Arena) (x decimal.Decimal, null bool, err error) {
	v, err := d.ReadValue()
	if err != nil || v.Kind() == 'n' {
		return x, err == nil, err
	}
	if x, err = a.decimal(v); err != nil {
		return x, false, &DecimalError{Pointer: string(d.StackPointer()), Err: err}
	}
	return x, false, nil
}

// DecimalError is an amount that is not a decimal the SDK accepts.
type DecimalError struct {
	// Pointer locates the value in the document (RFC 6901).
	Pointer string
	// Err says what is wrong.
	Err error
}

// Error describes the problem.
func (e *DecimalError) Error() string {
	return "invalid decimal at " + quote(e.Pointer) + ": " + e.Err.Error()
}

// Unwrap returns the cause, ErrNumberTooLong for a number too long.
func (e *DecimalError) Unwrap() error { return e.Err }

// ReadRaw keeps the next value as it came, null included, as
// json.RawMessage does.
func ReadRaw(d *Decoder, a *Arena, dst *json.RawMessage) error {
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	*dst = a.Bytes(v)
	return nil
}

// ReadUnmarshaler hands the next value's bytes to u, as encoding/json
// does for a type with an UnmarshalJSON method.
func ReadUnmarshaler(d *Decoder, u json.Unmarshaler) error {
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	return u.UnmarshalJSON(v)
}

// BeginObject reads the '{' of an object, or null (then the caller leaves
// its value as it is); anything else is a *TypeError for goType.
func BeginObject(d *Decoder, goType string) (null bool, err error) {
	return begin(d, '{', goType)
}

// BeginArray reads the '[' of an array, or null.
func BeginArray(d *Decoder, goType string) (null bool, err error) {
	return begin(d, '[', goType)
}

func begin(d *Decoder, want jsontext.Kind, goType string) (null bool, err error) {
	switch k := d.PeekKind(); k {
	case want, 'n', 0: // 0: the tokenizer's own error
		_, err := d.ReadToken()
		return k == 'n' && err == nil, err
	default:
		return false, typeError(d, k, goType)
	}
}

// More reports whether another member or element follows.
func More(d *Decoder) bool {
	k := d.PeekKind()
	return k != '}' && k != ']'
}

// End reads the '}' or ']' that More saw.
func End(d *Decoder) error {
	_, err := d.ReadToken()
	return err
}

// ReadName reads an object member's name and returns it raw: the bytes
// between its quotes, escapes and all, valid until the next read from d.
// A decoder compares them with its field names as they are, which matches
// every name without escapes, the common case, at no cost, and hands the
// others to MatchName and RawName: a field name has neither a backslash
// nor a byte outside ASCII, so a raw name that holds one matches none.
func ReadName(d *Decoder) ([]byte, error) {
	v, err := d.ReadValue()
	if err != nil {
		return nil, err
	}
	if v.Kind() != '"' {
		return nil, typeError(d, v.Kind(), "object member name")
	}
	return v[1 : len(v)-1], nil
}

// RawName returns the name a raw member name (see ReadName) stands for,
// unescaped as encoding/json unescapes it. It may share raw's bytes.
func RawName(raw []byte) []byte {
	if isPlain(raw) {
		return raw
	}
	quoted := make([]byte, 0, len(raw)+2)
	return appendUnquoted(nil, append(append(append(quoted, '"'), raw...), '"'))
}

// MatchName returns the field that the raw member name matches, as
// encoding/json matches a member to a field: exactly once unescaped, else
// without regard to case.
func MatchName(raw []byte, fields ...string) (string, bool) {
	name := RawName(raw)
	for _, f := range fields {
		if string(name) == f {
			return f, true
		}
	}
	folded := FoldName(name)
	for _, f := range fields {
		if FoldName([]byte(f)) == folded {
			return f, true
		}
	}
	return "", false
}

// ReadUnknown keeps the next value under the raw member name (see
// ReadName) in *dst, which it creates when needed: the member no field
// models. A repeated name keeps the last.
// Invalid UTF-8 in the value is replaced as in a decoded string (see
// validUTF8), so that what is kept can always be written back.
func ReadUnknown[M ~map[string]json.RawMessage](d *Decoder, name []byte, dst *M) error {
	key := string(RawName(name)) // name is only valid until the next read
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	if *dst == nil {
		*dst = M{}
	}
	v = ValidSurrogates(validUTF8(v))
	(*dst)[key] = append(json.RawMessage(nil), v...)
	return nil
}

// FoldName is encoding/json's key folding: two names match without
// regard to case when their FoldName are equal.
func FoldName(in []byte) string {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		out = utf8.AppendRune(out, unicode.ToUpper(unicode.ToLower(r)))
		i += n
	}
	return string(out)
}

func truncate(b []byte) string {
	if len(b) > 32 {
		return string(b[:32]) + "…"
	}
	return string(b)
}

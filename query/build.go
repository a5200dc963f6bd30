package query

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// FieldKind is the kind of filter a struct field expresses.
type FieldKind int

// The kinds of field Build supports; the comment names the Go type.
const (
	TextField    FieldKind = iota + 1 // Text
	IntField                          // Ints
	TimeField                         // TimeRange
	DecimalField                      // DecimalRange
	EnumField                         // slice of a string type
	BoolField                         // *bool
)

// String returns the constant's name, or FieldKind(n) for a value outside the
// enum.
func (k FieldKind) String() string {
	return constName("FieldKind", int(k), "TextField", "IntField", "TimeField", "DecimalField", "EnumField", "BoolField")
}

// Sortable reports whether a field of this kind may be given as
// sortExpression: the reference allows names "usable for string or date
// filtering", which are the Text and TimeRange fields.
func (k FieldKind) Sortable() bool { return k == TextField || k == TimeField }

// Field describes one filter field of a struct.
type Field struct {
	Name   string    // filter name, from the query tag
	Kind   FieldKind // which of the supported types the field has
	GoName string    // name of the struct field, for error messages
}

var (
	textType         = reflect.TypeFor[Text]()
	intsType         = reflect.TypeFor[Ints]()
	timeRangeType    = reflect.TypeFor[TimeRange]()
	decimalRangeType = reflect.TypeFor[DecimalRange]()
)

// structField is a Field together with where to find its value.
type structField struct {
	Field
	index int
}

// schema is what Build and Fields read from a filter struct's type.
type schema struct {
	fields []structField
	raw    int // index of the ",raw" field, or -1
}

// Fields describes the filter fields of filter, a struct or a pointer to a
// struct (which may be nil), in field order. The raw field is not listed.
// It returns the same errors for bad tags and field types as Build.
func Fields(filter any) ([]Field, error) {
	t := reflect.TypeOf(filter)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("query: Fields needs a struct or a pointer to a struct, got %v", t)
	}
	s, err := schemaOf(t)
	if err != nil {
		return nil, err
	}
	out := make([]Field, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.Field
	}
	return out, nil
}

// Build turns a filter struct into an expression. filter is a struct or a
// pointer to one; nil, or a nil pointer, gives the empty Expr.
//
// Fields tagged `query:"<filter name>"` become conditions in field order when
// their value is not zero (see the package types for what zero means):
//
//   - Text, Ints, TimeRange, DecimalRange
//   - *bool, rendered as true or false
//   - a slice of a string type (an enum set): one value is an exact Match,
//     two or more a Set
//
// One string field may be tagged `query:",raw"`: an expression in the
// service's syntax, parsed with Parse and appended after the typed
// conditions. Fields without a query tag, or tagged `query:"-"`, are ignored.
//
// Errors name the Go field: an invalid filter name, a duplicate name, an
// unsupported type, a second raw field, an empty range, an empty member of an
// enum set, a value that is not valid UTF-8, or a raw expression that does not
// parse (its *SyntaxError is wrapped).
func Build(filter any) (Expr, error) {
	v := reflect.ValueOf(filter)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return nil, nil
	}
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("query: Build needs a struct or a pointer to a struct, got %v", v.Type())
	}
	s, err := schemaOf(v.Type())
	if err != nil {
		return nil, err
	}
	var e Expr
	for _, f := range s.fields {
		c, ok, err := f.condition(v.Field(f.index))
		if err == nil && ok {
			err = c.check()
		}
		if err != nil {
			return nil, fieldError(f.GoName, err)
		}
		if ok {
			e = append(e, c)
		}
	}
	if s.raw >= 0 {
		if raw := v.Field(s.raw).String(); raw != "" {
			extra, err := Parse(raw)
			if err != nil {
				return nil, fieldError(v.Type().Field(s.raw).Name, err)
			}
			e = append(e, extra...)
		}
	}
	return e, nil
}

func fieldError(goName string, err error) error {
	return &contextError{context: "query: field " + goName, err: err}
}

// rangeValue is what TimeRange and DecimalRange have in common: a range
// with no bound is no condition, and a range whose bounds are out of order
// is refused.
type rangeValue interface {
	IsZero() bool
	condition(name string) (Condition, error)
}

// condition returns the condition that the field's value v expresses; ok is
// false when v is zero.
func (f structField) condition(v reflect.Value) (c Condition, ok bool, err error) {
	switch f.Kind {
	case TextField:
		c, ok = v.Interface().(Text).condition(f.Name)
		return c, ok, nil
	case IntField:
		ints := v.Interface().(Ints)
		if len(ints) == 0 {
			return Condition{}, false, nil
		}
		return ints.condition(f.Name), true, nil
	case TimeField, DecimalField:
		r := v.Interface().(rangeValue)
		if r.IsZero() {
			return Condition{}, false, nil
		}
		c, err = r.condition(f.Name)
		return c, true, err
	case BoolField:
		if v.IsNil() {
			return Condition{}, false, nil
		}
		return CondEquals(f.Name, strconv.FormatBool(v.Elem().Bool())), true, nil
	case EnumField:
		if v.Len() == 0 {
			return Condition{}, false, nil
		}
		values := make([]string, v.Len())
		for i := range values {
			values[i] = v.Index(i).String()
		}
		return CondIn(f.Name, values...), true, nil
	}
	// schemaOf only produces the kinds above.
	return Condition{}, false, fmt.Errorf("unsupported field kind %v", f.Kind)
}

// schemaOf reads the query tags of struct type t. It is recomputed on every
// call rather than cached, since a cache would be package-level mutable state
// and reflection over a handful of fields is cheap next to an HTTP request.
func schemaOf(t reflect.Type) (schema, error) {
	s := schema{raw: -1}
	seen := make(map[string]bool)
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("query")
		if !tagged || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fail := func(format string, args ...any) (schema, error) {
			return schema{}, fieldError(sf.Name, fmt.Errorf(format, args...))
		}
		if !sf.IsExported() {
			return fail("unexported fields cannot be read")
		}
		switch {
		case opts == "raw" && name == "":
			if sf.Type.Kind() != reflect.String {
				return fail("a raw expression must be a string, not %v", sf.Type)
			}
			if s.raw >= 0 {
				return fail("second raw field; %s is raw already", t.Field(s.raw).Name)
			}
			s.raw = i
			continue
		case opts != "":
			return fail("unknown tag %q; want a filter name or \",raw\"", tag)
		case !validName(name):
			return fail("invalid filter name %q", name)
		case seen[name]:
			return fail("duplicate filter name %q", name)
		}
		kind := fieldKindOf(sf.Type)
		if kind == 0 {
			return fail("unsupported type %v", sf.Type)
		}
		seen[name] = true
		s.fields = append(s.fields, structField{Field{Name: name, Kind: kind, GoName: sf.Name}, i})
	}
	return s, nil
}

func fieldKindOf(t reflect.Type) FieldKind {
	switch t {
	case textType:
		return TextField
	case intsType:
		return IntField
	case timeRangeType:
		return TimeField
	case decimalRangeType:
		return DecimalField
	}
	switch {
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Bool:
		return BoolField
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return EnumField
	}
	return 0
}

// Package bind decodes request bodies as the service binds them.
package bind

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// Request bodies are bound here and only here, so that the JSON engine
// can be swapped in one place.
//
// The service's binder is lenient where JSON is strict, and clients rely
// on it: a number may come as a string ("910104", "20.00"), a string
// field may come as a number (a wallet token), a boolean as "true" or
// "False" or as a number (0 is false), and keys match without regard to
// case. The fake converts the same way; a value that cannot convert is a
// 400 whose message names the field as it is on the wire
// (paymentCollectOptions.collectionAmount, planProductIds[2]) and never
// quotes the value, which may be a card number. An empty string for a
// number is no value, as null is.

// JSON decodes data into v, a pointer, with the service's
// conversions. Its errors are in the API's words. A UTF-8 byte-order mark
// before the value is skipped, as the service's reader skips it.
func JSON(data []byte, v any) error {
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("a JSON body is required")
	}
	tree, err := jsonwire.UnmarshalTree(data)
	if errors.Is(err, jsonwire.ErrTrailingData) {
		return errors.New("malformed JSON body: more data after the JSON value")
	}
	if err != nil {
		return syntaxError(err)
	}
	t := reflect.TypeOf(v).Elem()
	if t == reflect.TypeFor[json.RawMessage]() {
		return jsonwire.Unmarshal(data, v)
	}
	tree, err = coerce(tree, t, "")
	if err != nil {
		return fmt.Errorf("malformed JSON body: %w", err)
	}
	b, err := jsonwire.Marshal(tree)
	if err != nil {
		return errors.New("malformed JSON body")
	}
	if err := jsonwire.Unmarshal(b, v); err != nil {
		// coerce has checked every value against its field, so this is
		// a case it does not know; say where without Go's type names.
		var typeErr *jsonwire.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return fmt.Errorf("malformed JSON body: %s has a value of the wrong type", typeErr.Field)
		}
		return errors.New("malformed JSON body: a value has the wrong type")
	}
	return nil
}

func syntaxError(err error) error {
	var syntaxErr *jsonwire.SyntaxError
	if errors.As(err, &syntaxErr) {
		return fmt.Errorf("malformed JSON body: syntax error at offset %d", syntaxErr.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("malformed JSON body: it ends too early")
	}
	return errors.New("malformed JSON body")
}

// utf8BOM is the UTF-8 byte-order mark.
const utf8BOM = "\xEF\xBB\xBF"

var (
	decimalType     = reflect.TypeFor[decimal.Decimal]()
	unmarshalerType = reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()
)

// coerce converts val, decoded with UseNumber, to what a field of type t
// at path accepts, or says why it cannot.
func coerce(val any, t reflect.Type, path string) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if val == nil {
		return nil, nil
	}
	name := cmp.Or(path, "the body")
	switch {
	case t == decimalType:
		return coerceNumber(val, name, "a number", func(s string) (string, bool) {
			d, err := decimal.NewFromString(s)
			if err != nil {
				return "", false
			}
			if jsonwire.Valid([]byte(s)) && s[0] != '"' {
				return s, true // exactly as sent: 20.00 stays 20.00
			}
			return d.String(), true // .5, +5: what JSON cannot spell
		})
	case reflect.PointerTo(t).Implements(unmarshalerType):
		// The type reads itself (a timestamp, say); check it here so the
		// error names the field.
		b, _ := jsonwire.Marshal(val)
		if err := jsonwire.Unmarshal(b, reflect.New(t).Interface()); err != nil {
			// Such a type's own message is kept when it names the field
			// (filterOptions.code2: ...); it holds no secret, as no card
			// field reads itself.
			if msg := strings.TrimPrefix(err.Error(), "billing: "); path != "" && strings.HasPrefix(msg, path) {
				return nil, errors.New(msg)
			}
			return nil, fmt.Errorf("%s is not a valid %s", name, describe(t))
		}
		return val, nil
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return coerceNumber(val, name, "an integer", func(s string) (string, bool) {
			n, err := strconv.ParseInt(s, 10, t.Bits())
			return strconv.FormatInt(n, 10), err == nil
		})
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return coerceNumber(val, name, "a non-negative integer", func(s string) (string, bool) {
			n, err := strconv.ParseUint(s, 10, t.Bits())
			return strconv.FormatUint(n, 10), err == nil
		})
	case reflect.Float32, reflect.Float64:
		return coerceNumber(val, name, "a number", func(s string) (string, bool) {
			f, err := strconv.ParseFloat(s, t.Bits())
			return strconv.FormatFloat(f, 'g', -1, t.Bits()), err == nil
		})
	case reflect.String:
		switch v := val.(type) {
		case string:
			return v, nil
		case jsonwire.Number:
			return v.String(), nil
		case bool:
			return strconv.FormatBool(v), nil
		}
		return nil, fmt.Errorf("%s must be a string", name)
	case reflect.Bool:
		switch v := val.(type) {
		case bool:
			return v, nil
		case string:
			if b, err := Bool(strings.TrimSpace(v)); err == nil {
				return b, nil
			}
		case jsonwire.Number:
			if f, err := v.Float64(); err == nil {
				return f != 0, nil
			}
		}
		return nil, fmt.Errorf("%s must be true or false", name)
	case reflect.Slice, reflect.Array:
		list, ok := val.([]any)
		if !ok {
			return nil, fmt.Errorf("%s must be an array", name)
		}
		out := make([]any, len(list))
		for i, el := range list {
			var err error
			if out[i], err = coerce(el, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	case reflect.Map, reflect.Struct:
		obj, ok := val.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s must be a JSON object", name)
		}
		if t.Kind() == reflect.Struct {
			return obj, coerceFields(obj, t, path)
		}
		for k, el := range obj {
			var err error
			if obj[k], err = coerce(el, t.Elem(), joinPath(path, k)); err != nil {
				return nil, err
			}
		}
		return obj, nil
	}
	return val, nil
}

// coerceFields coerces the members of obj that name a field of the struct
// type t, matching keys as encoding/json does: exactly, else without
// regard to case. Other members are ignored, as the service ignores them.
func coerceFields(obj map[string]any, t reflect.Type, path string) error {
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		key, found := name, false
		if _, found = obj[name]; !found {
			for k := range obj {
				if strings.EqualFold(k, name) {
					key, found = k, true
					break
				}
			}
		}
		if !found {
			continue
		}
		v, err := coerce(obj[key], f.Type, joinPath(path, name))
		if err != nil {
			return err
		}
		obj[key] = v
	}
	return nil
}

// coerceNumber accepts a JSON number, or a string holding one, that conv
// can read; an empty string is no value.
func coerceNumber(val any, name, want string, conv func(string) (string, bool)) (any, error) {
	var text string
	switch v := val.(type) {
	case jsonwire.Number:
		text = v.String()
	case string:
		text = strings.TrimSpace(v)
		if text == "" {
			return nil, nil
		}
	default:
		return nil, fmt.Errorf("%s must be %s", name, want)
	}
	out, ok := conv(text)
	if !ok {
		return nil, fmt.Errorf("%s must be %s, as a JSON number or a string holding one, within range", name, want)
	}
	return jsonwire.Number(out), nil
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// describe names what a self-reading type holds, for messages.
func describe(t reflect.Type) string {
	if strings.HasSuffix(t.Name(), "Timestamp") {
		return "timestamp (e.g. 2024-03-01T10:15:00)"
	}
	return "value"
}

// Bool reads true or false in any case, as the service's boolean
// parsing does, and nothing else (not 1, 0, yes or no).
func Bool(s string) (bool, error) {
	switch {
	case strings.EqualFold(s, "true"):
		return true, nil
	case strings.EqualFold(s, "false"):
		return false, nil
	}
	return false, fmt.Errorf("%q is neither true nor false", s)
}

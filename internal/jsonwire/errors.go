package jsonwire

import (
	"errors"
	"fmt"
)

// ErrNumberTooLong is the error of a decimal with a run of more than
// MaxDigitRun digits.
var ErrNumberTooLong = fmt.Errorf("a run of more than %d digits: not a number the API sends", MaxDigitRun)

var errTrailing = errors.New("unexpected data after the JSON value")

// TypeError is a JSON value of a kind the Go field cannot hold, such as a
// string where a number is modelled.
type TypeError struct {
	// JSONKind is what the answer held: "string", "number", "object"...
	JSONKind string
	// GoType is the type of the field.
	GoType string
	// Pointer locates the value in the document (RFC 6901).
	Pointer string
}

// Error describes the mismatch without quoting the value.
func (e *TypeError) Error() string {
	return "cannot decode JSON " + e.JSONKind + " into Go " + e.GoType + " at " + quote(e.Pointer)
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

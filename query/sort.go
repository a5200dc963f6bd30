package query

import (
	"errors"
	"fmt"
	"net/url"
)

// Order is the sortOrder URL parameter.
type Order string

// The two orders the reference accepts.
const (
	Ascending  Order = "Ascending"
	Descending Order = "Descending"
)

// Sort is the sorting of a list request. It is not part of the filter
// expression: it renders as the sortExpression and sortOrder URL parameters.
// The zero Sort leaves the order to the service.
type Sort struct {
	// Field is a filter name of the endpoint that is usable for string or
	// date filtering (see FieldKind.Sortable).
	Field string
	// Order defaults to Ascending when Field is set.
	Order Order
}

// IsZero reports whether s asks for no sorting.
func (s Sort) IsZero() bool { return s == Sort{} }

// Validate checks that Order is empty, Ascending or Descending, that an Order
// comes with a Field, and that Field is a well-formed filter name. Whether
// the endpoint can sort on Field is for the caller to check, with Fields.
func (s Sort) Validate() error {
	switch s.Order {
	case "", Ascending, Descending:
	default:
		return fmt.Errorf("query: sort order %q is neither %s nor %s", string(s.Order), Ascending, Descending)
	}
	if s.Field == "" {
		if s.Order != "" {
			return errors.New("query: sort order " + string(s.Order) + " given without a sort field")
		}
		return nil
	}
	if !validName(s.Field) {
		return fmt.Errorf("query: invalid sort field %q", s.Field)
	}
	return nil
}

// EncodeValues implements the Encoder interface of
// github.com/google/go-querystring. The key is ignored because a Sort is two
// parameters with names fixed by the reference; they are set rather than
// added, so that encoding twice cannot send a field twice. Nothing is set for
// the zero Sort or when Validate fails.
func (s Sort) EncodeValues(_ string, v *url.Values) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.IsZero() {
		return nil
	}
	if v == nil {
		return errors.New("query: Sort.EncodeValues needs non-nil url.Values")
	}
	if *v == nil {
		*v = url.Values{}
	}
	order := s.Order
	if order == "" {
		order = Ascending
	}
	v.Set("sortExpression", s.Field)
	v.Set("sortOrder", string(order))
	return nil
}

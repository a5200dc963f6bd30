package billing

//go:generate go run ./internal/jsongen -o resources_json.go -ref resources_json_ref_test.go

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/billingapi/billing-go/internal/jsonwire"
)

// Answers are decoded with the engine behind internal/jsonwire, straight
// from the stream. The resource types have generated, reflection-free
// decoders (resources_json.go); the rest go through the engine's
// reflection with encoding/json's semantics.

// errNullAnswer is the error of an answer that is null where a resource
// was expected: decoding null into a struct would silently leave it empty.
var errNullAnswer = errors.New("the answer is null, not the resource")

// decodeValue decodes exactly one JSON value from r into out: null, a
// second value or trailing bytes are errors, not something to ignore.
func decodeValue(r io.Reader, out any) error {
	dec := jsonwire.NewDecoder(r)
	if dec.PeekKind() == 'n' {
		return errNullAnswer
	}
	if err := jsonwire.UnmarshalDecode(dec, out); err != nil {
		return err
	}
	return jsonwire.ExpectEOF(dec)
}

// decodeList decodes a JSON array of items from r one item at a time,
// straight from the stream: the tokenizer buffers a little of the body,
// never the whole page. A null answer is an empty page.
func decodeList[T any](r io.Reader, items *[]T, sizeHint int) error {
	dec := jsonwire.NewDecoder(r)
	switch k := dec.PeekKind(); k {
	case 'n':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		return jsonwire.ExpectEOF(dec)
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
	case 0:
		_, err := dec.ReadToken() // the tokenizer's own error
		return err
	default:
		return fmt.Errorf("want a JSON array of items, got a JSON %s", kindName(byte(k)))
	}
	if sizeHint > 0 {
		*items = make([]T, 0, min(sizeHint, 1000))
	} else {
		*items = []T{}
	}
	var zero T
	for jsonwire.More(dec) {
		*items = append(*items, zero)
		if err := jsonwire.UnmarshalDecode(dec, &(*items)[len(*items)-1]); err != nil {
			return err
		}
	}
	if err := jsonwire.End(dec); err != nil { // the closing ]
		return err
	}
	return jsonwire.ExpectEOF(dec)
}

func kindName(k byte) string {
	switch k {
	case 't', 'f':
		return "bool"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	}
	return "value"
}

// decodeListAnswer decodes a 2xx list answer into items, then closes the
// body.
func decodeListAnswer[T any](resp *http.Response, items *[]T, sizeHint int) error {
	defer drainAndClose(resp.Body)
	if err := checkJSONContentType(resp); err != nil {
		return err
	}
	return decodeList(resp.Body, items, sizeHint)
}

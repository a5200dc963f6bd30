package billing

import (
	"encoding/json"

	"github.com/billingapi/billing-go/internal/jsonwire"
)

// Extra holds the members of a JSON object that the SDK does not model,
// by name, each as the JSON the service sent. The live service sends more
// than the API reference lists (more fields on a payment method, an
// invoiceAdjustments object on invoices, ...); every resource keeps them in
// its Extra field instead of dropping them, and writes them back when it
// is encoded again. A resource built in Go has a nil Extra.
//
// Names are kept as sent, unescaped, with invalid UTF-8 replaced by U+FFFD
// as in values. A member that repeats a name keeps the last value. A
// member whose name matches a modelled field without regard to case
// decodes into that field, as with encoding/json, and is not in Extra.
//
// The resources' UnmarshalJSON fills Extra and their MarshalJSON writes
// its members back after the modelled ones, in the order of their names,
// so that encoding/json, encoding/json/v2 and the SDK read and write the
// same document. A value that holds invalid UTF-8, or the \u escape of
// half a UTF-16 surrogate pair without its other half, is kept with each
// replaced by U+FFFD, as in the modelled strings, so that what Extra
// holds can always be written back, by encoding/json/v2 too.
type Extra map[string]json.RawMessage

// Decode decodes the member called name into v, with the SDK's JSON rules
// (amounts as exact decimals, timestamps as the service writes them). It
// reports false, and leaves v alone, when there is no such member.
func (e Extra) Decode(name string, v any) (bool, error) {
	raw, ok := e[name]
	if !ok {
		return false, nil
	}
	return true, jsonwire.Unmarshal(raw, v)
}

// Package jsonwire is the SDK's one seam onto its JSON engine,
// github.com/go-json-experiment/json and its jsontext tokenizer. It is the
// only shipped package that imports the engine, and no exported identifier
// of the SDK names an engine type: the resources' methods are
// encoding/json's MarshalJSON and UnmarshalJSON, which every JSON API
// calls, and the SDK calls their generated decoders directly. Moving to
// encoding/json/v2 once it leaves the experiment is an import change here.
//
// It owns the options every encode and decode uses: encoding/json's (v1)
// semantics, as the engine's DefaultOptionsV1 give them, plus marshalers
// that write decimal.Decimal, *decimal.Decimal and decimal.NullDecimal as
// bare JSON numbers (never shopspring's package-level switches), an
// unmarshaler that parses decimals from the number's bytes, and a
// marshaler and an unmarshaler that treat encoding/json's Number as
// encoding/json does (the engine would take it for a plain string).
// UnmarshalStrict adds what encoding/json's
// Decoder.DisallowUnknownFields does.
//
// The SDK and the fake may name encoding/json's types (Extra is a map of
// its RawMessage) but call none of its functions: JSON goes through here
// (TestOneJSONEngine in the root package checks it).
//
// It also holds the small readers the generated, reflection-free decoders
// are made of (ReadString, ReadDecimal, BeginObject and the rest). Each
// follows what encoding/json does when it decodes into the same Go type,
// so that a generated decoder accepts and rejects what encoding/json
// accepts and rejects, with three documented exceptions:
//
//   - a JSON number where a string is modelled is kept as its text (the
//     service sends some fields, an invoice summary's invoiceNumber for
//     one, as a number although the reference shows a string), where
//     encoding/json fails;
//   - a decimal with a run of more than MaxDigitRun digits is refused
//     (ErrNumberTooLong): parsing one costs time superlinear in its
//     length, and no timeout stops a decode once the body has arrived;
//   - members that no field matches are kept (see ReadUnknown) where
//     encoding/json drops them.
//
// As in encoding/json, member names match exactly or else without regard
// to case (encoding/json's folding, which also folds U+212A and U+017F),
// a repeated name decodes again into the same field (last wins, objects
// merge), and invalid UTF-8 in strings is replaced with U+FFFD.
package jsonwire

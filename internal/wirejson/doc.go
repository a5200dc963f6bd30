// Package wirejson encodes the SDK's request bodies (and the fake server's
// responses) the way the billing API expects them: exactly like
// encoding/json.Marshal, except that money amounts are bare JSON numbers.
//
// The API sends and receives every amount as a JSON number ("amount": 10.125)
// and the SDK models amounts as decimal.Decimal. shopspring's MarshalJSON
// quotes decimals unless decimal.MarshalJSONWithoutQuotes is flipped, and a
// library must not flip package-level switches that belong to the whole
// program. Decoding needs no help: Decimal.UnmarshalJSON accepts bare numbers
// exactly, so plain encoding/json.Unmarshal is the decoder.
//
// # What is encoded differently from encoding/json
//
// decimal.Decimal, *decimal.Decimal and decimal.NullDecimal (and pointers to
// them, wherever they occur: struct fields, slice and array elements, map
// values, inside interfaces) are written as bare numbers. A nil
// *decimal.Decimal and a NullDecimal with Valid == false are null. The digits
// are the ones Decimal.String prints with decimal's default settings
// (trailing fractional zeros trimmed, never exponent notation), but they are
// produced here from the coefficient and exponent, so they stay the same if
// some other part of the program sets decimal.TrimTrailingZeros or
// decimal.UseScientificNotation. The value is always exact.
//
// Everything else is encoding/json's behaviour, byte for byte, including its
// error types (*json.UnsupportedTypeError, *json.UnsupportedValueError,
// *json.MarshalerError) and messages. Consequences worth knowing:
//
//   - Only those exact types are special. A type that embeds a Decimal
//     (struct{ decimal.Decimal }) gets Decimal's MarshalJSON by promotion and
//     is encoded by that method, quoted, just as encoding/json would; a type
//     with its own MarshalJSON is always trusted; a defined type such as
//     "type Amount decimal.Decimal" has no methods and no exported fields and
//     encodes as {}. Whatever a MarshalJSON method writes is used as is, so
//     decimals it encodes itself come out however it encodes them.
//   - A Decimal used as a map key goes through its MarshalText, as in
//     encoding/json, so that key follows decimal's package-level settings.
//   - The ",string" tag option does not apply to decimals (encoding/json only
//     applies it to bools, numbers and strings); they stay bare numbers.
//   - ",omitempty" never omits a Decimal: it is a struct, and encoding/json
//     never treats a struct as empty.
//   - ",omitzero" omits a Decimal whose IsZero reports true, so an amount of
//     0 is not sent at all. Fields for which the API must receive an explicit
//     0 must not use omitzero (use *decimal.Decimal with omitempty if the
//     field is optional). On a *decimal.Decimal, omitzero omits both nil and
//     a pointer to zero, because *Decimal has IsZero too.
//   - Cycles are found the way encoding/json finds them: only after 1000
//     nested pointers, slices or maps, so a cyclic value costs that much
//     recursion before *json.UnsupportedValueError is returned.
//   - There is no indentation and no way to turn HTML escaping off; like
//     json.Marshal, '<', '>', '&', U+2028 and U+2029 are always escaped.
//
// Encoders are built once per type and kept in a sync.Map; that memo is the
// package's only state.
package wirejson

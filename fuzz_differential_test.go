package billing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// FuzzDecodeDifferential proves that the generated decoders accept and
// reject what encoding/json accepts and rejects when it decodes the same
// bytes into the same types, and that they produce the same values:
//
//	go test -run '^$' -fuzz '^FuzzDecodeDifferential$' -fuzztime 10s .
//
// encoding/json is a reflection-only reference here: it decodes into
// mirrors of the resource types (see mirror), structs with the same
// fields and no methods, since the resource types' own UnmarshalJSON is
// the generated decoder. The input is decoded as one resource (through
// jsonwire.Unmarshal, which calls UnmarshalJSON) and as a list answer
// (through the SDK's decodeList), with kind picking the resource type.
//
// The documented differences are allowed, and checked:
//   - a JSON number where a string is modelled: encoding/json fails with
//     an *json.UnmarshalTypeError, the SDK keeps the number's text;
//   - a decimal with more than jsonwire.MaxDigitRun digits in a row: the
//     SDK refuses it with ErrNumberTooLong, encoding/json takes its time;
//   - members no field matches: encoding/json drops them, the SDK keeps
//     them in Extra, which must then hold exactly the members of the
//     top-level object whose names match no field (compared for the
//     top-level object; nested Extra fields are left out of the value
//     comparison).
func FuzzDecodeDifferential(f *testing.F) {
	for _, s := range differentialSeeds(f) {
		for kind := range differentialTypes {
			f.Add(byte(kind), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, kind byte, b []byte) {
		dt := differentialTypes[int(kind)%len(differentialTypes)]
		dt.check(t, b)
	})
}

// differentialType runs the comparison for one resource type.
type differentialType struct {
	name  string
	check func(t *testing.T, b []byte)
}

var differentialTypes = []differentialType{
	differentialFor[Invoice](),
	differentialFor[InvoiceSummary](),
	differentialFor[Charge](),
	differentialFor[ChargeGroup](),
	differentialFor[InvoiceCustomer](),
	differentialFor[AddressPreference](),
	differentialFor[PaymentSchedule](),
	differentialFor[SubscriptionProductItem](),
	differentialFor[CreditCard](),
	differentialFor[WalletPaymentMethod](),
	differentialFor[SalesTrackingCode](),
}

func differentialFor[T any]() differentialType {
	name := reflect.TypeFor[T]().Name()
	return differentialType{name: name, check: func(t *testing.T, b []byte) {
		// One resource.
		var got T
		want := reflect.New(mirror(reflect.TypeFor[T]()))
		refErr := json.Unmarshal(b, want.Interface())
		gotErr := jsonwire.Unmarshal(b, &got)
		if compareDecodes(t, name, b, refErr, gotErr, want.Elem(), reflect.ValueOf(&got).Elem()) {
			checkTopLevelExtra(t, name, b, reflect.ValueOf(&got).Elem())
		}
		// A list answer. The SDK reads null as an empty page, like
		// encoding/json (a nil slice); a value that is not an array is an
		// error for both.
		var gotList []T
		wantList := reflect.New(reflect.SliceOf(mirror(reflect.TypeFor[T]())))
		refErr = json.Unmarshal(b, wantList.Interface())
		gotErr = decodeList(bytes.NewReader(b), &gotList, maxPageItems)
		if refErr == nil && wantList.Elem().IsNil() && gotErr == nil && len(gotList) == 0 {
			return // null: encoding/json leaves nil, the SDK an empty page
		}
		compareDecodes(t, "[]"+name, b, refErr, gotErr, wantList.Elem(), reflect.ValueOf(&gotList).Elem())
		if gotErr == nil {
			checkNoAliasing(t, name, b, gotList)
		}
	}}
}

// generatedType is a pointer to a resource type with a generated decoder.
var generatedType = reflect.TypeFor[interface {
	decodeMember(*jsonwire.Decoder, *jsonwire.Arena, []byte) error
}]()

// mirror returns t with every resource type that has a generated decoder,
// at any depth, replaced by a struct of the same fields, tags and order
// and no methods, which encoding/json decodes by reflection alone.
func mirror(t reflect.Type) reflect.Type {
	switch {
	case t.Kind() == reflect.Pointer:
		return reflect.PointerTo(mirror(t.Elem()))
	case t.Kind() == reflect.Slice && mirror(t.Elem()) != t.Elem():
		return reflect.SliceOf(mirror(t.Elem()))
	case t.Kind() != reflect.Struct || !reflect.PointerTo(t).Implements(generatedType):
		return t
	}
	fields := make([]reflect.StructField, t.NumField())
	for i := range fields {
		f := t.Field(i)
		fields[i] = reflect.StructField{Name: f.Name, Type: mirror(f.Type), Tag: f.Tag}
	}
	return reflect.StructOf(fields)
}

// checkNoAliasing decodes b as a list answer read in place, as the SDK
// reads pages, then overwrites the body: the decoded items must not
// change, since the body's buffer is reused for the next page.
func checkNoAliasing[T any](t *testing.T, name string, b []byte, want []T) {
	t.Helper()
	body := bytes.Clone(b)
	var got []T
	if err := decodeList(bytes.NewBuffer(body), &got, maxPageItems); err != nil {
		t.Fatalf("[]%s read in place: %v; read from a stream it decoded", name, err)
	}
	for i := range body {
		body[i] = '#'
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("[]%s: overwriting the body changed the decoded items, which share its bytes:\n got %+v\nwant %+v", name, got, want)
	}
}

// longDigitRun matches what the SDK refuses to parse as a decimal.
var longDigitRun = regexp.MustCompile(fmt.Sprintf("[0-9]{%d}", jsonwire.MaxDigitRun+1))

// compareDecodes fails t unless the two outcomes agree, allowing the
// documented differences; it reports whether both succeeded.
func compareDecodes(t *testing.T, name string, b []byte, refErr, gotErr error, want, got reflect.Value) bool {
	t.Helper()
	if gotErr != nil && errors.Is(gotErr, jsonwire.ErrNumberTooLong) {
		if !longDigitRun.Match(b) {
			t.Fatalf("%s: ErrNumberTooLong without a run of %d digits: %v\n%q", name, jsonwire.MaxDigitRun+1, gotErr, b)
		}
		return false
	}
	numberAsString := false
	if refErr != nil && gotErr == nil {
		var te *json.UnmarshalTypeError
		if !errors.As(refErr, &te) || te.Value != "number" || te.Type.Kind() != reflect.String {
			t.Fatalf("%s: encoding/json refuses (%v), the SDK accepts\n%q", name, refErr, b)
		}
		numberAsString = true
	}
	if refErr == nil && gotErr != nil {
		t.Fatalf("%s: encoding/json accepts, the SDK refuses: %v\n%q", name, gotErr, b)
	}
	if gotErr != nil {
		return false
	}
	if diff := diffValues(name, want, got, numberAsString); diff != "" {
		t.Fatalf("%s: decoded values differ: %s\n%q", name, diff, b)
	}
	return true
}

var (
	decimalT = reflect.TypeFor[decimal.Decimal]()
	extraT   = reflect.TypeFor[Extra]()
	numberRe = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
)

// diffValues compares what encoding/json decoded (want) with what the SDK
// decoded (got), field by field, and describes the first difference.
// Decimals compare by coefficient and exponent; Extra fields are skipped.
// With numberAsString, a string encoding/json left empty may hold a JSON
// number's text.
func diffValues(path string, want, got reflect.Value, numberAsString bool) string {
	if want.Type() == decimalT {
		w, g := want.Interface().(decimal.Decimal), got.Interface().(decimal.Decimal)
		if w.Exponent() != g.Exponent() || w.Coefficient().Cmp(g.Coefficient()) != 0 {
			return fmt.Sprintf("%s: %s (exp %d) != %s (exp %d)", path, w.String(), w.Exponent(), g.String(), g.Exponent())
		}
		return ""
	}
	switch want.Kind() {
	case reflect.Pointer:
		if want.IsNil() || got.IsNil() {
			if want.IsNil() != got.IsNil() {
				return fmt.Sprintf("%s: nil %v, SDK nil %v", path, want.IsNil(), got.IsNil())
			}
			return ""
		}
		return diffValues(path, want.Elem(), got.Elem(), numberAsString)
	case reflect.Struct:
		for i := range want.NumField() {
			f := want.Type().Field(i)
			if f.Type == extraT || !f.IsExported() {
				continue
			}
			if want.Type().String() == "billing.Timestamp" {
				break
			}
			if d := diffValues(path+"."+f.Name, want.Field(i), got.Field(i), numberAsString); d != "" {
				return d
			}
		}
		if want.Type().String() == "billing.Timestamp" {
			w, g := want.Interface().(Timestamp), got.Interface().(Timestamp)
			if !w.Equal(g.Time) || w.IsZero() != g.IsZero() {
				return fmt.Sprintf("%s: %v != %v", path, w, g)
			}
		}
		return ""
	case reflect.Slice:
		if want.IsNil() != got.IsNil() || want.Len() != got.Len() {
			return fmt.Sprintf("%s: len %d (nil %v), SDK len %d (nil %v)", path, want.Len(), want.IsNil(), got.Len(), got.IsNil())
		}
		if want.Type().Elem().Kind() == reflect.Uint8 {
			if !bytes.Equal(want.Bytes(), got.Bytes()) {
				return fmt.Sprintf("%s: %q != %q", path, want.Bytes(), got.Bytes())
			}
			return ""
		}
		for i := range want.Len() {
			if d := diffValues(fmt.Sprintf("%s[%d]", path, i), want.Index(i), got.Index(i), numberAsString); d != "" {
				return d
			}
		}
		return ""
	case reflect.String:
		w, g := want.String(), got.String()
		if w != g && !(numberAsString && w == "" && numberRe.MatchString(g)) {
			return fmt.Sprintf("%s: %q != %q", path, w, g)
		}
		return ""
	default:
		if !reflect.DeepEqual(want.Interface(), got.Interface()) {
			return fmt.Sprintf("%s: %v != %v", path, want.Interface(), got.Interface())
		}
		return ""
	}
}

// checkTopLevelExtra checks that got's Extra holds exactly the members of
// the object b whose names match none of the type's fields, as
// encoding/json reads those members into a map.
func checkTopLevelExtra(t *testing.T, name string, b []byte, got reflect.Value) {
	t.Helper()
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return // null, which leaves the resource as it was
	}
	known := map[string]bool{}
	var extra Extra
	for i := range got.NumField() {
		f := got.Type().Field(i)
		if f.Type == extraT {
			extra = got.Field(i).Interface().(Extra)
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		known[jsonwire.FoldName([]byte(tag))] = true
	}
	want := Extra{}
	for k, v := range members {
		if !known[jsonwire.FoldName([]byte(k))] {
			// Kept with each byte of invalid UTF-8 replaced by U+FFFD,
			// as in a decoded string: ranging over a string yields
			// RuneError for each such byte, and strings.Map writes it;
			// and each escape of a lone surrogate half written as
			// \ufffd, as encoding/json reads it.
			want[k] = jsonwire.ValidSurrogates(json.RawMessage(strings.Map(func(r rune) rune { return r }, string(v))))
		}
	}
	if len(want) != len(extra) {
		t.Fatalf("%s: Extra has %d members, want %d (%v vs %v)\n%q", name, len(extra), len(want), extra, want, b)
	}
	for k, v := range want {
		if g, ok := extra[k]; !ok || !bytes.Equal(g, v) {
			t.Fatalf("%s: Extra[%q] = %q, want %q\n%q", name, k, g, v, b)
		}
	}
}

// differentialSeeds are real answers and the edge cases of encoding/json's
// semantics that the decoders must match.
func differentialSeeds(tb testing.TB) []string {
	seeds := []string{
		// Names: exact, other case, folding of U+212A (Kelvin) and U+017F
		// (long s), escapes, repeated names (last wins, objects merge).
		`{"id":1,"ID":2}`, `{"ID":2,"id":1}`, `{"Id":3,"iD":4}`, `{"invoicenumber":7}`, `{"INVOICENUMBER":"7"}`,
		`{"ſubtotal":1.5,"unſettled":true}`, `{"checkId":1,"Kind":2,"\u212aey":3}`, `{"\u0069d":5,"\u0049D":6}`,
		`{"invoiceCustomer":{"id":1,"firstName":"A"},"invoiceCustomer":{"lastName":"B"}}`,
		`{"invoiceCustomer":{"id":1},"invoiceCustomer":null,"invoiceCustomer":{"id":2}}`,
		`{"charges":[{"id":1,"name":"a"},{"id":2}],"charges":[{"id":3}]}`,
		`{"charges":[{"id":1},{"id":2}],"charges":[{"id":3}],"charges":[{},{}]}`,
		`{"charges":[],"chargeGroups":[{"charges":[]}]}`, `{"charges":null}`, `{"charges":{}}`, `{"charges":[1]}`,
		`{"chargeTiers":[{"label":"x","quantity":1}],"chargeTiers":[]}`,
		`{"paymentSchedules":[{"status":"Due","amount":1},{"status":"Paid"}]}`,
		`{"billingAddress":{"line1":"x"},"shippingAddress":null}`,
		// Strings: escapes, surrogates, invalid UTF-8, numbers where
		// strings are modelled.
		`{"terms":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00"}`, `{"terms":"\ud800"}`, `{"terms":"\ud800\u0041"}`,
		`{"terms":"\udc00\ud800"}`, "{\"terms\":\"\xff\xfe\"}", "{\"te\xffrms\":1}", `{"terms":123}`, `{"terms":-1.5e3}`,
		`{"invoiceNumber":"1047"}`, `{"invoiceNumber":1047}`, `{"invoiceNumber":1047.5}`, `{"name":12,"code":3}`,
		`{"uri":7}`, `{"uri":null}`, `{"uri":true}`, `{"uri":{}}`, `{"status":"Retired"}`, `{"status":5}`,
		`{"maskedCardNumber":411111,"cardType":null}`, `{"reference":"r-1"}`, `{"reference":12.50}`, `{"reference":[]}`,
		// Numbers and decimals.
		`{"id":-0}`, `{"id":1e3}`, `{"id":"12"}`, `{"id":9223372036854775807}`, `{"id":9223372036854775808}`,
		`{"expirationMonth":12,"expirationYear":1e1}`, `{"daysDueAfterTerm":-30}`, `{"parentId":5,"parentId":null}`,
		`{"stateId":null,"countryId":1}`, `{"subtotal":"10.50"}`, `{"subtotal":10.50}`, `{"subtotal":-0.0}`,
		`{"subtotal":1e2}`, `{"subtotal":1E-2}`, `{"subtotal":123456789012345678}`, `{"subtotal":1234567890123456789}`,
		`{"subtotal":0.000000000000000001}`, `{"subtotal":null}`, `{"subtotal":true}`, `{"subtotal":"abc"}`,
		`{"subtotal":{}}`, `{"proratedUnitPrice":null,"rangeQuantity":2.5}`, `{"proratedUnitPrice":"x"}`,
		`{"amount":` + strings.Repeat("9", 300) + `}`, `{"terms":"` + strings.Repeat("9", 300) + `"}`,
		// Booleans, timestamps, raw values.
		`{"unsettled":true,"unsettled":false}`, `{"unsettled":"true"}`, `{"unsettled":null}`, `{"isDefault":1}`,
		`{"postedTimestamp":"2024-03-01T10:15:00.1234567"}`, `{"postedTimestamp":null}`, `{"postedTimestamp":"2024\u002d03-01T10:15:00"}`,
		`{"postedTimestamp":"0001-01-01T00:00:00"}`, `{"createdDate":20240301}`, `{"modifiedDate":"2024-02-30T00:00:00"}`,
		`{"taxes":null}`, `{"taxes":[ 1 , {"a" : [ ] } ]}`, `{"discount":"x","purchase":{"id":1}}`, `{"erpLocationId":12}`,
		// Unknown members, the live service's extras.
		`{"id":1,"invoiceAdjustments":{"total":1.5,"items":[]},"vaultedAtProvider":true}`,
		`{"id":1,"x":1,"x":2}`, `{"Extra":{"a":1}}`, `{"email":"a@b.c","uri":"u","email":null}`,
		// Whole documents.
		`null`, `{}`, `[]`, `[{}]`, `[null]`, `[{"id":1},{"id":2}]`, `"x"`, `1`, `true`, ` {"id":1} `, `{"id":1} x`,
		`{"id":1}{"id":2}`, `[{"id":1}]]`, `{`, `{"id"`, `{"id":}`, `{"id":1,}`, `[1,]`, "\ufeff{}", `{"id":01}`,
		strings.Repeat("[", 200) + strings.Repeat("]", 200),
		`{"invoiceCustomer":` + strings.Repeat(`{"customerReference":`, 50) + `1` + strings.Repeat("}", 51),
	}
	for _, name := range []string{"testdata/invoice.json", "testdata/invoice_grouped.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, string(b), "["+string(b)+","+string(b)+"]",
			strings.Replace(string(b), `"invoiceNumber"`, `"invoiceAdjustments":{"a":[1,2]},"InvoiceNumber"`, 1))
	}
	return seeds
}

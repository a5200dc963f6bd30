package bind

import (
	"reflect"
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

type collect struct {
	CollectionAmount decimal.Decimal `json:"collectionAmount"`
}

type body struct {
	ID        int64              `json:"id"`
	Count     *int32             `json:"count"`
	Token     string             `json:"token"`
	Card      string             `json:"cardNumber"`
	Default   bool               `json:"isDefault"`
	PlanIDs   []int64            `json:"planProductIds"`
	Collect   *collect           `json:"paymentCollectOptions"`
	Effective *billing.Timestamp `json:"effectiveTimestamp"`
	Extra     map[string]float64 `json:"extra"`
}

func ptr[T any](v T) *T { return &v }

// TestJSON checks the service's conversions, and that a value that
// cannot convert is refused with its field named on the wire and the
// value never quoted.
func TestJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    body
		wantErr string
	}{
		{"numbers as strings, keys in any case", `{"ID":"910104","count":" 7 ","PlanProductIds":["1",2],"paymentCollectOptions":{"collectionAmount":"20.00"}}`,
			body{ID: 910104, Count: ptr[int32](7), PlanIDs: []int64{1, 2}, Collect: &collect{decimal.RequireFromString("20.00")}}, ""},
		{"a string as a number, booleans as text or numbers", `{"token":12345,"isDefault":"False"}`, body{Token: "12345"}, ""},
		{"a non-zero number is true", `{"isDefault":2}`, body{Default: true}, ""},
		{"an empty string is no value", `{"count":"","id":""}`, body{}, ""},
		{"what JSON cannot spell", `{"paymentCollectOptions":{"collectionAmount":".5"}}`, body{Collect: &collect{decimal.RequireFromString("0.5")}}, ""},
		{"a map's values", `{"extra":{"a":"1.5"}}`, body{Extra: map[string]float64{"a": 1.5}}, ""},
		{"unknown members ignored", `{"nope":[1,{}],"id":1}`, body{ID: 1}, ""},
		{"an integer out of range", `{"count":"4294967296"}`, body{}, "count must be an integer, as a JSON number or a string holding one, within range"},
		{"a bad element", `{"planProductIds":[1,"x"]}`, body{}, "planProductIds[1] must be an integer"},
		{"a bad amount, nested", `{"paymentCollectOptions":{"collectionAmount":"12a"}}`, body{}, "paymentCollectOptions.collectionAmount must be a number"},
		{"a card number as an object", `{"cardNumber":{"n":"4111111111111111"}}`, body{}, "cardNumber must be a string"},
		{"yes is not a boolean", `{"isDefault":"yes"}`, body{}, "isDefault must be true or false"},
		{"a bad timestamp", `{"effectiveTimestamp":"4111111111111111"}`, body{}, "effectiveTimestamp is not a valid timestamp"},
		{"not an array", `{"planProductIds":"1"}`, body{}, "planProductIds must be an array"},
		{"not an object", `[1]`, body{}, "the body must be a JSON object"},
		{"no body", ` `, body{}, "a JSON body is required"},
		{"a syntax error", `{"id":1,}`, body{}, "malformed JSON body: syntax error at offset"},
		{"cut short", `{"id":1`, body{}, "malformed JSON body"},
		{"trailing data", `{"id":1} {}`, body{}, "more data after the JSON value"},
		{"a byte-order mark first", "\uFEFF" + `{"id":1}`, body{ID: 1}, ""},
		{"a byte-order mark alone", "\uFEFF ", body{}, "a JSON body is required"},
		{"two byte-order marks", "\uFEFF\uFEFF" + `{"id":1}`, body{}, "malformed JSON body"},
	}
	for _, tc := range tests {
		var got body
		err := JSON([]byte(tc.in), &got)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.wantErr)
		case err != nil && strings.Contains(err.Error(), "4111"):
			t.Errorf("%s: the message %q quotes the value", tc.name, err)
		case err == nil && !reflect.DeepEqual(got, tc.want):
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestBool(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"true": 1, "False": 0, "TRUE": 1, "1": -1, "0": -1, "yes": -1, "": -1} {
		b, err := Bool(in)
		got := map[bool]int{true: 1, false: 0}[b]
		if err != nil {
			got = -1
		}
		if got != want {
			t.Errorf("Bool(%q) = %v, %v; want %d (1 true, 0 false, -1 an error)", in, b, err, want)
		}
	}
}

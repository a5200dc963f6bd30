package billing

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// TestExtraKeepsWhatTheServiceSends checks, for every resource type, that
// members the SDK does not model are kept in Extra, exactly as sent, that
// they do not disturb the modelled fields, and that they survive encoding
// the resource again with the SDK's encoder.
func TestExtraKeepsWhatTheServiceSends(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		body  string
		into  func() any // a pointer to a new resource
		extra func(v any) Extra
		want  Extra
	}{
		{
			name: "invoice with invoiceAdjustments",
			body: `{"id":7,"invoiceAdjustments":{"total":-1.50,"items":[{"reason":"goodwill"}]},"subtotal":10.125,"charges":[{"id":1,"amount":3.5,"taxCode":"S1"}]}`,
			into: func() any { return new(Invoice) }, extra: func(v any) Extra { return v.(*Invoice).Extra },
			want: Extra{"invoiceAdjustments": json.RawMessage(`{"total":-1.50,"items":[{"reason":"goodwill"}]}`)},
		},
		{
			name: "credit card with the service's extra fields and its vault key",
			body: `{"id":9,"maskedCardNumber":"************1111","isDefault":true,"storedInStripe":true,"accountType":"Personal","expirationNotified":false,"cardExpired":null,"bankName":"X Bank"}`,
			into: func() any { return new(CreditCard) }, extra: func(v any) Extra { return v.(*CreditCard).Extra },
			want: Extra{"storedInStripe": json.RawMessage(`true`), "accountType": json.RawMessage(`"Personal"`),
				"expirationNotified": json.RawMessage(`false`), "cardExpired": json.RawMessage(`null`), "bankName": json.RawMessage(`"X Bank"`)},
		},
		{
			name: "wallet answer with email and uri",
			body: `{"id":3,"customerId":100,"email":"ada@example.test","uri":"https://billing.example.test/v1/paymentMethods/3"}`,
			into: func() any { return new(WalletPaymentMethod) }, extra: func(v any) Extra { return v.(*WalletPaymentMethod).Extra },
			want: Extra{"email": json.RawMessage(`"ada@example.test"`), "uri": json.RawMessage(`"https://billing.example.test/v1/paymentMethods/3"`)},
		},
		{
			name: "invoice summary with invoiceNumber as a number",
			body: `{"id":1,"invoiceNumber":1047,"invoiceStatus":"Due","collectionStage":2}`,
			into: func() any { return new(InvoiceSummary) }, extra: func(v any) Extra { return v.(*InvoiceSummary).Extra },
			want: Extra{"collectionStage": json.RawMessage(`2`)},
		},
		{
			name: "tracking code",
			body: `{"id":4,"status":"Retired","retiredOn":"2025-01-01T00:00:00"}`,
			into: func() any { return new(SalesTrackingCode) }, extra: func(v any) Extra { return v.(*SalesTrackingCode).Extra },
			want: Extra{"retiredOn": json.RawMessage(`"2025-01-01T00:00:00"`)},
		},
		{
			name: "subscription product item",
			body: `{"id":5,"reference":12,"quantity":3}`,
			into: func() any { return new(SubscriptionProductItem) }, extra: func(v any) Extra { return v.(*SubscriptionProductItem).Extra },
			want: Extra{"quantity": json.RawMessage(`3`)},
		},
		{
			name: "bulk job",
			body: `{"id":950,"status":"Validated","rows":12}`,
			into: func() any { return new(BulkJob) }, extra: func(v any) Extra { return v.(*BulkJob).Extra },
			want: Extra{"status": json.RawMessage(`"Validated"`), "rows": json.RawMessage(`12`)},
		},
		{
			name: "nothing extra",
			body: `{"id":5}`,
			into: func() any { return new(SubscriptionProductItem) }, extra: func(v any) Extra { return v.(*SubscriptionProductItem).Extra },
			want: nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := tc.into()
			if err := decodeValue(strings.NewReader(tc.body), v); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if got := tc.extra(v); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Extra = %s, want %s", got, tc.want)
			}
			// Encoded again, then decoded: the same resource, Extra included.
			b, err := jsonwire.Marshal(v)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			back := tc.into()
			if err := decodeValue(bytes.NewReader(b), back); err != nil {
				t.Fatalf("decoding the re-encoded resource: %v\n%s", err, b)
			}
			if got := tc.extra(back); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("after a round trip, Extra = %s, want %s\n%s", got, tc.want, b)
			}
			// The zero Decimal and a decoded 0 differ as Go values, not on
			// the wire: compare the encodings.
			b2, err := jsonwire.Marshal(back)
			if err != nil || !bytes.Equal(b, b2) {
				t.Fatalf("round trip changed the resource (%v):\n%s\n%s", err, b, b2)
			}
		})
	}
}

// TestExtraOnNestedResources checks that the members of nested objects
// are kept on the nested resource, and written back in place.
func TestExtraOnNestedResources(t *testing.T) {
	t.Parallel()
	body := `[{"id":1,"charges":[{"id":2,"taxCode":"S1","chargeTiers":[{"label":"a","band":3}]}],` +
		`"invoiceCustomer":{"id":0,"segment":"smb"},"paymentSchedules":[{"status":"Due","dunningStep":1}]}]`
	var items []Invoice
	if err := decodeList(strings.NewReader(body), &items, maxPageItems); err != nil {
		t.Fatal(err)
	}
	inv := items[0]
	got := []Extra{inv.Charges[0].Extra, inv.Charges[0].ChargeTiers[0].Extra, inv.InvoiceCustomer.Extra, inv.PaymentSchedules[0].Extra}
	want := []Extra{{"taxCode": json.RawMessage(`"S1"`)}, {"band": json.RawMessage(`3`)}, {"segment": json.RawMessage(`"smb"`)}, {"dunningStep": json.RawMessage(`1`)}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("nested Extra = %s, want %s", got, want)
	}
	b, err := jsonwire.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"taxCode":"S1"`, `"band":3`, `"segment":"smb"`, `"dunningStep":1`} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("re-encoded page lacks %s:\n%s", s, b)
		}
	}
}

// TestExtraDecode reads one member of Extra into a Go value.
func TestExtraDecode(t *testing.T) {
	t.Parallel()
	e := Extra{"invoiceAdjustments": json.RawMessage(`{"total":-1.50}`)}
	var adj struct {
		Total Timestamp `json:"total"`
	}
	if ok, err := e.Decode("invoiceAdjustments", &adj); !ok || err == nil {
		t.Errorf("decoding a number into a Timestamp: ok %v, err %v; want true and an error", ok, err)
	}
	var adj2 struct {
		Total decimal.Decimal `json:"total"`
	}
	if ok, err := e.Decode("invoiceAdjustments", &adj2); !ok || err != nil || adj2.Total.String() != "-1.5" || adj2.Total.Exponent() != -2 {
		t.Errorf("Decode = %v, %v, total %s", ok, err, adj2.Total)
	}
	if ok, err := e.Decode("missing", &adj2); ok || err != nil {
		t.Errorf("Decode of a missing member = %v, %v; want false, nil", ok, err)
	}
}

package cards

import (
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

const (
	number = "4111 1111-1111 1111"
	cvv    = "987"
)

func valid() billing.ReplaceCreditCardParams {
	return billing.ReplaceCreditCardParams{ID: 5, CustomerID: 2, CardNumber: number, CVV: cvv, ExpirationMonth: 12, ExpirationYear: 29}
}

// TestCheck checks what a replacement may hold, and that no message
// carries the card number or the CVV, whatever they are.
func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		change  func(*billing.ReplaceCreditCardParams)
		digits  string
		wantErr string
	}{
		{"valid, spaces and dashes dropped", func(*billing.ReplaceCreditCardParams) {}, "4111111111111111", ""},
		{"no id", func(p *billing.ReplaceCreditCardParams) { p.ID = 0 }, "", "id is required"},
		{"negative customer", func(p *billing.ReplaceCreditCardParams) { p.CustomerID = -1 }, "", "customerId must be a positive id"},
		{"51 runes", func(p *billing.ReplaceCreditCardParams) { p.LastName = strings.Repeat("ü", 51) }, "", "lastName is at most 50 characters, got 51"},
		{"50 runes of 100 bytes", func(p *billing.ReplaceCreditCardParams) { p.City = strings.Repeat("ü", 50) }, "4111111111111111", ""},
		{"26 emoji are 52 UTF-16 units", func(p *billing.ReplaceCreditCardParams) { p.FirstName = strings.Repeat("😀", 26) }, "", "firstName is at most 50 characters, got 52"},
		{"25 emoji are 50 UTF-16 units", func(p *billing.ReplaceCreditCardParams) { p.FirstName = strings.Repeat("😀", 25) }, "4111111111111111", ""},
		{"postal code of 11", func(p *billing.ReplaceCreditCardParams) { p.PostalZip = "12345678901" }, "", "postalZip is at most 10 characters, got 11"},
		{"no number", func(p *billing.ReplaceCreditCardParams) { p.CardNumber = "" }, "", "cardNumber is required"},
		{"a letter", func(p *billing.ReplaceCreditCardParams) { p.CardNumber = "4111x11111111111" }, "", "cardNumber must hold digits only"},
		{"11 digits", func(p *billing.ReplaceCreditCardParams) { p.CardNumber = "41111111111" }, "", "cardNumber must have 12 to 19 digits, got 11"},
		{"20 digits", func(p *billing.ReplaceCreditCardParams) { p.CardNumber = "41111111111111111111" }, "", "got 20"},
		{"cvv of 2", func(p *billing.ReplaceCreditCardParams) { p.CVV = "98" }, "", "cvv must be 3 or 4 digits"},
		{"cvv with a letter", func(p *billing.ReplaceCreditCardParams) { p.CVV = "98a" }, "", "cvv must be 3 or 4 digits"},
		{"month 13", func(p *billing.ReplaceCreditCardParams) { p.ExpirationMonth = 13 }, "", "expirationMonth must be 1 to 12, got 13"},
		{"year 2029", func(p *billing.ReplaceCreditCardParams) { p.ExpirationYear = 2029 }, "", "got 2029"},
		{"negative collection", func(p *billing.ReplaceCreditCardParams) {
			p.PaymentCollectOptions = &billing.PaymentCollectOptions{CollectionAmount: decimal.New(-1, 0)}
		}, "", "collectionAmount must not be negative"},
	}
	for _, tc := range tests {
		p := valid()
		tc.change(&p)
		digits, err := Check(&p)
		if digits != tc.digits || (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: Check = %q, %v; want %q, an error with %q", tc.name, digits, err, tc.digits, tc.wantErr)
		}
		if err != nil && p.CardNumber != "" && (strings.Contains(err.Error(), p.CardNumber) || strings.Contains(err.Error(), p.CVV)) {
			t.Errorf("%s: the message %q carries the card number or the CVV", tc.name, err)
		}
	}
}

func TestType(t *testing.T) {
	t.Parallel()
	for digits, want := range map[string]string{
		"341111111111111": "AmericanExpress", "371111111111111": "AmericanExpress", "4111111111111111": "Visa",
		"5500000000000004": "MasterCard", "6011111111111117": "Discover", "3530111333300000": "Unknown",
	} {
		if got := Type(digits); got != want {
			t.Errorf("Type(%s) = %q, want %q", digits, got, want)
		}
	}
}

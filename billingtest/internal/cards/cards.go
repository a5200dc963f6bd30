// Package cards checks the card data of a credit card replacement
// (section 4.7 of the reference). The card number and CVV are never part
// of a message: messages give lengths and ranges only.
package cards

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"

	billing "github.com/billingapi/billing-go"
)

// Check validates the request of a card replacement and returns the card number's
// digits. Messages give lengths and ranges, never the number or CVV.
func Check(p *billing.ReplaceCreditCardParams) (string, error) {
	if p.ID <= 0 {
		return "", errors.New("id is required: the payment method to replace")
	}
	if p.CustomerID < 0 {
		return "", errors.New("customerId must be a positive id")
	}
	// The field length limits of the reference's section 8, in characters
	// as .NET counts them, UTF-16 code units: "Müller" is 6, an emoji 2.
	for _, l := range []struct {
		field, value string
		max          int
	}{
		{"firstName", p.FirstName, 50}, {"lastName", p.LastName, 50}, {"address1", p.Address1, 50},
		{"address2", p.Address2, 50}, {"city", p.City, 50}, {"postalZip", p.PostalZip, 10},
	} {
		if n := utf16Len(l.value); n > l.max {
			return "", fmt.Errorf("%s is at most %d characters, got %d", l.field, l.max, n)
		}
	}
	if p.CardNumber == "" {
		return "", errors.New("cardNumber is required: the full card number (reads return it masked)")
	}
	// Spaces and dashes are how people type card numbers; anything else
	// is not a card number.
	digits := strings.NewReplacer(" ", "", "-", "").Replace(p.CardNumber)
	if !allDigits(digits) {
		return "", errors.New("cardNumber must hold digits only")
	}
	if n := len(digits); n < 12 || n > 19 {
		return "", fmt.Errorf("cardNumber must have 12 to 19 digits, got %d", n)
	}
	if n := len(p.CVV); n < 3 || n > 4 || !allDigits(p.CVV) {
		return "", errors.New("cvv must be 3 or 4 digits")
	}
	if p.ExpirationMonth < 1 || p.ExpirationMonth > 12 {
		return "", fmt.Errorf("expirationMonth must be 1 to 12, got %d", p.ExpirationMonth)
	}
	if p.ExpirationYear < 0 || p.ExpirationYear > 99 {
		return "", fmt.Errorf("expirationYear must be a two-digit year (0 to 99), got %d", p.ExpirationYear)
	}
	if p.PaymentCollectOptions != nil && p.PaymentCollectOptions.CollectionAmount.IsNegative() {
		return "", errors.New("paymentCollectOptions.collectionAmount must not be negative")
	}
	return digits, nil
}

// allDigits reports whether s is digits only, and not empty.
func allDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// Type tells the brand from the number's leading digits.
func Type(digits string) string {
	switch {
	case strings.HasPrefix(digits, "34"), strings.HasPrefix(digits, "37"):
		return "AmericanExpress"
	case strings.HasPrefix(digits, "4"):
		return "Visa"
	case strings.HasPrefix(digits, "5"):
		return "MasterCard"
	case strings.HasPrefix(digits, "6"):
		return "Discover"
	}
	return "Unknown"
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += max(utf16.RuneLen(r), 1)
	}
	return n
}

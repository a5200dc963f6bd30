package billing

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
)

// maskCard keeps the last four digits of a card number, the part that may
// be shown, and only when there are enough digits that they are not the
// whole number.
func maskCard(n string) string {
	if n == "" {
		return ""
	}
	if len(n) < 12 {
		return "[REDACTED]"
	}
	return strings.Repeat("*", len(n)-4) + n[len(n)-4:]
}

func maskSecret(s string) string {
	if s == "" {
		return ""
	}
	return "[REDACTED]"
}

// replaceCardWire is ReplaceCreditCardParams without its methods: the
// request body, the one place the card number and CVV are written in
// full.
type replaceCardWire ReplaceCreditCardParams

// MarshalJSON writes the params with the card number masked and the CVV
// redacted, so that loggers and tools that encode values as JSON (slog's
// JSON handler on a struct or slice holding the params, say) never see
// them. The SDK sends the real values through its own wire type.
func (p ReplaceCreditCardParams) MarshalJSON() ([]byte, error) {
	r := p.redacted()
	return json.Marshal((*replaceCardWire)(&r))
}

// redactedCardParams has the fields of ReplaceCreditCardParams but none of
// its methods, so that printing it does not recurse into Format.
type redactedCardParams ReplaceCreditCardParams

func (p ReplaceCreditCardParams) redacted() redactedCardParams {
	r := redactedCardParams(p)
	r.CardNumber = maskCard(p.CardNumber)
	r.CVV = maskSecret(p.CVV)
	return r
}

// Format prints the params with the card number masked and the CVV
// redacted, whatever the verb: %v, %+v, %#v, %s, %d and the rest.
func (p ReplaceCreditCardParams) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, p.GoString())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), p.redacted())
}

// String returns the params with the card number masked and the CVV
// redacted.
func (p ReplaceCreditCardParams) String() string { return fmt.Sprintf("%+v", p.redacted()) }

// GoString is String in Go syntax, for %#v.
func (p ReplaceCreditCardParams) GoString() string {
	return strings.Replace(fmt.Sprintf("%#v", p.redacted()), "billing.redactedCardParams", "billing.ReplaceCreditCardParams", 1)
}

// LogValue logs the params with the card number masked and the CVV
// redacted.
func (p ReplaceCreditCardParams) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Int64("id", p.ID),
		slog.Int64("customerId", p.CustomerID),
		slog.String("cardNumber", maskCard(p.CardNumber)),
		slog.String("cvv", maskSecret(p.CVV)),
		slog.Int("expirationMonth", p.ExpirationMonth),
		slog.Int("expirationYear", p.ExpirationYear),
	)
}

package billing

import (
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/billingapi/billing-go/internal/jsonwire"
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
	return jsonwire.Marshal((*replaceCardWire)(&r))
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

// redacted stands in for a secret scrubbed from what the server said.
const redacted = "[REDACTED]"

// callSecrets are the secrets of one call that a server might echo back
// into an error message, and how to find them there.
type callSecrets struct {
	// card matches the card's digits in order with any spaces, dashes or
	// dots between them: a server may echo the number grouped differently
	// from how the caller wrote it.
	card *regexp.Regexp
	// cvv is scrubbed only where it stands alone as a number: a 3-digit
	// CVV turns up inside ids, amounts and timestamps by chance.
	cvv string
}

func newCallSecrets(cardNumber, cvv string) callSecrets {
	var s callSecrets
	var digits []string
	for _, r := range cardNumber {
		if r >= '0' && r <= '9' {
			digits = append(digits, string(r))
		}
	}
	if len(digits) > 0 {
		s.card = regexp.MustCompile(strings.Join(digits, `[ .\-]*`))
	}
	if strings.Trim(cvv, "0123456789") == "" {
		s.cvv = cvv
	}
	return s
}

// scrub removes the card number and the CVV from s.
func (cs callSecrets) scrub(s string) string {
	return cs.scrubCVV(cs.scrubCard(s))
}

// scrubCard removes the card number from s, whatever its grouping.
func (cs callSecrets) scrubCard(s string) string {
	if cs.card != nil {
		s = cs.card.ReplaceAllLiteralString(s, redacted)
	}
	return s
}

// scrubCVV removes the CVV from s where it stands as a whole number.
func (cs callSecrets) scrubCVV(s string) string {
	if cs.cvv == "" || !strings.Contains(s, cs.cvv) {
		return s
	}
	var b strings.Builder
	last := 0
	for _, run := range digitRun.FindAllStringIndex(s, -1) {
		if s[run[0]:run[1]] == cs.cvv && !inDecimal(s, run[0], run[1]) {
			b.WriteString(s[last:run[0]])
			b.WriteString(redacted)
			last = run[1]
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// digitRun matches a maximal run of digits.
var digitRun = regexp.MustCompile(`[0-9]+`)

// inDecimal reports whether the digits s[i:j] are one side of a decimal
// point in a larger number such as 12.987 or 987.50.
func inDecimal(s string, i, j int) bool {
	isDigit := func(k int) bool { return k >= 0 && k < len(s) && s[k] >= '0' && s[k] <= '9' }
	return (i >= 2 && s[i-1] == '.' && isDigit(i-2)) || (j+1 < len(s) && s[j] == '.' && isDigit(j+1))
}

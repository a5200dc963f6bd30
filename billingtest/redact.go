package billingtest

import (
	"bytes"
	"slices"
	"strings"

	"github.com/billingapi/billing-go/internal/jsonwire"
)

// secretKeys are the request fields the fake never keeps: the reference
// accepts card numbers and CVVs in requests only, and a test's request log
// must not become a place where they are stored.
var secretKeys = []string{"cardnumber", "cvv"}

// cardRoutes are the routes whose request bodies carry card numbers and
// CVVs (reference 4.7). A body sent to their path, with any method, is
// stored only when it parses, its card fields redacted.
var cardRoutes = []Route{RoutePaymentMethodsReplaceCreditCard}

// carriesCardData reports whether a request whose path matched matches
// is sent to a card route's path.
func carriesCardData(matches []routeMatch) bool {
	return slices.ContainsFunc(matches, func(m routeMatch) bool { return slices.Contains(cardRoutes, m.spec.route) })
}

// Notes that stand in for a withheld body in the request log.
const (
	withheldCut     = "[body withheld: it was cut off or is over 1 MiB, so its card fields cannot be found]"
	withheldCard    = "[body withheld: it is sent to the card route but is not JSON]"
	withheldMention = "[body withheld: it names a card field but is not JSON]"
	withheldEncode  = "[body withheld]"
)

// redactBody returns body as the request log keeps it, with the values
// of secret fields replaced, at any depth. Every JSON body is decoded and
// its keys compared after decoding, as the binder matches them
// (case-insensitively, escapes resolved), so no spelling of a key slips
// through. Where that cannot be done the body is withheld: when it was cut
// (over the 1 MiB the fake reads, or broken off), and when it is not JSON
// and either goes to a card route (card says so) or mentions a secret
// field. A body that is not JSON elsewhere, naming no card field, is kept.
func redactBody(body []byte, cut, card bool) []byte {
	if cut {
		return []byte(withheldCut)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return body
	}
	v, err := jsonwire.UnmarshalTree(body)
	if err != nil {
		if card {
			return []byte(withheldCard)
		}
		lower := bytes.ToLower(body)
		for _, k := range secretKeys {
			if bytes.Contains(lower, []byte(k)) {
				return []byte(withheldMention)
			}
		}
		return body
	}
	if !redact(v) {
		return body // as sent, byte for byte
	}
	out, err := jsonwire.Marshal(v)
	if err != nil {
		return []byte(withheldEncode)
	}
	return out
}

// redact replaces the values of secret keys in v, in place, at any depth,
// and reports whether there were any.
func redact(v any) bool {
	found := false
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if slices.ContainsFunc(secretKeys, func(s string) bool { return strings.EqualFold(k, s) }) {
				t[k], found = "[REDACTED]", true
			} else if redact(val) {
				found = true
			}
		}
	case []any:
		for _, val := range t {
			if redact(val) {
				found = true
			}
		}
	}
	return found
}

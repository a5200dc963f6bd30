package billingtest

import (
	"bytes"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"strings"
)

// secretKeys are the request fields the fake never keeps: the reference
// accepts card numbers and CVVs in requests only, and a test's request log
// must not become a place where they are stored.
var secretKeys = []string{"cardnumber", "cvv"}

// redactBody returns body with the values of secret fields replaced, at
// any depth. Every JSON body is decoded and its keys compared after
// decoding, as encoding/json matches them (case-insensitively, escapes
// resolved), so no spelling of a key slips through. A body that is not
// JSON is kept unless it mentions a secret field, then it is withheld.
func redactBody(body []byte) []byte {
	if len(bytes.TrimSpace(body)) == 0 {
		return body
	}
	v, err := jsonwire.UnmarshalTree(body)
	if err != nil {
		lower := bytes.ToLower(body)
		for _, k := range secretKeys {
			if bytes.Contains(lower, []byte(k)) {
				return []byte("[body withheld: it names a card field but is not JSON]")
			}
		}
		return body
	}
	if !hasSecretKey(v) {
		return body
	}
	out, err := jsonwire.Marshal(redactValue(v))
	if err != nil {
		return []byte("[body withheld]")
	}
	return out
}

func isSecretKey(k string) bool {
	for _, s := range secretKeys {
		if strings.EqualFold(k, s) {
			return true
		}
	}
	return false
}

func hasSecretKey(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if isSecretKey(k) || hasSecretKey(val) {
				return true
			}
		}
	case []any:
		for _, val := range t {
			if hasSecretKey(val) {
				return true
			}
		}
	}
	return false
}

func redactValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if isSecretKey(k) {
				t[k] = "[REDACTED]"
			} else {
				t[k] = redactValue(val)
			}
		}
	case []any:
		for i := range t {
			t[i] = redactValue(t[i])
		}
	}
	return v
}

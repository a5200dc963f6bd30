package billing_test

import (
	"encoding/base64"
	"errors"
	"testing"

	"github.com/billingapi/billing-go"
)

// TestCursorTextJSON checks how a cursor's JSON is read: strictly, one
// value and nothing after it (encoding/json's Decoder let a stray ] or }
// through), names matched as encoding/json matches them.
func TestCursorTextJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		json string
		ok   bool
	}{
		{`{}`, true},
		{`{} `, true},
		{`{"p":"/v1/Invoices","F":"0123456789abcdef0123456789abcdef"}`, true},
		{`{}]`, false},
		{`{}}`, false},
		{`{} {}`, false},
		{`{"x":1}`, false},
		{`{"t":"1"}`, false},
		{``, false},
	} {
		text := "bc1." + base64.RawURLEncoding.EncodeToString([]byte(tt.json))
		var c billing.Cursor
		err := c.UnmarshalText([]byte(text))
		var ve *billing.ValidationError
		if tt.ok && err != nil || !tt.ok && !errors.As(err, &ve) {
			t.Errorf("%q: %v, want ok = %v (or a *ValidationError)", tt.json, err, tt.ok)
		}
	}
}

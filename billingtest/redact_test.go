package billingtest

import (
	"strings"
	"testing"
)

func TestRedactBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		keep     bool // the body is kept byte for byte
	}{
		{"no secrets", `{"invoiceId":7,"amount":10.125}`, true},
		{"empty", ``, true},
		{"not JSON, no secret", `hello`, true},
		{"card fields", `{"id":1,"cardNumber":"4111111111111111","cvv":"987"}`, false},
		{"other casing", `{"CARDNUMBER":"4111111111111111","CvV":"987"}`, false},
		{"escaped key", `{"card\u004eumber":"4111111111111111","cv\u0076":"987"}`, false},
		{"nested", `{"batch":[{"cardNumber":"4111111111111111"}],"x":{"cvv":"987"}}`, false},
		{"not JSON, names a card field", `cardNumber=4111111111111111&cvv=987`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := string(redactBody([]byte(tt.in), false, false))
			if tt.keep && got != tt.in {
				t.Errorf("body changed: %s", got)
			}
			if strings.Contains(got, "4111111111111111") || strings.Contains(got, "987") {
				t.Errorf("secret kept: %s", got)
			}
		})
	}
}

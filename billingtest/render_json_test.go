package billingtest

import (
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// TestInvoiceWrappersKeepTheirMember guards the wrappers that add charges
// or chargeGroups to an invoice: billing.Invoice has a MarshalJSON
// method, and a wrapper that embedded it would be written by that method
// alone, without the member it adds.
func TestInvoiceWrappersKeepTheirMember(t *testing.T) {
	t.Parallel()
	inv := billing.Invoice{ID: 7, InvoiceAmount: decimal.RequireFromString("10.50"), Extra: billing.Extra{"zz": []byte(`1`)}}
	withCharge := inv
	withCharge.Charges = []billing.Charge{{ID: 9, Amount: decimal.RequireFromString("10.125")}}
	withGroup := inv
	withGroup.ChargeGroups = []billing.ChargeGroup{{Name: "g"}}
	for _, tt := range []struct {
		name     string
		v        any
		contains string
		suffix   string
		once     string // the member the wrapper adds, written once
	}{
		{"no charges", flat(inv), `"invoiceAmount":10.5,`, `,"charges":[],"zz":1}`, `"charges"`},
		{"charges", flat(withCharge), `"id":7,`, `"amount":10.125,`, `"charges"`},
		{"no groups", grouped(inv), `"id":7,`, `,"chargeGroups":[],"zz":1}`, `"chargeGroups"`},
		{"groups", grouped(withGroup), `"id":7,`, `"name":"g",`, `"chargeGroups"`},
		{"in a slice", []wireInvoice{flat(inv)}, `"id":7,`, `"charges":[],"zz":1}]`, `"charges"`},
	} {
		b, err := jsonwire.Marshal(tt.v)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		s := string(b)
		if !strings.Contains(s, tt.contains) || !strings.Contains(s, tt.suffix) || strings.Count(s, tt.once) != 1 {
			t.Errorf("%s: %s\nwant it to contain %s and %s, and %s once", tt.name, s, tt.contains, tt.suffix, tt.once)
		}
	}
}

package unittest

import (
	"errors"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/shopspring/decimal"
)

// State and faults: the fake keeps the account, answers the way the
// service does, and fails on demand.
func TestWriteOffWhoseOutcomeIsUnknown(t *testing.T) {
	t.Parallel()
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	t.Cleanup(srv.Close)
	c := srv.Client()
	// A gateway answers 503 to the first write-off; a write is never
	// retried after a 5xx, since the service may have applied it.
	if err := srv.InjectFault(billingtest.RouteInvoicesWriteOff, billingtest.Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	amount := decimal.RequireFromString("74") // what invoice 1005 still owes
	params := &billing.WriteOffParams{InvoiceID: 1005, Amount: &amount}

	_, err := c.Invoices.WriteOff(t.Context(), params)
	if !errors.Is(err, billing.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want billing.ErrOutcomeUnknown", err)
	}
	if inv, _ := srv.Invoice(1005); !inv.OutstandingBalance.Equal(amount) {
		t.Fatalf("the fault landed a write-off: %s outstanding", inv.OutstandingBalance)
	}
	if _, err := c.Invoices.WriteOff(t.Context(), params); err != nil {
		t.Fatal(err)
	}
	if inv, _ := srv.Invoice(1005); !inv.OutstandingBalance.IsZero() {
		t.Errorf("%s outstanding after the write-off", inv.OutstandingBalance)
	}
}

// Lists: thousands of generated invoices, a page cap smaller than asked,
// and equal keys in a new order on every request, as the service may
// give them. A stable iteration still yields each invoice once.
func TestEveryInvoiceOnceWithTheFake(t *testing.T) {
	t.Parallel()
	srv := billingtest.NewServer(
		billingtest.WithGenerated(billingtest.GenerateOptions{Seed: 7, Invoices: 3000}),
		billingtest.WithPageCap(500, false), // pages of 500 whatever is asked, said nowhere
		billingtest.WithTieOrder(billingtest.TieRandom),
	)
	t.Cleanup(srv.Close)
	c := srv.Client()

	var cur billing.Cursor
	seen := map[int64]bool{}
	for inv, err := range c.Invoices.All(t.Context(), nil, billing.Stable(&cur), billing.Prefetch(4)) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[inv.ID] {
			t.Fatalf("invoice %d twice", inv.ID)
		}
		seen[inv.ID] = true
	}
	if len(seen) != 3000 {
		t.Errorf("%d invoices, want 3000", len(seen))
	}
}

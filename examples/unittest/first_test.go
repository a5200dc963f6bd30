package unittest

import (
	"errors"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/shopspring/decimal"
)

// Not parallel: README.md and the package doc show this test word for
// word as the first thing a reader sees, so it holds only what a first test
// needs.
func TestOpenBalance(t *testing.T) {
	srv := billingtest.NewServer(billingtest.WithSampleAccount()) // the bundled fake, seeded
	t.Cleanup(srv.Close)
	c := srv.Client() // live: billing.NewClient(apiKey, billing.WithBaseURL(baseURL))

	inv, err := c.Invoices.Get(t.Context(), 1007, nil) // one call
	if err != nil {
		t.Fatal(err)
	}

	// A filtered list, every page of it, as an iter.Seq2.
	unpaid := &billing.ListInvoiceSummariesParams{Filter: billing.InvoiceSummaryFilter{
		InvoiceStatus: []billing.InvoiceStatus{billing.InvoiceStatusDue, billing.InvoiceStatusOverdue},
	}}
	open := decimal.Zero
	for s, err := range c.InvoiceSummaries.All(t.Context(), inv.CustomerID, unpaid) {
		if err != nil {
			t.Fatal(err)
		}
		open = open.Add(s.OutstandingBalance) // exact decimals, never floats
	}
	if !open.Equal(decimal.RequireFromString("318")) {
		t.Errorf("open balance %s, want 318", open)
	}

	// Errors are typed: branch with errors.Is and errors.As.
	_, err = c.Invoices.Get(t.Context(), 999999, nil)
	if !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("err = %v, want billing.ErrNotFound", err)
	}
}

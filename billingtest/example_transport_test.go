package billingtest_test

import (
	"context"
	"fmt"
	"log"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
)

// seedThree gives srv a customer with three invoices, posted on the
// first three days of 2025.
func seedThree(srv *billingtest.Server) {
	cust, err := srv.AddCustomer(billingtest.Customer{FirstName: "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	for i, po := range []string{"PO-A1", "PO-B2", "PO-A3"} {
		if _, err := srv.AddInvoice(billingtest.Invoice{ID: int64(101 + i), CustomerID: cust, PoNumber: po,
			PostedTimestamp: time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC),
			Charges:         []billingtest.Charge{{Name: "Seats", Amount: decimal.NewFromInt(10)}}}); err != nil {
			log.Fatal(err)
		}
	}
}

// Code tested the httpmock way, with httpmock.Activate and the production
// URL, gets the whole fake (filters, sorting, paging, writes) by making
// the fake's Transport httpmock's answer to every request no responder
// matches: one line. Nothing listens and nothing reaches the network.
func ExampleServer_Transport() {
	srv := billingtest.NewInProcess()
	defer srv.Close()
	seedThree(srv)

	httpmock.Activate()
	defer httpmock.DeactivateAndReset()
	httpmock.RegisterNoResponder(srv.Transport().RoundTrip)

	// The code under test builds its client as in production.
	c, err := billing.NewClient(srv.APIKey(), billing.WithBaseURL("https://billing.example.com"))
	if err != nil {
		log.Fatal(err)
	}
	params := &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{PoNumber: query.StartsWith("PO-A")}}
	for inv, err := range c.Invoices.All(context.Background(), params) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("invoice", inv.ID, *inv.PoNumber)
	}
	fmt.Println("served by the fake:", httpmock.GetCallCountInfo()["NO_RESPONDER"])
	// Output:
	// invoice 101 PO-A1
	// invoice 103 PO-A3
	// served by the fake: 1
}

// A fake from NewInProcess has no socket at all: its Client sends through
// its Transport, with the same behaviour as a fake from NewServer,
// injected faults included.
func ExampleNewInProcess() {
	srv := billingtest.NewInProcess()
	defer srv.Close()
	seedThree(srv)
	_ = srv.InjectFault(billingtest.RouteInvoicesGet, billingtest.Fault{Drop: billingtest.DropBeforeApply})

	c := srv.Client() // retries the dropped read
	inv, err := c.Invoices.Get(context.Background(), 102, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(srv.URL)
	fmt.Println("invoice", inv.ID, *inv.PoNumber, "after", len(srv.Requests()), "attempts")
	// Output:
	// https://billingtest.invalid
	// invoice 102 PO-B2 after 2 attempts
}

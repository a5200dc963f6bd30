package billingtest_test

import (
	"context"
	"fmt"
	"log"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/jarcoal/httpmock"
)

// Code tested the httpmock way, with httpmock.Activate and the production
// URL, gets the whole fake (filters, sorting, paging, writes) by making
// the fake's Transport httpmock's answer to every request no responder
// matches: one line. Nothing listens and nothing reaches the network.
func ExampleServer_Transport() {
	srv := billingtest.NewInProcess(billingtest.WithSampleAccount())
	defer srv.Close()
	httpmock.Activate()
	defer httpmock.DeactivateAndReset()
	httpmock.RegisterNoResponder(srv.Transport().RoundTrip)

	// The code under test builds its client as in production.
	c, err := billing.NewClient(srv.APIKey(), billing.WithBaseURL("https://billing.example.com"))
	if err != nil {
		log.Fatal(err)
	}
	params := &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{CustomerID: query.Ints{100}}}
	for inv, err := range c.Invoices.All(context.Background(), params) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("invoice", inv.ID, "outstanding", inv.OutstandingBalance)
	}
	fmt.Println("served by the fake:", httpmock.GetCallCountInfo()["NO_RESPONDER"])
	// Output:
	// invoice 1003 outstanding 0
	// invoice 1005 outstanding 74
	// invoice 1007 outstanding 244
	// served by the fake: 1
}

// A fake from NewInProcess has no socket at all: its Client sends through
// its Transport, with the same behaviour as a fake from NewServer,
// injected faults included.
func ExampleNewInProcess() {
	srv := billingtest.NewInProcess(billingtest.WithSampleAccount())
	defer srv.Close()
	_ = srv.InjectFault(billingtest.RouteInvoicesGet, billingtest.Fault{Drop: billingtest.DropBeforeApply})

	c := srv.Client() // retries the dropped read
	inv, err := c.Invoices.Get(context.Background(), 1007, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(srv.URL)
	fmt.Println("invoice", inv.ID, "outstanding", inv.OutstandingBalance, "after", len(srv.Requests()), "attempts")
	// Output:
	// https://billingtest.invalid
	// invoice 1007 outstanding 244 after 2 attempts
}

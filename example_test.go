package billing_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

func ExampleNewClient() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()

	c, err := billing.NewClient(srv.APIKey(),
		billing.WithBaseURL(srv.URL), // https in production; http is allowed on loopback
		billing.WithTimeout(10*time.Second),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 3}),
		billing.WithUserAgent("invoice-sync/1.0"),
	)
	if err != nil {
		log.Fatal(err)
	}
	inv, err := c.Invoices.Get(context.Background(), 1005, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inv.ID, inv.CustomerID, inv.InvoiceAmount, inv.PostedTimestamp.Format("2006-01-02"))
	// Output: 1005 100 124 2025-04-15
}

func ExampleInvoicesService_List() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()

	page, err := c.Invoices.List(context.Background(), &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{
			PageSize: 2,
			Sort:     query.Sort{Field: "postedTimestamp", Order: query.Descending},
		},
		Filter: billing.InvoiceFilter{
			// Posted in the first quarter of 2025: From is inclusive, To exclusive.
			PostedTimestamp: query.TimeRange{From: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
				To: time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC), DateOnly: true},
			// Of customers still active: not Barbara Liskov's invoice of January.
			CustomerStatus: []billing.CustomerStatus{billing.CustomerStatusActive},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("matching:", page.Count, "pages:", page.MaxPageIndex)
	for _, inv := range page.Items {
		fmt.Println(inv.ID, inv.PostedTimestamp.Format("2006-01-02"), inv.InvoiceAmount)
	}
	// Output:
	// matching: 3 pages: 2
	// 1003 2025-03-15 124
	// 1002 2025-03-10 29
}

func ExampleInvoicesService_All() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()

	total := decimal.Zero
	n := 0
	// Two invoices a page: the iterator follows the paging headers.
	for inv, err := range c.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 2}}) {
		if err != nil {
			log.Fatal(err)
		}
		n++
		total = total.Add(inv.OutstandingBalance)
	}
	fmt.Println(n, "invoices, outstanding", total)
	// Output: 9 invoices, outstanding 855
}

func ExampleAPIError() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()

	_, err := c.Invoices.Get(context.Background(), 4242, nil)
	switch {
	case errors.Is(err, billing.ErrNotFound):
		var apiErr *billing.APIError
		errors.As(err, &apiErr)
		fmt.Println("not found:", apiErr.StatusCode, apiErr.Method, apiErr.Path)
	case err != nil:
		log.Fatal(err)
	}

	// Parameters the API rules out are refused before anything is sent.
	_, err = c.Invoices.WriteOff(context.Background(), &billing.WriteOffParams{InvoiceID: 1004})
	var invalid *billing.ValidationError
	if errors.As(err, &invalid) {
		fmt.Println("invalid:", invalid.Field)
	}
	// Output:
	// not found: 404 GET /v1/Invoices/4242
	// invalid: amount
}

func ExampleInvoicesService_WriteOff() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	inv, err := c.Invoices.Get(ctx, 1004, nil)
	if err != nil {
		log.Fatal(err)
	}
	written, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: inv.ID, Amount: &inv.OutstandingBalance},
		billing.SuppressEvents()) // no emails or webhooks for this one
	switch {
	case errors.Is(err, billing.ErrOutcomeUnknown):
		log.Fatal("may have been applied: read the invoice before trying again")
	case errors.Is(err, billing.ErrBadRequest):
		log.Fatal("the amount is not the whole outstanding balance (paid meanwhile?)")
	case errors.Is(err, billing.ErrNotFound):
		log.Fatal("no such invoice, or the account lacks the write-off permission")
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println("outstanding", written.OutstandingBalance, "written off", written.TotalWriteoffs, "groups", len(written.ChargeGroups))
	// Output: outstanding 0 written off 29 groups 1
}

// A write-off whose answer is lost (ErrOutcomeUnknown) may have been
// applied. The invoice can be read: a balance of zero with the amount in
// TotalWriteoffs proves it was; otherwise the same write-off can be sent
// again. Here the fake applies the write-off and then cuts the connection.
func ExampleInvoicesService_WriteOff_unknownOutcome() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	inv, err := c.Invoices.Get(ctx, 1004, nil)
	if err != nil {
		log.Fatal(err)
	}
	_ = srv.InjectFault(billingtest.RouteInvoicesWriteOff, billingtest.Fault{Drop: billingtest.DropAfterApply})

	params := &billing.WriteOffParams{InvoiceID: inv.ID, Amount: &inv.OutstandingBalance}
	_, err = c.Invoices.WriteOff(ctx, params)
	for errors.Is(err, billing.ErrOutcomeUnknown) {
		now, readErr := c.Invoices.Get(ctx, inv.ID, nil)
		if readErr != nil {
			log.Fatal(readErr) // read again later: the write-off is not lost
		}
		landed := now.OutstandingBalance.IsZero() && now.TotalWriteoffs.Sub(inv.TotalWriteoffs).Equal(inv.OutstandingBalance)
		fmt.Println("outcome unknown; read back: applied", landed)
		if landed {
			err = nil
		} else {
			_, err = c.Invoices.WriteOff(ctx, params)
		}
	}
	if err != nil {
		log.Fatal(err)
	}
	// Output: outcome unknown; read back: applied true
}

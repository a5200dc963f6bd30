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

// exampleServer starts the bundled fake with three customers' invoices, so
// that the examples print the same thing every time.
func exampleServer() *billingtest.Server {
	clock := func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }
	srv := billingtest.NewServer(billingtest.WithClock(clock))
	names := []string{"Ada", "Grace", "Edsger"}
	for i, name := range names {
		cust, err := srv.AddCustomer(billingtest.Customer{ID: int64(100 + i), FirstName: name, LastName: "Example", ErpID: fmt.Sprintf("ERP-%d", i)})
		if err != nil {
			log.Fatal(err)
		}
		for j := range 2 {
			amount := decimal.New(int64(1000*(i+1)+125*j), -2) // 10.00, 11.25, 20.00, ...
			_, err := srv.AddInvoice(billingtest.Invoice{
				ID:              int64(1000 + 10*i + j),
				CustomerID:      cust,
				PostedTimestamp: time.Date(2025, time.Month(1+i), 10+j, 0, 0, 0, 0, time.UTC),
				Charges: []billingtest.Charge{{
					Name: "Monthly plan", Quantity: decimal.NewFromInt(1), UnitPrice: amount, Amount: amount,
				}},
			})
			if err != nil {
				log.Fatal(err)
			}
		}
	}
	return srv
}

func ExampleNewClient() {
	srv := exampleServer()
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
	inv, err := c.Invoices.Get(context.Background(), 1011, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inv.ID, inv.CustomerID, inv.InvoiceAmount, inv.PostedTimestamp.Format("2006-01-02"))
	// Output: 1011 101 21.25 2025-02-11
}

func ExampleInvoicesService_List() {
	srv := exampleServer()
	defer srv.Close()
	c := srv.Client()

	page, err := c.Invoices.List(context.Background(), &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{
			PageSize: 3,
			Sort:     query.Sort{Field: "postedTimestamp", Order: query.Descending},
		},
		Filter: billing.InvoiceFilter{
			// Posted on or after 1 February 2025 (the lower bound is inclusive).
			PostedTimestamp: query.TimeRange{From: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), DateOnly: true},
			CustomerStatus:  []billing.CustomerStatus{billing.CustomerStatusActive},
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
	// matching: 4 pages: 2
	// 1021 2025-03-11 31.25
	// 1020 2025-03-10 30
	// 1011 2025-02-11 21.25
}

func ExampleInvoicesService_All() {
	srv := exampleServer()
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
	// Output: 6 invoices, outstanding 123.75
}

func ExampleAPIError() {
	srv := exampleServer()
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
	_, err = c.Invoices.WriteOff(context.Background(), &billing.WriteOffParams{InvoiceID: 1000})
	var invalid *billing.ValidationError
	if errors.As(err, &invalid) {
		fmt.Println("invalid:", invalid.Field)
	}
	// Output:
	// not found: 404 GET /v1/Invoices/4242
	// invalid: amount
}

func ExampleInvoicesService_WriteOff() {
	srv := exampleServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	inv, err := c.Invoices.Get(ctx, 1020, nil)
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
	// Output: outstanding 0 written off 30 groups 1
}

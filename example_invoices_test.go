package billing_test

import (
	"bufio"
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

// A customer's invoices come with their charges, unlike those of
// Invoices.List. An unknown customer is ErrNotFound.
func ExampleInvoicesService_ListByCustomer() {
	srv := billingtest.NewServer()
	defer srv.Close()
	cust, _ := srv.AddCustomer(billingtest.Customer{ID: 7, FirstName: "Ada"})
	for i, posted := range []int{3, 4, 5} { // posted in March, April and May 2025
		fee := decimal.NewFromInt(int64(20 + 5*i))
		_, _ = srv.AddInvoice(billingtest.Invoice{ID: int64(70 + i), CustomerID: cust,
			PostedTimestamp: time.Date(2025, time.Month(posted), 1, 0, 0, 0, 0, time.UTC),
			Charges:         []billingtest.Charge{{Name: "Support plan", Quantity: decimal.NewFromInt(1), UnitPrice: fee, Amount: fee}}})
	}
	c := srv.Client()

	page, err := c.Invoices.ListByCustomer(context.Background(), cust, &billing.ListCustomerInvoicesParams{
		Filter: billing.CustomerInvoiceFilter{
			// Posted in April or later: the lower bound is inclusive.
			PostedTimestamp: query.TimeRange{From: time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC), DateOnly: true},
		},
	})
	switch {
	case errors.Is(err, billing.ErrNotFound):
		log.Fatalf("no customer %d", cust)
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println("matching:", page.Count, "of", page.MaxCount)
	for _, inv := range page.Items {
		fmt.Println(inv.ID, inv.PostedTimestamp.Format("2006-01-02"), inv.Charges[0].Name, inv.Charges[0].Amount)
	}
	// Output:
	// matching: 2 of 3
	// 71 2025-04-01 Support plan 25
	// 72 2025-05-01 Support plan 30
}

// Reading an invoice with GroupCharges returns its charges grouped by the
// subscription or the purchase they come from, in ChargeGroups instead of
// Charges. An unknown invoice is ErrNotFound.
func ExampleInvoicesService_Get() {
	srv := billingtest.NewServer()
	defer srv.Close()
	cust, _ := srv.AddCustomer(billingtest.Customer{ID: 1, FirstName: "Grace"})
	sub, _ := srv.AddSubscription(billingtest.Subscription{ID: 10, CustomerID: cust, Name: "Professional"})
	charge := func(name string, qty int64, price string) billingtest.Charge {
		q, p := decimal.NewFromInt(qty), decimal.RequireFromString(price)
		return billingtest.Charge{Name: name, Quantity: q, UnitPrice: p, Amount: q.Mul(p)}
	}
	fee, users, setup := charge("Platform fee", 1, "99"), charge("Additional user", 3, "12.50"), charge("Setup", 1, "120")
	fee.SubscriptionID, users.SubscriptionID = sub, sub
	setup.PurchaseID = 7001
	_, _ = srv.AddInvoice(billingtest.Invoice{ID: 500, CustomerID: cust, Charges: []billingtest.Charge{fee, users, setup}})
	c := srv.Client()
	ctx := context.Background()

	inv, err := c.Invoices.Get(ctx, 500, &billing.GetInvoiceParams{GroupCharges: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("invoice", inv.ID, "amount", inv.InvoiceAmount, "charges outside groups:", len(inv.Charges))
	for _, g := range inv.ChargeGroups {
		fmt.Printf("%s (from a subscription: %t)\n", g.Name, g.SubscriptionID != nil)
		for _, ch := range g.Charges {
			fmt.Println("  ", ch.Name, ch.Quantity, "x", ch.UnitPrice, "=", ch.Amount)
		}
	}

	if _, err := c.Invoices.Get(ctx, 501, nil); errors.Is(err, billing.ErrNotFound) {
		fmt.Println("invoice 501 does not exist")
	}
	// Output:
	// invoice 500 amount 256.5 charges outside groups: 0
	// Professional (from a subscription: true)
	//    Platform fee 1 x 99 = 99
	//    Additional user 3 x 12.5 = 37.5
	// Setup (from a subscription: false)
	//    Setup 1 x 120 = 120
	// invoice 501 does not exist
}

// Invoice summaries carry the status the service derives from the balance,
// the due date and today's date; here the fake's clock is fixed so the
// statuses do not depend on the day the example runs.
func ExampleInvoiceSummariesService_List() {
	today := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	srv := billingtest.NewServer(billingtest.WithClock(func() time.Time { return today }))
	defer srv.Close()
	cust, _ := srv.AddCustomer(billingtest.Customer{ID: 3, FirstName: "Edsger", LastName: "Dijkstra"})
	fee := decimal.NewFromInt(40)
	for i, month := range []time.Month{time.March, time.April, time.May} { // Net30 terms
		inv := billingtest.Invoice{ID: int64(30 + i), CustomerID: cust, PostedTimestamp: time.Date(2025, month, 15, 0, 0, 0, 0, time.UTC),
			Charges: []billingtest.Charge{{Name: "Plan", Quantity: decimal.NewFromInt(1), UnitPrice: fee, Amount: fee}}}
		if month == time.March {
			inv.TotalPayments = fee // paid in full
		}
		_, _ = srv.AddInvoice(inv)
	}
	c := srv.Client()

	page, err := c.InvoiceSummaries.List(context.Background(), cust, &billing.ListInvoiceSummariesParams{
		Filter: billing.InvoiceSummaryFilter{
			InvoiceStatus: []billing.InvoiceStatus{billing.InvoiceStatusDue, billing.InvoiceStatusOverdue},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range page.Items {
		fmt.Println(s.ID, s.CustomerName, s.InvoiceStatus, "due", s.DueDate.Format("2006-01-02"), "owing", s.OutstandingBalance)
	}
	// Output:
	// 31 Edsger Dijkstra Overdue due 2025-05-15 owing 40
	// 32 Edsger Dijkstra Due due 2025-06-14 owing 40
}

// The PDF of a draft invoice is a stream: read it (here only its first
// line) and close it. An unknown draft invoice is ErrNotFound.
func ExampleDraftInvoicesService_PDF() {
	srv := billingtest.NewServer()
	defer srv.Close()
	cust, _ := srv.AddCustomer(billingtest.Customer{ID: 5, FirstName: "Barbara", LastName: "Liskov"})
	draft, _ := srv.AddDraftInvoice(billingtest.DraftInvoice{ID: 800, CustomerID: cust, Lines: []billingtest.DraftLine{
		{Description: "Professional plan", Quantity: decimal.NewFromInt(1), Amount: decimal.NewFromInt(99)},
	}})
	c := srv.Client()
	ctx := context.Background()

	pdf, err := c.DraftInvoices.PDF(ctx, draft, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer pdf.Close()
	header, err := bufio.NewReader(pdf).ReadString('\n') // or io.Copy to a file or an HTTP response
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", header)

	_, err = c.DraftInvoices.PDF(ctx, 801, nil)
	fmt.Println("draft 801 not found:", errors.Is(err, billing.ErrNotFound))
	// Output:
	// "%PDF-1.4\n"
	// draft 801 not found: true
}

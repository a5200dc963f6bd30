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
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()

	const ada = 100 // Ada Lovelace: invoices posted in March, April and May 2025
	page, err := c.Invoices.ListByCustomer(context.Background(), ada, &billing.ListCustomerInvoicesParams{
		Filter: billing.CustomerInvoiceFilter{
			// Posted in April or later: the lower bound is inclusive.
			PostedTimestamp: query.TimeRange{From: time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC), DateOnly: true},
		},
	})
	switch {
	case errors.Is(err, billing.ErrNotFound):
		log.Fatalf("no customer %d", ada)
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println("matching:", page.Count, "of", page.MaxCount)
	for _, inv := range page.Items {
		fmt.Print(inv.ID, " ", inv.PostedTimestamp.Format("2006-01-02"), ":")
		for _, ch := range inv.Charges {
			fmt.Print(" ", ch.Name, " ", ch.Amount, ";")
		}
		fmt.Println()
	}
	// Output:
	// matching: 2 of 3
	// 1005 2025-04-15: Platform fee 99; Additional user 25;
	// 1007 2025-05-15: Platform fee 99; Additional user 25; Onboarding workshop 120;
}

// Reading an invoice with GroupCharges returns its charges grouped by the
// subscription or the purchase they come from, in ChargeGroups instead of
// Charges. An unknown invoice is ErrNotFound.
func ExampleInvoicesService_Get() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	// Invoice 1007 charges Ada Lovelace's subscription and a workshop she bought.
	inv, err := c.Invoices.Get(ctx, 1007, &billing.GetInvoiceParams{GroupCharges: true})
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

	if _, err := c.Invoices.Get(ctx, 4242, nil); errors.Is(err, billing.ErrNotFound) {
		fmt.Println("invoice 4242 does not exist")
	}
	// Output:
	// invoice 1007 amount 244 charges outside groups: 0
	// Professional (from a subscription: true)
	//    Platform fee 1 x 99 = 99
	//    Additional user 2 x 12.5 = 25
	// Onboarding workshop (from a subscription: false)
	//    Onboarding workshop 1 x 120 = 120
	// invoice 4242 does not exist
}

// Invoice summaries carry the status the service derives from the balance,
// the due date and today's date. The sample account's clock stands at
// noon UTC on 1 June 2025, so the statuses do not depend on the day the
// example runs.
func ExampleInvoiceSummariesService_List() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()

	const ada = 100 // Ada Lovelace: 1003 paid, 1005 part paid, 1007 posted in May; Net30 terms
	page, err := c.InvoiceSummaries.List(context.Background(), ada, &billing.ListInvoiceSummariesParams{
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
	// 1005 Ada Lovelace Overdue due 2025-05-15 owing 74
	// 1007 Ada Lovelace Due due 2025-06-14 owing 244
}

// The PDF of a draft invoice is a stream: read it (here only its first
// line) and close it. An unknown draft invoice is ErrNotFound.
func ExampleDraftInvoicesService_PDF() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	pdf, err := c.DraftInvoices.PDF(ctx, 800, nil) // Ada Lovelace's June invoice
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

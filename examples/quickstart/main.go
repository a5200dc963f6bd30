// Command quickstart walks through the billing SDK.
//
// With no configuration it starts the bundled fake (package billingtest)
// in-process, seeded with generated data, and runs every step against it:
//
//	go run ./examples/quickstart
//
// With BILLING_BASE_URL and BILLING_API_KEY set it runs only the read-only
// steps against that service instead: it never writes to a real account.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

func main() {
	log.SetFlags(0)
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal("quickstart: ", err)
	}
}

func run(ctx context.Context, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	baseURL, apiKey := os.Getenv("BILLING_BASE_URL"), os.Getenv("BILLING_API_KEY")
	live := baseURL != "" && apiKey != ""
	var (
		client *billing.Client
		fake   *billingtest.Server
		err    error
	)
	if live {
		fmt.Fprintf(out, "Using the service at %s (read-only steps only).\n", baseURL)
		client, err = billing.NewClient(apiKey, billing.WithBaseURL(baseURL), billing.WithUserAgent("billing-quickstart"))
		if err != nil {
			return err
		}
	} else {
		fake = billingtest.NewServer(billingtest.WithGenerated(billingtest.GenerateOptions{Seed: 42, Invoices: 2000}))
		defer fake.Close()
		fmt.Fprintf(out, "Started the bundled fake at %s with generated data.\n", fake.URL)
		client = fake.Client(billing.WithUserAgent("billing-quickstart"))
	}

	w := walkthrough{c: client, out: out}
	steps := []func(context.Context) error{w.filteredSortedList, w.iterate, w.readGrouped, w.handleNotFound}
	if !live {
		steps = append(steps, w.writeOff, func(ctx context.Context) error { return w.replaceCard(ctx, fake) },
			w.trackingCode, func(ctx context.Context) error { return w.bulkPreview(ctx, fake) })
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintln(out, "\nDone.")
	return nil
}

type walkthrough struct {
	c   *billing.Client
	out io.Writer

	// found along the way, for the later steps
	invoiceID int64
}

func (w *walkthrough) step(title string) { fmt.Fprintf(w.out, "\n== %s\n", title) }

// filteredSortedList lists one page of unpaid invoices of active
// customers, newest first.
func (w *walkthrough) filteredSortedList(ctx context.Context) error {
	w.step("A filtered, sorted page")
	page, err := w.c.Invoices.List(ctx, &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{
			PageSize: 5,
			Sort:     query.Sort{Field: "postedTimestamp", Order: query.Descending},
		},
		Filter: billing.InvoiceFilter{
			CustomerStatus:  []billing.CustomerStatus{billing.CustomerStatusActive},
			PostedTimestamp: query.TimeRange{From: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), DateOnly: true},
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "%d invoices match (page %d of %d, %d per page):\n", page.Count, page.CurrentPage+1, page.MaxPageIndex, page.PageSize)
	for _, inv := range page.Items {
		fmt.Fprintf(w.out, "  #%-6d customer %-6d posted %s  amount %10s  outstanding %10s\n",
			inv.InvoiceNumber, inv.CustomerID, inv.PostedTimestamp.Format("2006-01-02"), inv.InvoiceAmount, inv.OutstandingBalance)
	}
	return nil
}

// iterate pages through every invoice of 2024 with the iterator and adds
// up what is outstanding, exactly.
func (w *walkthrough) iterate(ctx context.Context) error {
	w.step("Paging with the iterator")
	params := &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{PageSize: 200},
		Filter: billing.InvoiceFilter{PostedTimestamp: query.TimeRange{
			From: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), DateOnly: true,
		}},
	}
	var n int
	var pages int
	total := decimal.Zero
	for p, err := range w.c.Invoices.Pages(ctx, params) {
		if err != nil {
			return err
		}
		pages++
		for _, inv := range p.Items {
			n++
			total = total.Add(inv.OutstandingBalance)
			if w.invoiceID == 0 && inv.OutstandingBalance.IsPositive() {
				w.invoiceID = inv.ID
			}
		}
	}
	fmt.Fprintf(w.out, "%d invoices posted in 2024 over %d pages; outstanding in total: %s\n", n, pages, total)
	return nil
}

// readGrouped reads one invoice with its charges grouped by subscription
// or purchase.
func (w *walkthrough) readGrouped(ctx context.Context) error {
	w.step("Reading an invoice with grouped charges")
	if w.invoiceID == 0 {
		fmt.Fprintln(w.out, "no unpaid invoice of 2024 to read")
		return nil
	}
	inv, err := w.c.Invoices.Get(ctx, w.invoiceID, &billing.GetInvoiceParams{GroupCharges: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "invoice %d (#%d), outstanding %s, %d charge groups:\n", inv.ID, inv.InvoiceNumber, inv.OutstandingBalance, len(inv.ChargeGroups))
	for _, g := range inv.ChargeGroups {
		kind := "purchase"
		if g.SubscriptionID != nil {
			kind = fmt.Sprintf("subscription %d", *g.SubscriptionID)
		}
		fmt.Fprintf(w.out, "  %-28s (%s)\n", g.Name, kind)
		for _, ch := range g.Charges {
			fmt.Fprintf(w.out, "      %-24s %8s x %10s = %10s\n", ch.Name, ch.Quantity, ch.UnitPrice, ch.Amount)
		}
	}
	return nil
}

// handleNotFound shows branching on an error category.
func (w *walkthrough) handleNotFound(ctx context.Context) error {
	w.step("Handling an error")
	_, err := w.c.Invoices.Get(ctx, 999_999_999, nil)
	var apiErr *billing.APIError
	switch {
	case errors.Is(err, billing.ErrNotFound) && errors.As(err, &apiErr):
		fmt.Fprintf(w.out, "invoice 999999999 does not exist: status %d, %s: %s\n", apiErr.StatusCode, apiErr.Errors[0].Key, apiErr.Errors[0].Value)
		return nil
	case err != nil:
		return err
	}
	return errors.New("expected a not-found error")
}

// writeOff writes off the unpaid invoice read above.
func (w *walkthrough) writeOff(ctx context.Context) error {
	w.step("Writing off an invoice")
	inv, err := w.c.Invoices.Get(ctx, w.invoiceID, nil)
	if err != nil {
		return err
	}
	balance := inv.OutstandingBalance
	written, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: inv.ID, Amount: &balance, Reference: "quickstart"},
		billing.SuppressEvents())
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "wrote off %s on invoice %d: outstanding now %s, total write-offs %s\n",
		balance, written.ID, written.OutstandingBalance, written.TotalWriteoffs)
	_, err = w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: inv.ID, Amount: &balance})
	if errors.Is(err, billing.ErrBadRequest) {
		fmt.Fprintln(w.out, "a second write-off is refused:", err)
		return nil
	}
	return fmt.Errorf("second write-off: want a bad-request error, got %v", err)
}

// replaceCard replaces a card of the fake's generated data; the answer
// only ever holds the masked number.
func (w *walkthrough) replaceCard(ctx context.Context, fake *billingtest.Server) error {
	w.step("Replacing a credit card")
	var card billingtest.CreditCard
	for _, c := range fake.CreditCards() {
		if !c.Deleted && c.ReplacedBy == 0 {
			card = c
			break
		}
	}
	if card.ID == 0 {
		return errors.New("the generated data has no active card")
	}
	params := &billing.ReplaceCreditCardParams{
		ID: card.ID, CustomerID: card.CustomerID,
		CardNumber: "4111111111111111", CVV: "123",
		FirstName: card.FirstName, LastName: card.LastName,
		ExpirationMonth: 12, ExpirationYear: 30, PostalZip: "K1A 0B1",
	}
	fmt.Fprintf(w.out, "params as printed with %%+v: %+v\n", params)
	replaced, err := w.c.PaymentMethods.ReplaceCreditCard(ctx, params)
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "card %d replaced by card %d: %s (%s), replaces %d\n",
		card.ID, replaced.ID, replaced.MaskedCardNumber, replaced.CardType, *replaced.OriginalPaymentMethodID)
	return nil
}

// trackingCode creates a sales tracking code.
func (w *walkthrough) trackingCode(ctx context.Context) error {
	w.step("Creating a sales tracking code")
	code, err := w.c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{
		Type: billing.TrackingCodeType3, Code: "QS-2026", Name: "Quickstart campaign", Description: "created by the quickstart",
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "created %q (%s) with id %d, status %s\n", code.Name, code.Type, code.ID, code.Status)
	return nil
}

// bulkPreview previews pushing a plan's prices out to every active
// subscriber.
func (w *walkthrough) bulkPreview(ctx context.Context, fake *billingtest.Server) error {
	w.step("Previewing a bulk price change")
	subs := fake.Subscriptions()
	if len(subs) == 0 {
		return errors.New("the generated data has no subscription")
	}
	planID := subs[0].PlanID
	preview, err := w.c.Bulk.PreviewPriceChange(ctx, planID, &billing.BulkPriceChangeParams{
		SelectAll: true,
		Query:     billing.SubscriberFilter{SubscriptionStatus: []billing.SubscriptionStatus{billing.SubscriptionStatusActive}},
	})
	if err != nil {
		return err
	}
	var summary struct {
		SubscriptionCount int `json:"subscriptionCount"`
		PlanProductCount  int `json:"planProductCount"`
	}
	if err := preview.Decode(&summary); err != nil {
		return err
	}
	fmt.Fprintf(w.out, "plan %d: %d active subscriptions would change, %d plan product prices in all\n",
		planID, summary.SubscriptionCount, summary.PlanProductCount)
	return nil
}

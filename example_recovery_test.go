package billing_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

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

// The reference has no read of a payment method, so a card replacement
// whose answer is lost is recovered by sending it again: the service
// deletes a replaced card and refuses to replace it again with 400
// (ErrBadRequest), which proves that the first attempt landed. Params the
// SDK checks before sending cannot be the cause of that 400. The new
// card's id was in the lost answer; the customer's payment methods in the
// billing application show it.
func ExamplePaymentMethodsService_ReplaceCreditCard_unknownOutcome() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount()) // Ada Lovelace's Visa 300 has expired
	defer srv.Close()
	_ = srv.InjectFault(billingtest.RoutePaymentMethodsReplaceCreditCard, billingtest.Fault{Drop: billingtest.DropAfterApply})
	c := srv.Client()
	ctx := context.Background()

	params := &billing.ReplaceCreditCardParams{
		ID: 300, CustomerID: 100,
		CardNumber: "4111 1111 1111 1111", CVV: "123",
		FirstName: "Ada", LastName: "Lovelace",
		ExpirationMonth: 12, ExpirationYear: 29,
	}
	_, err := c.PaymentMethods.ReplaceCreditCard(ctx, params)
	fmt.Println("first attempt, outcome unknown:", errors.Is(err, billing.ErrOutcomeUnknown))

	_, err = c.PaymentMethods.ReplaceCreditCard(ctx, params)
	switch {
	case errors.Is(err, billing.ErrBadRequest):
		fmt.Println("sent again: refused, so the first attempt replaced the card")
	case err == nil:
		fmt.Println("sent again: replaced now")
	default:
		log.Fatal(err) // still unknown: try again later
	}
	// Output:
	// first attempt, outcome unknown: true
	// sent again: refused, so the first attempt replaced the card
}

package billing_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// Replacing a card needs its full number and CVV from the card holder;
// the answer is a new payment method with a new id and the number masked.
// A card that is deleted or already replaced cannot be replaced again:
// that is ErrBadRequest.
func ExamplePaymentMethodsService_ReplaceCreditCard() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount()) // Ada Lovelace's Visa 300 has expired
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	params := &billing.ReplaceCreditCardParams{
		ID: 300, CustomerID: 100,
		CardNumber: "4111 1111 1111 1111", CVV: "123",
		FirstName: "Ada", LastName: "Lovelace",
		ExpirationMonth: 12, ExpirationYear: 29,
	}
	card, err := c.PaymentMethods.ReplaceCreditCard(ctx, params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(card.ID, card.MaskedCardNumber, card.CardType, card.ExpirationMonth, card.ExpirationYear,
		"replaces", *card.OriginalPaymentMethodID, "default", card.IsDefault)

	_, err = c.PaymentMethods.ReplaceCreditCard(ctx, params) // the old card is replaced now
	var apiErr *billing.APIError
	if errors.Is(err, billing.ErrBadRequest) && errors.As(err, &apiErr) {
		fmt.Println("refused:", apiErr.Errors[0].Value)
	}
	// Output:
	// 1009 ************1111 Visa 12 29 replaces 300 default true
	// refused: payment method 300 was replaced by payment method 1009; the old method cannot be replaced again
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

// A sales tracking code's type is one of the five categories or the custom
// name the account gave one (here "Region" for category 1). Any other type
// is ErrBadRequest, and the message lists the valid types.
func ExampleSalesTrackingCodesService_Create() {
	srv := billingtest.NewServer()
	defer srv.Close()
	_ = srv.SetTrackingCodeCategoryName(1, "Region")
	c := srv.Client()
	ctx := context.Background()

	code, err := c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{
		Type: "Region", Code: "NORTH", Name: "North", Description: "Northern sales region",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(code.ID, code.Type, code.Code, code.Name, *code.Description, code.Status)

	_, err = c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{
		Type: "Territory", Code: "EAST", Name: "East",
	})
	var apiErr *billing.APIError
	if errors.Is(err, billing.ErrBadRequest) && errors.As(err, &apiErr) {
		fmt.Println("refused:", apiErr.Errors[0].Value)
	}
	// Output:
	// 1 Region NORTH North Northern sales region Active
	// refused: type "Territory" is not a sales tracking code type; valid types: Sales Tracking Code 1, Region, Sales Tracking Code 2, Sales Tracking Code 3, Sales Tracking Code 4, Sales Tracking Code 5
}

// A wallet billing agreement is created at the provider's endpoint (here
// PayPal, POST /v1/Paypal) from the provider's token or billing agreement
// id (baid). The new payment method becomes the customer's default when
// the customer has none. Without token and baid the SDK refuses the call
// before sending it, as a *ValidationError.
func ExamplePaymentMethodsService_CreateWalletAgreement() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()
	const grace = 101 // Grace Hopper has no payment method yet
	ctx := context.Background()

	pm, err := c.PaymentMethods.CreateWalletAgreement(ctx, billing.WalletProviderPaypal, &billing.WalletAgreementParams{
		CustomerID: grace,
		Baid:       "B-5YR62846TT312345",
		Source:     billing.PaymentSourceSelfServicePortal,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("payment method", pm.ID, "for", pm.FirstName, pm.LastName, "default", pm.IsDefault)

	_, err = c.PaymentMethods.CreateWalletAgreement(ctx, billing.WalletProviderPaypal, &billing.WalletAgreementParams{
		CustomerID: grace, Source: billing.PaymentSourceManual,
	})
	var invalid *billing.ValidationError
	if errors.As(err, &invalid) {
		fmt.Println("not sent:", invalid.Field, "-", invalid.Reason)
	}
	fmt.Println("wallet methods in the fake:", len(srv.WalletMethods()))
	// Output:
	// payment method 1009 for Grace Hopper default true
	// not sent: token - token or baid is required
	// wallet methods in the fake: 1
}

package billing_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

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

package billing_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
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

package billing_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// The items of a subscription product, here only the active ones. An
// item's reference comes as a string or a number and is kept as it came.
// An unknown subscription product is ErrNotFound.
func ExampleSubscriptionItemsService_List() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()
	const product = 202 // Additional user on Ada Lovelace's subscription: three user seats, one deleted
	ctx := context.Background()

	page, err := c.SubscriptionItems.List(ctx, product, &billing.ListSubscriptionItemsParams{
		Filter: billing.SubscriptionProductItemFilter{Status: []billing.ItemStatus{billing.ItemStatusActive}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, item := range page.Items {
		fmt.Println(item.ID, item.Name, item.Reference, "number:", item.Reference.IsNumber, item.Status)
	}

	_, err = c.SubscriptionItems.List(ctx, 203, nil)
	fmt.Println("product 203 not found:", errors.Is(err, billing.ErrNotFound))
	// Output:
	// 250 User seat: Charles Babbage SEAT-0001 number: false Active
	// 251 User seat: Mary Somerville 4711 number: true Active
	// product 203 not found: true
}

// A preview tells which subscriptions of a plan would get the plan's
// current prices, changing nothing. The API reference does not show the
// answer's shape, so the SDK keeps it whole; this example decodes the
// fake's answer (billingtest.BulkPreview). An unknown plan is ErrNotFound.
func ExampleBulkService_PreviewPriceChange() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()

	// Every subscription of plan 900 ("Professional"), all its plan products:
	// Ada Lovelace's pays 12.50 an additional user, where the plan now asks 14.00.
	preview, err := c.Bulk.PreviewPriceChange(context.Background(), 900, &billing.BulkPriceChangeParams{SelectAll: true})
	if err != nil {
		log.Fatal(err)
	}
	var got billingtest.BulkPreview
	if err := preview.Decode(&got); err != nil {
		log.Fatal(err)
	}
	for _, sub := range got.Subscriptions {
		for _, p := range sub.PlanProducts {
			fmt.Println("subscription", sub.SubscriptionID, p.Name, p.CurrentPrice, "->", p.NewPrice)
		}
	}

	_, err = c.Bulk.PreviewPriceChange(context.Background(), 901, &billing.BulkPriceChangeParams{SelectAll: true})
	fmt.Println("plan 901 not found:", errors.Is(err, billing.ErrNotFound))
	// Output:
	// subscription 200 Additional user 12.5 -> 14
	// plan 901 not found: true
}

// Only a validated bulk job is processed, and only once; the service
// refuses anything else with 409, ErrConflict. The answer's fields beyond
// id are not in the API reference and are kept in Extra.
func ExampleBulkService_Process() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()
	const job = 400 // a price change, validated
	ctx := context.Background()

	started, err := c.Bulk.Process(ctx, job, billing.SuppressEvents())
	if err != nil {
		log.Fatal(err)
	}
	var status string
	if _, err := started.Extra.Decode("status", &status); err != nil {
		log.Fatal(err)
	}
	fmt.Println("job", started.ID, status)

	_, err = c.Bulk.Process(ctx, job)
	fmt.Println("second time refused:", errors.Is(err, billing.ErrConflict))
	// Output:
	// job 400 Processing
	// second time refused: true
}

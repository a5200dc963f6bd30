package billing_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/shopspring/decimal"
)

// The items of a subscription product, here only the active ones. An
// item's reference comes as a string or a number and is kept as it came.
// An unknown subscription product is ErrNotFound.
func ExampleSubscriptionItemsService_List() {
	srv := billingtest.NewServer()
	defer srv.Close()
	const product = 202 // a subscription product id
	for i, ref := range []billing.ItemReference{{Value: "SIM-0001"}, {Value: "4711", IsNumber: true}, {Value: "SIM-0003"}} {
		item := billingtest.SubscriptionProductItem{ID: int64(60 + i), SubscriptionProductID: product, Name: fmt.Sprintf("SIM card %d", i+1), Reference: ref}
		if i == 2 {
			item.Status = billing.ItemStatusDeleted
		}
		_, _ = srv.AddSubscriptionProductItem(item)
	}
	c := srv.Client()
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
	// 60 SIM card 1 SIM-0001 number: false Active
	// 61 SIM card 2 4711 number: true Active
	// product 203 not found: true
}

// A preview tells which subscriptions of a plan would get the plan's
// current prices, changing nothing. The API reference does not show the
// answer's shape, so the SDK keeps it whole; this example decodes the
// fake's answer (billingtest.BulkPreview). An unknown plan is ErrNotFound.
func ExampleBulkService_PreviewPriceChange() {
	srv := billingtest.NewServer()
	defer srv.Close()
	cust, _ := srv.AddCustomer(billingtest.Customer{ID: 1, FirstName: "Ada"})
	for i, price := range []string{"12.50", "14.125"} { // the plan's price is now 14.125
		_, _ = srv.AddSubscription(billingtest.Subscription{ID: int64(200 + i), CustomerID: cust, PlanID: 900, Products: []billingtest.SubscriptionProduct{
			{ID: int64(210 + i), PlanProductID: 901, Name: "Additional user", Price: decimal.RequireFromString(price), PlanPrice: decimal.RequireFromString("14.125")},
		}})
	}
	c := srv.Client()

	// Every subscription of plan 900, all its plan products.
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
	// subscription 200 Additional user 12.5 -> 14.125
	// plan 901 not found: true
}

// Only a validated bulk job is processed, and only once; the service
// refuses anything else with 409, ErrConflict. The answer's fields beyond
// id are not in the API reference and are kept in Extra.
func ExampleBulkService_Process() {
	srv := billingtest.NewServer()
	defer srv.Close()
	job, _ := srv.AddBulkJob(billingtest.BulkJob{ID: 77, Type: "PriceChange", Validated: true})
	c := srv.Client()
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
	// job 77 Processing
	// second time refused: true
}

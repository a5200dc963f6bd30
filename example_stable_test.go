package billing_test

import (
	"context"
	"fmt"
	"log"
	"sync/atomic"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/shopspring/decimal"
)

// A stable iteration yields every invoice exactly once although the
// account changes under it: here an invoice dated before the ones still
// to come is posted while the loop runs. A page-number iteration would
// meet the shifted pages and yield one invoice twice.
func ExampleStable() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount()) // nine invoices, posted January to May
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	var cur billing.Cursor
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 2}}
	seen := map[int64]int{}
	for inv, err := range c.Invoices.All(ctx, params, billing.Stable(&cur)) {
		if err != nil {
			log.Fatal(err)
		}
		seen[inv.ID]++
		if len(seen) == 3 { // meanwhile, an invoice is posted for January
			_, _ = srv.AddInvoice(billingtest.Invoice{ID: 999, CustomerID: 100,
				PostedTimestamp: time.Date(2025, 1, 3, 0, 0, 0, 0, time.UTC)})
		}
	}
	twice := 0
	for _, n := range seen {
		if n > 1 {
			twice++
		}
	}
	fmt.Println("invoices yielded:", len(seen), "of them twice:", twice)
	// Output: invoices yielded: 9 of them twice: 0
}

// A Cursor is how far a stable iteration got. Saved with MarshalText
// after each item or batch that was handled, and restored with
// UnmarshalText, it resumes where the last run stopped, in another
// process if need be, with no item lost or repeated.
func ExampleCursor() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 2}}

	// The first run handles three invoices, saves the cursor, and stops.
	var cur billing.Cursor
	var saved []byte
	for inv, err := range c.Invoices.All(ctx, params, billing.Stable(&cur)) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("first run:", inv.ID)
		if inv.ID == 1002 {
			if saved, err = cur.MarshalText(); err != nil {
				log.Fatal(err)
			}
			break
		}
	}

	// The next run starts from the saved text.
	var resumed billing.Cursor
	if err := resumed.UnmarshalText(saved); err != nil {
		log.Fatal(err)
	}
	for inv, err := range c.Invoices.All(ctx, params, billing.Stable(&resumed)) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("resumed:", inv.ID)
	}
	// Output:
	// first run: 1000
	// first run: 1001
	// first run: 1002
	// resumed: 1003
	// resumed: 1004
	// resumed: 1005
	// resumed: 1006
	// resumed: 1007
	// resumed: 1008
}

// StableBy pages on another key. On modifiedTimestamp it makes a "what
// changed since" sync: the first run reads every invoice summary, and a
// later run from the same cursor reads only those changed since, each
// once.
func ExampleStableBy() {
	var hours atomic.Int64 // the fake's clock: hours after the sample account's noon, 1 June 2025
	clock := func() time.Time {
		return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(hours.Load()) * time.Hour)
	}
	srv := billingtest.NewServer(billingtest.WithSampleAccount(), billingtest.WithClock(clock))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	const ada = 100 // Ada Lovelace: invoices 1003, 1005 and 1007
	var cur billing.Cursor
	sync := func(run string) {
		for s, err := range c.InvoiceSummaries.All(ctx, ada, nil, billing.StableBy(&cur, "modifiedTimestamp")) {
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(run, s.ID)
		}
	}
	sync("first sync:")

	hours.Add(1) // an hour later, Ada pays the rest of invoice 1005
	_ = srv.UpdateInvoice(1005, func(inv *billingtest.Invoice) { inv.TotalPayments = decimal.NewFromInt(124) })
	sync("next sync:")
	// Output:
	// first sync: 1003
	// first sync: 1005
	// first sync: 1007
	// next sync: 1005
}

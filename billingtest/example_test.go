package billingtest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/shopspring/decimal"
)

// WriteOffSmallBalances is the application code under test in
// Example_unitTesting: it pages through a customer's invoices and writes
// off every one whose outstanding balance is positive and below limit,
// without notifying anyone, and returns how many it wrote off.
func WriteOffSmallBalances(ctx context.Context, c *billing.Client, customerID int64, limit decimal.Decimal) (int, error) {
	n := 0
	params := &billing.ListCustomerInvoicesParams{ListOptions: billing.ListOptions{PageSize: 2}}
	for inv, err := range c.Invoices.AllByCustomer(ctx, customerID, params) {
		if err != nil {
			return n, err
		}
		if !inv.OutstandingBalance.IsPositive() || !inv.OutstandingBalance.LessThan(limit) {
			continue
		}
		// The amount must be the whole outstanding balance.
		_, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: inv.ID, Amount: &inv.OutstandingBalance}, billing.SuppressEvents())
		if err != nil {
			return n, fmt.Errorf("writing off invoice %d: %w", inv.ID, err)
		}
		n++
	}
	return n, nil
}

// A unit test of application code (WriteOffSmallBalances, defined in this
// file) with the fake: start from the sample account, run the code with
// the fake's client, then check what the fake now holds. Ada Lovelace
// (customer 100) has paid invoice 1003, owes 74 on 1005 and 244 on 1007.
func Example_unitTesting() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()

	n, err := WriteOffSmallBalances(context.Background(), srv.Client(), 100, decimal.NewFromInt(100))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("written off:", n)
	for _, id := range []int64{1003, 1005, 1007} {
		inv, _ := srv.Invoice(id)
		sum, _ := srv.InvoiceSummary(id)
		fmt.Printf("invoice %d: outstanding %s, written off %s, %s\n", id, inv.OutstandingBalance, inv.TotalWriteoffs, sum.InvoiceStatus)
	}
	fmt.Println("events sent:", len(srv.Events()))
	// Output:
	// written off: 1
	// invoice 1003: outstanding 0, written off 0, Paid
	// invoice 1005: outstanding 0, written off 74, WrittenOff
	// invoice 1007: outstanding 244, written off 0, Due
	// events sent: 0
}

// One option seeds a small, realistic account, the same in every run:
// four customers, nine invoices from January to May 2025 in every status,
// subscriptions, a draft, cards and a bulk job (the list is on
// WithSampleAccount). Its clock stands at noon UTC on 1 June 2025.
func ExampleWithSampleAccount() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client()

	for inv, err := range c.Invoices.All(context.Background(), nil) {
		if err != nil {
			log.Fatal(err)
		}
		sum, _ := srv.InvoiceSummary(inv.ID)
		fmt.Println(inv.ID, sum.CustomerName, inv.PostedTimestamp.Format(time.DateOnly), inv.InvoiceAmount, inv.OutstandingBalance, sum.InvoiceStatus)
	}
	fmt.Println(srv.Counts())
	// Output:
	// 1000 Barbara Liskov 2025-01-05 29 29 Overdue
	// 1001 Edsger Dijkstra 2025-02-20 1200 0 Paid
	// 1002 Grace Hopper 2025-03-10 29 0 Paid
	// 1003 Ada Lovelace 2025-03-15 124 0 Paid
	// 1004 Grace Hopper 2025-04-10 29 29 Overdue
	// 1005 Ada Lovelace 2025-04-15 124 74 Overdue
	// 1006 Grace Hopper 2025-05-10 29 29 Due
	// 1007 Ada Lovelace 2025-05-15 244 244 Due
	// 1008 Edsger Dijkstra 2025-05-20 450 450 Due
	// map[bulkJobs:1 creditCards:2 customers:4 draftInvoices:1 invoices:9 salesTrackingCodes:2 subscriptionProductItems:3 subscriptions:3 walletMethods:0]
}

// A 503 on a read is retried by the SDK without the caller seeing it; the
// fake's request log shows both attempts. A write is not retried after a
// 503, since the server may have acted on it: the caller gets the error.
func ExampleServer_InjectFault() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()
	c := srv.Client() // retries with millisecond waits
	ctx := context.Background()
	const id = 1004 // Grace Hopper's, 29 overdue

	// The next read of an invoice fails once with 503.
	if err := srv.InjectFault(billingtest.RouteInvoicesGet, billingtest.Fault{Status: 503}); err != nil {
		log.Fatal(err)
	}
	inv, err := c.Invoices.Get(ctx, id, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("read invoice", inv.ID, "outstanding", inv.OutstandingBalance)

	// The next write-off fails once with 503.
	if err := srv.InjectFault(billingtest.RouteInvoicesWriteOff, billingtest.Fault{Status: 503}); err != nil {
		log.Fatal(err)
	}
	_, err = c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: id, Amount: &inv.OutstandingBalance})
	fmt.Println("write-off is a server error:", errors.Is(err, billing.ErrServer))

	for _, r := range srv.Requests() {
		fmt.Println(r.Method, r.Path, r.Status)
	}
	// Output:
	// read invoice 1004 outstanding 29
	// write-off is a server error: true
	// GET /v1/Invoices/1004 503
	// GET /v1/Invoices/1004 200
	// POST /v1/invoices/writeoff 503
}

// Seeding the fake from a JSON fixtures file (the format is described on
// Server.LoadFixtures). The document here is written to a temporary file
// to keep the example self-contained; tests usually keep theirs under
// testdata/. A document with a mistake is refused whole, with an error
// that says where.
func ExampleWithFixtures() {
	const doc = `{
	  "customers": [{"id": 100, "firstName": "Ada", "lastName": "Lovelace"}],
	  "invoices": [
	    {"id": 500, "customerId": 100, "postedTimestamp": "2025-01-10T09:00:00Z",
	     "charges": [{"name": "Professional plan", "quantity": 1, "unitPrice": 99.00},
	                 {"name": "Additional user", "quantity": 3, "unitPrice": "12.50"}],
	     "totalPayments": 50}
	  ],
	  "bulkJobs": [{"id": 77, "type": "PriceChange", "validated": true}]
	}`
	dir, err := os.MkdirTemp("", "fixtures")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "account.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		log.Fatal(err)
	}

	srv := billingtest.NewServer(billingtest.WithFixtures(path)) // panics on a bad file
	defer srv.Close()
	inv, err := srv.Client().Invoices.Get(context.Background(), 500, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("invoice", inv.ID, "amount", inv.InvoiceAmount, "outstanding", inv.OutstandingBalance)
	fmt.Println("customers", srv.Counts()["customers"], "bulk jobs", srv.Counts()["bulkJobs"])

	err = srv.LoadFixtures(strings.NewReader(`{"customers": [{"id": 101, "firstName": "Grace", "lastNmae": "Hopper"}]}`))
	if err != nil {
		where, _, _ := strings.Cut(err.Error(), ";") // the rest lists the valid fields
		fmt.Println(where)
	}
	fmt.Println("customers", srv.Counts()["customers"]) // nothing was added
	// Output:
	// invoice 500 amount 136.5 outstanding 86.5
	// customers 1 bulk jobs 1
	// LoadFixtures: customers[0] (id 101): unknown field "lastNmae"
	// customers 1
}

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
// file) with the fake: seed the account, run the code with the fake's
// client, then check what the fake now holds. The clock is fixed so that
// the invoice statuses do not depend on the day the test runs.
func Example_unitTesting() {
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	srv := billingtest.NewServer(billingtest.WithClock(func() time.Time { return now }))
	defer srv.Close()

	cust, err := srv.AddCustomer(billingtest.Customer{ID: 10, FirstName: "Ada", LastName: "Lovelace"})
	if err != nil {
		log.Fatal(err)
	}
	// Invoices of 5.00, 12.50 (3.00 of it paid), 150.00, 19.999 and 7.25
	// (paid in full), posted on 1 February.
	for i, amount := range []string{"5.00", "12.50", "150.00", "19.999", "7.25"} {
		paid := map[int]string{1: "3.00", 4: "7.25"}[i]
		inv := billingtest.Invoice{
			ID: int64(101 + i), CustomerID: cust, PostedTimestamp: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC),
			Charges: []billingtest.Charge{{Name: "Support", Quantity: decimal.NewFromInt(1),
				UnitPrice: decimal.RequireFromString(amount), Amount: decimal.RequireFromString(amount)}},
		}
		if paid != "" {
			inv.TotalPayments = decimal.RequireFromString(paid)
		}
		if _, err := srv.AddInvoice(inv); err != nil {
			log.Fatal(err)
		}
	}

	n, err := WriteOffSmallBalances(context.Background(), srv.Client(), cust, decimal.NewFromInt(20))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("written off:", n)
	for id := int64(101); id <= 105; id++ {
		inv, _ := srv.Invoice(id)
		sum, _ := srv.InvoiceSummary(id)
		fmt.Printf("invoice %d: outstanding %s, written off %s, %s\n", id, inv.OutstandingBalance, inv.TotalWriteoffs, sum.InvoiceStatus)
	}
	fmt.Println("events sent:", len(srv.Events()))
	// Output:
	// written off: 3
	// invoice 101: outstanding 0, written off 5, WrittenOff
	// invoice 102: outstanding 0, written off 9.5, WrittenOff
	// invoice 103: outstanding 150, written off 0, Due
	// invoice 104: outstanding 0, written off 19.999, WrittenOff
	// invoice 105: outstanding 0, written off 0, Paid
	// events sent: 0
}

// A 503 on a read is retried by the SDK without the caller seeing it; the
// fake's request log shows both attempts. A write is not retried after a
// 503, since the server may have acted on it: the caller gets the error.
func ExampleServer_InjectFault() {
	srv := billingtest.NewServer()
	defer srv.Close()
	cust, _ := srv.AddCustomer(billingtest.Customer{ID: 1, FirstName: "Grace"})
	id, _ := srv.AddInvoice(billingtest.Invoice{ID: 42, CustomerID: cust, Charges: []billingtest.Charge{
		{Name: "Plan", Quantity: decimal.NewFromInt(1), UnitPrice: decimal.NewFromInt(30), Amount: decimal.NewFromInt(30)},
	}})
	c := srv.Client() // retries with millisecond waits
	ctx := context.Background()

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
	// read invoice 42 outstanding 30
	// write-off is a server error: true
	// GET /v1/Invoices/42 503
	// GET /v1/Invoices/42 200
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

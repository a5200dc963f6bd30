package billingtest

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

// sameRendered fails t unless got and want print the same with %+v,
// which compares whole structs with decimals by value (12.5 and 12.50
// alike), as reflect.DeepEqual does not.
func sameRendered[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func sampleServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	srv, err := NewHandler(append([]Option{WithSampleAccount()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// sampleInvoiceRow is a line of the invoice table of WithSampleAccount's
// documentation.
type sampleInvoiceRow struct {
	ID, Customer                            int64
	Posted, Amount, Paid, Outstanding, Stat string
}

// sampleInvoices is that table.
var sampleInvoices = []sampleInvoiceRow{
	{1000, 103, "2025-01-05", "29", "0", "29", "Overdue"},
	{1001, 102, "2025-02-20", "1200", "1200", "0", "Paid"},
	{1002, 101, "2025-03-10", "29", "29", "0", "Paid"},
	{1003, 100, "2025-03-15", "124", "124", "0", "Paid"},
	{1004, 101, "2025-04-10", "29", "0", "29", "Overdue"},
	{1005, 100, "2025-04-15", "124", "50", "74", "Overdue"},
	{1006, 101, "2025-05-10", "29", "0", "29", "Due"},
	{1007, 100, "2025-05-15", "244", "0", "244", "Due"},
	{1008, 102, "2025-05-20", "450", "0", "450", "Due"},
}

// sampleInvoiceRows reads the fake's invoices 1000 to 1008 as table rows.
func sampleInvoiceRows(t *testing.T, srv *Server) []sampleInvoiceRow {
	t.Helper()
	var rows []sampleInvoiceRow
	for id := int64(1000); id <= 1008; id++ {
		inv, ok := srv.Invoice(id)
		sum, ok2 := srv.InvoiceSummary(id)
		if !ok || !ok2 {
			t.Fatalf("invoice %d missing", id)
		}
		if inv.InvoiceNumber != id {
			t.Errorf("invoice %d is numbered %d, want its id", id, inv.InvoiceNumber)
		}
		rows = append(rows, sampleInvoiceRow{inv.ID, inv.CustomerID, inv.PostedTimestamp.Format(time.DateOnly),
			inv.InvoiceAmount.String(), inv.TotalPayments.String(), inv.OutstandingBalance.String(), string(sum.InvoiceStatus)})
	}
	return rows
}

// The account holds what WithSampleAccount's documentation lists, every
// entity compared whole.
func TestSampleAccountHoldsWhatItsDocumentationSays(t *testing.T) {
	t.Parallel()
	srv := sampleServer(t)
	sameRendered(t, "invoices", sampleInvoiceRows(t, srv), sampleInvoices)
	total := decimal.Zero
	for id := int64(1000); id <= 1008; id++ {
		inv, _ := srv.Invoice(id)
		total = total.Add(inv.OutstandingBalance)
	}
	if !total.Equal(decimal.NewFromInt(855)) {
		t.Errorf("outstanding in all: %s, want 855", total)
	}
	wantCounts := map[string]int{"customers": 4, "invoices": 9, "draftInvoices": 1, "creditCards": 2, "walletMethods": 0,
		"subscriptions": 3, "subscriptionProductItems": 3, "salesTrackingCodes": 2, "bulkJobs": 1}
	sameRendered(t, "counts", srv.Counts(), wantCounts)

	d := decimal.RequireFromString
	day := func(m time.Month, d, h int) time.Time { return time.Date(2025, m, d, h, 0, 0, 0, time.UTC) }
	customer := func(id int64, first, last, company, email string, status billing.CustomerStatus, created time.Time, region int64) Customer {
		return Customer{ID: id, FirstName: first, LastName: last, CompanyName: company, PrimaryEmail: email,
			Reference: fmt.Sprintf("CUST-%d", id), ErpID: fmt.Sprintf("ERP-%d", id), Status: status,
			AccountStatus: billing.CustomerAccountStatusGood, CreatedTimestamp: created, ModifiedTimestamp: created,
			SalesTrackingCodeIDs: [5]int64{region}}
	}
	sameRendered(t, "customers", srv.Customers(), []Customer{
		customer(100, "Ada", "Lovelace", "Analytical Engines Ltd", "ada@engines.example", billing.CustomerStatusActive, day(3, 1, 9), 500),
		customer(101, "Grace", "Hopper", "Compiler Systems Inc", "grace@compilers.example", billing.CustomerStatusActive, day(3, 1, 10), 500),
		customer(102, "Edsger", "Dijkstra", "Shortest Path BV", "edsger@paths.example", billing.CustomerStatusActive, day(2, 1, 9), 501),
		customer(103, "Barbara", "Liskov", "Substitution Labs", "barbara@substitution.example", billing.CustomerStatusCancelled,
			time.Date(2024, 12, 1, 9, 0, 0, 0, time.UTC), 501),
	})
	sameRendered(t, "sales tracking codes", srv.SalesTrackingCodes(), []SalesTrackingCode{
		{ID: 500, Type: "Region", Code: "NORTH", Name: "North", Status: billing.TrackingCodeStatusActive},
		{ID: 501, Type: "Region", Code: "SOUTH", Name: "South", Status: billing.TrackingCodeStatusActive},
	})
	if cat, ok := srv.store.category("Region"); !ok || cat != 1 {
		t.Errorf("Region is category %d (%v), want 1", cat, ok)
	}
	starter := func(id int64) []SubscriptionProduct {
		return []SubscriptionProduct{{ID: id, PlanProductID: 911, Name: "Starter plan", Price: d("29"), PlanPrice: d("29")}}
	}
	sameRendered(t, "subscriptions", srv.Subscriptions(), []Subscription{
		{ID: 200, CustomerID: 100, PlanID: 900, Name: "Professional", Status: billing.SubscriptionStatusActive,
			Interval: billing.IntervalMonthly, NumberOfIntervals: 1, CreatedTimestamp: day(3, 15, 0), NextBillingDate: day(6, 15, 0),
			Products: []SubscriptionProduct{
				{ID: 201, PlanProductID: 901, Name: "Platform fee", Price: d("99"), PlanPrice: d("99")},
				{ID: 202, PlanProductID: 902, Name: "Additional user", Price: d("12.5"), PlanPrice: d("14")},
			}},
		{ID: 210, CustomerID: 101, PlanID: 910, Name: "Starter", Status: billing.SubscriptionStatusActive,
			Interval: billing.IntervalMonthly, NumberOfIntervals: 1, CreatedTimestamp: day(3, 10, 0), NextBillingDate: day(6, 10, 0),
			Products: starter(211)},
		{ID: 220, CustomerID: 103, PlanID: 910, Name: "Starter", Status: billing.SubscriptionStatusCancelled,
			Interval: billing.IntervalMonthly, NumberOfIntervals: 1, CreatedTimestamp: time.Date(2024, 12, 5, 0, 0, 0, 0, time.UTC),
			Products: starter(221)},
	})
	seat := func(id int64, name string, ref billing.ItemReference, status billing.ItemStatus, modified time.Time) billing.SubscriptionProductItem {
		return billing.SubscriptionProductItem{ID: id, Reference: ref, Name: name, SubscriptionProductID: 202, SubscriptionID: 200,
			CustomerID: 100, Status: status, CreatedDate: billing.NewTimestamp(day(3, 15, 0)), ModifiedDate: billing.NewTimestamp(modified)}
	}
	srv.mu.RLock()
	items := srv.store.items
	srv.mu.RUnlock()
	sameRendered(t, "subscription product items", items, map[int64][]billing.SubscriptionProductItem{202: {
		seat(250, "User seat: Charles Babbage", billing.ItemReference{Value: "SEAT-0001"}, billing.ItemStatusActive, day(3, 15, 0)),
		seat(251, "User seat: Mary Somerville", billing.ItemReference{Value: "4711", IsNumber: true}, billing.ItemStatusActive, day(3, 15, 0)),
		seat(252, "User seat: Augustus De Morgan", billing.ItemReference{Value: "SEAT-0003"}, billing.ItemStatusDeleted, day(3, 20, 0)),
	}})
	sameRendered(t, "draft invoices", srv.DraftInvoices(), []DraftInvoice{{ID: 800, CustomerID: 100, Created: day(6, 1, 9), Lines: []DraftLine{
		{Description: "Platform fee", Quantity: d("1"), Amount: d("99")},
		{Description: "Additional user", Quantity: d("2"), Amount: d("25")},
	}}})
	sameRendered(t, "credit cards", srv.CreditCards(), []CreditCard{
		{ID: 300, CustomerID: 100, Last4: "4242", CardType: "Visa", FirstName: "Ada", LastName: "Lovelace",
			ExpirationMonth: 5, ExpirationYear: 25, IsDefault: true, ModifiedDate: day(3, 1, 9)},
		{ID: 301, CustomerID: 102, Last4: "4444", CardType: "Mastercard", FirstName: "Edsger", LastName: "Dijkstra",
			ExpirationMonth: 11, ExpirationYear: 27, IsDefault: true, ModifiedDate: day(2, 1, 9)},
	})
	sameRendered(t, "wallet methods", srv.WalletMethods(), []WalletMethod(nil))
	sameRendered(t, "bulk jobs", srv.BulkJobs(), []BulkJob{{ID: 400, Type: "PriceChange", Validated: true}})
}

// The charges behind the amounts: what each invoice charges, from which
// subscription or purchase.
func TestSampleAccountCharges(t *testing.T) {
	t.Parallel()
	srv := sampleServer(t)
	type charge struct {
		ID                     int64
		Name, Quantity, Price  string
		Subscription, Purchase int64
		SubscriptionProduct    int64
	}
	got := map[int64][]charge{}
	srv.mu.RLock()
	for id := int64(1000); id <= 1008; id++ {
		for _, c := range srv.store.invoices.Get(id).Charges {
			got[id] = append(got[id], charge{c.ID, c.Name, c.Quantity.String(), c.UnitPrice.String(), c.SubscriptionID, c.PurchaseID, c.SubscriptionProductID})
		}
	}
	srv.mu.RUnlock()
	fee := func(id int64) charge { return charge{id, "Platform fee", "1", "99", 200, 0, 201} }
	users := func(id int64) charge { return charge{id, "Additional user", "2", "12.5", 200, 0, 202} }
	plan := func(id, sub, product int64) charge { return charge{id, "Starter plan", "1", "29", sub, 0, product} }
	sameRendered(t, "charges by invoice", got, map[int64][]charge{
		1000: {plan(600, 220, 221)},
		1001: {{601, "Consulting day", "2", "600", 0, 7001, 0}},
		1002: {plan(602, 210, 211)},
		1003: {fee(603), users(604)},
		1004: {plan(605, 210, 211)},
		1005: {fee(606), users(607)},
		1006: {plan(608, 210, 211)},
		1007: {fee(609), users(610), {611, "Onboarding workshop", "1", "120", 0, 7002, 0}},
		1008: {{612, "Code review", "1", "450", 0, 7003, 0}},
	})
}

// The tables of WithSampleAccount's documentation are the account's: the
// invoice table is sampleInvoices, and the customer table names the
// customers as the fake holds them.
func TestSampleAccountDocumentationTables(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("sample.go")
	if err != nil {
		t.Fatal(err)
	}
	invoiceLine := regexp.MustCompile(`(?m)^//\t(10\d\d)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$`)
	var doc []sampleInvoiceRow
	for _, m := range invoiceLine.FindAllStringSubmatch(string(src), -1) {
		var id, cust int64
		fmt.Sscan(m[1], &id)
		fmt.Sscan(m[2], &cust)
		doc = append(doc, sampleInvoiceRow{id, cust, m[3], m[4], m[5], m[6], m[7]})
	}
	sameRendered(t, "the documentation's invoice table", doc, sampleInvoices)

	srv := sampleServer(t)
	customerLine := regexp.MustCompile(`(?m)^//\t(10\d) (\S+ \S+)\s{2,}(.+?)\s{2,}(\S+)\s+(NORTH|SOUTH)$`)
	codes := map[int64]string{}
	for _, c := range srv.SalesTrackingCodes() {
		codes[c.ID] = c.Code
	}
	var docCustomers, fakeCustomers []string
	for _, m := range customerLine.FindAllStringSubmatch(string(src), -1) {
		docCustomers = append(docCustomers, strings.Join(m[1:], "|"))
	}
	for _, c := range srv.Customers() {
		fakeCustomers = append(fakeCustomers, strings.Join([]string{fmt.Sprint(c.ID), c.FirstName + " " + c.LastName,
			c.CompanyName, string(c.Status), codes[c.SalesTrackingCodeIDs[0]]}, "|"))
	}
	sameRendered(t, "the documentation's customer table", docCustomers, fakeCustomers)
}

// The clock stands at noon UTC on 1 June 2025 unless WithClock is given,
// before or after WithSampleAccount; the statuses follow the clock.
func TestSampleAccountClock(t *testing.T) {
	t.Parallel()
	tenth := time.Date(2025, 6, 10, 8, 0, 0, 0, time.UTC)
	clock := func() time.Time { return tenth }
	for _, tc := range []struct {
		name string
		opts []Option
		now  time.Time
		stat billing.InvoiceStatus // of invoice 1006, due 9 June
	}{
		{"sample only", []Option{WithSampleAccount()}, time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC), billing.InvoiceStatusDue},
		{"clock after", []Option{WithSampleAccount(), WithClock(clock)}, tenth, billing.InvoiceStatusOverdue},
		{"clock before", []Option{WithClock(clock), WithSampleAccount()}, tenth, billing.InvoiceStatusOverdue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, err := NewHandler(tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := srv.now(); !got.Equal(tc.now) {
				t.Errorf("clock at %v, want %v", got, tc.now)
			}
			if sum, _ := srv.InvoiceSummary(1006); sum.InvoiceStatus != tc.stat {
				t.Errorf("invoice 1006 is %s, want %s", sum.InvoiceStatus, tc.stat)
			}
		})
	}
}

// New entities get ids from 1009 on; the other seeding options add to
// the account after it; Reset goes back to it; it dumps as a fixtures
// document that loads back; the option twice is a mistake.
func TestSampleAccountSeedingAndReset(t *testing.T) {
	t.Parallel()
	srv := sampleServer(t, WithGenerated(GenerateOptions{Seed: 3, Invoices: 20}))
	if n := srv.Counts()["invoices"]; n != 29 {
		t.Errorf("%d invoices with 20 generated after the sample, want 29", n)
	}

	srv = sampleServer(t)
	id, err := srv.AddCustomer(Customer{FirstName: "Alan", LastName: "Turing"})
	if err != nil || id != 1009 {
		t.Fatalf("the first new id is %d (%v), want 1009", id, err)
	}
	if err := srv.WriteOffInvoice(1004); err != nil {
		t.Fatal(err)
	}
	if err := srv.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, ok := srv.Customer(1009); ok {
		t.Error("customer 1009 is still there after Reset")
	}
	sameRendered(t, "invoices after Reset", sampleInvoiceRows(t, srv), sampleInvoices)

	var dump bytes.Buffer
	if err := srv.DumpFixtures(&dump); err != nil {
		t.Fatal(err)
	}
	loaded, err := NewHandler(WithClock(sampleAccountNow))
	if err != nil {
		t.Fatal(err)
	}
	if err := loaded.LoadFixtures(&dump); err != nil {
		t.Fatalf("the dumped sample account does not load: %v", err)
	}
	sameRendered(t, "invoices of the dumped account", sampleInvoiceRows(t, loaded), sampleInvoices)
	sameRendered(t, "counts of the dumped account", loaded.Counts(), srv.Counts())

	if _, err := NewHandler(WithSampleAccount(), WithSampleAccount()); err == nil || !strings.Contains(err.Error(), "WithSampleAccount given twice") {
		t.Errorf("WithSampleAccount twice: %v, want an error saying so", err)
	}
}

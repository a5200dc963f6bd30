package billingtest

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
)

const ftFile = "testdata/fixtures.json"

var ftNow = time.Date(2024, 10, 15, 0, 0, 0, 0, time.UTC)

func ftServer(t *testing.T) *Server {
	t.Helper()
	srv, err := NewHandler(WithFixtures(ftFile), WithClock(func() time.Time { return ftNow }))
	if err != nil {
		t.Fatalf("NewHandler(WithFixtures): %v", err)
	}
	return srv
}

func TestLoadFixturesFile(t *testing.T) {
	t.Parallel()
	srv := ftServer(t)
	want := map[string]int{
		"customers": 3, "invoices": 3, "draftInvoices": 1, "creditCards": 4, "walletMethods": 0,
		"subscriptions": 2, "subscriptionProductItems": 3, "salesTrackingCodes": 4, "bulkJobs": 3,
	}
	if got := srv.Counts(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Counts = %v, want %v", got, want)
	}

	// Timestamps in each form: without offset, with Z, with +00:00.
	for id, ts := range map[int64]time.Time{
		100: time.Date(2024, 1, 15, 9, 30, 0, 0, time.UTC),
		101: time.Date(2024, 2, 1, 12, 0, 0, 0, time.UTC),
		102: time.Date(2024, 3, 10, 8, 15, 30, 123456700, time.UTC),
	} {
		c, ok := srv.Customer(id)
		if !ok || !c.CreatedTimestamp.Equal(ts) {
			t.Errorf("customer %d created %v, want %v", id, c.CreatedTimestamp, ts)
		}
	}
	c, _ := srv.Customer(100)
	if c.SalesTrackingCodeIDs != [5]int64{11, 21} || c.NetMRR.String() != "150.2575" || c.Currency != "USD" {
		t.Errorf("customer 100: codes %v, netMrr %v, currency %q", c.SalesTrackingCodeIDs, c.NetMRR, c.Currency)
	}
	c, _ = srv.Customer(101)
	if c.ParentID != 100 || c.Status != billing.CustomerStatusActive || c.AccountStatus != billing.CustomerAccountStatusGood {
		t.Errorf("customer 101: parent %d, status %q/%q; want 100 and the defaults", c.ParentID, c.Status, c.AccountStatus)
	}

	inv, ok := srv.Invoice(500)
	if !ok || len(inv.Charges) != 4 {
		t.Fatalf("invoice 500: %v, %d charges", ok, len(inv.Charges))
	}
	// 10.125 is decoded exactly, never through a float.
	if got := inv.Charges[2].Amount; got.String() != "10.125" || !got.Equal(wtDec("10.125")) {
		t.Errorf("charge 5003 amount %v, want 10.125", got)
	}
	// Defaults: amount = quantity × unitPrice; a quoted price is fine.
	if got := inv.Charges[1].Amount; !got.Equal(wtDec("62.5")) {
		t.Errorf("charge 5002 amount %v, want 62.5", got)
	}
	if got := inv.Charges[3].Amount; !got.Equal(wtDec("9.99")) {
		t.Errorf("charge 5004 amount %v, want 9.99", got)
	}
	if !inv.TotalTaxes.Equal(wtDec("8.55")) || !inv.OutstandingBalance.Equal(wtDec("66.165")) || inv.Terms != "Net15" {
		t.Errorf("invoice 500: taxes %v, outstanding %v, terms %q", inv.TotalTaxes, inv.OutstandingBalance, inv.Terms)
	}
	if !inv.EffectiveTimestamp.Equal(time.Date(2024, 7, 1, 9, 0, 0, 0, time.UTC)) || !inv.Charges[1].EffectiveTimestamp.Equal(inv.EffectiveTimestamp.Time) {
		t.Errorf("invoice 500: effective %v, charge effective %v", inv.EffectiveTimestamp, inv.Charges[1].EffectiveTimestamp)
	}
	srv.mu.RLock()
	stored := srv.store.invoices.Get(500).Charges[1]
	srv.mu.RUnlock()
	if stored.SubscriptionID != 200 {
		t.Errorf("charge 5002: subscription %d, want 200 from its product", stored.SubscriptionID)
	}
	if s, _ := srv.InvoiceSummary(500); s.InvoiceStatus != billing.InvoiceStatusOverdue {
		t.Errorf("invoice 500 status %q on %v, want Overdue", s.InvoiceStatus, ftNow)
	}
	if s, _ := srv.InvoiceSummary(501); s.InvoiceStatus != billing.InvoiceStatusPaid {
		t.Errorf("invoice 501 status %q, want Paid", s.InvoiceStatus)
	}
	inv, _ = srv.Invoice(502)
	if len(inv.PaymentSchedules) != 2 || inv.PaymentSchedules[0].DaysDueAfterTerm != 30 || inv.PaymentSchedules[1].DaysDueAfterTerm != 60 ||
		!inv.PaymentSchedules[1].OutstandingBalance.Equal(wtDec("75")) {
		t.Errorf("invoice 502 schedules %+v", inv.PaymentSchedules)
	}
	if s, _ := srv.InvoiceSummary(502); s.InvoiceStatus != billing.InvoiceStatusDisputed {
		t.Errorf("invoice 502 status %q, want Disputed", s.InvoiceStatus)
	}

	sub, _ := srv.Subscription(200)
	if len(sub.Products) != 2 || !sub.Products[0].PlanPrice.Equal(wtDec("99")) || !sub.Products[1].PlanPrice.Equal(wtDec("14.125")) {
		t.Errorf("subscription 200 products %+v", sub.Products)
	}

	srv.mu.RLock()
	items := srv.store.items[202]
	names := srv.store.categoryNames
	srv.mu.RUnlock()
	if len(items) != 2 {
		t.Fatalf("product 202 has %d items", len(items))
	}
	if items[0].Reference != (billing.ItemReference{Value: "REF-001"}) || items[1].Reference != (billing.ItemReference{Value: "12345", IsNumber: true}) {
		t.Errorf("item references %+v, %+v", items[0].Reference, items[1].Reference)
	}
	if items[1].SubscriptionID != 200 || items[1].CustomerID != 100 || items[1].ProductID != 952 || items[1].Status != billing.ItemStatusActive {
		t.Errorf("item 801 %+v, want subscription 200, customer 100, product 952 from its product", items[1])
	}
	if !items[0].ModifiedDate.Equal(time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("item 800 modified %v", items[0].ModifiedDate)
	}
	if names[0] != "Region" || names[1] != "Channel" || names[2] != "" {
		t.Errorf("category names %q", names)
	}
	codes := srv.SalesTrackingCodes()
	if codes[3].Email == nil || *codes[3].Email != "alex.brown@billing.example" || codes[0].Status != billing.TrackingCodeStatusActive {
		t.Errorf("codes %+v", codes)
	}

	card, _ := srv.CreditCard(702)
	if card.ReplacedBy != 703 || card.Last4 != "1111" {
		t.Errorf("card 702 %+v", card)
	}
	if card, _ := srv.CreditCard(701); !card.Deleted {
		t.Error("card 701 not deleted")
	}
	if j, _ := srv.BulkJob(952); !j.Validated || !j.Processed {
		t.Errorf("job 952 %+v", j)
	}
	if j, _ := srv.BulkJob(951); j.Validated {
		t.Errorf("job 951 %+v", j)
	}
	srv.mu.RLock()
	d := srv.store.drafts[600]
	srv.mu.RUnlock()
	if len(d.Lines) != 2 || !d.Lines[0].Quantity.Equal(wtDec("1")) || !d.Lines[1].Tracked {
		t.Errorf("draft 600 lines %+v", d.Lines)
	}

	// Assigned ids come after every id the document gives.
	id, err := srv.AddCustomer(Customer{})
	if err != nil || id <= 5004 {
		t.Errorf("AddCustomer after fixtures: id %d, %v", id, err)
	}
	// Loading the same document again clashes with what is there.
	if err := srv.LoadFixturesFile(ftFile); err == nil || !strings.Contains(err.Error(), "already has") {
		t.Errorf("second load: %v", err)
	}
}

func TestLoadFixturesErrors(t *testing.T) {
	t.Parallel()
	cust := `{"id": 1, "firstName": "Ada"}`
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"syntax", "{\n  \"customers\": [,]\n}", "line 2, column 17"},
		{"not an object", `[]`, "must be a JSON object"},
		{"unknown top-level key", `{"customer": []}`, `document: unknown field "customer"; the fields are customers,`},
		{"unknown field", `{"customers": [{"id": 1, "firstname": "Ada"}]}`, `customers[0] (id 1): unknown field "firstname"`},
		{"unknown nested field", `{"customers": [` + cust + `], "invoices": [{"id": 5, "customerId": 1, "charges": [{"amount": 1}, {"amout": 2}]}]}`,
			`invoices[0] (id 5).charges[1]: unknown field "amout"`},
		{"string for integer", `{"customers": [{"id": "1"}]}`, `customers[0] (id "1").id: want an integer, got a string "1"`},
		{"fraction for integer", `{"customers": [{"id": 1.5}]}`, `customers[0] (id 1.5).id: want an integer, got a number`},
		{"number for string", `{"customers": [{"firstName": 7}]}`, `customers[0].firstName: want a string, got a number 7`},
		{"object for array", `{"customers": {"id": 1}}`, `customers: want an array, got an object`},
		{"bad amount", `{"customers": [` + cust + `], "invoices": [{"id": 5, "customerId": 1, "charges": [{"amount": "1,5"}]}]}`,
			`invoices[0] (id 5).charges[0].amount: error decoding string`},
		{"bad timestamp", `{"customers": [{"id": 1, "createdTimestamp": "2024-13-01T00:00:00"}]}`, `customers[0] (id 1).createdTimestamp: billing: invalid timestamp`},
		{"date without time", `{"customers": [{"id": 1, "createdTimestamp": "2024-01-01"}]}`, `customers[0] (id 1).createdTimestamp`},
		{"unknown customer", `{"customers": [` + cust + `], "invoices": [{"id": 5, "customerId": 99}]}`, `invoices[0] (id 5).customerId: unknown customer 99`},
		{"unknown parent", `{"customers": [{"id": 1, "parentId": 2}]}`, `customers[0] (id 1).parentId: unknown customer 2`},
		{"unknown subscription", `{"customers": [` + cust + `], "invoices": [{"id": 5, "customerId": 1, "charges": [{"amount": 1, "subscriptionId": 42}]}]}`,
			`invoices[0] (id 5).charges[0].subscriptionId: unknown subscription 42`},
		{"item of another subscription's product", `{"customers": [` + cust + `], "subscriptions": [{"id": 3, "customerId": 1, "products": [{"id": 77}]}], "subscriptionProductItems": [{"id": 8, "subscriptionProductId": 77, "subscriptionId": 4}]}`,
			`subscriptionProductItems[0] (id 8).subscriptionId: product 77 is of subscription 3, not 4`},
		{"repeated id", `{"customers": [` + cust + `, ` + cust + `]}`, `customers[1] (id 1).id: id 1 repeats`},
		{"bad status", `{"customers": [{"id": 1, "status": "active"}]}`, `customers[0] (id 1).status: unknown status "active"`},
		{"bad terms", `{"customers": [` + cust + `], "invoices": [{"customerId": 1, "terms": "30 days"}]}`, `invoices[0].terms: "30 days"`},
		{"charge without price", `{"customers": [` + cust + `], "invoices": [{"customerId": 1, "charges": [{"quantity": 2}]}]}`, `invoices[0].charges[0]: give unitPrice or amount`},
		{"unknown code type", `{"salesTrackingCodes": [{"type": "Region", "code": "N", "name": "North"}]}`, `salesTrackingCodes[0].type: unknown type "Region"`},
		{"code in wrong slot", `{"trackingCodeCategoryNames": {"1": "Region"}, "salesTrackingCodes": [{"id": 3, "type": "region", "code": "N", "name": "North"}], "customers": [{"id": 1, "salesTrackingCodeIds": [0, 3]}]}`,
			`customers[0] (id 1).salesTrackingCodeIds[1]: code 3 is of category 1, not 2`},
		{"bad category key", `{"trackingCodeCategoryNames": {"6": "Region"}}`, `trackingCodeCategoryNames: key "6"`},
		{"card digits", `{"customers": [` + cust + `], "creditCards": [{"id": 7, "customerId": 1, "last4": "42x2"}]}`, `creditCards[0] (id 7).last4: want at least four digits, and only digits, in last4`},
		// A card number where the last four were asked for is never repeated.
		{"a whole card number, grouped", `{"customers": [` + cust + `], "creditCards": [{"id": 7, "customerId": 1, "last4": "4111 1111 1111 1111"}]}`, `creditCards[0] (id 7).last4: want at least four digits, and only digits, in last4`},
		{"a whole card number, as a number", `{"customers": [` + cust + `], "creditCards": [{"id": 7, "customerId": 1, "last4": 4111111111111111}]}`, `creditCards[0] (id 7).last4: want a string, got a number`},
		{"processed not validated", `{"bulkJobs": [{"id": 9, "processed": true}]}`, `bulkJobs[0] (id 9).processed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, err := NewHandler()
			if err != nil {
				t.Fatal(err)
			}
			err = srv.LoadFixtures(strings.NewReader(tc.doc))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "LoadFixtures: ") {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "4111") {
				t.Errorf("error %q repeats a card number", err)
			}
			// Nothing is added when anything is wrong.
			for kind, n := range srv.Counts() {
				if n != 0 {
					t.Errorf("%d %s added by a failed load", n, kind)
				}
			}
		})
	}
}

func TestLoadFixturesOnTopOfStore(t *testing.T) {
	t.Parallel()
	srv, _ := NewHandler()
	id, _ := srv.AddCustomer(Customer{FirstName: "Existing"})
	doc := `{"$comment": "refers to the store", "invoices": [{"customerId": ` + strconv.FormatInt(id, 10) + `, "charges": [{"amount": "1.50", "$comment": "ignored"}]}]}`
	if err := srv.LoadFixtures(strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	if srv.Counts()["invoices"] != 1 {
		t.Fatal("invoice not added")
	}
	if err := srv.LoadFixtures(strings.NewReader(`{"customers": [{"id": ` + strconv.FormatInt(id, 10) + `}]}`)); err == nil || !strings.Contains(err.Error(), "already has") {
		t.Errorf("clashing id: %v", err)
	}
}

func TestWithFixtures(t *testing.T) {
	t.Parallel()
	if _, err := NewHandler(WithFixtures(ftFile)); err != nil {
		t.Fatal(err)
	}
	_, err := NewHandler(WithFixtures("testdata/missing.json"))
	if err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
	srv := NewServer(WithFixtures(ftFile))
	defer srv.Close()
	if srv.Counts()["invoices"] != 3 {
		t.Error("NewServer(WithFixtures) did not load")
	}
}

// A charge may name a subscription product that only an item of the same
// document makes known, whatever the order of the lists, and such a state
// dumps and loads back.
func TestFixturesChargesNameProductsItemsMakeKnown(t *testing.T) {
	t.Parallel()
	const doc = `{"invoices": [{"id": 60, "customerId": 1, "charges": [{"name": "seat", "amount": 5, "subscriptionProductId": 900}]}],
		"subscriptionProductItems": [{"id": 50, "subscriptionProductId": 900, "name": "seat"}],
		"customers": [{"id": 1}]}`
	srv, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.LoadFixtures(strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	assertDumpLoadsBack(t, srv)
}

// assertDumpLoadsBack fails unless srv's dump loads into a fresh fake.
func assertDumpLoadsBack(t *testing.T, srv *Server) {
	t.Helper()
	var dump bytes.Buffer
	if err := srv.DumpFixtures(&dump); err != nil {
		t.Fatal(err)
	}
	fresh, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.ReplaceFixtures(&dump); err != nil {
		t.Errorf("the dump does not load back: %v", err)
	}
}

// Renaming a category retypes its codes, so that the state still dumps
// and loads back; a load that fails puts the types back with the names.
func TestRenamingACategoryRetypesItsCodes(t *testing.T) {
	t.Parallel()
	srv, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	typeOf := func(id int64) billing.TrackingCodeType {
		t.Helper()
		code, ok := srv.SalesTrackingCode(id)
		if !ok {
			t.Fatalf("no code %d", id)
		}
		return code.Type
	}
	if err := srv.SetTrackingCodeCategoryName(1, "Region"); err != nil {
		t.Fatal(err)
	}
	north, err := srv.AddSalesTrackingCode(SalesTrackingCode{Type: "region", Code: "N", Name: "North"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := srv.AddSalesTrackingCode(SalesTrackingCode{Type: "Sales Tracking Code 2", Code: "S", Name: "South"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.LoadFixtures(strings.NewReader(`{"trackingCodeCategoryNames": {"1": "Area"}}`)); err != nil {
		t.Fatal(err)
	}
	if got := []billing.TrackingCodeType{typeOf(north), typeOf(other)}; !reflect.DeepEqual(got, []billing.TrackingCodeType{"Area", "Sales Tracking Code 2"}) {
		t.Errorf("types after the rename: %q", got)
	}
	assertDumpLoadsBack(t, srv)
	if err := srv.LoadFixtures(strings.NewReader(`{"trackingCodeCategoryNames": {"1": "Zone"}, "customers": [{"id": -1}]}`)); err == nil {
		t.Fatal("a document with a negative id loaded")
	}
	if got := typeOf(north); got != "Area" {
		t.Errorf("after a failed load that renamed the category: %q, want Area", got)
	}
	if err := srv.SetTrackingCodeCategoryName(1, ""); err != nil {
		t.Fatal(err)
	}
	if got := typeOf(north); got != "Sales Tracking Code 1" {
		t.Errorf("after the custom name was taken away: %q, want Sales Tracking Code 1", got)
	}
}

package billingtest

import (
	"reflect"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/fixture"
	"github.com/billingapi/billing-go/billingtest/internal/ledger"
	"github.com/shopspring/decimal"
)

// A fixtures document decodes into the seeding types themselves, with the
// defaults that depend on which members were given already settled: what
// a caller of the Add methods would pass.
func TestFixtureDocumentDecodesIntoTheSeedingTypes(t *testing.T) {
	t.Parallel()
	doc := `{
  "customers": [{"id": 1, "firstName": "Ada", "arBalance": "10.125", "createdTimestamp": "2024-03-01T12:15:00+02:00", "salesTrackingCodeIds": [0, 3]}],
  "salesTrackingCodes": [{"id": 3, "type": "Sales Tracking Code 2", "code": "N", "name": "North", "email": "n@billing.example"}],
  "subscriptions": [{"id": 2, "customerId": 1, "products": [{"id": 20, "price": 5}, {"id": 21, "price": 5, "planPrice": 6}]}],
  "invoices": [{"id": 5, "customerId": 1, "terms": "Net15", "totalWriteoffs": 2.5,
    "postedTimestamp": "2024-03-01T00:00:00.1234567",
    "charges": [{"quantity": 2, "unitPrice": "1.25"}, {"amount": 3}, {"quantity": 2, "unitPrice": 1, "amount": 7}],
    "paymentSchedules": [{"dueDateTimestamp": "2024-03-16T00:00:00", "amount": 10}, {"dueDateTimestamp": "2024-04-16T00:00:00", "amount": 4, "outstandingBalance": 0, "daysDueAfterTerm": 45}]}],
  "draftInvoices": [{"id": 6, "customerId": 1, "lines": [{"amount": 1}, {"quantity": 3, "amount": 2}]}],
  "subscriptionProductItems": [{"id": 8, "subscriptionProductId": 20, "reference": 12345}],
  "bulkJobs": [{"id": 9, "validated": true}]
}`
	got, _, err := fixture.Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	utc := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UTC()
	}
	want := fixture.Document{
		Customers: []Customer{{
			ID: 1, FirstName: "Ada", ArBalance: wtDec("10.125"), CreatedTimestamp: utc("2024-03-01T10:15:00Z"),
			SalesTrackingCodeIDs: [5]int64{0, 3},
		}},
		SalesTrackingCodes: []SalesTrackingCode{{ID: 3, Type: billing.TrackingCodeType2, Code: "N", Name: "North", Email: ptr("n@billing.example")}},
		Subscriptions: []Subscription{{ID: 2, CustomerID: 1, Products: []SubscriptionProduct{
			{ID: 20, Price: wtDec("5"), PlanPrice: wtDec("5")},
			{ID: 21, Price: wtDec("5"), PlanPrice: wtDec("6")},
		}}},
		Invoices: []Invoice{{
			ID: 5, CustomerID: 1, Terms: "Net15", TotalWriteoffs: wtDec("2.5"),
			PostedTimestamp: utc("2024-03-01T00:00:00.1234567Z"),
			Charges: []Charge{
				{Quantity: wtDec("2"), UnitPrice: wtDec("1.25"), Amount: wtDec("2.5")},
				{Quantity: wtDec("1"), UnitPrice: wtDec("3"), Amount: wtDec("3")},
				{Quantity: wtDec("2"), UnitPrice: wtDec("1"), Amount: wtDec("7")},
			},
			PaymentSchedules: []billing.PaymentSchedule{
				{DueDateTimestamp: billing.NewTimestamp(utc("2024-03-16T00:00:00Z")), Status: billing.PaymentScheduleStatusDue, Amount: wtDec("10"), OutstandingBalance: wtDec("10"), DaysDueAfterTerm: 15},
				{DueDateTimestamp: billing.NewTimestamp(utc("2024-04-16T00:00:00Z")), Status: ledger.StatusPaid, Amount: wtDec("4"), OutstandingBalance: wtDec("0"), DaysDueAfterTerm: 45},
			},
		}},
		DraftInvoices: []DraftInvoice{{ID: 6, CustomerID: 1, Lines: []DraftLine{
			{Quantity: wtDec("1"), Amount: wtDec("1")},
			{Quantity: wtDec("3"), Amount: wtDec("2")},
		}}},
		SubscriptionProductItems: []SubscriptionProductItem{{ID: 8, SubscriptionProductID: 20, Reference: billing.ItemReference{Value: "12345", IsNumber: true}}},
		BulkJobs:                 []BulkJob{{ID: 9, Validated: true}},
	}
	// Amounts compare by value: 2.5 computed and 2.5 parsed are the same
	// amount held differently.
	if !fixtureEqual(reflect.ValueOf(*got), reflect.ValueOf(want)) {
		t.Errorf("decoded:\n got %+v\nwant %+v", got, want)
	}
	if len(got.Invoices) == 1 && !got.Invoices[0].TotalWriteoffs.Equal(wtDec("2.5")) {
		t.Errorf("totalWriteoffs %s, want 2.5", got.Invoices[0].TotalWriteoffs)
	}
}

// fixtureEqual is reflect.DeepEqual with amounts and times compared by
// value, and unexported fields left out.
func fixtureEqual(a, b reflect.Value) bool {
	switch {
	case a.Type() == reflect.TypeFor[decimal.Decimal]():
		return a.Interface().(decimal.Decimal).Equal(b.Interface().(decimal.Decimal))
	case a.Type() == reflect.TypeFor[time.Time]():
		return a.Interface().(time.Time).Equal(b.Interface().(time.Time))
	}
	switch a.Kind() {
	case reflect.Struct:
		for i := range a.NumField() {
			// Unexported fields are compared by the caller.
			if a.Type().Field(i).IsExported() && !fixtureEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() || (a.Kind() == reflect.Slice && a.IsNil() != b.IsNil()) {
			return false
		}
		for i := range a.Len() {
			if !fixtureEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return fixtureEqual(a.Elem(), b.Elem())
	case reflect.Map:
		return a.Len() == b.Len() && (a.Len() == 0 || reflect.DeepEqual(a.Interface(), b.Interface()))
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// Every exported field of a seeding type is in the format, under a JSON
// name: a field added without one would be refused in documents and left
// out of dumps.
func TestSeedingTypesNameEveryFieldInJSON(t *testing.T) {
	t.Parallel()
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Customer](), reflect.TypeFor[Invoice](), reflect.TypeFor[Charge](),
		reflect.TypeFor[DraftInvoice](), reflect.TypeFor[DraftLine](), reflect.TypeFor[CreditCard](),
		reflect.TypeFor[WalletMethod](), reflect.TypeFor[Subscription](), reflect.TypeFor[SubscriptionProduct](),
		reflect.TypeFor[SubscriptionProductItem](), reflect.TypeFor[SalesTrackingCode](), reflect.TypeFor[BulkJob](),
	} {
		var missing []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.IsExported() && (f.Tag.Get("json") == "" || f.Tag.Get("json") == "-") {
				missing = append(missing, f.Name)
			}
		}
		wantSame(t, typ.Name()+" fields without a JSON name", missing, nil)
	}
}

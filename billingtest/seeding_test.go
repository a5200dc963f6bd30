package billingtest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

// The Add methods of sales tracking codes and subscription product items
// take the fake's own types, times as time.Time, and the API answers what
// was seeded.
func TestSeedingTypesRoundTrip(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	srv := NewServer(WithClock(func() time.Time { return now }))
	t.Cleanup(srv.Close)

	desc := "Western region"
	code := SalesTrackingCode{Type: billing.TrackingCodeType1, Code: "WEST", Name: "West", Description: &desc, Deletable: true}
	codeID, err := srv.AddSalesTrackingCode(code)
	if err != nil {
		t.Fatal(err)
	}
	desc = "changed by the caller afterwards"
	got, ok := srv.SalesTrackingCode(codeID)
	want := code
	want.ID, want.Status, want.Description = codeID, billing.TrackingCodeStatusActive, ptr("Western region")
	if !ok {
		t.Fatal("the code is not there")
	}
	wantSame(t, "stored code", got, want)
	wantSame(t, "all codes", srv.SalesTrackingCodes(), []SalesTrackingCode{want})

	// Items' products are a subscription's, so that the dump loads back
	// (a document's items must name a known subscription product).
	cust, err := srv.AddCustomer(Customer{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := srv.AddSubscription(Subscription{CustomerID: cust, PlanID: 5, Name: "SIMs", Products: []SubscriptionProduct{{ID: 7000, ProductID: 70}, {ID: 8000, ProductID: 80}}})
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2024, 2, 1, 8, 30, 15, 123_000_000, time.UTC)
	for _, tc := range []struct {
		name string
		item SubscriptionProductItem
		want billing.SubscriptionProductItem
	}{
		{"times given", SubscriptionProductItem{SubscriptionProductID: 7000, SubscriptionID: sub, CustomerID: cust, ProductID: 70, Name: "SIM 1", Reference: billing.ItemReference{Value: "S-1"}, CreatedDate: created, ModifiedDate: created.Add(time.Hour)},
			billing.SubscriptionProductItem{SubscriptionProductID: 7000, SubscriptionID: sub, CustomerID: cust, ProductID: 70, Name: "SIM 1", Reference: billing.ItemReference{Value: "S-1"}, Status: billing.ItemStatusActive,
				CreatedDate: billing.NewTimestamp(created), ModifiedDate: billing.NewTimestamp(created.Add(time.Hour))}},
		{"times from the clock", SubscriptionProductItem{SubscriptionProductID: 8000, SubscriptionID: sub, CustomerID: cust, ProductID: 80, Name: "SIM 2", Status: billing.ItemStatusDeleted},
			billing.SubscriptionProductItem{SubscriptionProductID: 8000, SubscriptionID: sub, CustomerID: cust, ProductID: 80, Name: "SIM 2", Status: billing.ItemStatusDeleted,
				CreatedDate: billing.NewTimestamp(now), ModifiedDate: billing.NewTimestamp(now)}},
	} {
		id, err := srv.AddSubscriptionProductItem(tc.item)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		page, err := srv.Client().SubscriptionItems.List(t.Context(), tc.item.SubscriptionProductID, nil)
		if err != nil || len(page.Items) != 1 {
			t.Fatalf("%s: %v, %+v", tc.name, err, page)
		}
		item := page.Items[0]
		want := tc.want
		want.ID, want.URI, want.Extra = id, item.URI, item.Extra
		// Timestamps compare as instants.
		if !item.CreatedDate.Equal(want.CreatedDate.Time) || !item.ModifiedDate.Equal(want.ModifiedDate.Time) {
			t.Errorf("%s: dates %v %v, want %v %v", tc.name, item.CreatedDate, item.ModifiedDate, want.CreatedDate, want.ModifiedDate)
		}
		item.CreatedDate, item.ModifiedDate = want.CreatedDate, want.ModifiedDate
		wantSame(t, tc.name, item, want)
	}

	// The fixtures file keeps its format: the dump loads back the same.
	var buf strings.Builder
	if err := srv.DumpFixtures(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SalesTrackingCodes       []map[string]any `json:"salesTrackingCodes"`
		SubscriptionProductItems []map[string]any `json:"subscriptionProductItems"`
	}
	if err := json.Unmarshal([]byte(buf.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.SalesTrackingCodes) != 1 || doc.SalesTrackingCodes[0]["code"] != "WEST" || len(doc.SubscriptionProductItems) != 2 ||
		doc.SubscriptionProductItems[0]["createdDate"] != "2024-02-01T08:30:15.123" {
		t.Errorf("dump %s", buf.String())
	}
	fresh := NewServer()
	t.Cleanup(fresh.Close)
	if err := fresh.LoadFixtures(strings.NewReader(buf.String())); err != nil {
		t.Fatal(err)
	}
	wantSame(t, "codes loaded back", fresh.SalesTrackingCodes(), srv.SalesTrackingCodes())
	for _, product := range []int64{7000, 8000} {
		path := "/v1/subscriptionProducts/" + strconv.FormatInt(product, 10) + "/items"
		wantSame(t, "items loaded back", string(ccDo(t, fresh, http.MethodGet, path, "").body), string(ccDo(t, srv, http.MethodGet, path, "").body))
	}
}

// An invoice seeded from Go with TotalWriteoffs is one written off before
// the test: the write-offs reduce its balance as the API's write-off does.
func TestAddInvoiceWrittenOff(t *testing.T) {
	t.Parallel()
	srv := NewServer()
	t.Cleanup(srv.Close)
	cust, err := srv.AddCustomer(Customer{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	posted := time.Date(2025, 1, 10, 0, 0, 0, 0, time.UTC)
	id, err := srv.AddInvoice(Invoice{CustomerID: cust, PostedTimestamp: posted,
		Charges:        []Charge{{Name: "Plan", Quantity: decimal.NewFromInt(1), UnitPrice: decimal.NewFromInt(100), Amount: decimal.NewFromInt(100)}},
		TotalPayments:  decimal.NewFromInt(30),
		TotalWriteoffs: decimal.NewFromInt(70)})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := srv.Invoice(id)
	if !got.TotalWriteoffs.Equal(decimal.NewFromInt(70)) || !got.OutstandingBalance.IsZero() ||
		len(got.PaymentSchedules) != 1 || got.PaymentSchedules[0].Status != billing.PaymentScheduleStatusWrittenOff {
		t.Errorf("written off %s, outstanding %s, schedules %+v; want 70, 0, one WrittenOff", got.TotalWriteoffs, got.OutstandingBalance, got.PaymentSchedules)
	}
}

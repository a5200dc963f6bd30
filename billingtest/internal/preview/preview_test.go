package preview

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/shopspring/decimal"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// data is plan 7 with three subscriptions (10 of customer 1, 20 of
// customer 2, 30 of customer 1) and one of plan 8 (40).
func data() Data {
	prod := func(id, planProduct, product int64, price, planPrice string) seed.SubscriptionProduct {
		return seed.SubscriptionProduct{ID: id, PlanProductID: planProduct, ProductID: product, Name: "p", Price: dec(price), PlanPrice: dec(planPrice)}
	}
	subs := map[int64]*seed.Subscription{
		10: {ID: 10, CustomerID: 1, PlanID: 7, Status: billing.SubscriptionStatusActive, Interval: billing.IntervalMonthly,
			Products: []seed.SubscriptionProduct{prod(11, 100, 900, "10", "12"), prod(12, 101, 901, "5", "5")}},
		20: {ID: 20, CustomerID: 2, PlanID: 7, Status: billing.SubscriptionStatusCancelled, Interval: billing.IntervalYearly,
			Products: []seed.SubscriptionProduct{prod(21, 100, 900, "9", "12"), prod(22, 101, 901, "4", "5")}},
		30: {ID: 30, CustomerID: 1, PlanID: 7, Status: billing.SubscriptionStatusActive, Interval: billing.IntervalMonthly,
			Products: []seed.SubscriptionProduct{prod(31, 100, 900, "12", "12")}},
		40: {ID: 40, CustomerID: 2, PlanID: 8, Products: []seed.SubscriptionProduct{prod(41, 200, 900, "1", "2")}},
	}
	return Data{
		Subscriptions: subs,
		Customers: map[int64]*seed.Customer{
			1: {ID: 1, FirstName: "Ada", Status: billing.CustomerStatusActive, SalesTrackingCodeIDs: [5]int64{500}},
			2: {ID: 2, FirstName: "Bob", Status: billing.CustomerStatusHold},
		},
		Codes: []seed.SalesTrackingCode{{ID: 500, Type: billing.TrackingCodeType1, Code: "EAST", Name: "East"}},
	}
}

func product(planProduct, subProduct int64, current, next string) BulkPreviewProduct {
	return BulkPreviewProduct{PlanProductID: planProduct, SubscriptionProductID: subProduct, Name: "p", CurrentPrice: dec(current), NewPrice: dec(next)}
}

func TestRun(t *testing.T) {
	t.Parallel()
	sub10 := BulkPreviewSubscription{SubscriptionID: 10, CustomerID: 1, PlanProducts: []BulkPreviewProduct{product(100, 11, "10", "12")}}
	sub20 := BulkPreviewSubscription{SubscriptionID: 20, CustomerID: 2, PlanProducts: []BulkPreviewProduct{product(100, 21, "9", "12"), product(101, 22, "4", "5")}}
	sub20only101 := BulkPreviewSubscription{SubscriptionID: 20, CustomerID: 2, PlanProducts: []BulkPreviewProduct{product(101, 22, "4", "5")}}
	for _, tc := range []struct {
		name      string
		plan      int64
		query     string
		body      string
		want      BulkPreview
		wantFound bool
	}{
		{"all", 7, "", `{"planProductIds":[],"selectAll":true}`,
			BulkPreview{PlanID: 7, SubscriptionCount: 2, PlanProductCount: 2, Subscriptions: []BulkPreviewSubscription{sub10, sub20}}, true},
		{"all but one", 7, "", `{"planProductIds":[],"selectAll":true,"subscriptionIds":[10]}`,
			BulkPreview{PlanID: 7, SubscriptionCount: 1, PlanProductCount: 2, Subscriptions: []BulkPreviewSubscription{sub20}}, true},
		{"listed only, search ignored", 7, "FirstName:Bob", `{"planProductIds":[],"selectAll":false,"subscriptionIds":[10,40,99]}`,
			BulkPreview{PlanID: 7, SubscriptionCount: 1, PlanProductCount: 1, Subscriptions: []BulkPreviewSubscription{sub10}}, true},
		{"one product", 7, "", `{"planProductIds":[101],"selectAll":true}`,
			BulkPreview{PlanID: 7, SubscriptionCount: 1, PlanProductCount: 1, Subscriptions: []BulkPreviewSubscription{sub20only101}}, true},
		{"query on the customer's code", 7, "SalesTrackingCode1Code:EAST", `{"planProductIds":[],"selectAll":true}`,
			BulkPreview{PlanID: 7, SubscriptionCount: 1, PlanProductCount: 1, Subscriptions: []BulkPreviewSubscription{sub10}}, true},
		{"filterOptions", 7, "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"customerStatuses":"hold","intervals":"Yearly"}}`,
			BulkPreview{PlanID: 7, SubscriptionCount: 1, PlanProductCount: 2, Subscriptions: []BulkPreviewSubscription{sub20}}, true},
		{"excluded product", 7, "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"excludedProducts":"900"}}`,
			BulkPreview{PlanID: 7, Subscriptions: []BulkPreviewSubscription{}}, true},
		{"unknown plan", 9, "", `{"planProductIds":[],"selectAll":true}`,
			BulkPreview{PlanID: 9, Subscriptions: []BulkPreviewSubscription{}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, query, err := Schema.Parse(tc.query, false)
			if err != nil {
				t.Fatal(err)
			}
			p, search, err := Parse(json.RawMessage(tc.body), query)
			if err != nil {
				t.Fatal(err)
			}
			got, found := Run(tc.plan, p, search, data())
			if found != tc.wantFound || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v\nwant %+v, %v", got, found, tc.want, tc.wantFound)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, want string
		query            bool
	}{
		{"not an object", `[]`, "JSON object", false},
		{"no selectAll", `{"planProductIds":[]}`, "selectAll is required", false},
		{"null planProductIds", `{"planProductIds":null,"selectAll":true}`, "planProductIds is required", false},
		{"both searches", `{"planProductIds":[],"selectAll":true,"filterOptions":{}}`, "not both", true},
		{"unknown status", `{"planProductIds":[],"selectAll":true,"filterOptions":{"subscriptionStatuses":"Gone"}}`, `subscriptionStatuses: "Gone" is not one of`, false},
		{"product not an id", `{"planProductIds":[],"selectAll":true,"filterOptions":{"excludedProducts":"x"}}`, "excludedProducts", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var query func(Row) bool
			if tc.query {
				query = func(Row) bool { return true }
			}
			p, search, err := Parse(json.RawMessage(tc.body), query)
			if err == nil || !strings.Contains(err.Error(), tc.want) || p != nil || search != nil {
				t.Errorf("got %v, %v, %v; want an error with %q", p, search != nil, err, tc.want)
			}
		})
	}
}

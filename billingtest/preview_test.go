package billingtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/query"
)

// pvFixture is a plan (500) with four subscriptions, and another plan.
type pvFixture struct {
	srv        *Server
	c1, c2, c3 int64
	east       int64 // sales tracking code of category 1 of c1
	sub        map[string]int64
}

const pvPlan = 500

func pvSeed(t *testing.T) *pvFixture {
	t.Helper()
	srv := NewServer(WithClock(func() time.Time { return ltNow }))
	t.Cleanup(srv.Close)
	f := &pvFixture{srv: srv, sub: map[string]int64{}}
	f.east = ltMust(t)(srv.AddSalesTrackingCode(SalesTrackingCode{Type: billing.TrackingCodeType1, Code: "EAST", Name: "East region"}))
	f.c1 = ltMust(t)(srv.AddCustomer(Customer{FirstName: "Ada", Reference: "REF-A", Status: billing.CustomerStatusActive,
		CreatedTimestamp: ltTime("2024-01-01T00:00:00"), SalesTrackingCodeIDs: [5]int64{f.east}}))
	f.c2 = ltMust(t)(srv.AddCustomer(Customer{FirstName: "Bob", Status: billing.CustomerStatusHold, CreatedTimestamp: ltTime("2024-03-01T10:00:00")}))
	f.c3 = ltMust(t)(srv.AddCustomer(Customer{FirstName: "Cy", Status: billing.CustomerStatusCancelled, CreatedTimestamp: ltTime("2024-04-01T00:00:00")}))

	prod := func(planProduct, product int64, name, price, planPrice string) SubscriptionProduct {
		return SubscriptionProduct{PlanProductID: planProduct, ProductID: product, Name: name, Price: wtDec(price), PlanPrice: wtDec(planPrice)}
	}
	subs := []struct {
		label string
		sub   Subscription
	}{
		{"s1", Subscription{CustomerID: f.c1, PlanID: pvPlan, CreatedTimestamp: ltTime("2024-02-01T00:00:00"), NextBillingDate: ltTime("2024-07-01T00:00:00"),
			Products: []SubscriptionProduct{prod(11, 101, "Base", "10", "12"), prod(12, 102, "Addon", "5", "5.00")}}},
		{"s2", Subscription{CustomerID: f.c2, PlanID: pvPlan, CreatedTimestamp: ltTime("2024-03-05T00:00:00"), NextBillingDate: ltTime("2024-07-15T00:00:00"),
			Products: []SubscriptionProduct{prod(11, 101, "Base", "12", "12"), prod(12, 102, "Addon", "4", "5")}}},
		{"s3", Subscription{CustomerID: f.c3, PlanID: pvPlan, Status: billing.SubscriptionStatusCancelled, Interval: billing.IntervalYearly, CreatedTimestamp: ltTime("2024-04-02T00:00:00"),
			Products: []SubscriptionProduct{prod(11, 101, "Base", "9", "12"), prod(13, 103, "Extra", "1", "2.5")}}},
		{"s4", Subscription{CustomerID: f.c1, PlanID: 600, Products: []SubscriptionProduct{prod(21, 101, "Other", "1", "2")}}},
		{"s5", Subscription{CustomerID: f.c2, PlanID: pvPlan, CreatedTimestamp: ltTime("2024-05-01T00:00:00"), Products: []SubscriptionProduct{prod(11, 101, "Base", "12", "12")}}},
	}
	for _, s := range subs {
		f.sub[s.label] = ltMust(t)(srv.AddSubscription(s.sub))
	}
	return f
}

// pvPost posts a preview with a raw JSON body and query expression.
func pvPost(t *testing.T, srv *Server, plan int64, queryExpr, body string) wireAnswer {
	t.Helper()
	path := fmt.Sprintf("/v1/Subscribers/%d/PreviewBulkPriceChange", plan)
	if queryExpr != "" {
		path += "?" + url.Values{"query": {queryExpr}}.Encode()
	}
	return wtDo(t, srv, http.MethodPost, path, body)
}

// summary renders a preview as "s1:11 s3:11,13", for comparison.
func (f *pvFixture) summary(t *testing.T, r wireAnswer) string {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var p BulkPreview
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	if p.PlanID != pvPlan || p.SubscriptionCount != len(p.Subscriptions) || p.Subscriptions == nil {
		t.Errorf("preview header %+v", p)
	}
	label := map[int64]string{}
	for l, id := range f.sub {
		label[id] = l
	}
	var parts []string
	products := map[int64]bool{}
	for _, s := range p.Subscriptions {
		var pps []string
		for _, pp := range s.PlanProducts {
			pps = append(pps, strconv.FormatInt(pp.PlanProductID, 10))
			products[pp.PlanProductID] = true
			if pp.CurrentPrice.Equal(pp.NewPrice) {
				t.Errorf("%s: plan product %d listed without a change", label[s.SubscriptionID], pp.PlanProductID)
			}
		}
		parts = append(parts, label[s.SubscriptionID]+":"+strings.Join(pps, ","))
	}
	if p.PlanProductCount != len(products) {
		t.Errorf("planProductCount %d, want %d", p.PlanProductCount, len(products))
	}
	return strings.Join(parts, " ")
}

func TestBulkPreviewSelection(t *testing.T) {
	t.Parallel()
	f := pvSeed(t)
	id := func(l string) string { return strconv.FormatInt(f.sub[l], 10) }
	cases := []struct {
		name, query, body, want string
	}{
		{"include list", "", `{"planProductIds":[],"selectAll":false,"subscriptionIds":[` + id("s1") + `,` + id("s4") + `,99999]}`, "s1:11"},
		{"include nothing", "", `{"planProductIds":[],"selectAll":false}`, ""},
		{"include list ignores the search", "FirstName:bob", `{"planProductIds":[],"selectAll":false,"subscriptionIds":[` + id("s1") + `]}`, "s1:11"},
		{"all", "", `{"planProductIds":[],"selectAll":true}`, "s1:11 s2:12 s3:11,13"},
		{"exclude list", "", `{"planProductIds":[],"selectAll":true,"subscriptionIds":[` + id("s2") + `]}`, "s1:11 s3:11,13"},
		{"some plan products", "", `{"planProductIds":[12],"selectAll":true}`, "s2:12"},
		{"other plan products", "", `{"planProductIds":[11,13,999],"selectAll":true}`, "s1:11 s3:11,13"},
		{"keys in any case", "", `{"PlanProductIds":[12],"SELECTALL":true}`, "s2:12"},
		// the query parameter
		{"query status", "SubscriptionStatus:Cancelled", `{"planProductIds":[],"selectAll":true}`, "s3:11,13"},
		{"query first name", "FirstName:ada", `{"planProductIds":[],"selectAll":true}`, "s1:11"},
		{"query service id", "ServiceId:" + strconv.FormatInt(f.c2, 10), `{"planProductIds":[],"selectAll":true}`, "s2:12"},
		{"query customer id", "CustomerId:ref-a", `{"planProductIds":[],"selectAll":true}`, "s1:11"},
		{"query tracking code", "SalesTrackingCode1Code:east", `{"planProductIds":[],"selectAll":true}`, "s1:11"},
		{"query tracking code name", "SalesTrackingCode1Name:East*", `{"planProductIds":[],"selectAll":true}`, "s1:11"},
		{"query no tracking code", "SalesTrackingCode1Code:[empty]", `{"planProductIds":[],"selectAll":true}`, "s2:12 s3:11,13"},
		{"query interval", "Interval:yearly", `{"planProductIds":[],"selectAll":true}`, "s3:11,13"},
		{"query next billing", "NextBillingDate:2024-07-01|2024-07-15", `{"planProductIds":[],"selectAll":true}`, "s1:11"},
		{"query customer created", "CustomerCreatedTimestamp:2024-03-01", `{"planProductIds":[],"selectAll":true}`, "s2:12"},
		{"query subscription created", "SubscriptionCreatedTimestamp:|2024-03-01", `{"planProductIds":[],"selectAll":true}`, "s1:11"},
		{"query intervals count", "NumberOfIntervals:1", `{"planProductIds":[],"selectAll":true}`, "s1:11 s2:12 s3:11,13"},
		{"query and exclusion", "SubscriptionStatus:Active", `{"planProductIds":[],"selectAll":true,"subscriptionIds":[` + id("s1") + `]}`, "s2:12"},
		// filterOptions
		{"options statuses", "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"subscriptionStatuses":"Active"}}`, "s1:11 s2:12"},
		{"options intervals", "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"intervals":"yearly"}}`, "s3:11,13"},
		{"options customer statuses", "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"customerStatuses":"Hold, Cancelled"}}`, "s2:12 s3:11,13"},
		{"options excluded products", "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"excludedProducts":"103,555"}}`, "s1:11 s2:12"},
		{"options excluded product as a number", "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"excludedProducts":103}}`, "s1:11 s2:12"},
		{"options code1", "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"code1":"` + strconv.FormatInt(f.east, 10) + `"}}`, "s1:11"},
		{"options code1 as a number", "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"code1":` + strconv.FormatInt(f.east, 10) + `}}`, "s1:11"},
		{"options customer created inclusive", "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"customerCreatedDateRangeStartDate":"2024-01-01T00:00:00","customerCreatedDateRangeEndDate":"2024-03-01T10:00:00"}}`, "s1:11 s2:12"},
		{"options next billing end", "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"nextBillingDateRangeEndDate":"2024-07-01T00:00:00"}}`, "s1:11"},
		{"options subscription created start", "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"subscriptionCreatedDateRangeStartDate":"2024-03-05T00:00:00"}}`, "s2:12 s3:11,13"},
		{"options empty", "", `{"planProductIds":[],"selectAll":true,"filterOptions":{}}`, "s1:11 s2:12 s3:11,13"},
		{"options several", "", `{"planProductIds":[11],"selectAll":true,"filterOptions":{"subscriptionStatuses":"Active,Cancelled","excludedProducts":"102"}}`, "s3:11"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := f.summary(t, pvPost(t, f.srv, pvPlan, c.query, c.body)); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestBulkPreviewErrors(t *testing.T) {
	t.Parallel()
	f := pvSeed(t)
	cases := []struct {
		name      string
		plan      int64
		query     string
		body      string
		status    int
		fragments []string
	}{
		{"both searches", pvPlan, "FirstName:ada", `{"planProductIds":[],"selectAll":true,"filterOptions":{"intervals":"Monthly"}}`, 400, []string{"not both"}},
		{"no planProductIds", pvPlan, "", `{"selectAll":true}`, 400, []string{"planProductIds"}},
		{"null planProductIds", pvPlan, "", `{"planProductIds":null,"selectAll":true}`, 400, []string{"planProductIds"}},
		{"no selectAll", pvPlan, "", `{"planProductIds":[1]}`, 400, []string{"selectAll"}},
		{"not an object", pvPlan, "", `[]`, 400, []string{"JSON object"}},
		{"not JSON", pvPlan, "", `{`, 400, nil},
		{"empty body", pvPlan, "", ``, 400, []string{"body"}},
		{"ids of the wrong type", pvPlan, "", `{"planProductIds":"1","selectAll":true}`, 400, []string{"malformed"}},
		{"unknown customer status", pvPlan, "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"customerStatuses":"Nope"}}`, 400, []string{"customerStatuses", "Nope"}},
		{"unknown interval", pvPlan, "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"intervals":"Weekly"}}`, 400, []string{"Weekly", "Monthly"}},
		{"product id not an integer", pvPlan, "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"excludedProducts":"abc"}}`, 400, []string{"excludedProducts"}},
		{"code as a boolean", pvPlan, "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"code1":true}}`, 400, []string{"filterOptions"}},
		{"code not an id", pvPlan, "", `{"planProductIds":[],"selectAll":true,"filterOptions":{"code2":"x"}}`, 400, []string{"code2"}},
		{"unknown query name", pvPlan, "Bogus:1", `{"planProductIds":[],"selectAll":true}`, 400, []string{"Bogus", "CompanyName", "SalesTrackingCode5Name"}},
		{"query of the wrong kind", pvPlan, "ServiceId:abc", `{"planProductIds":[],"selectAll":true}`, 400, []string{"ServiceId", "not an integer"}},
		{"malformed query", pvPlan, "FirstName", `{"planProductIds":[],"selectAll":true}`, 400, []string{"invalid query"}},
		{"unknown plan", 777, "", `{"planProductIds":[],"selectAll":true}`, 404, []string{"777"}},
		{"plan 0", 0, "", `{"planProductIds":[],"selectAll":true}`, 404, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			wtWantError(t, pvPost(t, f.srv, c.plan, c.query, c.body), c.status, errorKeyAPI, c.fragments...)
		})
	}
}

// TestBulkPreviewWire checks the payload's shape: amounts as JSON numbers
// and [] rather than null for no subscriptions.
func TestBulkPreviewWire(t *testing.T) {
	t.Parallel()
	f := pvSeed(t)
	r := pvPost(t, f.srv, pvPlan, "", `{"planProductIds":[13],"selectAll":true}`)
	want := fmt.Sprintf(`{"planId":500,"subscriptionCount":1,"planProductCount":1,"subscriptions":[{"subscriptionId":%d,"customerId":%d,"planProducts":[{"planProductId":13,"subscriptionProductId":%d,"name":"Extra","currentPrice":1,"newPrice":2.5}]}]}`,
		f.sub["s3"], f.c3, mustSub(t, f.srv, f.sub["s3"]).Products[1].ID)
	if string(r.body) != want {
		t.Errorf("body\n got %s\nwant %s", r.body, want)
	}
	r = pvPost(t, f.srv, pvPlan, "", `{"planProductIds":[],"selectAll":false}`)
	if !strings.Contains(string(r.body), `"subscriptions":[]`) {
		t.Errorf("empty preview: %s", r.body)
	}
}

func mustSub(t *testing.T, srv *Server, id int64) Subscription {
	t.Helper()
	s, ok := srv.Subscription(id)
	if !ok {
		t.Fatalf("no subscription %d", id)
	}
	return s
}

// TestBulkPreviewSDK previews through the SDK and checks that nothing
// changed and no event was emitted.
func TestBulkPreviewSDK(t *testing.T) {
	t.Parallel()
	f := pvSeed(t)
	c := f.srv.Client()
	ctx := context.Background()
	before := mustSub(t, f.srv, f.sub["s1"])

	for _, params := range []*billing.BulkPriceChangeParams{
		{SelectAll: true, Query: billing.SubscriberFilter{SubscriptionStatus: []billing.SubscriptionStatus{billing.SubscriptionStatusActive}}},
		{SelectAll: true, FilterOptions: &billing.BulkFilterOptions{SubscriptionStatuses: []billing.SubscriptionStatus{billing.SubscriptionStatusActive}}},
		{SelectAll: true, Query: billing.SubscriberFilter{FirstName: query.StartsWith("A"), Raw: "SubscriptionStatus:Active"}, SubscriptionIDs: []int64{f.sub["s2"]}},
		{SelectAll: false, SubscriptionIDs: []int64{f.sub["s1"], f.sub["s2"]}, PlanProductIDs: []int64{11, 12}},
	} {
		preview, err := c.Bulk.PreviewPriceChange(ctx, pvPlan, params)
		if err != nil {
			t.Fatal(err)
		}
		var p BulkPreview
		if err := preview.Decode(&p); err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, s := range p.Subscriptions {
			got = append(got, s.SubscriptionID)
		}
		want := []int64{f.sub["s1"], f.sub["s2"]}
		if params.SubscriptionIDs != nil && params.SelectAll {
			want = want[:1]
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v: subscriptions %v, want %v", params, got, want)
		}
	}
	if _, err := c.Bulk.PreviewPriceChange(ctx, 777, &billing.BulkPriceChangeParams{SelectAll: true}); err == nil {
		t.Error("unknown plan: no error")
	}

	after := mustSub(t, f.srv, f.sub["s1"])
	if !after.Products[0].Price.Equal(before.Products[0].Price) {
		t.Errorf("preview changed a price: %v → %v", before.Products[0].Price, after.Products[0].Price)
	}
	if ev := f.srv.Events(); len(ev) != 0 {
		t.Errorf("preview emitted events: %+v", ev)
	}
}

// Package preview computes the bulk price-change preview (section 4.11 of
// the reference): POST /v1/Subscribers/{planId}/PreviewBulkPriceChange, a
// pure function of the fake's subscriptions, customers and codes.
//
// The body is billing.BulkPriceChangeParams. planProductIds and selectAll
// are required: a body without either (or with null) is a 400 naming the
// field. The subscriptions are searched with the query URL parameter or
// with filterOptions, not both (both given is a 400); an empty query is no
// query. A plan no subscription belongs to is a 404.
//
// Which subscriptions are previewed: those of the plan; with selectAll
// false only the subscriptionIds among them (the search is not applied);
// with selectAll true every one matching the search, except the
// subscriptionIds. Ids that are not subscriptions of the plan are ignored.
// Which plan products: those in planProductIds, all of the plan's when it
// is empty; unknown ones are ignored. A subscription is listed when at
// least one of those products has a price that differs from the plan's
// current price, with just those products.
//
// The query parameter takes the reference's subscriber filter names
// (billing.SubscriberFilter), read from the subscription and its customer:
// CustomerId is the customer's own reference (the "Customer ID" the
// account gives it, Customer.Reference here), ServiceId the service's
// numeric customer id (Customer.ID), Reference1 to Reference3 the
// customer's reference fields, CustomerCreatedTimestamp,
// SubscriptionCreatedTimestamp, NextBillingDate and NextRechargeDate the
// dates, and SalesTrackingCodeNCode and SalesTrackingCodeNName the code and
// name of the customer's sales tracking code of category N. The syntax and
// semantics are those of the list endpoints (see package filter).
//
// filterOptions keeps, per the reference: customers created, subscriptions
// created and next billing dates within [start, end] (both ends inclusive,
// as the reference words it: it excludes dates before the start or after
// the end; a subscription without the date is excluded once either end is
// given); customers in customerStatuses, subscriptions in
// subscriptionStatuses and intervals (each value one the reference lists,
// case-insensitive, else 400); subscriptions having none of the
// excludedProducts (catalogue product ids, SubscriptionProduct.ProductID;
// an id that is not an integer is a 400); and customers whose sales
// tracking code of category N is one of codeN.
//
// A preview changes nothing and emits no events. The answer (the reference
// does not show it) is a [BulkPreview], with amounts as JSON numbers;
// billing.BulkPriceChangePreview decodes it.
package preview

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/bind"
	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// BulkPreview is the fake's answer to a bulk price-change preview. The
// reference does not show the service's payload; decode this one with
// billing.BulkPriceChangePreview.Decode in tests of the fake.
type BulkPreview struct {
	// PlanID is the plan previewed.
	PlanID int64 `json:"planId"`
	// SubscriptionCount is the number of subscriptions listed.
	SubscriptionCount int `json:"subscriptionCount"`
	// PlanProductCount is the number of distinct plan products whose price
	// would change on at least one listed subscription.
	PlanProductCount int `json:"planProductCount"`
	// Subscriptions are the subscriptions whose prices would change, by
	// ascending id; never null.
	Subscriptions []BulkPreviewSubscription `json:"subscriptions"`
}

// BulkPreviewSubscription is one subscription whose prices would change.
type BulkPreviewSubscription struct {
	// SubscriptionID is the subscription.
	SubscriptionID int64 `json:"subscriptionId"`
	// CustomerID is the subscription's customer.
	CustomerID int64 `json:"customerId"`
	// PlanProducts are the products whose price would change, in the
	// subscription's order.
	PlanProducts []BulkPreviewProduct `json:"planProducts"`
}

// BulkPreviewProduct is one plan product of a subscription whose price
// would change from CurrentPrice (what the subscription pays) to NewPrice
// (the plan's current price).
type BulkPreviewProduct struct {
	// PlanProductID is the plan product, as in planProductIds.
	PlanProductID int64 `json:"planProductId"`
	// SubscriptionProductID is the product on the subscription.
	SubscriptionProductID int64 `json:"subscriptionProductId"`
	// Name is the product's name.
	Name string `json:"name"`
	// CurrentPrice is what the subscription pays now.
	CurrentPrice decimal.Decimal `json:"currentPrice"`
	// NewPrice is the plan's current price, what the push-out would set.
	NewPrice decimal.Decimal `json:"newPrice"`
}

// Enum values as the reference lists them, for checking filter values.
var (
	customerStatuses     = enumValues(billing.CustomerStatusDraft, billing.CustomerStatusActive, billing.CustomerStatusCancelled, billing.CustomerStatusHold, billing.CustomerStatusSuspended)
	subscriptionStatuses = enumValues(billing.SubscriptionStatusActive, billing.SubscriptionStatusDraft, billing.SubscriptionStatusCancelled, billing.SubscriptionStatusProvisioning, billing.SubscriptionStatusExpired)
	intervals            = enumValues(billing.IntervalMonthly, billing.IntervalYearly)
)

func enumValues[S ~string](vs ...S) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// Row is a subscription with its customer and the account's
// sales tracking codes, what the subscriber search reads.
type Row struct {
	sub   *seed.Subscription
	cust  *seed.Customer
	codes map[int64]*seed.SalesTrackingCode
}

func (r Row) code(category int) *seed.SalesTrackingCode {
	if c := r.codes[r.cust.SalesTrackingCodeIDs[category-1]]; c != nil {
		return c
	}
	return &seed.SalesTrackingCode{}
}

var subscriberGetters = func() map[string]filter.Getter[Row] {
	g := map[string]filter.Getter[Row]{
		"CompanyName":  {Text: func(r Row) string { return r.cust.CompanyName }},
		"CustomerId":   {Text: func(r Row) string { return r.cust.Reference }},
		"FirstName":    {Text: func(r Row) string { return r.cust.FirstName }},
		"LastName":     {Text: func(r Row) string { return r.cust.LastName }},
		"MiddleName":   {Text: func(r Row) string { return r.cust.MiddleName }},
		"Suffix":       {Text: func(r Row) string { return r.cust.Suffix }},
		"PrimaryEmail": {Text: func(r Row) string { return r.cust.PrimaryEmail }},
		"Reference1":   {Text: func(r Row) string { return r.cust.Reference1 }},
		"Reference2":   {Text: func(r Row) string { return r.cust.Reference2 }},
		"Reference3":   {Text: func(r Row) string { return r.cust.Reference3 }},
		"ServiceId":    {Integer: func(r Row) (int64, bool) { return r.cust.ID, true }},

		"CustomerCreatedTimestamp":     {Time: func(r Row) time.Time { return r.cust.CreatedTimestamp }},
		"SubscriptionCreatedTimestamp": {Time: func(r Row) time.Time { return r.sub.CreatedTimestamp }},
		"NextBillingDate":              {Time: func(r Row) time.Time { return r.sub.NextBillingDate }},
		"NextRechargeDate":             {Time: func(r Row) time.Time { return r.sub.NextRechargeDate }},

		"Interval":           {Enum: func(r Row) string { return string(r.sub.Interval) }, Values: intervals},
		"NumberOfIntervals":  {Integer: func(r Row) (int64, bool) { return int64(r.sub.NumberOfIntervals), true }},
		"SubscriptionStatus": {Enum: func(r Row) string { return string(r.sub.Status) }, Values: subscriptionStatuses},
	}
	for n := 1; n <= 5; n++ {
		prefix := "SalesTrackingCode" + strconv.Itoa(n)
		g[prefix+"Code"] = filter.Getter[Row]{Text: func(r Row) string { return r.code(n).Code }}
		g[prefix+"Name"] = filter.Getter[Row]{Text: func(r Row) string { return r.code(n).Name }}
	}
	return g
}()

// Schema is the subscriber search of the query parameter.
var Schema = filter.NewSchema("Bulk.PreviewPriceChange", billing.SubscriberFilter{}, subscriberGetters)

// Parse decodes the body, checks the required fields, which the SDK type
// cannot tell from their zero values, and returns the search: query's
// (the query parameter's, nil for none) or filterOptions', not both. Keys
// are matched case-insensitively, as encoding/json (and the service's
// binder) do. Every error is the request's fault.
func Parse(raw json.RawMessage, query func(Row) bool) (*billing.BulkPriceChangeParams, func(Row) bool, error) {
	p, err := params(raw)
	if err != nil || p.FilterOptions == nil {
		return p, query, err
	}
	if query != nil {
		return nil, nil, errors.New("search with either the query parameter or filterOptions, not both")
	}
	search, err := filterOptions(p.FilterOptions)
	if err != nil {
		return nil, nil, err
	}
	return p, search, nil
}

func params(raw json.RawMessage) (*billing.BulkPriceChangeParams, error) {
	var fields map[string]json.RawMessage
	if err := jsonwire.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, errors.New("the body must be a JSON object")
	}
	for _, name := range []string{"planProductIds", "selectAll"} {
		given := false
		for k, v := range fields {
			if strings.EqualFold(k, name) && string(v) != "null" {
				given = true
			}
		}
		if !given {
			return nil, fmt.Errorf("%s is required", name)
		}
	}
	var p billing.BulkPriceChangeParams
	if err := bind.JSON(raw, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// filterOptions compiles filterOptions into a search.
func filterOptions(o *billing.BulkFilterOptions) (func(Row) bool, error) {
	var preds []func(Row) bool
	dateRange := func(start, end time.Time, get func(Row) time.Time) {
		if start.IsZero() && end.IsZero() {
			return
		}
		preds = append(preds, func(r Row) bool {
			t := get(r)
			return !t.IsZero() && (start.IsZero() || !t.Before(start)) && (end.IsZero() || !t.After(end))
		})
	}
	dateRange(o.CustomerCreatedDateRangeStartDate, o.CustomerCreatedDateRangeEndDate, func(r Row) time.Time { return r.cust.CreatedTimestamp })
	dateRange(o.SubscriptionCreatedDateRangeStartDate, o.SubscriptionCreatedDateRangeEndDate, func(r Row) time.Time { return r.sub.CreatedTimestamp })
	dateRange(o.NextBillingDateRangeStartDate, o.NextBillingDateRangeEndDate, func(r Row) time.Time { return r.sub.NextBillingDate })

	enumList := func(field string, given []string, valid []string, get func(Row) string) error {
		if len(given) == 0 {
			return nil
		}
		for _, v := range given {
			if !slices.ContainsFunc(valid, func(ok string) bool { return strings.EqualFold(ok, v) }) {
				return fmt.Errorf("filterOptions.%s: %q is not one of %s", field, v, strings.Join(valid, ", "))
			}
		}
		preds = append(preds, func(r Row) bool {
			v := get(r)
			return slices.ContainsFunc(given, func(g string) bool { return strings.EqualFold(g, v) })
		})
		return nil
	}
	err := cmp.Or(
		enumList("customerStatuses", enumValues(o.CustomerStatuses...), customerStatuses, func(r Row) string { return string(r.cust.Status) }),
		enumList("subscriptionStatuses", enumValues(o.SubscriptionStatuses...), subscriptionStatuses, func(r Row) string { return string(r.sub.Status) }),
		enumList("intervals", enumValues(o.Intervals...), intervals, func(r Row) string { return string(r.sub.Interval) }))
	if err != nil {
		return nil, err
	}

	if len(o.ExcludedProducts) > 0 {
		excluded := map[int64]bool{}
		for _, p := range o.ExcludedProducts {
			id, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("filterOptions.excludedProducts: %q is not a product id", p)
			}
			excluded[id] = true
		}
		preds = append(preds, func(r Row) bool {
			return !slices.ContainsFunc(r.sub.Products, func(p seed.SubscriptionProduct) bool { return excluded[p.ProductID] })
		})
	}

	for i, ids := range [][]int64{o.Code1, o.Code2, o.Code3, o.Code4, o.Code5} {
		if len(ids) == 0 {
			continue
		}
		preds = append(preds, func(r Row) bool {
			return slices.Contains(ids, r.cust.SalesTrackingCodeIDs[i])
		})
	}

	return filter.All(preds), nil
}

// Data is what a preview reads: the subscriptions and the customers by
// id, and the account's sales tracking codes.
type Data struct {
	Subscriptions map[int64]*seed.Subscription
	Customers     map[int64]*seed.Customer
	Codes         []seed.SalesTrackingCode
}

// noCustomer stands in for a missing customer, so that getters need no
// nil checks.
var noCustomer = &seed.Customer{}

// Run computes the answer, or reports that the plan is unknown (no
// subscription belongs to it); search is nil for none.
func Run(planID int64, p *billing.BulkPriceChangeParams, search func(Row) bool, d Data) (BulkPreview, bool) {
	codes := make(map[int64]*seed.SalesTrackingCode, len(d.Codes))
	for i := range d.Codes {
		codes[d.Codes[i].ID] = &d.Codes[i]
	}
	listed := make(map[int64]bool, len(p.SubscriptionIDs))
	for _, id := range p.SubscriptionIDs {
		listed[id] = true
	}
	wanted := make(map[int64]bool, len(p.PlanProductIDs))
	for _, id := range p.PlanProductIDs {
		wanted[id] = true
	}

	out := BulkPreview{PlanID: planID, Subscriptions: []BulkPreviewSubscription{}}
	changed := map[int64]bool{}
	found := false
	for _, id := range slices.Sorted(maps.Keys(d.Subscriptions)) {
		sub := d.Subscriptions[id]
		if sub == nil || sub.PlanID != planID {
			continue
		}
		found = true
		if p.SelectAll {
			if listed[sub.ID] || (search != nil && !search(Row{sub: sub, cust: cmp.Or(d.Customers[sub.CustomerID], noCustomer), codes: codes})) {
				continue
			}
		} else if !listed[sub.ID] {
			continue
		}
		var products []BulkPreviewProduct
		for _, sp := range sub.Products {
			if (len(wanted) > 0 && !wanted[sp.PlanProductID]) || sp.Price.Equal(sp.PlanPrice) {
				continue
			}
			products = append(products, BulkPreviewProduct{
				PlanProductID:         sp.PlanProductID,
				SubscriptionProductID: sp.ID,
				Name:                  sp.Name,
				CurrentPrice:          sp.Price,
				NewPrice:              sp.PlanPrice,
			})
			changed[sp.PlanProductID] = true
		}
		if len(products) > 0 {
			out.Subscriptions = append(out.Subscriptions, BulkPreviewSubscription{SubscriptionID: sub.ID, CustomerID: sub.CustomerID, PlanProducts: products})
		}
	}
	out.SubscriptionCount = len(out.Subscriptions)
	out.PlanProductCount = len(changed)
	return out, found
}

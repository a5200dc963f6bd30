package billing

import (
	"net/url"

	"github.com/billingapi/billing-go/query"
)

// Each list endpoint has a filter struct whose fields are the filter names
// the API reference gives that endpoint, typed by what they take, so that a
// wrong name or kind of value does not compile. Raw is the escape hatch for
// anything else: an expression in the reference's syntax, appended to the
// typed conditions (all must hold) after being checked with query.Parse.
// See package query for the syntax and how values are escaped.

// InvoiceFilter filters [InvoicesService.List] (GET /v1/Invoices).
// [Stable] iteration keys on postedTimestamp by default; effectiveTimestamp
// can be chosen with [StableBy] (createdTimestamp cannot: a listed invoice
// does not carry it).
type InvoiceFilter struct {
	CreatedTimestamp   query.TimeRange `query:"createdTimestamp"`
	EffectiveTimestamp query.TimeRange `query:"effectiveTimestamp" stable:"effectiveTimestamp"`
	PostedTimestamp    query.TimeRange `query:"postedTimestamp" stable:"postedTimestamp,default"`
	// PoNumber matches the purchase order number as a string. The
	// reference lists poNumber here as a "Date range (as documented)", a
	// documentation slip it flags itself: a PO number is a string, and the
	// same filter is a string on a customer's invoices. Use Raw to send a
	// range.
	PoNumber                        query.Text              `query:"poNumber"`
	ClosingArBalance                query.DecimalRange      `query:"closingArBalance" split:"closingArBalance"`
	OpeningArBalance                query.DecimalRange      `query:"openingArBalance" split:"openingArBalance"`
	CustomerID                      query.Ints              `query:"customerId"`
	InvoiceNumber                   query.Ints              `query:"invoiceNumber"`
	ErpID                           query.Text              `query:"erpId"`
	CrmID                           query.Text              `query:"crmId"`
	TotalInstallments               query.Ints              `query:"totalInstallments"`
	AccountingID                    query.Ints              `query:"accountingId"`
	CustomerAccountStatus           []CustomerAccountStatus `query:"Customer.AccountStatus"`
	CustomerStatus                  []CustomerStatus        `query:"Customer.Status"`
	CustomerArBalance               query.DecimalRange      `query:"Customer.Arbalance"`
	CustomerCurrentMrr              query.DecimalRange      `query:"Customer.CurrentMrr"`
	CustomerCurrentNetMrr           query.DecimalRange      `query:"Customer.CurrentNetMrr"`
	CustomerMonthlyRecurringRevenue query.DecimalRange      `query:"Customer.MonthlyRecurringRevenue"`
	CustomerNetMRR                  query.DecimalRange      `query:"Customer.NetMRR"`
	CustomerCreatedTimestamp        query.TimeRange         `query:"Customer.CreatedTimestamp"`
	CustomerModifiedTimestamp       query.TimeRange         `query:"Customer.ModifiedTimestamp"`
	CustomerParentID                query.Ints              `query:"Customer.ParentId"`
	CustomerReference1              query.Text              `query:"Customer.CustomerReference.Reference1"`
	CustomerReference2              query.Text              `query:"Customer.CustomerReference.Reference2"`
	CustomerReference3              query.Text              `query:"Customer.CustomerReference.Reference3"`
	// Raw is an expression in the reference's syntax, appended as is.
	Raw string `query:",raw"`
}

// EncodeValues renders the filter as the query parameter key.
func (f InvoiceFilter) EncodeValues(key string, v *url.Values) error {
	return encodeFilter(key, f, v)
}

// CustomerInvoiceFilter filters [InvoicesService.ListByCustomer]
// (GET /v1/Customers/{customerId}/Invoices/). [Stable] iteration keys on
// postedTimestamp by default, or effectiveTimestamp with [StableBy].
type CustomerInvoiceFilter struct {
	CreatedTimestamp   query.TimeRange    `query:"createdTimestamp"`
	EffectiveTimestamp query.TimeRange    `query:"effectiveTimestamp" stable:"effectiveTimestamp"`
	PostedTimestamp    query.TimeRange    `query:"postedTimestamp" stable:"postedTimestamp,default"`
	ClosingArBalance   query.DecimalRange `query:"closingArBalance" split:"closingArBalance"`
	OpeningArBalance   query.DecimalRange `query:"openingArBalance" split:"openingArBalance"`
	InvoiceNumber      query.Ints         `query:"invoiceNumber"`
	PoNumber           query.Text         `query:"poNumber"`
	ErpID              query.Text         `query:"erpId"`
	CrmID              query.Text         `query:"crmId"`
	TotalInstallments  query.Ints         `query:"totalInstallments"`
	AccountingID       query.Ints         `query:"accountingId"`
	// Raw is an expression in the reference's syntax, appended as is.
	Raw string `query:",raw"`
}

// EncodeValues renders the filter as the query parameter key.
func (f CustomerInvoiceFilter) EncodeValues(key string, v *url.Values) error {
	return encodeFilter(key, f, v)
}

// InvoiceSummaryFilter filters [InvoiceSummariesService.List]
// (GET /v1/customers/{customerId}/invoiceSummaries). [Stable] iteration
// keys on postedTimestamp by default; effectiveTimestamp, dueDate and
// modifiedTimestamp (an incremental "what changed since" sync) can be chosen
// with [StableBy].
type InvoiceSummaryFilter struct {
	ID            query.Ints         `query:"Id"`
	CustomerID    query.Ints         `query:"customerId"`
	InvoiceNumber query.Ints         `query:"invoiceNumber"`
	Reference     query.Text         `query:"reference"`
	InvoiceAmount query.DecimalRange `query:"invoiceAmount" split:"invoiceAmount"`
	// DueDate is a date range. The reference lists dueDate as a "Decimal
	// range (as documented)", a slip it flags itself: a due date is a date
	// and dates are what a range of it can compare. Use Raw to send other
	// bounds.
	DueDate            query.TimeRange  `query:"dueDate" stable:"dueDate"`
	InvoiceStatus      []InvoiceStatus  `query:"invoiceStatus"`
	CustomerStatus     []CustomerStatus `query:"customer.Status"`
	EffectiveTimestamp query.TimeRange  `query:"effectiveTimestamp" stable:"effectiveTimestamp"`
	ModifiedTimestamp  query.TimeRange  `query:"modifiedTimestamp" stable:"modifiedTimestamp"`
	PostedTimestamp    query.TimeRange  `query:"postedTimestamp" stable:"postedTimestamp,default"`
	Unsettled          *bool            `query:"unsettled"`
	// Raw is an expression in the reference's syntax, appended as is.
	Raw string `query:",raw"`
}

// EncodeValues renders the filter as the query parameter key.
func (f InvoiceSummaryFilter) EncodeValues(key string, v *url.Values) error {
	return encodeFilter(key, f, v)
}

// SubscriptionProductItemFilter filters [SubscriptionItemsService.List]
// (GET /v1/subscriptionProducts/{subscriptionProductId}/items). [Stable]
// iteration keys on createdTimestamp (an item's createdDate) by default, or
// modifiedTimestamp (modifiedDate) with [StableBy].
type SubscriptionProductItemFilter struct {
	CreatedTimestamp  query.TimeRange `query:"createdTimestamp" stable:"createdDate,default"`
	ModifiedTimestamp query.TimeRange `query:"modifiedTimestamp" stable:"modifiedDate"`
	Name              query.Text      `query:"name"`
	Description       query.Text      `query:"description"`
	Reference         query.Text      `query:"reference"`
	Status            []ItemStatus    `query:"status"`
	// Raw is an expression in the reference's syntax, appended as is.
	Raw string `query:",raw"`
}

// EncodeValues renders the filter as the query parameter key.
func (f SubscriptionProductItemFilter) EncodeValues(key string, v *url.Values) error {
	return encodeFilter(key, f, v)
}

// SubscriberFilter selects the subscriptions of a bulk price-change
// preview through the query parameter ([BulkService.PreviewPriceChange]).
// Filter names are strings unless typed otherwise.
type SubscriberFilter struct {
	CompanyName  query.Text `query:"CompanyName"`
	CustomerID   query.Text `query:"CustomerId"`
	FirstName    query.Text `query:"FirstName"`
	LastName     query.Text `query:"LastName"`
	MiddleName   query.Text `query:"MiddleName"`
	Suffix       query.Text `query:"Suffix"`
	PrimaryEmail query.Text `query:"PrimaryEmail"`
	Reference1   query.Text `query:"Reference1"`
	Reference2   query.Text `query:"Reference2"`
	Reference3   query.Text `query:"Reference3"`
	// ServiceID is the service's own id of the customer.
	ServiceID                    query.Ints           `query:"ServiceId"`
	CustomerCreatedTimestamp     query.TimeRange      `query:"CustomerCreatedTimestamp"`
	SubscriptionCreatedTimestamp query.TimeRange      `query:"SubscriptionCreatedTimestamp"`
	NextBillingDate              query.TimeRange      `query:"NextBillingDate"`
	NextRechargeDate             query.TimeRange      `query:"NextRechargeDate"`
	Interval                     []Interval           `query:"Interval"`
	NumberOfIntervals            query.Ints           `query:"NumberOfIntervals"`
	SubscriptionStatus           []SubscriptionStatus `query:"SubscriptionStatus"`
	SalesTrackingCode1Code       query.Text           `query:"SalesTrackingCode1Code"`
	SalesTrackingCode2Code       query.Text           `query:"SalesTrackingCode2Code"`
	SalesTrackingCode3Code       query.Text           `query:"SalesTrackingCode3Code"`
	SalesTrackingCode4Code       query.Text           `query:"SalesTrackingCode4Code"`
	SalesTrackingCode5Code       query.Text           `query:"SalesTrackingCode5Code"`
	SalesTrackingCode1Name       query.Text           `query:"SalesTrackingCode1Name"`
	SalesTrackingCode2Name       query.Text           `query:"SalesTrackingCode2Name"`
	SalesTrackingCode3Name       query.Text           `query:"SalesTrackingCode3Name"`
	SalesTrackingCode4Name       query.Text           `query:"SalesTrackingCode4Name"`
	SalesTrackingCode5Name       query.Text           `query:"SalesTrackingCode5Name"`
	// Raw is an expression in the reference's syntax, appended as is.
	Raw string `query:",raw"`
}

// EncodeValues renders the filter as the query parameter key.
func (f SubscriberFilter) EncodeValues(key string, v *url.Values) error {
	return encodeFilter(key, f, v)
}

func encodeFilter(key string, filter any, v *url.Values) error {
	expr, err := query.Build(filter)
	if err != nil {
		return err
	}
	if len(expr) > 0 {
		v.Set(key, expr.String())
	}
	return nil
}

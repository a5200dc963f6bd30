// Package seed holds the entities a test seeds the billing fake
// ([github.com/billingapi/billing-go/billingtest]) with: its Add methods
// take them, its inspection methods return them, and their JSON names are
// the fake's fixtures format. The billingtest package names each of them
// too (billingtest.Invoice is seed.Invoice), so most tests never import
// this package. They hold the facts the fake keeps; the fake derives the
// rest of each answer (totals, outstanding balances, invoice statuses,
// charge groups, the customer snapshot) from them, as the service would.
// A zero ID is assigned by the fake when the entity is added.
//
// A fixtures document (billingtest.Server.LoadFixtures) is JSON of the
// following form.
//
// # Format
//
// The document is one JSON object. Every key is optional. Unknown keys,
// at the top and in every entity, are errors, except "$comment", which
// any object may carry (JSON has no comments) and which is ignored. A
// key repeated in one object is an error too. The entities are the
// seeding types ([Customer], [Invoice], ...), which the document decodes
// into directly: field names are their JSON names (the Go field names in
// camelCase), matched exactly, and what a field means and may hold is
// said on the type and its Add method in billingtest
// (Server.AddCustomer, ...). Values:
//
//   - integer: a JSON number without a fraction.
//   - amount: a JSON number, decoded exactly (10.125 stays 10.125, never a
//     float), or a decimal in a JSON string ("10.125").
//   - timestamp: a JSON string in RFC 3339 (2024-03-01T10:15:00Z,
//     2024-03-01T10:15:00+02:00; offsets are converted to UTC) or in the
//     API's own form without offset (2024-03-01T10:15:00.1234567), with 0
//     to 9 fractional digits. null, "" or absent means the default.
//   - enum: a JSON string, one of the type's values, in that case.
//   - a subscription product item's reference: a string or a number, kept
//     as given, so 12345 is listed as a number and "REF-001" as a string.
//
// An entity's "id" may be absent or 0; the fake then assigns one, above
// every id in the document, so assigned and given ids never clash. Give an
// id to whatever another entity refers to. Ids must not repeat within a
// kind, nor name an entity the fake already has. Defaults of the form
// "now" are the fake's clock when the document is loaded, so give
// timestamps where tests depend on them.
//
// # Top-level keys
//
// References may point anywhere in the document, whatever the order, or
// at what the fake already holds, except a credit card's replacedBy,
// which is not checked.
//
//   - customers: array of [Customer]; a parent is added before its
//     children.
//   - trackingCodeCategoryNames: object from a category number, "1" to
//     "5", to the custom name of that sales tracking code category, e.g.
//     {"1": "Region"}. A code's type may then be either name.
//   - salesTrackingCodes: array of [SalesTrackingCode].
//   - subscriptions: array of [Subscription].
//   - invoices: array of posted [Invoice].
//   - draftInvoices: array of [DraftInvoice].
//   - creditCards: array of [CreditCard]; a replaced card is added before
//     the card replacing it.
//   - walletMethods: array of [WalletMethod].
//   - subscriptionProductItems: array of [SubscriptionProductItem].
//   - bulkJobs: array of [BulkJob].
//
// # Defaults the Go zero values cannot say
//
// Where the document leaves a field out:
//
//   - a charge's quantity is 1; its unitPrice the amount when the quantity
//     is 1; its amount quantity × unitPrice. Give unitPrice, amount or both.
//   - a subscription product's planPrice is its price.
//   - a draft line's quantity is 1.
//   - an invoice's terms are Net30, and its paymentSchedules one
//     instalment of the whole balance due terms days after posting. A
//     payment schedule needs dueDateTimestamp and amount; its
//     outstandingBalance is the amount, its daysDueAfterTerm the days of
//     the invoice's terms, its status Due when outstandingBalance is
//     positive, else Paid. Give an invoice's status only to force it; left
//     out, it is derived from the balance, the due date and the clock.
package seed

import (
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

// Customer is a customer of the fake's account.
type Customer struct {
	ID           int64  `json:"id"`
	FirstName    string `json:"firstName"`
	MiddleName   string `json:"middleName"`
	LastName     string `json:"lastName"`
	Suffix       string `json:"suffix"`
	Title        string `json:"title"`
	CompanyName  string `json:"companyName"`
	PrimaryEmail string `json:"primaryEmail"`
	PrimaryPhone string `json:"primaryPhone"`
	// Reference is the customer's own reference, shown on invoice
	// summaries.
	Reference string `json:"reference"`
	// Reference1 to Reference3 are the customer reference fields
	// (Customer.CustomerReference.Reference1..3 in filters).
	Reference1    string                        `json:"reference1"`
	Reference2    string                        `json:"reference2"`
	Reference3    string                        `json:"reference3"`
	Status        billing.CustomerStatus        `json:"status"`
	AccountStatus billing.CustomerAccountStatus `json:"accountStatus"`
	// ParentID is the parent customer, 0 for none.
	ParentID int64 `json:"parentId"`
	// Currency is an ISO currency code; "" means USD.
	Currency                string          `json:"currency"`
	CreatedTimestamp        time.Time       `json:"createdTimestamp"`
	ModifiedTimestamp       time.Time       `json:"modifiedTimestamp"`
	ArBalance               decimal.Decimal `json:"arBalance"`
	MonthlyRecurringRevenue decimal.Decimal `json:"monthlyRecurringRevenue"`
	NetMRR                  decimal.Decimal `json:"netMrr"`
	CurrentMrr              decimal.Decimal `json:"currentMrr"`
	CurrentNetMrr           decimal.Decimal `json:"currentNetMrr"`
	CrmID                   string          `json:"crmId"`
	ErpID                   string          `json:"erpId"`
	AccountingID            int64           `json:"accountingId"`
	// SalesTrackingCodeIDs holds the customer's sales tracking code of
	// each category 1 to 5 (index 0 is category 1); 0 means none.
	SalesTrackingCodeIDs [5]int64 `json:"salesTrackingCodeIds"`
}

// Invoice is a posted invoice.
type Invoice struct {
	ID                 int64     `json:"id"`
	CustomerID         int64     `json:"customerId"`
	InvoiceNumber      int64     `json:"invoiceNumber"`
	PoNumber           string    `json:"poNumber"`
	CreatedTimestamp   time.Time `json:"createdTimestamp"`
	EffectiveTimestamp time.Time `json:"effectiveTimestamp"`
	PostedTimestamp    time.Time `json:"postedTimestamp"`
	ModifiedTimestamp  time.Time `json:"modifiedTimestamp"`
	// Terms is the payment terms, e.g. "Net30"; "" means Net30.
	Terms   string   `json:"terms"`
	Charges []Charge `json:"charges"`
	// TotalTaxes and TotalDiscount adjust the invoice amount: the amount is
	// the sum of the charges plus taxes minus discount.
	TotalTaxes    decimal.Decimal `json:"totalTaxes"`
	TotalDiscount decimal.Decimal `json:"totalDiscount"`
	// TotalPayments and SumOfCreditNotes reduce the outstanding balance.
	TotalPayments    decimal.Decimal `json:"totalPayments"`
	SumOfCreditNotes decimal.Decimal `json:"sumOfCreditNotes"`
	// PaymentSchedules are the instalments. When nil, the fake makes one
	// instalment for the whole balance, due Terms days after posting.
	PaymentSchedules []billing.PaymentSchedule `json:"paymentSchedules"`
	OpeningArBalance decimal.Decimal           `json:"openingArBalance"`
	ClosingArBalance decimal.Decimal           `json:"closingArBalance"`
	ErpID            string                    `json:"erpId"`
	CrmID            string                    `json:"crmId"`
	AccountingID     int64                     `json:"accountingId"`
	Notes            string                    `json:"notes"`
	// Status forces an invoice summary status the balances cannot show
	// (Void, Disputed, Pending); "" lets the fake derive it from the
	// balance, the due date and the clock.
	Status billing.InvoiceStatus `json:"status"`

	// TotalWriteoffs is what write-offs have taken off the balance: the
	// fake adds to it on every write-off (billingtest.Server.WriteOffInvoice
	// and the API's write-off), and it reduces the outstanding balance as
	// payments do. Seeded, it is an invoice written off before the test:
	// with nil PaymentSchedules, the one instalment the fake makes is
	// WrittenOff when nothing is left owed.
	TotalWriteoffs decimal.Decimal `json:"totalWriteoffs"`
}

// Charge is one line of a posted invoice. A charge comes from a
// subscription (SubscriptionID set) or from a purchase (PurchaseID set);
// the read call's groupCharges groups them by that. Seeded from Go, give
// Quantity, UnitPrice and Amount all three: billingtest.Server.AddInvoice takes them
// as given (Amount is what the invoice's totals add up), while a fixtures
// file derives a missing amount or unit price from the other two.
type Charge struct {
	ID                    int64           `json:"id"`
	Name                  string          `json:"name"`
	Description           string          `json:"description"`
	GLCode                string          `json:"glCode"`
	Quantity              decimal.Decimal `json:"quantity"`
	UnitPrice             decimal.Decimal `json:"unitPrice"`
	Amount                decimal.Decimal `json:"amount"`
	EffectiveTimestamp    time.Time       `json:"effectiveTimestamp"`
	StartServiceDate      time.Time       `json:"startServiceDate"`
	EndServiceDate        time.Time       `json:"endServiceDate"`
	SubscriptionID        int64           `json:"subscriptionId"`
	SubscriptionProductID int64           `json:"subscriptionProductId"`
	PurchaseID            int64           `json:"purchaseId"`
	// Tracked marks a tracked item, listed only with showTrackedItems.
	Tracked bool `json:"tracked"`
}

// DraftInvoice is an invoice that is not posted yet; the fake renders it
// as a PDF.
type DraftInvoice struct {
	ID         int64       `json:"id"`
	CustomerID int64       `json:"customerId"`
	Created    time.Time   `json:"created"`
	Lines      []DraftLine `json:"lines"`
}

// DraftLine is one line of a draft invoice.
type DraftLine struct {
	Description string          `json:"description"`
	Quantity    decimal.Decimal `json:"quantity"`
	Amount      decimal.Decimal `json:"amount"`
	// Tracked marks a tracked item scheduled to be purchased, printed only
	// with showTrackedItems.
	Tracked bool `json:"tracked"`
}

// CreditCard is a credit card payment method. The fake keeps only the
// last four digits of the number.
type CreditCard struct {
	ID         int64 `json:"id"`
	CustomerID int64 `json:"customerId"`
	// Last4 is the end of the card number; CardType e.g. "Visa".
	Last4           string `json:"last4"`
	CardType        string `json:"cardType"`
	FirstName       string `json:"firstName"`
	LastName        string `json:"lastName"`
	ExpirationMonth int    `json:"expirationMonth"`
	ExpirationYear  int    `json:"expirationYear"`
	Address1        string `json:"address1"`
	Address2        string `json:"address2"`
	City            string `json:"city"`
	PostalZip       string `json:"postalZip"`
	CountryID       int64  `json:"countryId"`
	StateID         int64  `json:"stateId"`
	IsDefault       bool   `json:"isDefault"`
	// Deleted payment methods cannot be replaced.
	Deleted bool `json:"deleted"`
	// OriginalPaymentMethodID is the method this one replaced, 0 for none.
	OriginalPaymentMethodID int64 `json:"originalPaymentMethodId"`
	// ReplacedBy is the method that replaced this one, 0 for none; a
	// replaced method cannot be replaced again.
	ReplacedBy   int64     `json:"replacedBy"`
	ModifiedDate time.Time `json:"modifiedDate"`
}

// WalletMethod is a payment method created by a wallet billing agreement.
type WalletMethod struct {
	// ID is the payment method's id; CustomerID its customer's.
	ID         int64 `json:"id"`
	CustomerID int64 `json:"customerId"`
	// Provider is the wallet provider, as [WithWalletProviders] spells it.
	Provider string `json:"provider"`
	// Token and Baid are the payee identifier and the billing agreement
	// identifier at the provider, as sent; at least one is set.
	Token string `json:"token"`
	Baid  string `json:"baid"`
	// Source is the source of the payment.
	Source billing.PaymentSource `json:"source"`
	// FirstName and LastName are the customer's.
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
	// IsDefault says whether it is the customer's default payment method.
	IsDefault bool `json:"isDefault"`
	// ModifiedDate is when it was created, on the fake's clock.
	ModifiedDate time.Time `json:"modifiedDate"`
}

// Subscription is a customer's subscription to a plan, the unit a bulk
// price change pushes prices out to.
type Subscription struct {
	ID         int64 `json:"id"`
	CustomerID int64 `json:"customerId"`
	PlanID     int64 `json:"planId"`
	// Name is the plan's name, used as the charge group name.
	Name              string                     `json:"name"`
	Description       string                     `json:"description"`
	Reference         string                     `json:"reference"`
	Status            billing.SubscriptionStatus `json:"status"`
	Interval          billing.Interval           `json:"interval"`
	NumberOfIntervals int                        `json:"numberOfIntervals"`
	CreatedTimestamp  time.Time                  `json:"createdTimestamp"`
	NextBillingDate   time.Time                  `json:"nextBillingDate"`
	NextRechargeDate  time.Time                  `json:"nextRechargeDate"`
	Products          []SubscriptionProduct      `json:"products"`
}

// SubscriptionProduct is a plan product on a subscription, with the price
// the subscription pays and the plan's current price; a bulk price change
// pushes the plan price out where they differ.
type SubscriptionProduct struct {
	// ID is the subscription product's id, the parent of its items.
	ID int64 `json:"id"`
	// PlanProductID is the plan product it comes from.
	PlanProductID int64 `json:"planProductId"`
	// ProductID is the catalogue product, for excludedProducts.
	ProductID int64           `json:"productId"`
	Name      string          `json:"name"`
	Price     decimal.Decimal `json:"price"`
	PlanPrice decimal.Decimal `json:"planPrice"`
}

// SubscriptionProductItem is an item of a subscription product (the
// answer of SubscriptionItems.List), as seeded with
// billingtest.Server.AddSubscriptionProductItem.
type SubscriptionProductItem struct {
	// ID 0 gets the next id.
	ID int64 `json:"id"`
	// SubscriptionProductID is required; the product becomes known if it
	// was not.
	SubscriptionProductID int64                 `json:"subscriptionProductId"`
	SubscriptionID        int64                 `json:"subscriptionId"`
	CustomerID            int64                 `json:"customerId"`
	ProductID             int64                 `json:"productId"`
	Reference             billing.ItemReference `json:"reference"`
	Name                  string                `json:"name"`
	Description           string                `json:"description"`
	// Status "" means Active.
	Status billing.ItemStatus `json:"status"`
	// CreatedDate zero means the fake's clock; ModifiedDate zero means
	// CreatedDate.
	CreatedDate  time.Time `json:"createdDate"`
	ModifiedDate time.Time `json:"modifiedDate"`
}

// SalesTrackingCode is a sales tracking code, as seeded with
// billingtest.Server.AddSalesTrackingCode and inspected with
// billingtest.Server.SalesTrackingCode.
type SalesTrackingCode struct {
	// ID 0 gets the next id.
	ID int64 `json:"id"`
	// Type is a category ("Sales Tracking Code 1" to 5) or a custom name
	// given with billingtest.Server.SetTrackingCodeCategoryName.
	Type billing.TrackingCodeType `json:"type"`
	Code string                   `json:"code"`
	Name string                   `json:"name"`
	// Description and Email are nil for none (null on the wire).
	Description *string `json:"description"`
	Email       *string `json:"email"`
	// Status "" means Active.
	Status    billing.TrackingCodeStatus `json:"status"`
	Deletable bool                       `json:"deletable"`
}

// BulkJob is a bulk job. Only a validated job can be processed, once.
type BulkJob struct {
	// ID is the job's id, which Bulk.Process takes.
	ID int64 `json:"id"`
	// Type is the job's type, e.g. "PriceChange"; the fake only reports it.
	Type string `json:"type"`
	// Validated says whether the job may be processed.
	Validated bool `json:"validated"`
	// Processed says whether it has been submitted for processing.
	Processed bool `json:"processed"`
}

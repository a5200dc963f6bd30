package billingtest

import (
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

// The types in this file are what tests seed the fake with. They hold the
// facts the fake keeps; the fake derives the rest of each answer (totals,
// outstanding balances, invoice statuses, charge groups, the customer
// snapshot) from them, as the service would. A zero ID is assigned by the
// fake when the entity is added.

// Customer is a customer of the fake's account.
type Customer struct {
	ID                                             int64
	FirstName, MiddleName, LastName, Suffix, Title string
	CompanyName, PrimaryEmail, PrimaryPhone        string
	// Reference is the customer's own reference, shown on invoice
	// summaries.
	Reference string
	// Reference1 to Reference3 are the customer reference fields
	// (Customer.CustomerReference.Reference1..3 in filters).
	Reference1, Reference2, Reference3 string
	Status                             billing.CustomerStatus
	AccountStatus                      billing.CustomerAccountStatus
	// ParentID is the parent customer, 0 for none.
	ParentID int64
	// Currency is an ISO currency code; "" means USD.
	Currency                            string
	CreatedTimestamp, ModifiedTimestamp time.Time
	ArBalance                           decimal.Decimal
	MonthlyRecurringRevenue             decimal.Decimal
	NetMRR                              decimal.Decimal
	CurrentMrr, CurrentNetMrr           decimal.Decimal
	CrmID, ErpID                        string
	AccountingID                        int64
	// SalesTrackingCodeIDs holds the customer's sales tracking code of
	// each category 1 to 5 (index 0 is category 1); 0 means none.
	SalesTrackingCodeIDs [5]int64
}

// Invoice is a posted invoice.
type Invoice struct {
	ID, CustomerID, InvoiceNumber int64
	PoNumber                      string
	CreatedTimestamp              time.Time
	EffectiveTimestamp            time.Time
	PostedTimestamp               time.Time
	ModifiedTimestamp             time.Time
	// Terms is the payment terms, e.g. "Net30"; "" means Net30.
	Terms   string
	Charges []Charge
	// TotalTaxes and TotalDiscount adjust the invoice amount: the amount is
	// the sum of the charges plus taxes minus discount.
	TotalTaxes, TotalDiscount decimal.Decimal
	// TotalPayments and SumOfCreditNotes reduce the outstanding balance.
	TotalPayments, SumOfCreditNotes decimal.Decimal
	// PaymentSchedules are the instalments. When nil, the fake makes one
	// instalment for the whole balance, due Terms days after posting.
	PaymentSchedules                   []billing.PaymentSchedule
	OpeningArBalance, ClosingArBalance decimal.Decimal
	ErpID, CrmID                       string
	AccountingID                       int64
	Notes                              string
	// Status forces an invoice summary status the balances cannot show
	// (Void, Disputed, Pending); "" lets the fake derive it from the
	// balance, the due date and the clock.
	Status billing.InvoiceStatus

	// totalWriteoffs is what write-offs have added, kept by the fake.
	totalWriteoffs decimal.Decimal
}

// Charge is one line of a posted invoice. A charge comes from a
// subscription (SubscriptionID set) or from a purchase (PurchaseID set);
// the read call's groupCharges groups them by that. Seeded from Go, give
// Quantity, UnitPrice and Amount all three: [Server.AddInvoice] takes them
// as given (Amount is what the invoice's totals add up), while a fixtures
// file derives a missing amount or unit price from the other two.
type Charge struct {
	ID                               int64
	Name, Description, GLCode        string
	Quantity, UnitPrice, Amount      decimal.Decimal
	EffectiveTimestamp               time.Time
	StartServiceDate, EndServiceDate time.Time
	SubscriptionID                   int64
	SubscriptionProductID            int64
	PurchaseID                       int64
	// Tracked marks a tracked item, listed only with showTrackedItems.
	Tracked bool
}

// DraftInvoice is an invoice that is not posted yet; the fake renders it
// as a PDF.
type DraftInvoice struct {
	ID, CustomerID int64
	Created        time.Time
	Lines          []DraftLine
}

// DraftLine is one line of a draft invoice.
type DraftLine struct {
	Description      string
	Quantity, Amount decimal.Decimal
	// Tracked marks a tracked item scheduled to be purchased, printed only
	// with showTrackedItems.
	Tracked bool
}

// CreditCard is a credit card payment method. The fake keeps only the
// last four digits of the number.
type CreditCard struct {
	ID, CustomerID int64
	// Last4 is the end of the card number; CardType e.g. "Visa".
	Last4, CardType                 string
	FirstName, LastName             string
	ExpirationMonth, ExpirationYear int
	Address1, Address2, City        string
	PostalZip                       string
	CountryID, StateID              int64
	IsDefault                       bool
	// Deleted payment methods cannot be replaced.
	Deleted bool
	// OriginalPaymentMethodID is the method this one replaced, 0 for none.
	OriginalPaymentMethodID int64
	// ReplacedBy is the method that replaced this one, 0 for none; a
	// replaced method cannot be replaced again.
	ReplacedBy   int64
	ModifiedDate time.Time
}

// WalletMethod is a payment method created by a wallet billing agreement.
type WalletMethod struct {
	// ID is the payment method's id; CustomerID its customer's.
	ID, CustomerID int64
	// Provider is the wallet provider, as [WithWalletProviders] spells it.
	Provider string
	// Token and Baid are the payee identifier and the billing agreement
	// identifier at the provider, as sent; at least one is set.
	Token, Baid string
	// Source is the source of the payment.
	Source billing.PaymentSource
	// FirstName and LastName are the customer's.
	FirstName, LastName string
	// IsDefault says whether it is the customer's default payment method.
	IsDefault bool
	// ModifiedDate is when it was created, on the fake's clock.
	ModifiedDate time.Time
}

// Subscription is a customer's subscription to a plan, the unit a bulk
// price change pushes prices out to.
type Subscription struct {
	ID, CustomerID, PlanID int64
	// Name is the plan's name, used as the charge group name.
	Name, Description, Reference string
	Status                       billing.SubscriptionStatus
	Interval                     billing.Interval
	NumberOfIntervals            int
	CreatedTimestamp             time.Time
	NextBillingDate              time.Time
	NextRechargeDate             time.Time
	Products                     []SubscriptionProduct
}

// SubscriptionProduct is a plan product on a subscription, with the price
// the subscription pays and the plan's current price; a bulk price change
// pushes the plan price out where they differ.
type SubscriptionProduct struct {
	// ID is the subscription product's id, the parent of its items.
	ID int64
	// PlanProductID is the plan product it comes from.
	PlanProductID int64
	// ProductID is the catalogue product, for excludedProducts.
	ProductID        int64
	Name             string
	Price, PlanPrice decimal.Decimal
}

// SubscriptionProductItem is an item of a subscription product (the
// answer of SubscriptionItems.List), as seeded with
// [Server.AddSubscriptionProductItem].
type SubscriptionProductItem struct {
	// ID 0 gets the next id.
	ID int64
	// SubscriptionProductID is required; the product becomes known if it
	// was not.
	SubscriptionProductID                 int64
	SubscriptionID, CustomerID, ProductID int64
	Reference                             billing.ItemReference
	Name, Description                     string
	// Status "" means Active.
	Status billing.ItemStatus
	// CreatedDate zero means the fake's clock; ModifiedDate zero means
	// CreatedDate.
	CreatedDate, ModifiedDate time.Time
}

// SalesTrackingCode is a sales tracking code, as seeded with
// [Server.AddSalesTrackingCode] and inspected with
// [Server.SalesTrackingCode].
type SalesTrackingCode struct {
	// ID 0 gets the next id.
	ID int64
	// Type is a category ("Sales Tracking Code 1" to 5) or a custom name
	// given with [Server.SetTrackingCodeCategoryName].
	Type       billing.TrackingCodeType
	Code, Name string
	// Description and Email are nil for none (null on the wire).
	Description, Email *string
	// Status "" means Active.
	Status    billing.TrackingCodeStatus
	Deletable bool
}

// BulkJob is a bulk job. Only a validated job can be processed, once.
type BulkJob struct {
	// ID is the job's id, which Bulk.Process takes.
	ID int64
	// Type is the job's type, e.g. "PriceChange"; the fake only reports it.
	Type string
	// Validated says whether the job may be processed.
	Validated bool
	// Processed says whether it has been submitted for processing.
	Processed bool
}

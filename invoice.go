package billing

import (
	"encoding/json"

	"github.com/shopspring/decimal"
)

// Invoice is a posted invoice (section 2.1 of the API reference).
type Invoice struct {
	ID                 int64     `json:"id"`
	URI                *string   `json:"uri"`
	InvoiceNumber      int64     `json:"invoiceNumber"`
	InvoiceSignature   string    `json:"invoiceSignature"`
	PoNumber           *string   `json:"poNumber"`
	EffectiveTimestamp Timestamp `json:"effectiveTimestamp"`
	PostedTimestamp    Timestamp `json:"postedTimestamp"`
	ModifiedTimestamp  Timestamp `json:"modifiedTimestamp"`
	// Charges is empty in list-all results, and absent when ChargeGroups
	// is present.
	Charges []Charge `json:"charges,omitempty"`
	// ChargeGroups replaces Charges when a read asks for grouping
	// (GetInvoiceParams.GroupCharges) and in the write-off answer.
	ChargeGroups                     []ChargeGroup      `json:"chargeGroups,omitempty"`
	Subtotal                         decimal.Decimal    `json:"subtotal"`
	InvoiceAmount                    decimal.Decimal    `json:"invoiceAmount"`
	TotalPayments                    decimal.Decimal    `json:"totalPayments"`
	Unsettled                        bool               `json:"unsettled"`
	OutstandingBalance               decimal.Decimal    `json:"outstandingBalance"`
	Terms                            string             `json:"terms"`
	DefaultTerms                     string             `json:"defaultTerms"`
	IsDefaultTerms                   bool               `json:"isDefaultTerms"`
	CustomerID                       int64              `json:"customerId"`
	InvoiceCustomer                  *InvoiceCustomer   `json:"invoiceCustomer"`
	InvoiceCustomerAddressPreference *AddressPreference `json:"invoiceCustomerAddressPreference"`
	SumOfCreditNotes                 decimal.Decimal    `json:"sumOfCreditNotes"`
	TotalWriteoffs                   decimal.Decimal    `json:"totalWriteoffs"`
	// Taxes is kept as the server sent it: the reference does not show
	// the shape of its elements.
	Taxes                  json.RawMessage   `json:"taxes,omitempty"`
	TotalTaxes             decimal.Decimal   `json:"totalTaxes"`
	TotalDiscount          decimal.Decimal   `json:"totalDiscount"`
	PaymentSchedules       []PaymentSchedule `json:"paymentSchedules"`
	Notes                  *string           `json:"notes"`
	CustomerReferenceValue *string           `json:"customerReferenceValue"`
	// OpeningArBalance and ClosingArBalance can be negative.
	OpeningArBalance    decimal.Decimal `json:"openingArBalance"`
	ClosingArBalance    decimal.Decimal `json:"closingArBalance"`
	InvoiceInMemoryOnly bool            `json:"invoiceInMemoryOnly"`
	// InvoiceRevisions is kept as the server sent it (shape not shown).
	InvoiceRevisions json.RawMessage `json:"invoiceRevisions,omitempty"`
	IsSummarized     bool            `json:"isSummarized"`
	RollUpPdf        bool            `json:"rollUpPdf"`
	// CrmID appears in the write-off answer.
	CrmID *string `json:"crmId,omitempty"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

func (v *Invoice) entityID() int64 { return v.ID }

// ChargeGroup groups an invoice's charges by subscription or by purchase.
type ChargeGroup struct {
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Reference   *string `json:"reference"`
	// SubscriptionID is set for groups that come from a subscription and
	// nil for groups that come from a purchase.
	SubscriptionID *int64   `json:"subscriptionId,omitempty"`
	Charges        []Charge `json:"charges"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

// Charge is one line of an invoice.
type Charge struct {
	ID                 int64            `json:"id"`
	URI                *string          `json:"uri"`
	Quantity           decimal.Decimal  `json:"quantity"`
	UnitPrice          decimal.Decimal  `json:"unitPrice"`
	Amount             decimal.Decimal  `json:"amount"`
	Name               string           `json:"name"`
	Description        *string          `json:"description"`
	GLCode             string           `json:"glCode"`
	EffectiveTimestamp Timestamp        `json:"effectiveTimestamp"`
	ProratedUnitPrice  *decimal.Decimal `json:"proratedUnitPrice"`
	StartServiceDate   Timestamp        `json:"startServiceDate"`
	EndServiceDate     Timestamp        `json:"endServiceDate"`
	RangeQuantity      *decimal.Decimal `json:"rangeQuantity"`
	IsReversable       bool             `json:"isReversable"`
	// Discount, Discounts and Purchase are kept as the server sent them
	// (shapes not shown); Purchase is set for charges that come from a
	// purchase rather than a subscription.
	Discount            json.RawMessage `json:"discount,omitempty"`
	Discounts           json.RawMessage `json:"discounts,omitempty"`
	SubscriptionProduct *ResourceRef    `json:"subscriptionProduct"`
	Purchase            json.RawMessage `json:"purchase,omitempty"`
	ChargeTiers         []ChargeTier    `json:"chargeTiers"`
	ErpChargeItem       *string         `json:"erpChargeItem"`
	// ErpLocationID is kept as the server sent it (its type is not shown).
	ErpLocationID json.RawMessage `json:"erpLocationId,omitempty"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

// ResourceRef points at another resource.
type ResourceRef struct {
	ID  int64   `json:"id"`
	URI *string `json:"uri"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

// ChargeTier is one pricing tier of a charge.
type ChargeTier struct {
	Label     string          `json:"label"`
	Quantity  decimal.Decimal `json:"quantity"`
	UnitPrice decimal.Decimal `json:"unitPrice"`
	Amount    decimal.Decimal `json:"amount"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

// InvoiceCustomer is the snapshot of the customer embedded in an invoice.
// In snapshots ID can be 0 and many fields are nil.
type InvoiceCustomer struct {
	ID                         int64                 `json:"id"`
	URI                        *string               `json:"uri"`
	FirstName                  *string               `json:"firstName"`
	MiddleName                 *string               `json:"middleName"`
	LastName                   *string               `json:"lastName"`
	CompanyName                *string               `json:"companyName"`
	Suffix                     *string               `json:"suffix"`
	PrimaryEmail               *string               `json:"primaryEmail"`
	PrimaryPhone               *string               `json:"primaryPhone"`
	SecondaryEmail             *string               `json:"secondaryEmail"`
	SecondaryPhone             *string               `json:"secondaryPhone"`
	Title                      *string               `json:"title"`
	Reference                  *string               `json:"reference"`
	Status                     CustomerStatus        `json:"status"`
	CustomerAccountStatus      CustomerAccountStatus `json:"customerAccountStatus"`
	Currency                   *string               `json:"currency"`
	CustomerReference          json.RawMessage       `json:"customerReference,omitempty"`
	CustomerAcquisition        json.RawMessage       `json:"customerAcquisition,omitempty"`
	MonthlyRecurringRevenue    decimal.Decimal       `json:"monthlyRecurringRevenue"`
	NetMonthlyRecurringRevenue decimal.Decimal       `json:"netMonthlyRecurringRevenue"`
	CrmID                      *string               `json:"crmId"`
	CrmAccountType             *string               `json:"crmAccountType"`
	CrmSynchStatus             *string               `json:"crmSynchStatus"`
	ErpID                      *string               `json:"erpId"`
	ErpSynchStatus             *string               `json:"erpSynchStatus"`
	ErpCustomerType            *string               `json:"erpCustomerType"`
	PortalUserName             *string               `json:"portalUserName"`
	ParentID                   *int64                `json:"parentId"`
	AccountingLatchType        *string               `json:"accountingLatchType"`
	AccountingID               *string               `json:"accountingId"`
	AccountingSyncToken        *string               `json:"accountingSyncToken"`
	MarketingID                *string               `json:"marketingId"`
	MarketingCompanyID         *string               `json:"marketingCompanyId"`
	TelematicsID               *string               `json:"telematicsId"`
	ModifiedTimestamp          Timestamp             `json:"modifiedTimestamp"`
	CreatedTimestamp           Timestamp             `json:"createdTimestamp"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

// AddressPreference is a customer's billing and shipping addresses.
type AddressPreference struct {
	ID                                 int64    `json:"id"`
	URI                                *string  `json:"uri"`
	ContactName                        *string  `json:"contactName"`
	ShippingInstructions               *string  `json:"shippingInstructions"`
	UseBillingAddressAsShippingAddress bool     `json:"useBillingAddressAsShippingAddress"`
	BillingAddress                     *Address `json:"billingAddress"`
	ShippingAddress                    *Address `json:"shippingAddress"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

// Address is a postal address.
type Address struct {
	ID                          int64   `json:"id"`
	URI                         *string `json:"uri"`
	CustomerAddressPreferenceID int64   `json:"customerAddressPreferenceId"`
	CompanyName                 *string `json:"companyName"`
	Line1                       *string `json:"line1"`
	Line2                       *string `json:"line2"`
	CountryID                   int64   `json:"countryId"`
	Country                     *string `json:"country"`
	StateID                     *int64  `json:"stateId"`
	State                       *string `json:"state"`
	City                        *string `json:"city"`
	PostalZip                   *string `json:"postalZip"`
	AddressType                 *string `json:"addressType"`
	Valid                       bool    `json:"valid"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

// PaymentSchedule is one instalment of an invoice.
type PaymentSchedule struct {
	DueDateTimestamp   Timestamp             `json:"dueDateTimestamp"`
	Status             PaymentScheduleStatus `json:"status"`
	Amount             decimal.Decimal       `json:"amount"`
	OutstandingBalance decimal.Decimal       `json:"outstandingBalance"`
	DaysDueAfterTerm   int                   `json:"daysDueAfterTerm"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

// InvoiceSummary is the short form of an invoice listed for a customer
// (section 2.7 of the API reference).
type InvoiceSummary struct {
	ID                 int64           `json:"id"`
	URI                *string         `json:"uri"`
	CustomerID         int64           `json:"customerId"`
	Reference          *string         `json:"reference"`
	CompanyName        *string         `json:"companyName"`
	CustomerParentID   *int64          `json:"customerParentId"`
	CustomerName       string          `json:"customerName"`
	EffectiveTimestamp Timestamp       `json:"effectiveTimestamp"`
	PostedTimestamp    Timestamp       `json:"postedTimestamp"`
	DueDate            Timestamp       `json:"dueDate"`
	ModifiedTimestamp  Timestamp       `json:"modifiedTimestamp"`
	InvoiceStatus      InvoiceStatus   `json:"invoiceStatus"`
	InvoiceNumber      string          `json:"invoiceNumber"`
	InvoiceAmount      decimal.Decimal `json:"invoiceAmount"`
	SumOfCharges       decimal.Decimal `json:"sumOfCharges"`
	TotalPayments      decimal.Decimal `json:"totalPayments"`
	TotalCreditNotes   decimal.Decimal `json:"totalCreditNotes"`
	Writeoffs          decimal.Decimal `json:"writeoffs"`
	OutstandingBalance decimal.Decimal `json:"outstandingBalance"`
	Currency           string          `json:"currency"`
	// TaxServiceID is kept as the server sent it (its type is not shown).
	TaxServiceID json.RawMessage `json:"taxServiceId,omitempty"`
	Unsettled    bool            `json:"unsettled"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

func (v *InvoiceSummary) entityID() int64 { return v.ID }

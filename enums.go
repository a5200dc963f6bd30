package billing

import "slices"

// The API's enumerations are string types. The constants are the values
// the API reference lists; the service can send others (a tracking code
// can be Retired), which decode without error and are kept as sent.
// IsKnown tells the two apart.

// InvoiceStatus is the status of an invoice summary.
type InvoiceStatus string

// Invoice statuses listed by the API reference.
const (
	InvoiceStatusDue        InvoiceStatus = "Due"
	InvoiceStatusOverdue    InvoiceStatus = "Overdue"
	InvoiceStatusPaid       InvoiceStatus = "Paid"
	InvoiceStatusWrittenOff InvoiceStatus = "WrittenOff"
	InvoiceStatusVoid       InvoiceStatus = "Void"
	InvoiceStatusDisputed   InvoiceStatus = "Disputed"
	InvoiceStatusPending    InvoiceStatus = "Pending"
)

// IsKnown reports whether s is one of the statuses the reference lists.
func (s InvoiceStatus) IsKnown() bool {
	return slices.Contains([]InvoiceStatus{InvoiceStatusDue, InvoiceStatusOverdue, InvoiceStatusPaid, InvoiceStatusWrittenOff, InvoiceStatusVoid, InvoiceStatusDisputed, InvoiceStatusPending}, s)
}

// CustomerStatus is the lifecycle status of a customer.
type CustomerStatus string

// Customer statuses listed by the API reference.
const (
	CustomerStatusDraft     CustomerStatus = "Draft"
	CustomerStatusActive    CustomerStatus = "Active"
	CustomerStatusCancelled CustomerStatus = "Cancelled"
	CustomerStatusHold      CustomerStatus = "Hold"
	CustomerStatusSuspended CustomerStatus = "Suspended"
)

// IsKnown reports whether s is one of the statuses the reference lists.
func (s CustomerStatus) IsKnown() bool {
	return slices.Contains([]CustomerStatus{CustomerStatusDraft, CustomerStatusActive, CustomerStatusCancelled, CustomerStatusHold, CustomerStatusSuspended}, s)
}

// CustomerAccountStatus is the standing of a customer's account.
type CustomerAccountStatus string

// Customer account statuses listed by the API reference.
const (
	CustomerAccountStatusGood         CustomerAccountStatus = "Good"
	CustomerAccountStatusPoorStanding CustomerAccountStatus = "PoorStanding"
	CustomerAccountStatusCollection   CustomerAccountStatus = "Collection"
)

// IsKnown reports whether s is one of the statuses the reference lists.
func (s CustomerAccountStatus) IsKnown() bool {
	return slices.Contains([]CustomerAccountStatus{CustomerAccountStatusGood, CustomerAccountStatusPoorStanding, CustomerAccountStatusCollection}, s)
}

// SubscriptionStatus is the status of a subscription.
type SubscriptionStatus string

// Subscription statuses listed by the API reference.
const (
	SubscriptionStatusActive       SubscriptionStatus = "Active"
	SubscriptionStatusDraft        SubscriptionStatus = "Draft"
	SubscriptionStatusCancelled    SubscriptionStatus = "Cancelled"
	SubscriptionStatusProvisioning SubscriptionStatus = "Provisioning"
	SubscriptionStatusExpired      SubscriptionStatus = "Expired"
)

// IsKnown reports whether s is one of the statuses the reference lists.
func (s SubscriptionStatus) IsKnown() bool {
	return slices.Contains([]SubscriptionStatus{SubscriptionStatusActive, SubscriptionStatusDraft, SubscriptionStatusCancelled, SubscriptionStatusProvisioning, SubscriptionStatusExpired}, s)
}

// ItemStatus is the status of a subscription product item.
type ItemStatus string

// Subscription product item statuses listed by the API reference.
const (
	ItemStatusActive  ItemStatus = "Active"
	ItemStatusDeleted ItemStatus = "Deleted"
)

// IsKnown reports whether s is one of the statuses the reference lists.
func (s ItemStatus) IsKnown() bool { return s == ItemStatusActive || s == ItemStatusDeleted }

// TrackingCodeStatus is the status of a sales tracking code. The reference
// shows only Active; the service also sends others, such as Retired.
type TrackingCodeStatus string

// Sales tracking code statuses listed by the API reference.
const (
	TrackingCodeStatusActive TrackingCodeStatus = "Active"
)

// IsKnown reports whether s is a status the reference lists.
func (s TrackingCodeStatus) IsKnown() bool { return s == TrackingCodeStatusActive }

// PaymentScheduleStatus is the status of an invoice's payment schedule.
type PaymentScheduleStatus string

// Payment schedule statuses listed by the API reference (others exist).
const (
	PaymentScheduleStatusDue        PaymentScheduleStatus = "Due"
	PaymentScheduleStatusWrittenOff PaymentScheduleStatus = "WrittenOff"
)

// IsKnown reports whether s is a status the reference lists.
func (s PaymentScheduleStatus) IsKnown() bool {
	return s == PaymentScheduleStatusDue || s == PaymentScheduleStatusWrittenOff
}

// PaymentSource says where a wallet payment came from.
type PaymentSource string

// Payment sources listed by the API reference.
const (
	PaymentSourceManual            PaymentSource = "Manual"
	PaymentSourceAutomatic         PaymentSource = "Automatic"
	PaymentSourceSelfServicePortal PaymentSource = "SelfServicePortal"
	PaymentSourceImport            PaymentSource = "Import"
)

// IsKnown reports whether s is a source the reference lists.
func (s PaymentSource) IsKnown() bool {
	return slices.Contains([]PaymentSource{PaymentSourceManual, PaymentSourceAutomatic, PaymentSourceSelfServicePortal, PaymentSourceImport}, s)
}

// Interval is a subscription's billing interval.
type Interval string

// Intervals listed by the API reference.
const (
	IntervalMonthly Interval = "Monthly"
	IntervalYearly  Interval = "Yearly"
)

// IsKnown reports whether i is an interval the reference lists.
func (i Interval) IsKnown() bool { return i == IntervalMonthly || i == IntervalYearly }

// TrackingCodeType is the category of a sales tracking code: one of the
// five categories, or the custom name the account gave one of them.
type TrackingCodeType string

// The five sales tracking code categories.
const (
	TrackingCodeType1 TrackingCodeType = "Sales Tracking Code 1"
	TrackingCodeType2 TrackingCodeType = "Sales Tracking Code 2"
	TrackingCodeType3 TrackingCodeType = "Sales Tracking Code 3"
	TrackingCodeType4 TrackingCodeType = "Sales Tracking Code 4"
	TrackingCodeType5 TrackingCodeType = "Sales Tracking Code 5"
)

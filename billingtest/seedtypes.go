package billingtest

import "github.com/billingapi/billing-go/billingtest/seed"

// The fake's own types of the entities it keeps, which its Add methods take
// and its inspection methods return, are those of package seed, named here
// too so that a test needs only this package. Their JSON names are the
// fixtures format.
type (
	// Customer is a customer of the fake's account: [seed.Customer].
	Customer = seed.Customer
	// Invoice is a posted invoice: [seed.Invoice].
	Invoice = seed.Invoice
	// Charge is one line of a posted invoice: [seed.Charge].
	Charge = seed.Charge
	// DraftInvoice is an invoice not posted yet: [seed.DraftInvoice].
	DraftInvoice = seed.DraftInvoice
	// DraftLine is one line of a draft invoice: [seed.DraftLine].
	DraftLine = seed.DraftLine
	// CreditCard is a customer's credit card: [seed.CreditCard].
	CreditCard = seed.CreditCard
	// WalletMethod is a customer's wallet: [seed.WalletMethod].
	WalletMethod = seed.WalletMethod
	// Subscription is a customer's subscription: [seed.Subscription].
	Subscription = seed.Subscription
	// SubscriptionProduct is a product of a subscription:
	// [seed.SubscriptionProduct].
	SubscriptionProduct = seed.SubscriptionProduct
	// SubscriptionProductItem is a tracked item of a subscription product:
	// [seed.SubscriptionProductItem].
	SubscriptionProductItem = seed.SubscriptionProductItem
	// SalesTrackingCode is a sales tracking code: [seed.SalesTrackingCode].
	SalesTrackingCode = seed.SalesTrackingCode
	// BulkJob is a bulk job: [seed.BulkJob].
	BulkJob = seed.BulkJob
)

package billingtest

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/ledger"
	"github.com/billingapi/billing-go/billingtest/internal/scale"
)

// chargeMode says how an invoice's lines are rendered.
type chargeMode int

const (
	chargesEmpty   chargeMode = iota // list-all: no line-item breakdown
	chargesFlat                      // by-customer list and read
	chargesGrouped                   // read with groupCharges, write-off answer
)

// jsonNull is how the service sends an absent value whose shape the
// reference does not show: null, not a missing key.
var jsonNull = json.RawMessage(`null`)

// ptr is v as the service sends an optional member: null for the zero value.
func ptr[T comparable](v T) *T {
	if v == *new(T) {
		return nil
	}
	return &v
}

func uri(kind string, id int64) *string {
	u := "/v1/" + kind + "/" + strconv.FormatInt(id, 10)
	return &u
}

// renderInvoice turns a stored invoice into the API's answer.
func (st *store) renderInvoice(inv *Invoice, mode chargeMode, showTracked bool) billing.Invoice {
	cust := st.customers[inv.CustomerID]
	out := billing.Invoice{
		ID:                 inv.ID,
		URI:                uri("Invoices", inv.ID),
		InvoiceNumber:      inv.InvoiceNumber,
		InvoiceSignature:   scale.InvoiceSignature,
		PoNumber:           ptr(inv.PoNumber),
		EffectiveTimestamp: billing.NewTimestamp(inv.EffectiveTimestamp),
		PostedTimestamp:    billing.NewTimestamp(inv.PostedTimestamp),
		ModifiedTimestamp:  billing.NewTimestamp(inv.ModifiedTimestamp),
		Subtotal:           ledger.SumCharges(inv),
		InvoiceAmount:      ledger.Amount(inv),
		TotalPayments:      inv.TotalPayments,
		OutstandingBalance: ledger.Outstanding(inv),
		Terms:              inv.Terms,
		DefaultTerms:       "Net30",
		IsDefaultTerms:     strings.EqualFold(inv.Terms, "Net30"),
		CustomerID:         inv.CustomerID,
		SumOfCreditNotes:   inv.SumOfCreditNotes,
		TotalWriteoffs:     inv.TotalWriteoffs,
		Taxes:              json.RawMessage(`[]`),
		TotalTaxes:         inv.TotalTaxes,
		TotalDiscount:      inv.TotalDiscount,
		PaymentSchedules:   append([]billing.PaymentSchedule{}, inv.PaymentSchedules...),
		Notes:              ptr(inv.Notes),
		OpeningArBalance:   inv.OpeningArBalance,
		ClosingArBalance:   inv.ClosingArBalance,
		InvoiceRevisions:   json.RawMessage(`[]`),
	}
	out.Unsettled = out.OutstandingBalance.IsPositive()
	if cust != nil {
		out.InvoiceCustomer = renderSnapshot(cust)
		out.InvoiceCustomerAddressPreference = &billing.AddressPreference{UseBillingAddressAsShippingAddress: true}
		out.CustomerReferenceValue = ptr(cust.Reference)
	}
	switch mode {
	case chargesEmpty:
		out.Charges = []billing.Charge{}
	case chargesFlat:
		out.Charges = st.renderCharges(inv.Charges, showTracked)
	case chargesGrouped:
		out.ChargeGroups = st.renderGroups(inv, showTracked)
	}
	return out
}

// renderSnapshot is the customer as embedded in an invoice: as in the
// service's snapshots, its id is 0 and many fields are null.
func renderSnapshot(c *Customer) *billing.InvoiceCustomer {
	currency := cmp.Or(c.Currency, "USD")
	return &billing.InvoiceCustomer{
		FirstName:                  ptr(c.FirstName),
		MiddleName:                 ptr(c.MiddleName),
		LastName:                   ptr(c.LastName),
		CompanyName:                ptr(c.CompanyName),
		Suffix:                     ptr(c.Suffix),
		PrimaryEmail:               ptr(c.PrimaryEmail),
		PrimaryPhone:               ptr(c.PrimaryPhone),
		Title:                      ptr(c.Title),
		Reference:                  ptr(c.Reference),
		Status:                     c.Status,
		CustomerAccountStatus:      c.AccountStatus,
		Currency:                   &currency,
		CustomerReference:          jsonNull,
		CustomerAcquisition:        jsonNull,
		MonthlyRecurringRevenue:    c.MonthlyRecurringRevenue,
		NetMonthlyRecurringRevenue: c.NetMRR,
		CrmID:                      ptr(c.CrmID),
		ErpID:                      ptr(c.ErpID),
		ParentID:                   ptr(c.ParentID),
		ModifiedTimestamp:          billing.NewTimestamp(c.ModifiedTimestamp),
		CreatedTimestamp:           billing.NewTimestamp(c.CreatedTimestamp),
	}
}

func (st *store) renderCharges(charges []Charge, showTracked bool) []billing.Charge {
	out := make([]billing.Charge, 0, len(charges))
	for i := range charges {
		c := &charges[i]
		if c.Tracked && !showTracked {
			continue
		}
		rc := billing.Charge{
			ID:                 c.ID,
			URI:                uri("Charges", c.ID),
			Quantity:           c.Quantity,
			UnitPrice:          c.UnitPrice,
			Amount:             c.Amount,
			Name:               c.Name,
			Description:        ptr(c.Description),
			GLCode:             c.GLCode,
			EffectiveTimestamp: billing.NewTimestamp(c.EffectiveTimestamp),
			StartServiceDate:   billing.NewTimestamp(c.StartServiceDate),
			EndServiceDate:     billing.NewTimestamp(c.EndServiceDate),
			IsReversable:       true,
			Discount:           jsonNull,
			Discounts:          json.RawMessage(`[]`),
			Purchase:           jsonNull,
			ChargeTiers:        []billing.ChargeTier{},
			ErpLocationID:      jsonNull,
		}
		if c.SubscriptionProductID != 0 {
			rc.SubscriptionProduct = &billing.ResourceRef{ID: c.SubscriptionProductID, URI: uri("SubscriptionProducts", c.SubscriptionProductID)}
		}
		if c.PurchaseID != 0 {
			rc.Purchase = json.RawMessage(`{"id":` + strconv.FormatInt(c.PurchaseID, 10) + `}`)
		}
		out = append(out, rc)
	}
	return out
}

// renderGroups groups the charges by subscription or by purchase, in the
// order each group first appears.
func (st *store) renderGroups(inv *Invoice, showTracked bool) []billing.ChargeGroup {
	type key struct {
		subscription, purchase int64
	}
	var order []key
	byKey := map[key][]Charge{}
	for _, c := range inv.Charges {
		k := key{subscription: c.SubscriptionID}
		if c.SubscriptionID == 0 {
			k = key{purchase: c.PurchaseID}
		}
		if _, seen := byKey[k]; !seen {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], c)
	}
	groups := make([]billing.ChargeGroup, 0, len(order))
	for _, k := range order {
		charges := byKey[k]
		g := billing.ChargeGroup{Charges: st.renderCharges(charges, showTracked)}
		if len(g.Charges) == 0 {
			continue // all its charges are tracked items, which are hidden
		}
		if k.subscription != 0 {
			g.SubscriptionID = &k.subscription
			if sub := st.subscriptions[k.subscription]; sub != nil {
				g.Name = sub.Name
				g.Description = ptr(sub.Description)
				g.Reference = ptr(sub.Reference)
			} else {
				g.Name = "Subscription " + strconv.FormatInt(k.subscription, 10)
			}
		} else {
			g.Name = charges[0].Name
			g.Description = ptr(charges[0].Description)
		}
		groups = append(groups, g)
	}
	return groups
}

// renderSummary turns a stored invoice into an invoice summary.
func (st *store) renderSummary(inv *Invoice, now time.Time) billing.InvoiceSummary {
	cust := st.customers[inv.CustomerID]
	sum := billing.InvoiceSummary{
		ID:                 inv.ID,
		URI:                uri("Invoices", inv.ID),
		CustomerID:         inv.CustomerID,
		EffectiveTimestamp: billing.NewTimestamp(inv.EffectiveTimestamp),
		PostedTimestamp:    billing.NewTimestamp(inv.PostedTimestamp),
		DueDate:            billing.NewTimestamp(ledger.DueDate(inv)),
		ModifiedTimestamp:  billing.NewTimestamp(inv.ModifiedTimestamp),
		InvoiceStatus:      ledger.Status(inv, now),
		InvoiceNumber:      strconv.FormatInt(inv.InvoiceNumber, 10),
		InvoiceAmount:      ledger.Amount(inv),
		SumOfCharges:       ledger.SumCharges(inv),
		TotalPayments:      inv.TotalPayments,
		TotalCreditNotes:   inv.SumOfCreditNotes,
		Writeoffs:          inv.TotalWriteoffs,
		OutstandingBalance: ledger.Outstanding(inv),
		Currency:           "USD",
		TaxServiceID:       jsonNull,
	}
	sum.Unsettled = sum.OutstandingBalance.IsPositive()
	if cust != nil {
		sum.Reference = ptr(cust.Reference)
		sum.CompanyName = ptr(cust.CompanyName)
		sum.CustomerParentID = ptr(cust.ParentID)
		sum.CustomerName = strings.TrimSpace(cust.FirstName + " " + cust.LastName)
		sum.Currency = cmp.Or(cust.Currency, sum.Currency)
	}
	return sum
}

// renderCard is a credit card as the API returns it: masked number only.
func renderCard(c *CreditCard) billing.CreditCard {
	return billing.CreditCard{
		ID:                      c.ID,
		URI:                     uri("paymentMethods", c.ID),
		CustomerID:              c.CustomerID,
		MaskedCardNumber:        "************" + c.Last4,
		CardType:                c.CardType,
		FirstName:               c.FirstName,
		LastName:                c.LastName,
		ExpirationMonth:         c.ExpirationMonth,
		ExpirationYear:          c.ExpirationYear,
		Address1:                ptr(c.Address1),
		Address2:                ptr(c.Address2),
		CountryID:               ptr(c.CountryID),
		StateID:                 ptr(c.StateID),
		City:                    ptr(c.City),
		PostalZip:               ptr(c.PostalZip),
		IsDefault:               c.IsDefault,
		ModifiedDate:            billing.NewTimestamp(c.ModifiedDate),
		OriginalPaymentMethodID: ptr(c.OriginalPaymentMethodID),
	}
}

package scale

import (
	"math"
	"strings"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/shopspring/decimal"
)

// invoiceRecord is how the store keeps a posted invoice: the same facts as
// a [seed.Invoice], packed. Kept as Invoice values, a generated invoice with
// its charges and schedule took about 1.6 KB of heap in some 15 objects
// (fixed-size time.Time and decimal.Decimal fields, a big.Int behind most
// amounts, a header per string); as a record it takes about 570 bytes in
// 4, which is what lets the fake hold a million invoices within its
// memory goal. Times are UTC nanoseconds, amounts an int64 coefficient
// and an int8 exponent, and the strings of an invoice or a charge one
// string with the offsets where each ends.
//
// The packed form holds exactly what typical data has. An invoice with a
// value it cannot hold exactly (a time that is not UTC or is outside
// 1678-2262, an amount beyond 18 digits, a long text, a charge's id
// beyond an int32, a schedule status the fake does not give, a schedule
// with Extra members) is kept whole instead: whole is then set, and only id
// and customerID are filled besides. Either way, invoice gives back an
// Invoice equal to the one stored.
type invoiceRecord struct {
	id, customerID, invoiceNumber, accountingID int64
	// created, effective, posted, modified are instants (see fits.time).
	created, effective, posted, modified int64
	amounts                              [recAmounts]int64 // coefficients, by the rec* indexes
	exps                                 [recAmounts]int8
	// subtotal is the sum of the charges' amounts, for the list of all
	// invoices: reading the charges for it was, at a million invoices,
	// a miss of the caches on every invoice listed. A sum beyond an
	// int64 is left to the listing (subtotalWide).
	subtotalExp int8
	subtotal    int64
	// ends are where poNumber, erpID, crmID, notes and terms end in text;
	// the status follows.
	ends         [5]uint16
	subtotalWide bool
	// customerSlot is the customer's in the store's customerCache.
	customerSlot int32
	text         string
	charges      []chargeRecord
	schedules    []scheduleRecord
	whole        *seed.Invoice
}

// The amounts of an invoiceRecord.
const (
	recTaxes = iota
	recDiscount
	recPayments
	recCreditNotes
	recOpening
	recClosing
	recWriteoffs
	recAmounts
)

// chargeRecord is a packed [seed.Charge]; text is name, description and GL
// code, ending at ends[0], ends[1] and len(text). Its ids are int32s,
// which a generated account's fit many times over: 88 bytes a charge, not
// 104, which at three charges an invoice is what keeps a million of them
// within the fake's memory goal.
type chargeRecord struct {
	text                                         string
	quantity, unitPrice, amount                  int64
	effective, start, end                        int64
	id                                           int32
	subscriptionID, subscriptionProductID, purID int32
	ends                                         [2]uint16
	exps                                         [3]int8
	tracked                                      bool
}

// scheduleRecord is a packed billing.PaymentSchedule without Extra, its
// status one of scheduleStatus's: 32 bytes, not 48 with the status's
// string.
type scheduleRecord struct {
	due                 int64
	amount, outstanding int64
	days                int32
	exps                [2]int8
	status              uint8
}

// scheduleStatus is the status a scheduleRecord holds as i; the statuses
// the fake gives, and "" for none. Another keeps its invoice whole.
func scheduleStatus(i uint8) billing.PaymentScheduleStatus {
	switch i {
	case 1:
		return billing.PaymentScheduleStatusDue
	case 2:
		return "Paid"
	case 3:
		return billing.PaymentScheduleStatusWrittenOff
	}
	return ""
}

// fits packs the values of one record and remembers whether each gave
// back exactly what it was given; a record with one that does not is kept
// whole.
type fits bool

// time is t as UTC nanoseconds; a location other than UTC, or a time out
// of range, does not fit.
func (f *fits) time(t time.Time) int64 {
	switch {
	case t == (time.Time{}):
		return filter.ZeroInstant
	case t.Location() != time.UTC || t.Before(filter.MinInstant) || t.After(filter.MaxInstant):
		*f = false
		return 0
	}
	return t.UnixNano()
}

// amount is d's coefficient, its exponent going to exp; they must fit an
// int64 and an int8.
func (f *fits) amount(d decimal.Decimal, exp *int8) int64 {
	e := d.Exponent()
	if e < math.MinInt8 || e > math.MaxInt8 || d.NumDigits() > 18 {
		*f = false
		return 0
	}
	*exp = int8(e)
	return d.CoefficientInt64()
}

func (f *fits) id(id int64) int32 {
	if id < math.MinInt32 || id > math.MaxInt32 {
		*f = false
	}
	return int32(id)
}

// status is the index of s for scheduleStatus.
func (f *fits) status(s billing.PaymentScheduleStatus) uint8 {
	for i := range uint8(4) {
		if scheduleStatus(i) == s {
			return i
		}
	}
	*f = false
	return 0
}

// texts joins parts into one string and writes to ends where each part
// but the last ends; the parts must fit uint16 offsets.
func (f *fits) texts(ends []uint16, parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n > math.MaxUint16 {
		*f = false
		return ""
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range parts {
		b.WriteString(p)
		if i < len(ends) {
			ends[i] = uint16(b.Len())
		}
	}
	return b.String()
}

func unpackTime(n int64) time.Time {
	if n == filter.ZeroInstant {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func unpackDecimal(coef int64, exp int8) decimal.Decimal {
	switch {
	case exp != 0:
	case coef == 0:
		return decimal.Decimal{} // the zero value, without a big.Int
	case coef > 0 && coef < int64(len(smallDecimals)):
		return smallDecimals[coef]
	}
	return decimal.New(coef, int32(exp))
}

// smallDecimals are the whole numbers below 256, most quantities, built
// once: a decimal never changes its big.Int, so every invoice built from a
// record can share them. Read only.
var smallDecimals = func() (d [256]decimal.Decimal) {
	for i := range d {
		d[i] = decimal.New(int64(i), 0)
	}
	return d
}()

// packer packs invoices. It remembers the texts of charges it has packed,
// so that a generator's charges, which repeat a catalogue, share them;
// the zero packer remembers nothing.
type packer struct {
	texts map[[3]string]string
}

// pack returns the record of inv, packed or whole (see invoiceRecord).
// The record shares nothing mutable with inv: the caller may keep using
// inv.
func (p *packer) pack(inv *seed.Invoice) invoiceRecord {
	ok := fits(true)
	r := invoiceRecord{id: inv.ID, customerID: inv.CustomerID, invoiceNumber: inv.InvoiceNumber, accountingID: inv.AccountingID,
		created: ok.time(inv.CreatedTimestamp), effective: ok.time(inv.EffectiveTimestamp),
		posted: ok.time(inv.PostedTimestamp), modified: ok.time(inv.ModifiedTimestamp)}
	for i, d := range amountsOf(inv) {
		r.amounts[i] = ok.amount(d, &r.exps[i])
	}
	r.text = ok.texts(r.ends[:], inv.PoNumber, inv.ErpID, inv.CrmID, inv.Notes, inv.Terms, string(inv.Status))
	if len(inv.Charges) > 0 {
		r.charges = make([]chargeRecord, len(inv.Charges))
		for i := range inv.Charges {
			r.charges[i] = p.packCharge(&inv.Charges[i], &ok)
		}
		// The exponent, a charge's, fits an int8.
		sum := r.chargesSum()
		r.subtotal, r.subtotalExp, r.subtotalWide = sum.coef, int8(sum.exp), sum.wide
	}
	if len(inv.PaymentSchedules) > 0 {
		r.schedules = make([]scheduleRecord, len(inv.PaymentSchedules))
		for i := range inv.PaymentSchedules {
			r.schedules[i] = packSchedule(&inv.PaymentSchedules[i], &ok)
		}
	}
	if !ok {
		return invoiceRecord{id: inv.ID, customerID: inv.CustomerID, whole: cloneInvoice(inv)}
	}
	return r
}

func (p *packer) packCharge(c *seed.Charge, ok *fits) chargeRecord {
	r := chargeRecord{tracked: c.Tracked, effective: ok.time(c.EffectiveTimestamp), start: ok.time(c.StartServiceDate), end: ok.time(c.EndServiceDate),
		id: ok.id(c.ID), subscriptionID: ok.id(c.SubscriptionID), subscriptionProductID: ok.id(c.SubscriptionProductID), purID: ok.id(c.PurchaseID)}
	r.quantity = ok.amount(c.Quantity, &r.exps[0])
	r.unitPrice = ok.amount(c.UnitPrice, &r.exps[1])
	r.amount = ok.amount(c.Amount, &r.exps[2])
	key := [3]string{c.Name, c.Description, c.GLCode}
	if text, known := p.texts[key]; known {
		r.text = text
		r.ends = [2]uint16{uint16(len(c.Name)), uint16(len(c.Name) + len(c.Description))}
		return r
	}
	r.text = ok.texts(r.ends[:], c.Name, c.Description, c.GLCode)
	if *ok && p.texts != nil {
		p.texts[key] = r.text
	}
	return r
}

func packSchedule(ps *billing.PaymentSchedule, ok *fits) scheduleRecord {
	r := scheduleRecord{due: ok.time(ps.DueDateTimestamp.Time), status: ok.status(ps.Status), days: int32(ps.DaysDueAfterTerm)}
	r.amount = ok.amount(ps.Amount, &r.exps[0])
	r.outstanding = ok.amount(ps.OutstandingBalance, &r.exps[1])
	if int(r.days) != ps.DaysDueAfterTerm || ps.Extra != nil {
		*ok = false
	}
	return r
}

// cloneInvoice copies inv with its own charges and schedules.
func cloneInvoice(inv *seed.Invoice) *seed.Invoice {
	c := *inv
	if inv.Charges != nil {
		c.Charges = append([]seed.Charge{}, inv.Charges...)
	}
	if inv.PaymentSchedules != nil {
		c.PaymentSchedules = append([]billing.PaymentSchedule{}, inv.PaymentSchedules...)
	}
	return &c
}

// invoice returns the stored invoice, a copy the caller may change.
func (r *invoiceRecord) invoice() *seed.Invoice {
	if r.whole != nil {
		return cloneInvoice(r.whole)
	}
	inv := &seed.Invoice{
		ID: r.id, CustomerID: r.customerID, InvoiceNumber: r.invoiceNumber, AccountingID: r.accountingID,
		CreatedTimestamp: unpackTime(r.created), EffectiveTimestamp: unpackTime(r.effective),
		PostedTimestamp: unpackTime(r.posted), ModifiedTimestamp: unpackTime(r.modified),
		PoNumber: r.field(recPoNumber), ErpID: r.field(recErpID), CrmID: r.field(recCrmID),
		Notes: r.field(recNotes), Terms: r.field(recTerms), Status: billing.InvoiceStatus(r.field(recStatus)),
		TotalTaxes:       r.amount(recTaxes),
		TotalDiscount:    r.amount(recDiscount),
		TotalPayments:    r.amount(recPayments),
		SumOfCreditNotes: r.amount(recCreditNotes),
		OpeningArBalance: r.amount(recOpening),
		ClosingArBalance: r.amount(recClosing),
		TotalWriteoffs:   r.amount(recWriteoffs),
	}
	if len(r.charges) > 0 {
		inv.Charges = make([]seed.Charge, len(r.charges))
		for i := range r.charges {
			c := &r.charges[i]
			inv.Charges[i] = seed.Charge{
				ID:   int64(c.id),
				Name: c.text[:c.ends[0]], Description: c.text[c.ends[0]:c.ends[1]], GLCode: c.text[c.ends[1]:],
				Quantity:           unpackDecimal(c.quantity, c.exps[0]),
				UnitPrice:          unpackDecimal(c.unitPrice, c.exps[1]),
				Amount:             unpackDecimal(c.amount, c.exps[2]),
				EffectiveTimestamp: unpackTime(c.effective), StartServiceDate: unpackTime(c.start), EndServiceDate: unpackTime(c.end),
				SubscriptionID: int64(c.subscriptionID), SubscriptionProductID: int64(c.subscriptionProductID), PurchaseID: int64(c.purID),
				Tracked: c.tracked,
			}
		}
	}
	// Stored schedules are never nil: a nil one was replaced by the
	// default when the invoice was added.
	inv.PaymentSchedules = make([]billing.PaymentSchedule, len(r.schedules))
	for i := range r.schedules {
		s := &r.schedules[i]
		inv.PaymentSchedules[i] = billing.PaymentSchedule{
			DueDateTimestamp:   billing.Timestamp{Time: unpackTime(s.due)},
			Status:             scheduleStatus(s.status),
			Amount:             unpackDecimal(s.amount, s.exps[0]),
			OutstandingBalance: unpackDecimal(s.outstanding, s.exps[1]),
			DaysDueAfterTerm:   int(s.days),
		}
	}
	return inv
}

// chargesSum is the sum of the amounts of r's packed charges.
func (r *invoiceRecord) chargesSum() amount {
	var sum amount
	for i := range r.charges {
		sum = sum.plus(amount{coef: r.charges[i].amount, exp: int32(r.charges[i].exps[2])})
	}
	return sum
}

func (r *invoiceRecord) amount(i int) decimal.Decimal {
	return unpackDecimal(r.amounts[i], r.exps[i])
}

// amountsOf is inv's amounts by the rec* indexes.
func amountsOf(inv *seed.Invoice) [recAmounts]decimal.Decimal {
	return [recAmounts]decimal.Decimal{
		recTaxes: inv.TotalTaxes, recDiscount: inv.TotalDiscount, recPayments: inv.TotalPayments,
		recCreditNotes: inv.SumOfCreditNotes, recOpening: inv.OpeningArBalance, recClosing: inv.ClosingArBalance,
		recWriteoffs: inv.TotalWriteoffs,
	}
}

// The texts of a packed record, by their order in text.
const (
	recPoNumber = iota
	recErpID
	recCrmID
	recNotes
	recTerms
	recStatus
)

// field is text i of a packed record.
func (r *invoiceRecord) field(i int) string {
	from, to := 0, len(r.text)
	if i > 0 {
		from = int(r.ends[i-1])
	}
	if i < len(r.ends) {
		to = int(r.ends[i])
	}
	return r.text[from:to]
}

// The fields that filters, sorts and churn read, without building the
// invoice. Read only.
var (
	number      = either(func(i *seed.Invoice) int64 { return i.InvoiceNumber }, func(r *invoiceRecord) int64 { return r.invoiceNumber })
	accounting  = either(func(i *seed.Invoice) int64 { return i.AccountingID }, func(r *invoiceRecord) int64 { return r.accountingID })
	createdAt   = either(func(i *seed.Invoice) time.Time { return i.CreatedTimestamp }, func(r *invoiceRecord) time.Time { return unpackTime(r.created) })
	effectiveAt = either(func(i *seed.Invoice) time.Time { return i.EffectiveTimestamp }, func(r *invoiceRecord) time.Time { return unpackTime(r.effective) })
	postedAt    = either(func(i *seed.Invoice) time.Time { return i.PostedTimestamp }, func(r *invoiceRecord) time.Time { return unpackTime(r.posted) })
	modifiedAt  = either(func(i *seed.Invoice) time.Time { return i.ModifiedTimestamp }, func(r *invoiceRecord) time.Time { return unpackTime(r.modified) })
	po          = either(func(i *seed.Invoice) string { return i.PoNumber }, func(r *invoiceRecord) string { return r.field(recPoNumber) })
	erp         = either(func(i *seed.Invoice) string { return i.ErpID }, func(r *invoiceRecord) string { return r.field(recErpID) })
	crm         = either(func(i *seed.Invoice) string { return i.CrmID }, func(r *invoiceRecord) string { return r.field(recCrmID) })
	opening     = either(func(i *seed.Invoice) decimal.Decimal { return i.OpeningArBalance }, func(r *invoiceRecord) decimal.Decimal { return r.amount(recOpening) })
	closing     = either(func(i *seed.Invoice) decimal.Decimal { return i.ClosingArBalance }, func(r *invoiceRecord) decimal.Decimal { return r.amount(recClosing) })
	// installments is the number of payment schedules.
	installments = either(func(i *seed.Invoice) int { return len(i.PaymentSchedules) }, func(r *invoiceRecord) int { return len(r.schedules) })
)

// either reads a field of a record: from the invoice of one kept whole,
// else packed.
func either[T any](whole func(*seed.Invoice) T, packed func(*invoiceRecord) T) func(*invoiceRecord) T {
	return func(r *invoiceRecord) T {
		if r.whole != nil {
			return whole(r.whole)
		}
		return packed(r)
	}
}

// packedAmount is amount i as coefficient and exponent, and false when
// the record is kept whole.
func (r *invoiceRecord) packedAmount(i int) (int64, int8, bool) {
	return r.amounts[i], r.exps[i], r.whole == nil
}

// Package ledger derives what an invoice owes from the facts the fake
// keeps of it (charges, taxes, payments, credit notes, write-offs and
// payment schedules), as the service keeps them: its amount, its
// instalments' balances, its due date and status.
package ledger

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/servable"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/shopspring/decimal"
)

// StatusPaid is a payment schedule status the reference does not
// list ("others can exist"): the fake uses it for a settled instalment.
const StatusPaid billing.PaymentScheduleStatus = "Paid"

// SumCharges is the sum of the invoice's charges.
func SumCharges(inv *seed.Invoice) decimal.Decimal {
	return SumOf(inv.Charges, func(c seed.Charge) decimal.Decimal { return c.Amount })
}

// SumOf adds up amount over xs.
func SumOf[T any](xs []T, amount func(T) decimal.Decimal) decimal.Decimal {
	total := decimal.Zero
	for _, x := range xs {
		total = total.Add(amount(x))
	}
	return total
}

// Amount is what the invoice charges: its charges, taxes and discount.
func Amount(inv *seed.Invoice) decimal.Decimal {
	return SumCharges(inv).Add(inv.TotalTaxes).Sub(inv.TotalDiscount)
}

// DefaultSchedule is one instalment for the whole balance, due after the
// payment terms.
func DefaultSchedule(inv *seed.Invoice) []billing.PaymentSchedule {
	amount := Amount(inv)
	outstanding := amount.Sub(inv.TotalPayments).Sub(inv.SumOfCreditNotes).Sub(inv.TotalWriteoffs)
	if outstanding.IsNegative() {
		outstanding = decimal.Zero
	}
	status := billing.PaymentScheduleStatusDue
	switch {
	case outstanding.IsPositive():
	case inv.TotalWriteoffs.IsPositive():
		status = billing.PaymentScheduleStatusWrittenOff
	default:
		status = StatusPaid
	}
	return []billing.PaymentSchedule{{
		DueDateTimestamp:   billing.NewTimestamp(inv.PostedTimestamp.AddDate(0, 0, servable.TermsDays(inv.Terms))),
		Status:             status,
		Amount:             amount,
		OutstandingBalance: outstanding,
		DaysDueAfterTerm:   servable.TermsDays(inv.Terms),
	}}
}

// Outstanding is what the invoice's instalments still owe.
func Outstanding(inv *seed.Invoice) decimal.Decimal {
	return SumOf(inv.PaymentSchedules, func(ps billing.PaymentSchedule) decimal.Decimal { return ps.OutstandingBalance })
}

// DueDate is the due date of the earliest instalment still owed, or of the
// last one when nothing is owed.
func DueDate(inv *seed.Invoice) time.Time {
	var due time.Time
	for _, ps := range inv.PaymentSchedules {
		if ps.OutstandingBalance.IsPositive() {
			return ps.DueDateTimestamp.Time
		}
		due = ps.DueDateTimestamp.Time
	}
	return due
}

// Status derives a summary's status from the balance, the due date
// and the clock, unless the seed forced one.
func Status(inv *seed.Invoice, now time.Time) billing.InvoiceStatus {
	if inv.Status != "" {
		return inv.Status
	}
	if !Outstanding(inv).IsPositive() {
		if inv.TotalWriteoffs.IsPositive() {
			return billing.InvoiceStatusWrittenOff
		}
		return billing.InvoiceStatusPaid
	}
	if now.After(DueDate(inv)) {
		return billing.InvoiceStatusOverdue
	}
	return billing.InvoiceStatusDue
}

// Rederive makes inv's payment schedules follow a change from
// before, as UpdateInvoice documents. The amounts it checks are those
// servable.Invoice then bounds.
func Rederive(before, inv *seed.Invoice) error {
	if inv.PaymentSchedules == nil {
		inv.PaymentSchedules = DefaultSchedule(inv)
		Settle(inv)
		return nil
	}
	if !sameSchedules(before.PaymentSchedules, inv.PaymentSchedules) {
		return nil // given, as AddInvoice takes them
	}
	amount, wasAmount := Amount(inv), Amount(before)
	if amount.Equal(wasAmount) && inv.TotalPayments.Equal(before.TotalPayments) && inv.SumOfCreditNotes.Equal(before.SumOfCreditNotes) {
		return nil // nothing that moves a balance changed
	}
	if !amount.Equal(wasAmount) {
		if len(inv.PaymentSchedules) != 1 {
			return fmt.Errorf("the amount changed from %s to %s, and its %d payment schedules cannot take it unchanged: set PaymentSchedules too (nil for one instalment of the whole amount)",
				wasAmount.String(), amount.String(), len(inv.PaymentSchedules))
		}
		inv.PaymentSchedules[0].Amount = amount
	}
	Settle(inv)
	return nil
}

// Settle sets the balances of inv's instalments from what its
// payments, credit notes and write-offs settle, applied in order.
func Settle(inv *seed.Invoice) {
	settled := inv.TotalPayments.Add(inv.SumOfCreditNotes).Add(inv.TotalWriteoffs)
	for i := range inv.PaymentSchedules {
		ps := &inv.PaymentSchedules[i]
		owed := decimal.Max(ps.Amount, decimal.Zero)
		paid := decimal.Min(decimal.Max(settled, decimal.Zero), owed)
		settled = settled.Sub(paid)
		ps.OutstandingBalance = owed.Sub(paid)
		switch {
		case ps.OutstandingBalance.IsPositive() && (ps.Status == StatusPaid || ps.Status == billing.PaymentScheduleStatusWrittenOff):
			ps.Status = billing.PaymentScheduleStatusDue
		case !ps.OutstandingBalance.IsPositive() && ps.Status != billing.PaymentScheduleStatusWrittenOff:
			ps.Status = StatusPaid
		}
	}
}

// sameSchedules reports whether two invoices' schedules are the same,
// amounts compared by value.
func sameSchedules(a, b []billing.PaymentSchedule) bool {
	return slices.EqualFunc(a, b, func(x, y billing.PaymentSchedule) bool {
		return x.DueDateTimestamp.Time.Equal(y.DueDateTimestamp.Time) && x.Status == y.Status &&
			x.Amount.Equal(y.Amount) && x.OutstandingBalance.Equal(y.OutstandingBalance) &&
			x.DaysDueAfterTerm == y.DaysDueAfterTerm && maps.EqualFunc(x.Extra, y.Extra, func(p, q json.RawMessage) bool { return string(p) == string(q) })
	})
}

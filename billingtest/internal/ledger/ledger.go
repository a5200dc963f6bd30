// Package ledger holds the fake's rules of amounts and times. It derives
// what an invoice owes from the facts the fake keeps of it (charges,
// taxes, payments, credit notes, write-offs and payment schedules), as the
// service keeps them: its amount, its instalments' balances, its due date
// and status. And it says what the fake can accept: what it can serve,
// and dump as fixtures that load back (the package doc of billingtest
// states the limits). The exported Add methods and the fixtures loader
// check times and amounts with Check, a walk by reflection that allocates
// only for an error; an invoice's are checked in its prologue by Invoice.
package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/billingapi/billing-go/internal/jsonwire"
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
		DueDateTimestamp:   billing.NewTimestamp(inv.PostedTimestamp.AddDate(0, 0, TermsDays(inv.Terms))),
		Status:             status,
		Amount:             amount,
		OutstandingBalance: outstanding,
		DaysDueAfterTerm:   TermsDays(inv.Terms),
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
// Invoice then bounds.
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

// maxTermsDays is the longest payment terms, in days, that can give a due
// date the API can write: from 0001-01-01 to 9999-12-31.
const maxTermsDays = 3_652_058

// timeWritable reports whether t is none (the zero time) or has a
// four-digit year in UTC, as the API writes timestamps.
func timeWritable(t time.Time) bool {
	return t.IsZero() || !t.Before(firstWritable) && t.Before(pastWritable)
}

// The instants of four-digit UTC years, compared as instants rather than
// by computing a year: every time of every invoice added is checked.
var (
	firstWritable = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	pastWritable  = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// amountIntegerRun bounds the integer digits of an amount the fake
// accepts, as jsonwire.MaxDigitRun (the longest run the SDK and the
// fixtures loader read) bounds its decimal places, both counted before
// trailing zeros are dropped, so a little strictly. It is 16 less, so
// that the sums the fake derives (an invoice's amount, its balance: fewer
// than 10^16 terms) fit too. 1e300 would be written as 301 digits, which
// no reader of the API accepts.
const amountIntegerRun = jsonwire.MaxDigitRun - 16

// amountWritable reports whether d is within those bounds.
func amountWritable(d decimal.Decimal) bool {
	if d.IsZero() {
		return true
	}
	exp, digits := int64(d.Exponent()), int64(d.NumDigits())
	return digits+exp <= amountIntegerRun && -exp <= jsonwire.MaxDigitRun
}

// Schedule refuses an instalment the fake made (DefaultSchedule) whose
// amount or balance, sums it derived, is beyond what an amount given may
// be: the instalment is dumped as if given, and must load back.
func Schedule(ps billing.PaymentSchedule) error {
	for _, d := range [...]decimal.Decimal{ps.Amount, ps.OutstandingBalance} {
		if !amountWritable(d) {
			return errAmount(d)
		}
	}
	return nil
}

func errAmount(d decimal.Decimal) error {
	return fmt.Errorf("an amount of %d digits with exponent %d is beyond what the fake keeps: at most %d integer digits and %d decimal places, as the SDK reads no run of more than %d digits", d.NumDigits(), d.Exponent(), amountIntegerRun, jsonwire.MaxDigitRun, jsonwire.MaxDigitRun)
}

func errTime(t time.Time) error {
	return fmt.Errorf("%s is outside the years 1 to 9999, which the API cannot write", t.UTC().Format(time.RFC3339))
}

// Check checks every time.Time, billing.Timestamp and amount
// (decimal.Decimal) in *ptr, a struct, at any depth, naming the first
// that is not writable by its field path. It allocates only to report an
// error: the generator adds entities by the ten thousand.
func Check(ptr any) error {
	var rev []string // the path, innermost first
	var cause error
	if !unwritable(reflect.ValueOf(ptr), &rev, &cause) {
		return nil
	}
	var path strings.Builder
	for i := len(rev) - 1; i >= 0; i-- {
		if path.Len() > 0 && !strings.HasPrefix(rev[i], "[") {
			path.WriteByte('.')
		}
		path.WriteString(rev[i])
	}
	return fmt.Errorf("%s: %w", path.String(), cause)
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	timestampType = reflect.TypeFor[billing.Timestamp]()
	decimalType   = reflect.TypeFor[decimal.Decimal]()
)

// unwritable reports whether v holds a value the API cannot write; if
// so, cause says why and rev gets the path to it, innermost first.
func unwritable(v reflect.Value, rev *[]string, cause *error) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && unwritable(v.Elem(), rev, cause)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if unwritable(v.Index(i), rev, cause) {
				*rev = append(*rev, "["+strconv.Itoa(i)+"]")
				return true
			}
		}
	case reflect.Struct:
		switch v.Type() {
		case timeType:
			if t := valueOf[time.Time](v); !timeWritable(t) {
				*cause = errTime(t)
				return true
			}
			return false
		case timestampType:
			if t := valueOf[billing.Timestamp](v).Time; !timeWritable(t) {
				*cause = errTime(t)
				return true
			}
			return false
		case decimalType:
			if d := valueOf[decimal.Decimal](v); !amountWritable(d) {
				*cause = errAmount(d)
				return true
			}
			return false
		}
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanInterface() {
				continue // unexported
			}
			if unwritable(f, rev, cause) {
				*rev = append(*rev, v.Type().Field(i).Name)
				return true
			}
		}
	}
	return false
}

// valueOf reads v without boxing it when v is addressable, as everything
// under the pointer given to Check is.
func valueOf[T any](v reflect.Value) T {
	if v.CanAddr() {
		return *v.Addr().Interface().(*T)
	}
	return v.Interface().(T)
}

// Invoice checks an invoice's times and amounts (Check), and what its
// answers hold besides: its payment terms, and the due dates of its
// payment schedules, or of the one the fake makes when it has none (posted
// plus the terms' days).
func Invoice(inv *seed.Invoice) error {
	// Posted first: the other times default to it, and the error names
	// the one given.
	if !timeWritable(inv.PostedTimestamp) {
		return fmt.Errorf("PostedTimestamp: %w", errTime(inv.PostedTimestamp))
	}
	if err := Check(inv); err != nil {
		return err
	}
	days := TermsDays(inv.Terms)
	if days > maxTermsDays {
		return fmt.Errorf("the Terms %q reach beyond any due date the API can write (at most Net%d)", inv.Terms, maxTermsDays)
	}
	if inv.PaymentSchedules == nil {
		if due := inv.PostedTimestamp.AddDate(0, 0, days); !timeWritable(due) {
			return fmt.Errorf("the Terms %s after PostedTimestamp %s give a due date past 9999-12-31, which the API cannot write", inv.Terms, inv.PostedTimestamp.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// TermsDays reads "Net30" as 30; anything else is 30 days. A number of
// days beyond an int reads as maxTermsDays+1, so that Invoice refuses it
// as too many days on every platform instead of reading it as the
// default. It does not allocate: every invoice added reads its terms.
func TermsDays(terms string) int {
	if len(terms) >= 3 && strings.EqualFold(terms[:3], "net") {
		terms = terms[3:]
	}
	n, err := strconv.ParseInt(terms, 10, 64)
	switch {
	case err == nil && n >= 0 && n <= math.MaxInt:
		return int(n)
	case (err == nil || errors.Is(err, strconv.ErrRange)) && n > 0: // more than an int holds
		return maxTermsDays + 1
	}
	return 30
}

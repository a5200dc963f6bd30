package billingtest

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// What the fake accepts it must be able to serve, and dump as fixtures
// that load back: the API writes timestamps with four-digit years, ids as
// int64, and amounts that the SDK (and the fixtures loader) read only with
// runs of at most jsonwire.MaxDigitRun digits. Input that would break either is refused where it enters
// (the Add methods, UpdateInvoice, fixtures), with an error naming it,
// rather than stored and failing later in every answer that holds it.

// errIDsExhausted is the error of an entity that needs an id when the
// sequence has reached the largest int64.
var errIDsExhausted = errors.New("no id is left: the fake has given out or been given id 9223372036854775807, and an entity without an id would need a larger one")

// idsLeft reports whether n more ids can be assigned.
func (st *store) idsLeft(n int64) bool { return n <= math.MaxInt64-st.lastID }

// maxTermsDays is the longest payment terms, in days, that can give a due
// date the API can write: from 0001-01-01 to 9999-12-31.
const maxTermsDays = 3_652_058

// timeWritable reports whether t is none (the zero time) or has a
// four-digit year in UTC, as the API writes timestamps.
func timeWritable(t time.Time) bool {
	if t.IsZero() {
		return true
	}
	y := t.UTC().Year()
	return y >= 1 && y <= 9999
}

// amountWritable reports whether d is written with runs of at most
// jsonwire.MaxDigitRun digits: its integer part and its fraction (counted
// before trailing zeros are dropped, so a little strictly). 1e300 would be
// written as 301 digits, which no reader of the API accepts.
func amountWritable(d decimal.Decimal) bool {
	if d.IsZero() {
		return true
	}
	exp, digits := int64(d.Exponent()), int64(d.NumDigits())
	return digits+exp <= jsonwire.MaxDigitRun && -exp <= jsonwire.MaxDigitRun
}

func errAmount(field string, d decimal.Decimal) error {
	return fmt.Errorf("%s: an amount of %d digits with exponent %d is written with a run of more than %d digits, which the SDK refuses to read", field, d.NumDigits(), d.Exponent(), jsonwire.MaxDigitRun)
}

func errTime(field string, t time.Time) error {
	return fmt.Errorf("%s: %s is outside the years 1 to 9999, which the API cannot write", field, t.UTC().Format(time.RFC3339))
}

// checkTimes checks every time.Time, billing.Timestamp and amount
// (decimal.Decimal) in v, a struct or a pointer to one, at any depth,
// naming the first that is not writable by its field path.
func checkTimes(v any) error {
	return checkTimesValue(reflect.ValueOf(v), "")
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	timestampType = reflect.TypeFor[billing.Timestamp]()
	// decimalType is bind.go's.
)

func checkTimesValue(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkTimesValue(v.Elem(), path)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := checkTimesValue(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		switch v.Type() {
		case timeType:
			if t := v.Interface().(time.Time); !timeWritable(t) {
				return errTime(path, t)
			}
			return nil
		case timestampType:
			if t := v.Interface().(billing.Timestamp).Time; !timeWritable(t) {
				return errTime(path, t)
			}
			return nil
		case decimalType:
			if d := v.Interface().(decimal.Decimal); !amountWritable(d) {
				return errAmount(path, d)
			}
			return nil
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			name := f.Name
			if path != "" {
				name = path + "." + name
			}
			if err := checkTimesValue(v.Field(i), name); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkInvoiceWritable checks what an invoice's answers hold besides its
// own fields' times: its payment terms, and the due dates of its payment
// schedules, or of the one the fake makes when it has none (posted plus
// the terms' days). Explicit, not checkTimes: the generator adds a
// hundred thousand invoices.
func checkInvoiceWritable(inv *Invoice) error {
	for _, f := range []struct {
		name string
		t    time.Time
	}{
		// Posted first: the others default to it.
		{"PostedTimestamp", inv.PostedTimestamp}, {"EffectiveTimestamp", inv.EffectiveTimestamp},
		{"CreatedTimestamp", inv.CreatedTimestamp}, {"ModifiedTimestamp", inv.ModifiedTimestamp},
	} {
		if !timeWritable(f.t) {
			return errTime(f.name, f.t)
		}
	}
	for i := range inv.Charges {
		c := &inv.Charges[i]
		for _, f := range []struct {
			name string
			t    time.Time
		}{{"EffectiveTimestamp", c.EffectiveTimestamp}, {"StartServiceDate", c.StartServiceDate}, {"EndServiceDate", c.EndServiceDate}} {
			if !timeWritable(f.t) {
				return errTime(fmt.Sprintf("Charges[%d].%s", i, f.name), f.t)
			}
		}
	}
	for _, f := range []struct {
		name string
		d    decimal.Decimal
	}{
		{"TotalTaxes", inv.TotalTaxes}, {"TotalDiscount", inv.TotalDiscount}, {"TotalPayments", inv.TotalPayments},
		{"SumOfCreditNotes", inv.SumOfCreditNotes}, {"OpeningArBalance", inv.OpeningArBalance},
		{"ClosingArBalance", inv.ClosingArBalance}, {"totalWriteoffs", inv.totalWriteoffs},
	} {
		if !amountWritable(f.d) {
			return errAmount(f.name, f.d)
		}
	}
	for i := range inv.Charges {
		c := &inv.Charges[i]
		for _, f := range []struct {
			name string
			d    decimal.Decimal
		}{{"Quantity", c.Quantity}, {"UnitPrice", c.UnitPrice}, {"Amount", c.Amount}} {
			if !amountWritable(f.d) {
				return errAmount(fmt.Sprintf("Charges[%d].%s", i, f.name), f.d)
			}
		}
	}
	for i := range inv.PaymentSchedules {
		ps := &inv.PaymentSchedules[i]
		if !amountWritable(ps.Amount) {
			return errAmount(fmt.Sprintf("PaymentSchedules[%d].Amount", i), ps.Amount)
		}
		if !amountWritable(ps.OutstandingBalance) {
			return errAmount(fmt.Sprintf("PaymentSchedules[%d].OutstandingBalance", i), ps.OutstandingBalance)
		}
	}
	if d := invoiceAmount(inv); !amountWritable(d) {
		return errAmount("the invoice's amount (its charges plus TotalTaxes less TotalDiscount)", d)
	}
	days := termsDays(inv.Terms)
	if days > maxTermsDays {
		return fmt.Errorf("the Terms %q reach beyond any due date the API can write (at most Net%d)", inv.Terms, maxTermsDays)
	}
	if inv.PaymentSchedules == nil {
		if due := inv.PostedTimestamp.AddDate(0, 0, days); !timeWritable(due) {
			return fmt.Errorf("the Terms %s after PostedTimestamp %s give a due date past 9999-12-31, which the API cannot write", inv.Terms, inv.PostedTimestamp.UTC().Format(time.RFC3339))
		}
	}
	for i := range inv.PaymentSchedules {
		if t := inv.PaymentSchedules[i].DueDateTimestamp.Time; !timeWritable(t) {
			return errTime(fmt.Sprintf("PaymentSchedules[%d].DueDateTimestamp", i), t)
		}
	}
	return nil
}

package scale

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/shopspring/decimal"
)

// recordInvoice is a typical invoice, which packs.
func recordInvoice() seed.Invoice {
	posted := time.Date(2024, 3, 1, 2, 0, 0, 123456700, time.UTC)
	return seed.Invoice{
		ID: 42, CustomerID: 7, InvoiceNumber: 1042, PoNumber: "PO-00042",
		CreatedTimestamp: posted.Add(-time.Hour), EffectiveTimestamp: posted, PostedTimestamp: posted,
		ModifiedTimestamp: posted.AddDate(0, 0, 3), Terms: "Net30",
		Charges: []seed.Charge{
			{ID: 43, Name: "Additional user", Description: "Professional plan", GLCode: "4010",
				Quantity: decimal.New(3, 0), UnitPrice: decimal.New(14125, -3), Amount: decimal.New(42375, -3),
				EffectiveTimestamp: posted, StartServiceDate: posted, EndServiceDate: posted.AddDate(0, 1, 0),
				SubscriptionID: 9, SubscriptionProductID: 10},
			{ID: 44, Name: "SIM card", Description: "Data SIM", GLCode: "4700",
				Quantity: decimal.New(2, 0), UnitPrice: decimal.New(750, -2), Amount: decimal.New(1500, -2),
				EffectiveTimestamp: posted, StartServiceDate: posted, EndServiceDate: posted, PurchaseID: 11, Tracked: true},
		},
		TotalTaxes: decimal.New(745, -2), TotalDiscount: decimal.Zero, TotalPayments: decimal.New(-5, 0),
		SumOfCreditNotes: decimal.Decimal{}, OpeningArBalance: decimal.New(1000, 1), ClosingArBalance: decimal.New(123456789012345678, -4),
		PaymentSchedules: []billing.PaymentSchedule{{
			DueDateTimestamp: billing.NewTimestamp(posted.AddDate(0, 0, 30)), Status: billing.PaymentScheduleStatusDue,
			Amount: decimal.New(64825, -3), OutstandingBalance: decimal.New(64825, -3), DaysDueAfterTerm: 30,
		}},
		ErpID: "ERP-INV-000042", CrmID: "CRM-000042", AccountingID: 1234567, Notes: "Thank you for your business.",
		Status:         billing.InvoiceStatusDisputed,
		TotalWriteoffs: decimal.New(1, -2),
	}
}

// TestRecordRoundTrip checks that a record gives back the invoice it was
// made from, packed when the packed form holds it exactly and whole when
// it does not.
func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	paris := time.FixedZone("CET", 3600)
	for _, tc := range []struct {
		name   string
		change func(*seed.Invoice)
		whole  bool
	}{
		{"typical", func(*seed.Invoice) {}, false},
		{"empty texts and amounts", func(inv *seed.Invoice) {
			inv.PoNumber, inv.ErpID, inv.CrmID, inv.Notes, inv.Terms, inv.Status = "", "", "", "", "", ""
			inv.TotalTaxes, inv.ClosingArBalance, inv.TotalWriteoffs = decimal.Decimal{}, decimal.New(0, -2), decimal.Decimal{}
		}, false},
		{"no charges, no schedules", func(inv *seed.Invoice) { inv.Charges, inv.PaymentSchedules = nil, []billing.PaymentSchedule{} }, false},
		{"zero charge times", func(inv *seed.Invoice) {
			inv.Charges[0].EffectiveTimestamp, inv.Charges[0].StartServiceDate, inv.Charges[0].EndServiceDate = time.Time{}, time.Time{}, time.Time{}
		}, false},
		{"the Unix epoch is not the zero time", func(inv *seed.Invoice) { inv.Charges[1].EndServiceDate = time.Unix(0, 0).UTC() }, false},
		{"amount of 18 digits", func(inv *seed.Invoice) { inv.Charges[0].Amount = decimal.New(-999999999999999999, -127) }, false},
		{"empty Extra", func(inv *seed.Invoice) { inv.PaymentSchedules[0].Extra = billing.Extra{} }, true},
		{"a time not in UTC", func(inv *seed.Invoice) { inv.ModifiedTimestamp = inv.ModifiedTimestamp.In(paris) }, true},
		{"a charge time not in UTC", func(inv *seed.Invoice) {
			inv.Charges[1].StartServiceDate = inv.Charges[1].StartServiceDate.In(time.Local)
		}, true},
		{"an open-ended service", func(inv *seed.Invoice) {
			inv.Charges[0].EndServiceDate = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
		}, true},
		{"a time before 1678", func(inv *seed.Invoice) { inv.CreatedTimestamp = time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC) }, true},
		{"a due date beyond 2262", func(inv *seed.Invoice) {
			inv.PaymentSchedules[0].DueDateTimestamp = billing.NewTimestamp(time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC))
		}, true},
		{"amount of 19 digits", func(inv *seed.Invoice) { inv.TotalPayments = decimal.New(1234567890123456789, -2) }, true},
		{"amount beyond an int64", func(inv *seed.Invoice) {
			inv.Charges[1].UnitPrice = decimal.RequireFromString("123456789012345678901234567890.5")
		}, true},
		{"exponent beyond an int8", func(inv *seed.Invoice) { inv.OpeningArBalance = decimal.New(1, -200) }, true},
		{"charges adding up to 19 digits", func(inv *seed.Invoice) {
			inv.Charges[0].Amount, inv.Charges[1].Amount = decimal.New(9e17, -2), decimal.New(9e17, -2)
		}, false},
		{"charges adding up beyond an int64", func(inv *seed.Invoice) {
			inv.Charges[0].Amount, inv.Charges[1].Amount = decimal.New(999999999999999999, 0), decimal.New(1, -5)
		}, false},
		{"long notes", func(inv *seed.Invoice) { inv.Notes = strings.Repeat("n", 70_000) }, true},
		{"long charge description", func(inv *seed.Invoice) { inv.Charges[0].Description = strings.Repeat("d", 70_000) }, true},
		// An int holds no more than an int32 on 32-bit platforms.
		{"days beyond an int32", func(inv *seed.Invoice) { inv.PaymentSchedules[0].DaysDueAfterTerm = math.MaxInt }, math.MaxInt > math.MaxInt32},
		{"charge ids at the ends of an int32", func(inv *seed.Invoice) {
			inv.Charges[0].ID, inv.Charges[0].SubscriptionID = math.MaxInt32, math.MinInt32
			inv.Charges[1].SubscriptionProductID, inv.Charges[1].PurchaseID = -1, math.MaxInt32
		}, false},
		{"a charge id beyond an int32", func(inv *seed.Invoice) { inv.Charges[1].ID = math.MaxInt32 + 1 }, true},
		{"a subscription id beyond an int32", func(inv *seed.Invoice) { inv.Charges[0].SubscriptionID = 1 << 40 }, true},
		{"a subscription product id beyond an int32", func(inv *seed.Invoice) {
			inv.Charges[0].SubscriptionProductID = math.MinInt32 - 1
		}, true},
		{"a purchase id beyond an int32", func(inv *seed.Invoice) { inv.Charges[1].PurchaseID = math.MaxInt64 }, true},
		{"every schedule status the fake gives", func(inv *seed.Invoice) {
			ps := inv.PaymentSchedules[0]
			inv.PaymentSchedules = []billing.PaymentSchedule{ps, ps, ps, ps}
			inv.PaymentSchedules[1].Status = "Paid"
			inv.PaymentSchedules[2].Status = billing.PaymentScheduleStatusWrittenOff
			inv.PaymentSchedules[3].Status = ""
		}, false},
		{"another schedule status", func(inv *seed.Invoice) { inv.PaymentSchedules[0].Status = "paid" }, true},
		{"schedule with Extra", func(inv *seed.Invoice) {
			inv.PaymentSchedules[0].Extra = billing.Extra{"note": json.RawMessage(`"x"`)}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inv := recordInvoice()
			tc.change(&inv)
			want := cloneInvoice(&inv)
			rec := (&packer{}).pack(&inv)
			if got := rec.whole != nil; got != tc.whole {
				t.Errorf("kept whole: %v, want %v", got, tc.whole)
			}
			// The record shares nothing the caller may change.
			if len(inv.Charges) > 0 {
				inv.Charges[0].Name = "changed"
			}
			inv.PaymentSchedules = append(inv.PaymentSchedules[:0:0], billing.PaymentSchedule{})
			got := rec.invoice()
			if want.PaymentSchedules == nil {
				want.PaymentSchedules = []billing.PaymentSchedule{}
			}
			if diff := invoiceDiff(got, want); diff != "" {
				t.Fatalf("round trip: %s", diff)
			}
			// Changing what invoice returned leaves the record alone.
			if len(got.Charges) > 0 {
				got.Charges[0].Name = "changed again"
			}
			if diff := invoiceDiff(rec.invoice(), want); diff != "" {
				t.Errorf("after changing a returned copy: %s", diff)
			}
			// The fields filters read agree with the invoice.
			for _, f := range []struct {
				name      string
				got, want any
			}{
				{"number", number(&rec), want.InvoiceNumber}, {"accounting", accounting(&rec), want.AccountingID},
				{"created", createdAt(&rec), want.CreatedTimestamp}, {"effective", effectiveAt(&rec), want.EffectiveTimestamp},
				{"posted", postedAt(&rec), want.PostedTimestamp}, {"po", po(&rec), want.PoNumber},
				{"erp", erp(&rec), want.ErpID}, {"crm", crm(&rec), want.CrmID},
				{"opening", opening(&rec), want.OpeningArBalance}, {"closing", closing(&rec), want.ClosingArBalance},
				{"installments", installments(&rec), len(want.PaymentSchedules)},
			} {
				if d := valueDiff(reflect.ValueOf(f.got), reflect.ValueOf(f.want), f.name); d != "" {
					t.Errorf("%s", d)
				}
			}
			// The list of all invoices shows the charges' sum, kept.
			if rec.whole == nil {
				sum := decimal.Zero
				for _, c := range want.Charges {
					sum = sum.Add(c.Amount)
				}
				if got := rec.listing().subtotal.decimal(); !got.Equal(sum) {
					t.Errorf("subtotal %s, want %s", got, sum)
				}
			}
		})
	}
}

// TestPackerSharesCharges checks that a packer with texts gives equal
// charge texts one string.
func TestPackerSharesCharges(t *testing.T) {
	t.Parallel()
	p := &packer{texts: map[[3]string]string{}}
	a, b := recordInvoice(), recordInvoice()
	ra, rb := p.pack(&a), p.pack(&b)
	if unsafe.StringData(ra.charges[0].text) != unsafe.StringData(rb.charges[0].text) {
		t.Errorf("charge texts %q and %q are not one string", ra.charges[0].text, rb.charges[0].text)
	}
	if got := rb.invoice().Charges[0]; got.Name != "Additional user" || got.Description != "Professional plan" || got.GLCode != "4010" {
		t.Errorf("shared text read back as %q, %q, %q", got.Name, got.Description, got.GLCode)
	}
}

// invoiceDiff describes how two invoices differ, "" when they do not: every
// field, amounts by value and exponent, times by instant and location.
// (The module does without go-cmp; this is the cmp.Diff it would give.)
func invoiceDiff(got, want *seed.Invoice) string {
	if d := valueDiff(reflect.ValueOf(*got), reflect.ValueOf(*want), "Invoice"); d != "" {
		return d
	}
	return valueDiff(reflect.ValueOf(got.TotalWriteoffs), reflect.ValueOf(want.TotalWriteoffs), "Invoice.TotalWriteoffs")
}

var (
	recDecimalType = reflect.TypeFor[decimal.Decimal]()
	recTimeType    = reflect.TypeFor[time.Time]()
)

func valueDiff(got, want reflect.Value, path string) string {
	switch got.Type() {
	case recDecimalType:
		g, w := got.Interface().(decimal.Decimal), want.Interface().(decimal.Decimal)
		if !g.Equal(w) || g.Exponent() != w.Exponent() {
			return fmt.Sprintf("%s: %s (exponent %d), want %s (exponent %d)", path, g, g.Exponent(), w, w.Exponent())
		}
		return ""
	case recTimeType:
		g, w := got.Interface().(time.Time), want.Interface().(time.Time)
		if !g.Equal(w) || g.Location() != w.Location() || g.IsZero() != w.IsZero() {
			return fmt.Sprintf("%s: %v, want %v", path, g, w)
		}
		return ""
	}
	switch got.Kind() {
	case reflect.Struct:
		for i := range got.NumField() {
			if !got.Type().Field(i).IsExported() {
				continue // compared by the caller
			}
			if d := valueDiff(got.Field(i), want.Field(i), path+"."+got.Type().Field(i).Name); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Map:
		if got.IsNil() != want.IsNil() || got.Len() != want.Len() {
			return fmt.Sprintf("%s: %d items (nil %v), want %d (nil %v)", path, got.Len(), got.IsNil(), want.Len(), want.IsNil())
		}
		if got.Kind() == reflect.Map {
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				return fmt.Sprintf("%s: %v, want %v", path, got, want)
			}
			return ""
		}
		for i := range got.Len() {
			if d := valueDiff(got.Index(i), want.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if g, w := got.Interface(), want.Interface(); g != w {
		return fmt.Sprintf("%s: %v, want %v", path, g, w)
	}
	return ""
}

// TestInvoiceTable checks the table against a sorted slice of ids, with
// ids out of order, deletions and reused slots.
func TestInvoiceTable(t *testing.T) {
	t.Parallel()
	var tab invoiceTable
	var want []int64
	check := func(step string) {
		t.Helper()
		if !slices.Equal(tab.ids, want) || tab.len() != len(want) {
			t.Fatalf("%s: ids %v, want %v", step, tab.ids, want)
		}
		for i, id := range want {
			if got := tab.byPosition(i).id; got != id {
				t.Fatalf("%s: position %d holds %d, want %d", step, i, got, id)
			}
			if rec := tab.get(id); rec == nil || rec.id != id || rec.invoiceNumber != id*10 {
				t.Fatalf("%s: get(%d) = %+v", step, id, rec)
			}
		}
	}
	add := func(ids ...int64) {
		for _, id := range ids {
			tab.insert(invoiceRecord{id: id, invoiceNumber: id * 10})
			i, _ := slices.BinarySearch(want, id)
			want = slices.Insert(want, i, id)
		}
	}
	// More than a chunk, mostly ascending, some before the end.
	for id := int64(10); id < 10+2*invoiceChunk; id += 2 {
		add(id)
	}
	add(1, 11, 5, 2*invoiceChunk+100)
	check("after inserting")
	for _, id := range []int64{1, 11, 500, 2*invoiceChunk + 100} {
		if !tab.delete(id) {
			t.Fatalf("delete(%d) = false", id)
		}
		want = slices.DeleteFunc(want, func(x int64) bool { return x == id })
	}
	if tab.delete(3) || tab.get(3) != nil {
		t.Fatal("delete(3) or get(3) found an invoice never added")
	}
	check("after deleting")
	used := tab.used
	add(3, 4, 6, 7, 8)
	if tab.used != used+1 {
		t.Errorf("slots used %d after reusing 4 free ones for 5 records, want %d", tab.used, used+1)
	}
	check("after reusing slots")
}

// TestRecordSizes checks the sizes the memory goal was reckoned with: a
// field added or widened shows here, to be weighed against a million
// invoices of some three charges and one schedule each, and a hundred
// thousand customers. The goal is reckoned on 64-bit platforms; where
// pointers and ints take 4 bytes, the records are smaller.
func TestRecordSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		got, want, want32 uintptr
	}{
		{"invoiceRecord", unsafe.Sizeof(invoiceRecord{}), 224, 188}, // 8 of them the charges' sum
		{"customerBlock", unsafe.Sizeof(customerBlock{}), 384, 384}, // one a customer
		{"chargeRecord", unsafe.Sizeof(chargeRecord{}), 88, 80},
		{"scheduleRecord", unsafe.Sizeof(scheduleRecord{}), 32, 32},
	} {
		want := tc.want
		if unsafe.Sizeof(uintptr(0)) == 4 {
			want = tc.want32
		}
		if tc.got != want {
			t.Errorf("%s is %d bytes, want %d", tc.name, tc.got, want)
		}
	}
}

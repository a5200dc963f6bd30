package ledger

import (
	"math"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/shopspring/decimal"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

var posted = time.Date(2024, 3, 1, 2, 0, 0, 0, time.UTC)

func TestTermsDays(t *testing.T) {
	t.Parallel()
	for terms, want := range map[string]int{
		"Net30": 30, "net45": 45, "NET0": 0, "Net": 30, "": 30, "15": 15, "Net-5": 30, "Due on receipt": 30,
		"Net3652059": 3_652_059, "Net2147483647": math.MaxInt32,
		"Net99999999999999999999": maxTermsDays + 1, // beyond an int: too many days, not the default
	} {
		if got := TermsDays(terms); got != want {
			t.Errorf("TermsDays(%q) = %d, want %d", terms, got, want)
		}
	}
}

func TestInvoiceRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*seed.Invoice)
		want   string // a part of the error; "" for none
	}{
		{"writable", func(*seed.Invoice) {}, ""},
		{"posted in year 10000", func(inv *seed.Invoice) { inv.PostedTimestamp = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) },
			"PostedTimestamp: 10000-01-01T00:00:00Z is outside the years 1 to 9999"},
		{"a charge's amount of too many digits", func(inv *seed.Invoice) { inv.Charges[1].Amount = dec("1e250") },
			"Charges[1].Amount: an amount of 1 digits with exponent 250"},
		{"a fraction of too many places", func(inv *seed.Invoice) { inv.TotalTaxes = dec("1e-257") },
			"TotalTaxes: an amount of 1 digits with exponent -257"},
		{"a schedule's due date in year 0", func(inv *seed.Invoice) {
			inv.PaymentSchedules = []billing.PaymentSchedule{{DueDateTimestamp: billing.NewTimestamp(time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC))}}
		}, "PaymentSchedules[0].DueDateTimestamp"},
		{"terms beyond any date", func(inv *seed.Invoice) { inv.Terms = "Net9999999" }, `the Terms "Net9999999" reach beyond`},
		{"a default due date past 9999", func(inv *seed.Invoice) {
			inv.PostedTimestamp = time.Date(9999, 12, 1, 0, 0, 0, 0, time.UTC)
			inv.Terms = "Net60"
		}, "give a due date past 9999-12-31"},
		{"given schedules need no default due date", func(inv *seed.Invoice) {
			inv.PostedTimestamp = time.Date(9999, 12, 1, 0, 0, 0, 0, time.UTC)
			inv.Terms = "Net60"
			inv.PaymentSchedules = []billing.PaymentSchedule{{DueDateTimestamp: billing.NewTimestamp(inv.PostedTimestamp)}}
		}, ""},
	}
	for _, tc := range tests {
		inv := &seed.Invoice{PostedTimestamp: posted, Charges: []seed.Charge{{Amount: dec("10")}, {Amount: dec("5.5")}}}
		tc.change(inv)
		err := Invoice(inv)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want none", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

func TestDefaultScheduleAndSettle(t *testing.T) {
	t.Parallel()
	due := billing.NewTimestamp(posted.AddDate(0, 0, 15))
	tests := []struct {
		name string
		inv  seed.Invoice
		want []billing.PaymentSchedule
	}{
		{"owed", seed.Invoice{Terms: "Net15", TotalTaxes: dec("2"), TotalDiscount: dec("1"), TotalPayments: dec("3")},
			[]billing.PaymentSchedule{{DueDateTimestamp: due, Status: billing.PaymentScheduleStatusDue, Amount: dec("16.5"), OutstandingBalance: dec("13.5"), DaysDueAfterTerm: 15}}},
		{"paid", seed.Invoice{Terms: "Net15", TotalPayments: dec("10"), SumOfCreditNotes: dec("5.5")},
			[]billing.PaymentSchedule{{DueDateTimestamp: due, Status: StatusPaid, Amount: dec("15.5"), OutstandingBalance: decimal.Zero, DaysDueAfterTerm: 15}}},
		{"written off", seed.Invoice{Terms: "Net15", TotalPayments: dec("5.5"), TotalWriteoffs: dec("10")},
			[]billing.PaymentSchedule{{DueDateTimestamp: due, Status: billing.PaymentScheduleStatusWrittenOff, Amount: dec("15.5"), OutstandingBalance: decimal.Zero, DaysDueAfterTerm: 15}}},
		{"overpaid owes nothing", seed.Invoice{Terms: "Net15", TotalPayments: dec("20")},
			[]billing.PaymentSchedule{{DueDateTimestamp: due, Status: StatusPaid, Amount: dec("15.5"), OutstandingBalance: decimal.Zero, DaysDueAfterTerm: 15}}},
	}
	for _, tc := range tests {
		inv := tc.inv
		inv.PostedTimestamp = posted
		inv.Charges = []seed.Charge{{Amount: dec("10")}, {Amount: dec("5.5")}}
		got := DefaultSchedule(&inv)
		if !sameSchedules(got, tc.want) {
			t.Errorf("%s: DefaultSchedule = %+v, want %+v", tc.name, got, tc.want)
		}
		// Settling what DefaultSchedule derived changes nothing.
		inv.PaymentSchedules = got
		Settle(&inv)
		if !sameSchedules(inv.PaymentSchedules, tc.want) {
			t.Errorf("%s: settled again = %+v, want %+v", tc.name, inv.PaymentSchedules, tc.want)
		}
	}
}

func TestSettleAppliesPaymentsInOrder(t *testing.T) {
	t.Parallel()
	first, second := billing.NewTimestamp(posted), billing.NewTimestamp(posted.AddDate(0, 1, 0))
	inv := seed.Invoice{TotalPayments: dec("60"), SumOfCreditNotes: dec("10"), PaymentSchedules: []billing.PaymentSchedule{
		{DueDateTimestamp: first, Amount: dec("50"), Status: billing.PaymentScheduleStatusDue},
		{DueDateTimestamp: second, Amount: dec("50"), Status: StatusPaid}, // owed again: Due
	}}
	Settle(&inv)
	want := []billing.PaymentSchedule{
		{DueDateTimestamp: first, Amount: dec("50"), OutstandingBalance: decimal.Zero, Status: StatusPaid},
		{DueDateTimestamp: second, Amount: dec("50"), OutstandingBalance: dec("30"), Status: billing.PaymentScheduleStatusDue},
	}
	if !sameSchedules(inv.PaymentSchedules, want) {
		t.Errorf("Settle = %+v, want %+v", inv.PaymentSchedules, want)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	owed := []billing.PaymentSchedule{{DueDateTimestamp: billing.NewTimestamp(posted), OutstandingBalance: dec("1")}}
	none := []billing.PaymentSchedule{{DueDateTimestamp: billing.NewTimestamp(posted), OutstandingBalance: decimal.Zero}}
	tests := []struct {
		name string
		inv  seed.Invoice
		now  time.Time
		want billing.InvoiceStatus
	}{
		{"forced", seed.Invoice{Status: billing.InvoiceStatusVoid, PaymentSchedules: owed}, posted, billing.InvoiceStatusVoid},
		{"due on the due date", seed.Invoice{PaymentSchedules: owed}, posted, billing.InvoiceStatusDue},
		{"overdue after it", seed.Invoice{PaymentSchedules: owed}, posted.Add(time.Second), billing.InvoiceStatusOverdue},
		{"paid", seed.Invoice{PaymentSchedules: none}, posted.AddDate(1, 0, 0), billing.InvoiceStatusPaid},
		{"written off", seed.Invoice{PaymentSchedules: none, TotalWriteoffs: dec("1")}, posted, billing.InvoiceStatusWrittenOff},
	}
	for _, tc := range tests {
		if got := Status(&tc.inv, tc.now); got != tc.want {
			t.Errorf("%s: Status = %q, want %q", tc.name, got, tc.want)
		}
	}
}

package billingtest

import (
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/ledger"
	"github.com/shopspring/decimal"
)

// balanceView is what UpdateInvoice keeps consistent, as the API shows
// it: amounts as their decimal text, so that views compare whole.
type balanceView struct {
	InvoiceAmount, TotalPayments, OutstandingBalance string
	Summary                                          billing.InvoiceStatus
	Schedules                                        []scheduleView
}

type scheduleView struct {
	Due                 string
	Status              billing.PaymentScheduleStatus
	Amount, Outstanding string
	Days                int
}

func viewBalance(t *testing.T, srv *Server, id int64) balanceView {
	t.Helper()
	inv, ok := srv.Invoice(id)
	sum, ok2 := srv.InvoiceSummary(id)
	if !ok || !ok2 {
		t.Fatalf("invoice %d is gone", id)
	}
	v := balanceView{InvoiceAmount: inv.InvoiceAmount.String(), TotalPayments: inv.TotalPayments.String(), OutstandingBalance: inv.OutstandingBalance.String(), Summary: sum.InvoiceStatus}
	for _, ps := range inv.PaymentSchedules {
		v.Schedules = append(v.Schedules, scheduleView{ps.DueDateTimestamp.Time.Format(time.DateOnly), ps.Status, ps.Amount.String(), ps.OutstandingBalance.String(), ps.DaysDueAfterTerm})
	}
	return v
}

func TestUpdateInvoiceKeepsTheBalanceConsistent(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	posted := time.Date(2025, 1, 10, 0, 0, 0, 0, time.UTC)
	due := billing.NewTimestamp(posted.AddDate(0, 0, 30))
	two := []billing.PaymentSchedule{
		{DueDateTimestamp: due, Status: billing.PaymentScheduleStatusDue, Amount: d("50"), OutstandingBalance: d("50"), DaysDueAfterTerm: 30},
		{DueDateTimestamp: billing.NewTimestamp(posted.AddDate(0, 0, 60)), Status: billing.PaymentScheduleStatusDue, Amount: d("50"), OutstandingBalance: d("50"), DaysDueAfterTerm: 60},
	}
	one := func(status billing.PaymentScheduleStatus, amount, outstanding string) []scheduleView {
		return []scheduleView{{"2025-02-09", status, amount, outstanding, 30}}
	}
	for _, tc := range []struct {
		name      string
		payments  string                    // seeded TotalPayments
		schedules []billing.PaymentSchedule // seeded; nil: one instalment
		writeOff  bool                      // written off before the change
		change    func(*Invoice)
		want      balanceView
		err       string
	}{
		{name: "a payment lowers the balance", change: func(inv *Invoice) { inv.TotalPayments = d("40") },
			want: balanceView{"100", "40", "60", billing.InvoiceStatusDue, one(billing.PaymentScheduleStatusDue, "100", "60")}},
		{name: "paid in full", change: func(inv *Invoice) { inv.TotalPayments = d("100") },
			want: balanceView{"100", "100", "0", billing.InvoiceStatusPaid, one(ledger.StatusPaid, "100", "0")}},
		{name: "overpaid", change: func(inv *Invoice) { inv.TotalPayments = d("150") },
			want: balanceView{"100", "150", "0", billing.InvoiceStatusPaid, one(ledger.StatusPaid, "100", "0")}},
		{name: "a payment lowered owes again", payments: "100", change: func(inv *Invoice) { inv.TotalPayments = d("40") },
			want: balanceView{"100", "40", "60", billing.InvoiceStatusDue, one(billing.PaymentScheduleStatusDue, "100", "60")}},
		{name: "a credit note", change: func(inv *Invoice) { inv.SumOfCreditNotes = d("25") },
			want: balanceView{"100", "0", "75", billing.InvoiceStatusDue, one(billing.PaymentScheduleStatusDue, "100", "75")}},
		{name: "nil schedules alone: one instalment, as in AddInvoice", change: func(inv *Invoice) { inv.PaymentSchedules = nil },
			want: balanceView{"100", "0", "100", billing.InvoiceStatusDue, one(billing.PaymentScheduleStatusDue, "100", "100")}},
		{name: "nil schedules with a payment", schedules: two, change: func(inv *Invoice) { inv.PaymentSchedules, inv.TotalPayments = nil, d("30") },
			want: balanceView{"100", "30", "70", billing.InvoiceStatusDue, one(billing.PaymentScheduleStatusDue, "100", "70")}},
		{name: "a charge changed: the only instalment follows", change: func(inv *Invoice) { inv.Charges[0].Amount = d("120") },
			want: balanceView{"120", "0", "120", billing.InvoiceStatusDue, one(billing.PaymentScheduleStatusDue, "120", "120")}},
		{name: "taxes with a payment", change: func(inv *Invoice) { inv.TotalTaxes, inv.TotalPayments = d("8.5"), d("8.5") },
			want: balanceView{"108.5", "8.5", "100", billing.InvoiceStatusDue, one(billing.PaymentScheduleStatusDue, "108.5", "100")}},
		{name: "instalments settled in order", schedules: two, change: func(inv *Invoice) { inv.TotalPayments = d("60") },
			want: balanceView{"100", "60", "40", billing.InvoiceStatusDue, []scheduleView{
				{"2025-02-09", ledger.StatusPaid, "50", "0", 30}, {"2025-03-11", billing.PaymentScheduleStatusDue, "50", "40", 60}}}},
		{name: "given schedules are taken as given", change: func(inv *Invoice) {
			inv.PaymentSchedules = []billing.PaymentSchedule{two[0], two[1]}
			inv.PaymentSchedules[1].OutstandingBalance = d("20")
		}, want: balanceView{"100", "0", "70", billing.InvoiceStatusDue, []scheduleView{
			{"2025-02-09", billing.PaymentScheduleStatusDue, "50", "50", 30}, {"2025-03-11", billing.PaymentScheduleStatusDue, "50", "20", 60}}}},
		{name: "a change that moves no money keeps the schedules", schedules: []billing.PaymentSchedule{{DueDateTimestamp: due, Status: billing.PaymentScheduleStatusDue, Amount: d("100"), OutstandingBalance: d("33"), DaysDueAfterTerm: 30}},
			change: func(inv *Invoice) { inv.Notes = "n" },
			want:   balanceView{"100", "0", "33", billing.InvoiceStatusDue, one(billing.PaymentScheduleStatusDue, "100", "33")}},
		{name: "written off, then paid: stays written off", writeOff: true, change: func(inv *Invoice) { inv.TotalPayments = d("10") },
			want: balanceView{"100", "10", "0", billing.InvoiceStatusWrittenOff, one(billing.PaymentScheduleStatusWrittenOff, "100", "0")}},
		{name: "several instalments cannot take a new amount", schedules: two, change: func(inv *Invoice) { inv.Charges[0].Amount = d("120") },
			err: "UpdateInvoice: invoice 2: the amount changed from 100 to 120, and its 2 payment schedules cannot take it unchanged: set PaymentSchedules too (nil for one instalment of the whole amount)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, err := NewHandler(WithClock(func() time.Time { return posted.AddDate(0, 0, 5) }))
			if err != nil {
				t.Fatal(err)
			}
			cust, _ := srv.AddCustomer(Customer{FirstName: "Ada"})
			payments := decimal.Zero
			if tc.payments != "" {
				payments = d(tc.payments)
			}
			id, err := srv.AddInvoice(Invoice{CustomerID: cust, PostedTimestamp: posted, TotalPayments: payments, PaymentSchedules: tc.schedules,
				Charges: []Charge{{Name: "Plan", Quantity: d("1"), UnitPrice: d("100"), Amount: d("100")}}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.writeOff {
				if err := srv.WriteOffInvoice(id); err != nil {
					t.Fatal(err)
				}
			}
			seeded := viewBalance(t, srv, id)
			err = srv.UpdateInvoice(id, tc.change)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				wantSame(t, "refused: the invoice as it was", viewBalance(t, srv, id), seeded)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantSame(t, "after the change", viewBalance(t, srv, id), tc.want)
			// The dump loads back to the same invoice.
			var buf strings.Builder
			if err := srv.DumpFixtures(&buf); err != nil {
				t.Fatal(err)
			}
			fresh, _ := NewHandler(WithClock(func() time.Time { return posted.AddDate(0, 0, 5) }))
			if err := fresh.LoadFixtures(strings.NewReader(buf.String())); err != nil {
				t.Fatal(err)
			}
			wantSame(t, "loaded back", viewBalance(t, fresh, id), tc.want)
		})
	}
}

package gen

import (
	"slices"
	"sort"
	"strconv"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/shopspring/decimal"
)

// This file makes what the customers are billed and pay with: posted
// invoices, drafts, credit cards; and the account's bulk jobs.

// purchase returns a quantity and a unit price of one-off product p, with
// amount = quantity × price never beyond four decimals.
func (g *generator) purchase(p int) (qty, price money) {
	cat := &purchases[p]
	c := cat.min + g.r.Int64N(cat.max-cat.min+1)
	switch cat.qty {
	case '1':
		qty = newMoney(1, 0)
	case 'u':
		n := 1 + g.r.Int64N(12)
		qty = newMoney(n, 0)
	case 'h':
		qty = newMoney(1+g.r.Int64N(32)*5, -1)
	case 'm':
		qty = newMoney(100+g.r.Int64N(5000), -2)
	}
	if qty.exp == 0 {
		// Whole quantities leave room for three or four price decimals.
		switch k := g.r.IntN(10); {
		case k < 3:
			return qty, newMoney(c*10+g.r.Int64N(10), -3)
		case k < 4:
			return qty, newMoney(c*100+g.r.Int64N(100), -4)
		}
	}
	return qty, newMoney(c, -2)
}

// runShare is the percentage of invoices posted by a monthly billing run
// rather than by hand.
const runShare = 60

// runOrAny moves most posting times to their month's billing run, which
// posts all its invoices within one second (02:00:00 UTC on the 1st, with
// sub-second times), as a real billing run does: many invoices then share
// one second of postedTimestamp, more than fit a page at scale.
func (g *generator) runOrAny(p time.Duration) time.Duration {
	if !g.pct(runShare) {
		return p
	}
	t := g.at(p)
	run := time.Date(t.Year(), t.Month(), 1, 2, 0, 0, 0, time.UTC)
	if run.Before(g.o.Start) || run.After(t) {
		return p
	}
	return run.Sub(g.o.Start) + g.between(0, time.Second)
}

func (g *generator) invoices() {
	n := g.o.Invoices
	posted := make([]time.Duration, n)
	for i := range posted {
		posted[i] = g.runOrAny(g.between(0, g.span))
	}
	// Sorted, so that ids and invoice numbers rise with the posting date.
	slices.Sort(posted)
	// Numbers continue from the largest, when Run is called again.
	number := max(g.sink.StartInvoices(n), 1000)
	// One invoice, charges and schedules serve every invoice: the sink
	// keeps nothing of them.
	var inv seed.Invoice
	chargeBuf := make([]seed.Charge, 0, 6)
	schedBuf := make([]billing.PaymentSchedule, 0, 2)
	for i := range posted {
		p := posted[i]
		// A customer that exists by then; binary search keeps this
		// O(log n).
		k := sort.Search(len(g.activeCreated), func(j int) bool { return g.activeCreated[j] > p })
		cust := &g.custs[g.active[g.r.IntN(max(k, 1))]]
		pt := g.at(p)
		number++
		terms := paymentTerms[cust.terms]
		inv = seed.Invoice{CustomerID: cust.c.ID, InvoiceNumber: number, PostedTimestamp: pt, EffectiveTimestamp: pt,
			CreatedTimestamp: g.at(max(cust.created, p-g.between(0, 2*day))), Terms: terms.name}

		// Charges: from one of the customer's subscriptions, from
		// purchases, or both, 1 to 6 in all.
		want := 1 + g.r.IntN(6)
		inv.Charges = chargeBuf[:0]
		var sub *subscription
		if len(cust.subs) > 0 && !g.pct(25) {
			// One of the subscriptions running by then, without a slice:
			// reservoir sampling over the customer's few.
			seen := 0
			for _, si := range cust.subs {
				s := &g.subs[si]
				if s.created <= p && s.sub.Status != billing.SubscriptionStatusDraft {
					seen++
					if g.r.IntN(seen) == 0 {
						sub = s
					}
				}
			}
		}
		var sub4 int64
		if sub != nil {
			periodEnd := pt.AddDate(0, sub.months, 0)
			for j := range sub.sub.Products {
				sp := &sub.sub.Products[j]
				price := sub.price[j]
				amount := price.v * sub.qty[j]
				inv.Charges = append(inv.Charges, seed.Charge{
					Name: sp.Name, Description: sub.sub.Description, GLCode: g.plans[sub.plan].products[j].gl,
					Quantity: decimal.New(sub.qty[j], 0), UnitPrice: price.d, Amount: decimal.New(amount, price.exp),
					EffectiveTimestamp: pt, StartServiceDate: pt, EndServiceDate: periodEnd,
					SubscriptionID: sub.sub.ID, SubscriptionProductID: sp.ID,
				})
				sub4 += amount * pow10[4+price.exp]
			}
			if g.pct(55) {
				want = len(inv.Charges) // subscription charges only
			} else {
				want = max(want, len(inv.Charges)+1)
			}
		}
		for len(inv.Charges) < want {
			pid := g.must(g.sink.Assign())
			pi := g.draw(g.buyWeights...)
			cat := &purchases[pi]
			qty, price := g.purchase(pi)
			amount := qty.v * price.v
			exp := qty.exp + price.exp
			inv.Charges = append(inv.Charges, seed.Charge{
				Name: cat.name, Description: cat.description, GLCode: cat.gl,
				Quantity: qty.d, UnitPrice: price.d, Amount: decimal.New(amount, exp),
				EffectiveTimestamp: pt, StartServiceDate: pt, EndServiceDate: pt,
				PurchaseID: pid, Tracked: cat.tracked,
			})
			sub4 += amount * pow10[4+exp]
			// Hardware ships: a second charge of the same purchase.
			if cat.tracked && len(inv.Charges) < 6 && g.pct(40) {
				ship := newMoney(995+g.r.Int64N(2000), -2)
				inv.Charges = append(inv.Charges, seed.Charge{
					Name: shipping.name, Description: shipping.description, GLCode: shipping.gl,
					Quantity: decimal.New(1, 0), UnitPrice: ship.d, Amount: ship.d,
					EffectiveTimestamp: pt, StartServiceDate: pt, EndServiceDate: pt,
					PurchaseID: pid,
				})
				sub4 += ship.units4()
			}
		}

		// Taxes, discount, credit notes and payments, in 1e-4 units.
		var tax4, disc4, credit4, pay4 int64
		if cust.taxBP > 0 {
			tax4 = roundCents(sub4 * cust.taxBP / 10000)
		}
		if g.pct(8) {
			disc4 = roundCents(sub4 * int64(5+5*g.r.IntN(2)) / 100)
		}
		amount4 := sub4 + tax4 - disc4
		if g.pct(2) {
			credit4 = roundCents(amount4 / 10)
		}
		due := p + time.Duration(terms.days)*day
		var paid, partly int
		switch {
		case due >= g.span: // not due yet at the end
			paid, partly = 25, 35
		case g.span-due < 60*day:
			paid, partly = 60, 72
		default:
			paid, partly = 88, 93
		}
		switch k := g.r.IntN(100); {
		case k < paid:
			pay4 = amount4 - credit4
		case k < partly:
			pay4 = roundCents((amount4 - credit4) * int64(20+g.r.IntN(61)) / 100)
			if pay4 >= amount4-credit4 {
				pay4 = 0
			}
		}
		if k := g.r.IntN(1000); k < 8 {
			inv.Status, pay4 = billing.InvoiceStatusVoid, 0
			if k >= 4 {
				inv.Status = billing.InvoiceStatusDisputed
			}
		}
		outstanding4 := amount4 - pay4 - credit4
		inv.TotalTaxes = dec(tax4/100, -2)
		inv.TotalDiscount = dec(disc4/100, -2)
		inv.SumOfCreditNotes = dec(credit4/100, -2)
		inv.TotalPayments = dec(pay4, -4)
		// The balances are the customer's as the invoice was posted: what
		// it owed before, and that plus the invoice. Payments and credits
		// come later and lower the balance the next invoice opens on, as
		// on a real account; so invoices of one billing run rarely share
		// both balances, which is what a stable iteration splits on.
		inv.OpeningArBalance = dec(cust.balance, -4)
		inv.ClosingArBalance = dec(cust.balance+amount4, -4)
		cust.balance += outstanding4
		inv.ModifiedTimestamp = pt
		if pay4 > 0 {
			inv.ModifiedTimestamp = g.at(g.between(p, min(g.span, due+20*day)))
		}

		// One instalment, or now and then two a month apart.
		inv.PaymentSchedules = schedBuf[:0]
		if g.pct(4) && amount4 >= 200 {
			a1 := amount4 / 200 * 100
			o1 := max(0, a1-pay4-credit4)
			inv.PaymentSchedules = append(inv.PaymentSchedules,
				instalment(pt, terms.days, a1, o1), instalment(pt, terms.days+30, amount4-a1, outstanding4-o1))
		} else {
			inv.PaymentSchedules = append(inv.PaymentSchedules, instalment(pt, terms.days, amount4, outstanding4))
		}

		inv.PoNumber = g.ref(25, "PO-", 100000, 5)
		inv.ErpID = g.ref(50, "ERP-INV-", 1_000_000, 6)
		inv.CrmID = g.ref(35, "CRM-", 1_000_000, 6)
		if g.pct(50) {
			inv.AccountingID = int64(1_000_000 + g.r.IntN(9_000_000))
		}
		if g.pct(5) {
			inv.Notes = invoiceNotes[g.r.IntN(len(invoiceNotes))]
		}
		g.must(g.sink.AddInvoice(&inv))
	}
	for i := range g.custs {
		if c := &g.custs[i]; c.balance != 0 {
			c.c.ArBalance = dec(c.balance, -4)
			g.sink.SetCustomer(c.c)
		}
	}
}

// instalment is a payment schedule of amounts in 1e-4 units as the
// fake's default one has it, which calls a settled instalment Paid, a
// status the reference does not list.
func instalment(posted time.Time, days int, amount4, outstanding4 int64) billing.PaymentSchedule {
	status := billing.PaymentScheduleStatusDue
	if outstanding4 == 0 {
		status = billing.PaymentScheduleStatus("Paid")
	}
	return billing.PaymentSchedule{DueDateTimestamp: billing.NewTimestamp(posted.AddDate(0, 0, days)),
		Status: status, Amount: dec(amount4, -4), OutstandingBalance: dec(outstanding4, -4), DaysDueAfterTerm: days}
}

func (g *generator) drafts() {
	for range g.o.DraftInvoices {
		cust := &g.custs[g.activeCustomer()]
		d := seed.DraftInvoice{CustomerID: cust.c.ID, Created: g.at(g.between(max(cust.created, g.span-30*day), g.span))}
		for range 1 + g.r.IntN(5) {
			pi := g.draw(g.buyWeights...)
			qty, price := g.purchase(pi)
			d.Lines = append(d.Lines, seed.DraftLine{Description: purchases[pi].name, Quantity: qty.d,
				Amount: decimal.New(qty.v*price.v, qty.exp+price.exp), Tracked: purchases[pi].tracked})
		}
		g.must(g.sink.AddDraft(d))
	}
}

func (g *generator) cards() {
	endYear := g.at(g.span).Year()
	for range g.o.CreditCards {
		cust := &g.custs[g.activeCustomer()]
		// The fields in the order of their draws. Two-digit years, as the
		// service has them; some expired.
		c := seed.CreditCard{CustomerID: cust.c.ID, Last4: g.num("", int64(g.r.IntN(10000)), 4),
			FirstName: cust.c.FirstName, LastName: cust.c.LastName,
			ExpirationMonth: 1 + g.r.IntN(12), ExpirationYear: (endYear - 1 + g.r.IntN(6)) % 100,
			Address1: strconv.Itoa(1+g.r.IntN(9999)) + " " + streets[g.r.IntN(len(streets))], City: cities[g.r.IntN(len(cities))],
			PostalZip: g.num("", int64(g.r.IntN(100000)), 5), CountryID: 1, StateID: int64(1 + g.r.IntN(50)),
			ModifiedDate: g.at(g.between(cust.created, g.span))}
		c.CardType = pick(g, []int{50, 30, 12, 8}, "Visa", "MasterCard", "AmericanExpress", "Discover")
		if g.pct(15) {
			c.CountryID, c.StateID = 2, int64(51+g.r.IntN(13))
		}
		if g.pct(20) {
			c.Address2 = g.num("Suite ", int64(100+g.r.IntN(900)), 3)
		}
		if g.pct(10) {
			c.Deleted = true
		} else if !cust.hasCard {
			c.IsDefault = true
			cust.hasCard = true
		}
		g.must(g.sink.AddCard(c))
	}
}

func (g *generator) jobs() {
	for i := range g.o.BulkJobs {
		j := seed.BulkJob{Type: jobTypes[g.r.IntN(len(jobTypes))], Validated: i%4 != 1, Processed: i%4 == 3}
		g.must(g.sink.AddJob(j))
	}
}

package billingtest_test

// Conformance of the SDK and the fake to each other and to the API
// reference (/work/shared/spec/billing-api.md): every operation of section
// 1 through the SDK, checked against what was seeded and against the
// fake's state, every error case of section 7, and the events of section 6.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// ctNow is the fixed time of the fakes in these tests: derived invoice
// statuses, the timestamps writes stamp and the rate-limit windows all
// follow it. It is thirty seconds into a minute, so a throttled request is
// told to come back in exactly 30 seconds.
var ctNow = time.Date(2024, 6, 15, 12, 0, 30, 0, time.UTC)

// newFake starts a fake on the fixed clock ctNow (a later WithClock in opts
// replaces it) and closes it when the test ends.
func newFake(t testing.TB, opts ...billingtest.Option) *billingtest.Server {
	t.Helper()
	all := append([]billingtest.Option{billingtest.WithClock(func() time.Time { return ctNow })}, opts...)
	srv := billingtest.NewServer(all...)
	t.Cleanup(srv.Close)
	return srv
}

// dec parses an exact decimal literal.
func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// day is midnight UTC of a date.
func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// must returns a function that fails t on a seeding error and otherwise
// passes the new id through, for must(srv.AddX(...)).
func must(t testing.TB) func(int64, error) int64 {
	return func(id int64, err error) int64 {
		t.Helper()
		if err != nil {
			t.Fatalf("seeding: %v", err)
		}
		return id
	}
}

// movableClock is a clock a test moves by hand; safe for concurrent use.
type movableClock struct {
	mu  sync.Mutex
	now time.Time
}

// Now returns the clock's time.
func (c *movableClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *movableClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Identifiers the seed gives explicitly.
const (
	ctPlan            = 700
	ctPurchaseSetup   = 9001
	ctPurchaseTracked = 9002
	ctUnknownID       = 987654 // an id no seeded entity has
)

// ctInvoice is what a seeded invoice must read as, worked out by hand from
// the seed (not asked of the fake): the amounts the API derives, the due
// date of its single instalment and its summary status on ctNow.
type ctInvoice struct {
	seed                          billingtest.Invoice
	firstName                     string
	subtotal, amount, outstanding decimal.Decimal
	due                           time.Time
	status                        billing.InvoiceStatus
}

// ctWorld is a seeded account: two customers, five posted invoices in all
// the summary states, a subscription with items, a draft, two cards (one
// deleted), a custom tracking-code category and two bulk jobs.
type ctWorld struct {
	srv *billingtest.Server
	c   *billing.Client

	ada, bob   int64
	sub1, sub2 int64
	// sp1 and sp2 are sub1's subscription products; sp1 has the items.
	sp1, sp2                 int64
	itemActive, itemDeleted  int64
	invDue, invOverdue       int64
	invPaid, invVoid, invBob int64
	draft                    int64
	card, deletedCard        int64
	job, unvalidatedJob      int64
	dueCharges               []billingtest.Charge
	want                     map[int64]ctInvoice
	adaInvoices, allInvoices []int64
	subscriptionGroupCharges []int64 // charge ids of invDue's subscription group
	purchaseGroupCharges     []int64 // of its setup-fee purchase group
	trackedGroupCharges      []int64 // of its tracked purchase group
}

// seedWorld starts a fake (ctNow clock unless opts say otherwise) and seeds
// it with the ctWorld account.
func seedWorld(t *testing.T, opts ...billingtest.Option) *ctWorld {
	t.Helper()
	srv := newFake(t, opts...)
	m := must(t)
	w := &ctWorld{srv: srv, c: srv.Client(), want: map[int64]ctInvoice{}}

	w.ada = m(srv.AddCustomer(billingtest.Customer{FirstName: "Ada", LastName: "Lovelace", CompanyName: "Analytical Engines",
		Reference: "ADA-REF", PrimaryEmail: "ada@example.com", CreatedTimestamp: day(2023, 1, 2)}))
	w.bob = m(srv.AddCustomer(billingtest.Customer{FirstName: "Bob", LastName: "Babbage", CreatedTimestamp: day(2023, 5, 6)}))

	w.sub1 = m(srv.AddSubscription(billingtest.Subscription{
		CustomerID: w.ada, PlanID: ctPlan, Name: "Pro plan", Description: "Pro, monthly", Reference: "SUB-ADA",
		CreatedTimestamp: day(2024, 1, 1), NextBillingDate: day(2024, 7, 1),
		Products: []billingtest.SubscriptionProduct{
			{PlanProductID: 801, ProductID: 901, Name: "Pro", Price: dec("10.125"), PlanPrice: dec("12.50")},
			{PlanProductID: 802, ProductID: 902, Name: "Seats", Price: dec("2.002"), PlanPrice: dec("2.002")},
		},
	}))
	sub1, _ := srv.Subscription(w.sub1)
	w.sp1, w.sp2 = sub1.Products[0].ID, sub1.Products[1].ID
	w.sub2 = m(srv.AddSubscription(billingtest.Subscription{
		CustomerID: w.bob, PlanID: ctPlan, Name: "Pro plan", CreatedTimestamp: day(2024, 2, 1),
		Products: []billingtest.SubscriptionProduct{{PlanProductID: 801, ProductID: 901, Name: "Pro", Price: dec("12.50"), PlanPrice: dec("12.50")}},
	}))

	w.dueCharges = []billingtest.Charge{
		{ID: 5001, Name: "Pro", Description: "Pro plan, June", GLCode: "4000", Quantity: dec("1"), UnitPrice: dec("10.125"), Amount: dec("10.125"),
			EffectiveTimestamp: day(2024, 6, 1), StartServiceDate: day(2024, 6, 1), EndServiceDate: day(2024, 7, 1), SubscriptionID: w.sub1, SubscriptionProductID: w.sp1},
		{ID: 5002, Name: "Seats", GLCode: "4001", Quantity: dec("2.5"), UnitPrice: dec("2.002"), Amount: dec("5.005"),
			EffectiveTimestamp: day(2024, 6, 1), StartServiceDate: day(2024, 6, 1), EndServiceDate: day(2024, 7, 1), SubscriptionID: w.sub1, SubscriptionProductID: w.sp2},
		{ID: 5003, Name: "Setup fee", Description: "One-off setup", GLCode: "4100", Quantity: dec("1"), UnitPrice: dec("19.99"), Amount: dec("19.99"),
			EffectiveTimestamp: day(2024, 6, 1), PurchaseID: ctPurchaseSetup},
		{ID: 5004, Name: "Tracked widget", GLCode: "4200", Quantity: dec("3"), UnitPrice: dec("0"), Amount: dec("0"),
			EffectiveTimestamp: day(2024, 6, 1), PurchaseID: ctPurchaseTracked, Tracked: true},
	}
	w.subscriptionGroupCharges = []int64{5001, 5002}
	w.purchaseGroupCharges = []int64{5003}
	w.trackedGroupCharges = []int64{5004}

	// Posted with a fraction of a second, which the wire carries to 100ns.
	posted := time.Date(2024, 6, 1, 9, 30, 15, 123456700, time.UTC)
	add := func(inv billingtest.Invoice, first string, subtotal, amount, outstanding string, due time.Time, status billing.InvoiceStatus) int64 {
		id := m(srv.AddInvoice(inv))
		inv.ID = id
		if inv.Terms == "" {
			inv.Terms = "Net30"
		}
		w.want[id] = ctInvoice{seed: inv, firstName: first, subtotal: dec(subtotal), amount: dec(amount), outstanding: dec(outstanding), due: due, status: status}
		return id
	}
	// 10.125 + 5.005 + 19.99 + 0 = 35.12; + 1.20 tax - 0.33 discount =
	// 35.99; - 3.5 paid - 0.25 credited = 32.24 outstanding, due 30 days
	// after posting (1 July, after ctNow): Due.
	w.invDue = add(billingtest.Invoice{
		CustomerID: w.ada, InvoiceNumber: 1001, PoNumber: "PO-7", PostedTimestamp: posted, EffectiveTimestamp: day(2024, 6, 1),
		Charges: w.dueCharges, TotalTaxes: dec("1.20"), TotalDiscount: dec("0.33"), TotalPayments: dec("3.5"), SumOfCreditNotes: dec("0.25"),
		OpeningArBalance: dec("-12.5"), ClosingArBalance: dec("19.74"), CrmID: "crm-1", ErpID: "erp-1", Notes: "Thank you",
	}, "Ada", "35.12", "35.99", "32.24", posted.AddDate(0, 0, 30), billing.InvoiceStatusDue)
	// Due on 1 May, before ctNow: Overdue.
	w.invOverdue = add(billingtest.Invoice{
		CustomerID: w.ada, InvoiceNumber: 1002, PostedTimestamp: day(2024, 4, 1), Terms: "Net30",
		Charges: []billingtest.Charge{{ID: 5011, Name: "Consulting", Quantity: dec("4"), UnitPrice: dec("25"), Amount: dec("100.00"), PurchaseID: 9003}},
	}, "Ada", "100", "100", "100", day(2024, 5, 1), billing.InvoiceStatusOverdue)
	// Paid in full: Paid, nothing outstanding.
	w.invPaid = add(billingtest.Invoice{
		CustomerID: w.ada, InvoiceNumber: 1003, PoNumber: "9-ALPHA", PostedTimestamp: day(2024, 5, 15),
		Charges:       []billingtest.Charge{{ID: 5021, Name: "Pro", Quantity: dec("1"), UnitPrice: dec("42.42"), Amount: dec("42.42"), SubscriptionID: w.sub1}},
		TotalPayments: dec("42.42"),
	}, "Ada", "42.42", "42.42", "0", day(2024, 6, 14), billing.InvoiceStatusPaid)
	// Forced Void, which balances cannot show.
	w.invVoid = add(billingtest.Invoice{
		CustomerID: w.ada, InvoiceNumber: 1004, PostedTimestamp: day(2024, 6, 2), Status: billing.InvoiceStatusVoid,
		Charges: []billingtest.Charge{{ID: 5031, Name: "Mistake", Quantity: dec("1"), UnitPrice: dec("7"), Amount: dec("7"), PurchaseID: 9004}},
	}, "Ada", "7", "7", "7", day(2024, 7, 2), billing.InvoiceStatusVoid)
	// Net15 from 10 June: due 25 June, Due.
	w.invBob = add(billingtest.Invoice{
		CustomerID: w.bob, InvoiceNumber: 2001, PostedTimestamp: day(2024, 6, 10), Terms: "Net15",
		Charges: []billingtest.Charge{{ID: 5041, Name: "Pro", Quantity: dec("1"), UnitPrice: dec("55.55"), Amount: dec("55.55"), SubscriptionID: w.sub2}},
	}, "Bob", "55.55", "55.55", "55.55", day(2024, 6, 25), billing.InvoiceStatusDue)
	w.adaInvoices = []int64{w.invDue, w.invOverdue, w.invPaid, w.invVoid}
	w.allInvoices = []int64{w.invDue, w.invOverdue, w.invPaid, w.invVoid, w.invBob}

	w.itemActive = m(srv.AddSubscriptionProductItem(billingtest.SubscriptionProductItem{
		SubscriptionProductID: w.sp1, SubscriptionID: w.sub1, CustomerID: w.ada, ProductID: 901, Name: "Serial A", Description: "first unit",
		Reference: billing.ItemReference{Value: "A-1"}, Status: billing.ItemStatusActive,
		CreatedDate: day(2024, 2, 1), ModifiedDate: day(2024, 3, 1),
	}))
	w.itemDeleted = m(srv.AddSubscriptionProductItem(billingtest.SubscriptionProductItem{
		SubscriptionProductID: w.sp1, SubscriptionID: w.sub1, CustomerID: w.ada, ProductID: 901, Name: "Serial B", Description: "second unit",
		Reference: billing.ItemReference{Value: "12345678901234567890", IsNumber: true}, Status: billing.ItemStatusDeleted,
		CreatedDate: day(2024, 2, 2),
	}))

	w.draft = m(srv.AddDraftInvoice(billingtest.DraftInvoice{CustomerID: w.ada, Created: day(2024, 6, 14), Lines: []billingtest.DraftLine{
		{Description: "Pro plan", Quantity: dec("1"), Amount: dec("10.125")},
		{Description: "Tracked widget", Quantity: dec("3"), Amount: dec("0"), Tracked: true},
	}}))
	w.card = m(srv.AddCreditCard(billingtest.CreditCard{CustomerID: w.ada, Last4: "1111", CardType: "Visa", FirstName: "Ada", LastName: "Lovelace",
		ExpirationMonth: 1, ExpirationYear: 26, IsDefault: true, ModifiedDate: day(2024, 1, 1)}))
	w.deletedCard = m(srv.AddCreditCard(billingtest.CreditCard{CustomerID: w.ada, Last4: "2222", CardType: "Visa", Deleted: true}))
	if err := srv.SetTrackingCodeCategoryName(2, "Region"); err != nil {
		t.Fatal(err)
	}
	w.job = m(srv.AddBulkJob(billingtest.BulkJob{Type: "PriceChange", Validated: true}))
	w.unvalidatedJob = m(srv.AddBulkJob(billingtest.BulkJob{Type: "PriceChange"}))
	return w
}

// visible returns the charges a read shows: tracked items only when asked.
func visible(charges []billingtest.Charge, tracked bool) []billingtest.Charge {
	var out []billingtest.Charge
	for _, c := range charges {
		if !c.Tracked || tracked {
			out = append(out, c)
		}
	}
	return out
}

// ids returns the ids of decoded entities, in order.
func ids[T any](items []T, id func(T) int64) []int64 {
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}

// invoiceID, summaryID, chargeID and itemID read the id of a decoded
// entity, for ids.
func invoiceID(inv billing.Invoice) int64             { return inv.ID }
func summaryID(s billing.InvoiceSummary) int64        { return s.ID }
func chargeID(c billing.Charge) int64                 { return c.ID }
func itemID(it billing.SubscriptionProductItem) int64 { return it.ID }

// equalIDs reports whether two id lists are the same, in order.
func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkDecimals takes triples of name, got and want and fails t for each
// whose decimals differ. Equal compares exact values, so 32.24 and 32.240
// agree and 32.24 and 32.2400001 do not.
func checkDecimals(t *testing.T, what string, triples ...any) {
	t.Helper()
	if len(triples)%3 != 0 {
		t.Fatalf("checkDecimals: %d arguments, not triples", len(triples))
	}
	pairs := triples
	for i := 0; i < len(pairs); i += 3 {
		name, got, want := pairs[i].(string), pairs[i+1].(decimal.Decimal), pairs[i+2].(decimal.Decimal)
		if !got.Equal(want) {
			t.Errorf("%s: %s = %s, want %s", what, name, got, want)
		}
	}
}

// checkTime fails t unless got is the instant want (the zero Timestamp for
// the zero time).
func checkTime(t *testing.T, what string, got billing.Timestamp, want time.Time) {
	t.Helper()
	if !got.Time.Equal(want) {
		t.Errorf("%s = %v, want %v", what, got.Time, want)
	}
}

// checkInvoice compares the fields every invoice answer shares with what
// the seed implies: identity, timestamps to the 100ns the wire carries,
// and the amounts the API derives, exactly. writtenOff is what write-offs
// have taken off since seeding.
func checkInvoice(t *testing.T, got billing.Invoice, want ctInvoice, writtenOff decimal.Decimal) {
	t.Helper()
	s := want.seed
	what := fmt.Sprintf("invoice %d", s.ID)
	if got.ID != s.ID || got.CustomerID != s.CustomerID || got.InvoiceNumber != s.InvoiceNumber {
		t.Errorf("%s: id/customer/number = %d/%d/%d, want %d/%d/%d", what, got.ID, got.CustomerID, got.InvoiceNumber, s.ID, s.CustomerID, s.InvoiceNumber)
	}
	outstanding := want.outstanding.Sub(writtenOff)
	checkDecimals(t, what,
		"subtotal", got.Subtotal, want.subtotal,
		"invoiceAmount", got.InvoiceAmount, want.amount,
		"totalPayments", got.TotalPayments, s.TotalPayments,
		"sumOfCreditNotes", got.SumOfCreditNotes, s.SumOfCreditNotes,
		"totalTaxes", got.TotalTaxes, s.TotalTaxes,
		"totalDiscount", got.TotalDiscount, s.TotalDiscount,
		"openingArBalance", got.OpeningArBalance, s.OpeningArBalance,
		"closingArBalance", got.ClosingArBalance, s.ClosingArBalance,
		"outstandingBalance", got.OutstandingBalance, outstanding,
		"totalWriteoffs", got.TotalWriteoffs, writtenOff,
	)
	checkTime(t, what+": postedTimestamp", got.PostedTimestamp, s.PostedTimestamp)
	wantEffective := s.EffectiveTimestamp
	if wantEffective.IsZero() {
		wantEffective = s.PostedTimestamp
	}
	checkTime(t, what+": effectiveTimestamp", got.EffectiveTimestamp, wantEffective)
	if got.Unsettled != outstanding.IsPositive() {
		t.Errorf("%s: unsettled = %v with outstanding %s", what, got.Unsettled, outstanding)
	}
	if got.Terms != s.Terms {
		t.Errorf("%s: terms = %q, want %q", what, got.Terms, s.Terms)
	}
	switch {
	case s.PoNumber == "" && got.PoNumber != nil:
		t.Errorf("%s: poNumber = %q, want null", what, *got.PoNumber)
	case s.PoNumber != "" && (got.PoNumber == nil || *got.PoNumber != s.PoNumber):
		t.Errorf("%s: poNumber = %v, want %q", what, got.PoNumber, s.PoNumber)
	}
	if got.InvoiceCustomer == nil || got.InvoiceCustomer.FirstName == nil || *got.InvoiceCustomer.FirstName != want.firstName {
		t.Errorf("%s: invoiceCustomer = %+v, want the snapshot of %s", what, got.InvoiceCustomer, want.firstName)
	}
	scheduled := decimal.Zero
	for _, ps := range got.PaymentSchedules {
		scheduled = scheduled.Add(ps.OutstandingBalance)
	}
	if !scheduled.Equal(outstanding) {
		t.Errorf("%s: payment schedules owe %s, outstandingBalance %s", what, scheduled, outstanding)
	}
	if len(got.PaymentSchedules) == 1 {
		checkTime(t, what+": dueDateTimestamp", got.PaymentSchedules[0].DueDateTimestamp, want.due)
	}
}

// checkCharges compares decoded charges with the seeded ones, in order.
func checkCharges(t *testing.T, what string, got []billing.Charge, want []billingtest.Charge) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d charges %v, want %d", what, len(got), ids(got, chargeID), len(want))
		return
	}
	for i, w := range want {
		g := got[i]
		cw := fmt.Sprintf("%s: charge %d", what, w.ID)
		if g.ID != w.ID || g.Name != w.Name || g.GLCode != w.GLCode {
			t.Errorf("%s: id/name/glCode = %d/%q/%q, want %d/%q/%q", cw, g.ID, g.Name, g.GLCode, w.ID, w.Name, w.GLCode)
		}
		if (w.Description == "") != (g.Description == nil) || (g.Description != nil && *g.Description != w.Description) {
			t.Errorf("%s: description = %v, want %q (null when empty)", cw, g.Description, w.Description)
		}
		checkDecimals(t, cw, "quantity", g.Quantity, w.Quantity, "unitPrice", g.UnitPrice, w.UnitPrice, "amount", g.Amount, w.Amount)
		checkTime(t, cw+": effectiveTimestamp", g.EffectiveTimestamp, w.EffectiveTimestamp)
		checkTime(t, cw+": startServiceDate", g.StartServiceDate, w.StartServiceDate)
		checkTime(t, cw+": endServiceDate", g.EndServiceDate, w.EndServiceDate)
		if w.SubscriptionProductID != 0 && (g.SubscriptionProduct == nil || g.SubscriptionProduct.ID != w.SubscriptionProductID) {
			t.Errorf("%s: subscriptionProduct = %+v, want id %d", cw, g.SubscriptionProduct, w.SubscriptionProductID)
		}
		if w.PurchaseID != 0 {
			var p struct {
				ID int64 `json:"id"`
			}
			if err := json.Unmarshal(g.Purchase, &p); err != nil || p.ID != w.PurchaseID {
				t.Errorf("%s: purchase = %s, want id %d", cw, g.Purchase, w.PurchaseID)
			}
		}
	}
}

// ---- 4.1 List invoices ----

func TestConformanceListInvoices(t *testing.T) {
	t.Parallel()
	eachStore(t, testConformanceListInvoices)
}

func testConformanceListInvoices(t *testing.T, store billingtest.Option) {
	ctx := context.Background()
	w := seedWorld(t, store)

	page, err := w.c.Invoices.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(page.Items, invoiceID); !equalIDs(got, w.allInvoices) {
		t.Fatalf("ids = %v, want %v in ascending id order", got, w.allInvoices)
	}
	for _, inv := range page.Items {
		checkInvoice(t, inv, w.want[inv.ID], decimal.Zero)
		// Reference 2.1: "Empty array in list-all results".
		if inv.Charges == nil || len(inv.Charges) != 0 || inv.ChargeGroups != nil {
			t.Errorf("invoice %d: charges %v (nil: %v), chargeGroups %v; want [] and no groups", inv.ID, inv.Charges, inv.Charges == nil, inv.ChargeGroups)
		}
	}
	if page.Count != 5 || page.MaxCount != 5 || page.CurrentPage != 0 || page.HasNext() {
		t.Errorf("page: count %d, maxCount %d, current %d, hasNext %v; want 5, 5, 0, false", page.Count, page.MaxCount, page.CurrentPage, page.HasNext())
	}

	cases := []struct {
		name   string
		filter billing.InvoiceFilter
		want   []int64
	}{
		{"customerId", billing.InvoiceFilter{CustomerID: query.Ints{w.bob}}, []int64{w.invBob}},
		{"invoiceNumber set", billing.InvoiceFilter{InvoiceNumber: query.Ints{1002, 2001}}, []int64{w.invOverdue, w.invBob}},
		{"poNumber is case-insensitive", billing.InvoiceFilter{PoNumber: query.Equals("po-7")}, []int64{w.invDue}},
		{"poNumber empty", billing.InvoiceFilter{PoNumber: query.IsEmpty()}, []int64{w.invOverdue, w.invVoid, w.invBob}},
		{"closingArBalance range", billing.InvoiceFilter{ClosingArBalance: query.DecimalBetween(dec("19.74"), dec("19.75"))}, []int64{w.invDue}},
		{"openingArBalance negative", billing.InvoiceFilter{OpeningArBalance: query.Below(dec("0"))}, []int64{w.invDue}},
		{"postedTimestamp upper bound is exclusive", billing.InvoiceFilter{PostedTimestamp: query.TimeRange{From: day(2024, 6, 1), To: day(2024, 6, 10), DateOnly: true}}, []int64{w.invDue, w.invVoid}},
		{"crmId wildcard", billing.InvoiceFilter{CrmID: query.StartsWith("CRM")}, []int64{w.invDue}},
		{"Customer.Status", billing.InvoiceFilter{CustomerStatus: []billing.CustomerStatus{billing.CustomerStatusActive}}, w.allInvoices},
		{"Customer.Status none", billing.InvoiceFilter{CustomerStatus: []billing.CustomerStatus{billing.CustomerStatusHold}}, nil},
		{"raw expression", billing.InvoiceFilter{Raw: "invoiceNumber:1001,1003"}, []int64{w.invDue, w.invPaid}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page, err := w.c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: tc.filter})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(page.Items, invoiceID); !equalIDs(got, tc.want) {
				t.Errorf("ids = %v, want %v", got, tc.want)
			}
			if page.Count != len(tc.want) || page.MaxCount != len(w.allInvoices) {
				t.Errorf("X-Count %d, X-MaxCount %d; want %d, %d", page.Count, page.MaxCount, len(tc.want), len(w.allInvoices))
			}
			n, err := w.c.Invoices.Count(ctx, &billing.ListInvoicesParams{Filter: tc.filter})
			if err != nil || n != len(tc.want) {
				t.Errorf("Count = %d, %v; want %d", n, err, len(tc.want))
			}
		})
	}
}

// ---- 4.2 List invoices by customer ----

func TestConformanceListCustomerInvoices(t *testing.T) {
	t.Parallel()
	eachStore(t, testConformanceListCustomerInvoices)
}

func testConformanceListCustomerInvoices(t *testing.T, store billingtest.Option) {
	ctx := context.Background()
	w := seedWorld(t, store)
	cases := []struct {
		name     string
		customer int64
		params   *billing.ListCustomerInvoicesParams
		want     []int64
		tracked  bool
	}{
		{"all of a customer", w.ada, nil, w.adaInvoices, false},
		{"showTrackedItems", w.ada, &billing.ListCustomerInvoicesParams{ShowTrackedItems: true}, w.adaInvoices, true},
		{"other customer", w.bob, nil, []int64{w.invBob}, false},
		{"poNumber is a string here", w.ada, &billing.ListCustomerInvoicesParams{Filter: billing.CustomerInvoiceFilter{PoNumber: query.StartsWith("po")}}, []int64{w.invDue}, false},
		{"postedTimestamp range", w.ada, &billing.ListCustomerInvoicesParams{Filter: billing.CustomerInvoiceFilter{
			PostedTimestamp: query.TimeRange{From: day(2024, 5, 1), To: day(2024, 6, 2), DateOnly: true}}}, []int64{w.invDue, w.invPaid}, false},
		{"erpId", w.ada, &billing.ListCustomerInvoicesParams{Filter: billing.CustomerInvoiceFilter{ErpID: query.Equals("ERP-1")}}, []int64{w.invDue}, false},
		{"totalInstallments", w.ada, &billing.ListCustomerInvoicesParams{Filter: billing.CustomerInvoiceFilter{TotalInstallments: query.Ints{1}}}, w.adaInvoices, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page, err := w.c.Invoices.ListByCustomer(ctx, tc.customer, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(page.Items, invoiceID); !equalIDs(got, tc.want) {
				t.Fatalf("ids = %v, want %v", got, tc.want)
			}
			for _, inv := range page.Items {
				want := w.want[inv.ID]
				checkInvoice(t, inv, want, decimal.Zero)
				// Reference 4.2: "array of Invoice with line items".
				checkCharges(t, fmt.Sprintf("invoice %d", inv.ID), inv.Charges, visible(want.seed.Charges, tc.tracked))
				if inv.ChargeGroups != nil {
					t.Errorf("invoice %d: chargeGroups %v in a list", inv.ID, inv.ChargeGroups)
				}
			}
			scope := 4
			if tc.customer == w.bob {
				scope = 1
			}
			if page.Count != len(tc.want) || page.MaxCount != scope {
				t.Errorf("X-Count %d, X-MaxCount %d; want %d, %d (the customer's invoices)", page.Count, page.MaxCount, len(tc.want), scope)
			}
		})
	}
	tag, sent := tagged(t, w.srv)
	if _, err := w.c.Invoices.ListByCustomer(context.Background(), w.ada, nil, tag); err != nil {
		t.Fatal(err)
	}
	if r := sent(1)[0]; r.Path != fmt.Sprintf("/v1/Customers/%d/Invoices/", w.ada) {
		t.Errorf("path sent: %s, want the reference's casing and trailing slash", r.Path)
	}
}

// tagSeq numbers the tags of tagged calls.
var tagSeq atomic.Int64

// tagHeader is the header tagged calls carry.
const tagHeader = "X-Test-Tag"

// tagged returns a request option that marks a call's requests with a
// unique tag header, and a function that returns the requests so marked,
// as the fake recorded them, once want of them are there. It waits for
// them (up to two seconds) because the fake records a request only after
// its answer has gone out (see TestConformanceRequestsRecordedBeforeAnswer):
// the SDK can decode a large answer before its request is in
// srv.Requests().
func tagged(t testing.TB, srv *billingtest.Server) (billing.RequestOption, func(want int) []billingtest.Request) {
	tag := fmt.Sprint(tagSeq.Add(1))
	get := func(want int) []billingtest.Request {
		t.Helper()
		deadline := time.Now().Add(2 * time.Second)
		for {
			var out []billingtest.Request
			for _, r := range srv.Requests() {
				if r.Header.Get(tagHeader) == tag {
					out = append(out, r)
				}
			}
			if len(out) >= want || time.Now().After(deadline) {
				if len(out) != want {
					t.Fatalf("%d requests recorded for the call, want %d", len(out), want)
				}
				return out
			}
			time.Sleep(time.Millisecond)
		}
	}
	return billing.WithHeader(tagHeader, tag), get
}

// ---- 4.3 Read invoice ----

func TestConformanceGetInvoice(t *testing.T) {
	t.Parallel()
	eachStore(t, testConformanceGetInvoice)
}

func testConformanceGetInvoice(t *testing.T, store billingtest.Option) {
	ctx := context.Background()
	w := seedWorld(t, store)
	subGroup, setupGroup, trackedGroup := w.subscriptionGroupCharges, w.purchaseGroupCharges, w.trackedGroupCharges
	cases := []struct {
		name    string
		params  *billing.GetInvoiceParams
		tracked bool
		groups  [][]int64 // nil: charges, not groups
		query   string    // the query string the SDK must send
	}{
		{"plain", nil, false, nil, ""},
		{"showTrackedItems", &billing.GetInvoiceParams{ShowTrackedItems: true}, true, nil, "showTrackedItems=true"},
		{"grouped", &billing.GetInvoiceParams{GroupCharges: true}, false, [][]int64{subGroup, setupGroup}, "groupCharges=true"},
		{"grouped with tracked items", &billing.GetInvoiceParams{GroupCharges: true, ShowTrackedItems: true}, true, [][]int64{subGroup, setupGroup, trackedGroup}, "groupCharges=true&showTrackedItems=true"},
	}
	want := w.want[w.invDue]
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tag, sent := tagged(t, w.srv)
			inv, err := w.c.Invoices.Get(ctx, w.invDue, tc.params, tag)
			if err != nil {
				t.Fatal(err)
			}
			checkInvoice(t, *inv, want, decimal.Zero)
			if r := sent(1)[0]; r.Query.Encode() != tc.query {
				t.Errorf("query sent: %q, want %q", r.Query.Encode(), tc.query)
			}
			if tc.groups == nil {
				checkCharges(t, "charges", inv.Charges, visible(w.dueCharges, tc.tracked))
				if inv.ChargeGroups != nil {
					t.Errorf("chargeGroups = %v without grouping", inv.ChargeGroups)
				}
				return
			}
			// Reference 4.3: with grouping, chargeGroups replaces charges.
			if inv.Charges != nil {
				t.Errorf("charges = %v alongside chargeGroups", ids(inv.Charges, chargeID))
			}
			if len(inv.ChargeGroups) != len(tc.groups) {
				t.Fatalf("%d groups, want %d", len(inv.ChargeGroups), len(tc.groups))
			}
			for i, g := range inv.ChargeGroups {
				if got := ids(g.Charges, chargeID); !equalIDs(got, tc.groups[i]) {
					t.Errorf("group %d (%s): charges %v, want %v", i, g.Name, got, tc.groups[i])
				}
			}
			// The subscription group carries its subscription; purchase
			// groups do not.
			g := inv.ChargeGroups[0]
			if g.SubscriptionID == nil || *g.SubscriptionID != w.sub1 || g.Name != "Pro plan" || g.Reference == nil || *g.Reference != "SUB-ADA" {
				t.Errorf("subscription group = %+v, want subscription %d, Pro plan, SUB-ADA", g, w.sub1)
			}
			for _, g := range inv.ChargeGroups[1:] {
				if g.SubscriptionID != nil {
					t.Errorf("purchase group %q has subscriptionId %d", g.Name, *g.SubscriptionID)
				}
			}
			checkCharges(t, "grouped charges", append(append([]billing.Charge{}, inv.ChargeGroups[0].Charges...), inv.ChargeGroups[1].Charges...), w.dueCharges[:3])
		})
	}

	// Every invoice reads as seeded, and as the fake's own inspection says.
	for _, id := range w.allInvoices {
		inv, err := w.c.Invoices.Get(ctx, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkInvoice(t, *inv, w.want[id], decimal.Zero)
		held, ok := w.srv.Invoice(id)
		if !ok || !held.OutstandingBalance.Equal(inv.OutstandingBalance) || !held.InvoiceAmount.Equal(inv.InvoiceAmount) {
			t.Errorf("invoice %d: srv.Invoice %v (%v) disagrees with the API's %s/%s", id, held.OutstandingBalance, ok, inv.OutstandingBalance, inv.InvoiceAmount)
		}
	}

	t.Run("wire form", func(t *testing.T) {
		// Section 2: timestamps are ISO 8601 without offset and amounts
		// are JSON numbers, exact.
		body := billingtest.RawCall(t, w.srv, http.MethodGet, fmt.Sprintf("/v1/Invoices/%d", w.invDue), "", http.StatusOK)
		for _, frag := range []string{`"postedTimestamp":"2024-06-01T09:30:15.1234567"`, `"outstandingBalance":32.24`, `"subtotal":35.12`, `"unitPrice":10.125`} {
			if !bytes.Contains(body, []byte(frag)) {
				t.Errorf("answer lacks %s", frag)
			}
		}
	})
}

// ---- 4.4 List invoice summaries ----

func TestConformanceInvoiceSummaries(t *testing.T) {
	t.Parallel()
	eachStore(t, testConformanceInvoiceSummaries)
}

func testConformanceInvoiceSummaries(t *testing.T, store billingtest.Option) {
	ctx := context.Background()
	clock := &movableClock{now: ctNow}
	w := seedWorld(t, store, billingtest.WithClock(clock.Now))

	page, err := w.c.InvoiceSummaries.List(ctx, w.ada, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(page.Items, summaryID); !equalIDs(got, w.adaInvoices) {
		t.Fatalf("ids = %v, want %v", got, w.adaInvoices)
	}
	for _, s := range page.Items {
		want := w.want[s.ID]
		what := fmt.Sprintf("summary %d", s.ID)
		if s.InvoiceStatus != want.status {
			t.Errorf("%s: invoiceStatus %s, want %s on %v", what, s.InvoiceStatus, want.status, ctNow)
		}
		if held, _ := w.srv.InvoiceSummary(s.ID); held.InvoiceStatus != s.InvoiceStatus {
			t.Errorf("%s: srv.InvoiceSummary says %s, the API %s", what, held.InvoiceStatus, s.InvoiceStatus)
		}
		if s.CustomerID != w.ada || s.InvoiceNumber != fmt.Sprint(want.seed.InvoiceNumber) || s.CustomerName != "Ada Lovelace" ||
			s.Currency != "USD" || s.Reference == nil || *s.Reference != "ADA-REF" || s.CompanyName == nil || *s.CompanyName != "Analytical Engines" {
			t.Errorf("%s: customer fields %+v", what, s)
		}
		checkDecimals(t, what,
			"invoiceAmount", s.InvoiceAmount, want.amount,
			"sumOfCharges", s.SumOfCharges, want.subtotal,
			"totalPayments", s.TotalPayments, want.seed.TotalPayments,
			"totalCreditNotes", s.TotalCreditNotes, want.seed.SumOfCreditNotes,
			"writeoffs", s.Writeoffs, decimal.Zero,
			"outstandingBalance", s.OutstandingBalance, want.outstanding,
		)
		checkTime(t, what+": dueDate", s.DueDate, want.due)
		checkTime(t, what+": postedTimestamp", s.PostedTimestamp, want.seed.PostedTimestamp)
		if s.Unsettled != want.outstanding.IsPositive() {
			t.Errorf("%s: unsettled %v with outstanding %s", what, s.Unsettled, want.outstanding)
		}
	}

	filters := []struct {
		name   string
		filter billing.InvoiceSummaryFilter
		want   []int64
	}{
		{"invoiceStatus", billing.InvoiceSummaryFilter{InvoiceStatus: []billing.InvoiceStatus{billing.InvoiceStatusOverdue, billing.InvoiceStatusVoid}}, []int64{w.invOverdue, w.invVoid}},
		{"unsettled false", billing.InvoiceSummaryFilter{Unsettled: billing.Ptr(false)}, []int64{w.invPaid}},
		{"invoiceAmount range", billing.InvoiceSummaryFilter{InvoiceAmount: query.DecimalBetween(dec("35.99"), dec("100"))}, []int64{w.invDue, w.invPaid}},
		{"dueDate range", billing.InvoiceSummaryFilter{DueDate: query.TimeRange{From: day(2024, 6, 1), To: day(2024, 7, 1), DateOnly: true}}, []int64{w.invPaid}},
		{"Id set", billing.InvoiceSummaryFilter{ID: query.Ints{w.invVoid, w.invBob}}, []int64{w.invVoid}},
	}
	for _, tc := range filters {
		t.Run(tc.name, func(t *testing.T) {
			page, err := w.c.InvoiceSummaries.List(ctx, w.ada, &billing.ListInvoiceSummariesParams{Filter: tc.filter})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(page.Items, summaryID); !equalIDs(got, tc.want) {
				t.Errorf("ids = %v, want %v", got, tc.want)
			}
		})
	}

	// The status follows the clock: once the due date passes, Due becomes
	// Overdue, in the API and in the inspection alike.
	clock.Set(time.Date(2024, 7, 2, 0, 0, 0, 0, time.UTC))
	page, err = w.c.InvoiceSummaries.List(ctx, w.ada, &billing.ListInvoiceSummariesParams{Filter: billing.InvoiceSummaryFilter{ID: query.Ints{w.invDue}}})
	if err != nil || len(page.Items) != 1 || page.Items[0].InvoiceStatus != billing.InvoiceStatusOverdue {
		t.Fatalf("after the due date: %+v, %v; want Overdue", page, err)
	}
	if held, _ := w.srv.InvoiceSummary(w.invDue); held.InvoiceStatus != billing.InvoiceStatusOverdue {
		t.Errorf("srv.InvoiceSummary after the due date: %s", held.InvoiceStatus)
	}

	// A write-off makes it WrittenOff, with the amount in writeoffs.
	if _, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: w.invDue, Amount: billing.Ptr(dec("32.24"))}); err != nil {
		t.Fatal(err)
	}
	page, err = w.c.InvoiceSummaries.List(ctx, w.ada, &billing.ListInvoiceSummariesParams{Filter: billing.InvoiceSummaryFilter{InvoiceStatus: []billing.InvoiceStatus{billing.InvoiceStatusWrittenOff}}})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != w.invDue {
		t.Fatalf("WrittenOff summaries: %+v, %v", page, err)
	}
	s := page.Items[0]
	checkDecimals(t, "written-off summary", "writeoffs", s.Writeoffs, dec("32.24"), "outstandingBalance", s.OutstandingBalance, decimal.Zero)
	if s.Unsettled {
		t.Error("written-off summary is still unsettled")
	}
}

// ---- 4.5 Read draft invoice as PDF ----

func TestConformanceDraftPDF(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := seedWorld(t)
	cases := []struct {
		name    string
		params  *billing.DraftPDFParams
		want    []string
		notWant []string
	}{
		{"plain", nil, []string{"Draft invoice " + fmt.Sprint(w.draft), "Ada Lovelace", "Pro plan", "10.125", "Total: 10.125 USD"}, []string{"Tracked widget"}},
		{"showTrackedItems", &billing.DraftPDFParams{ShowTrackedItems: true}, []string{"Draft invoice " + fmt.Sprint(w.draft), "Pro plan", "Tracked widget", "Total: 10.125 USD"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var resp billing.Response
			rc, err := w.c.DraftInvoices.PDF(ctx, w.draft, tc.params, billing.CaptureResponse(&resp))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/pdf" {
				t.Errorf("Content-Type %q", ct)
			}
			if !bytes.HasPrefix(doc, []byte("%PDF-")) || !bytes.Contains(doc[max(0, len(doc)-16):], []byte("%%EOF")) {
				t.Errorf("not a PDF file: %.20q ... %q", doc, doc[max(0, len(doc)-16):])
			}
			for _, s := range tc.want {
				if !bytes.Contains(doc, []byte(s)) {
					t.Errorf("PDF lacks %q", s)
				}
			}
			for _, s := range tc.notWant {
				if bytes.Contains(doc, []byte(s)) {
					t.Errorf("PDF shows %q", s)
				}
			}
		})
	}
	if n := w.srv.Counts()["draftInvoices"]; n != 1 {
		t.Errorf("reading changed the drafts: %d", n)
	}
}

// ---- 4.6 Write off invoice ----

func TestConformanceWriteOff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := seedWorld(t)

	// 32.2400 is the outstanding 32.24 exactly: equal in value, so it is
	// the whole balance.
	tag, sent := tagged(t, w.srv)
	inv, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: w.invDue, Amount: billing.Ptr(dec("32.2400")), Reference: "WO-1"}, tag)
	if err != nil {
		t.Fatal(err)
	}
	// Reference 3: outstandingBalance becomes 0, totalWriteoffs grows by
	// the amount, the schedule is WrittenOff.
	checkInvoice(t, *inv, w.want[w.invDue], dec("32.24"))
	for _, ps := range inv.PaymentSchedules {
		if ps.Status != billing.PaymentScheduleStatusWrittenOff || !ps.OutstandingBalance.IsZero() {
			t.Errorf("payment schedule %+v, want WrittenOff with nothing outstanding", ps)
		}
	}
	// Reference 4.6: the answer is the invoice with chargeGroups, and crmId.
	if inv.Charges != nil || len(inv.ChargeGroups) == 0 {
		t.Errorf("answer has charges %v and %d groups; want groups only", ids(inv.Charges, chargeID), len(inv.ChargeGroups))
	}
	if inv.CrmID == nil || *inv.CrmID != "crm-1" {
		t.Errorf("crmId = %v, want crm-1", inv.CrmID)
	}
	checkTime(t, "modifiedTimestamp", inv.ModifiedTimestamp, ctNow)
	if r := sent(1)[0]; r.Method != http.MethodPost || r.Path != "/v1/invoices/writeoff" ||
		!bytes.Contains(r.Body, []byte(`"amount":32.24`)) || !bytes.Contains(r.Body, []byte(`"reference":"WO-1"`)) {
		t.Errorf("request %s %s %s: want the amount as an exact JSON number", r.Method, r.Path, r.Body)
	}

	// The fake now holds it written off, and reads say so.
	held, _ := w.srv.Invoice(w.invDue)
	checkInvoice(t, held, w.want[w.invDue], dec("32.24"))
	if sum, _ := w.srv.InvoiceSummary(w.invDue); sum.InvoiceStatus != billing.InvoiceStatusWrittenOff {
		t.Errorf("summary status %s, want WrittenOff", sum.InvoiceStatus)
	}
	read, err := w.c.Invoices.Get(ctx, w.invDue, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkInvoice(t, *read, w.want[w.invDue], dec("32.24"))
	// Other invoices are untouched.
	other, _ := w.srv.Invoice(w.invOverdue)
	checkInvoice(t, other, w.want[w.invOverdue], decimal.Zero)

	// Irreversible: a second write-off of the same amount no longer equals
	// the (zero) balance.
	if _, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: w.invDue, Amount: billing.Ptr(dec("32.24"))}); !errors.Is(err, billing.ErrBadRequest) {
		t.Errorf("second write-off: %v, want ErrBadRequest", err)
	}
	held, _ = w.srv.Invoice(w.invDue)
	checkDecimals(t, "after a refused second write-off", "totalWriteoffs", held.TotalWriteoffs, dec("32.24"))
}

// ---- 4.7 Replace credit card ----

func TestConformanceReplaceCreditCard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := seedWorld(t)
	params := &billing.ReplaceCreditCardParams{
		ID: w.card, CustomerID: w.ada, CardNumber: "5555 5555 5555 4444", CVV: "321",
		FirstName: "Ada", LastName: "King", ExpirationMonth: 11, ExpirationYear: 29,
		Address1: "12 St James's Square", City: "London", PostalZip: "SW1Y 4LB", CountryID: billing.Ptr(int64(44)),
		PaymentCollectOptions: &billing.PaymentCollectOptions{CollectionAmount: dec("1.005")},
	}
	tag, sent := tagged(t, w.srv)
	card, err := w.c.PaymentMethods.ReplaceCreditCard(ctx, params, tag)
	if err != nil {
		t.Fatal(err)
	}
	// Reference 4.7: a new id, the number masked.
	if card.ID == w.card || card.ID <= 0 {
		t.Errorf("replacement id %d, want a new id (old %d)", card.ID, w.card)
	}
	if card.MaskedCardNumber != "************4444" || strings.Contains(card.MaskedCardNumber, "5555") || card.CardType != "MasterCard" {
		t.Errorf("masked %q, type %q", card.MaskedCardNumber, card.CardType)
	}
	if card.CustomerID != w.ada || card.FirstName != "Ada" || card.LastName != "King" || card.ExpirationMonth != 11 || card.ExpirationYear != 29 ||
		card.City == nil || *card.City != "London" || card.CountryID == nil || *card.CountryID != 44 || !card.IsDefault {
		t.Errorf("replacement %+v", card)
	}
	if card.OriginalPaymentMethodID == nil || *card.OriginalPaymentMethodID != w.card {
		t.Errorf("originalPaymentMethodId %v, want %d", card.OriginalPaymentMethodID, w.card)
	}
	checkTime(t, "modifiedDate", card.ModifiedDate, ctNow)

	old, _ := w.srv.CreditCard(w.card)
	stored, ok := w.srv.CreditCard(card.ID)
	if old.ReplacedBy != card.ID || !ok || stored.Last4 != "4444" || stored.OriginalPaymentMethodID != w.card || !stored.IsDefault {
		t.Errorf("fake holds old %+v, new %+v (%v)", old, stored, ok)
	}
	if n := len(w.srv.CreditCards()); n != 3 {
		t.Errorf("%d cards, want 3 (two seeded, one replacement)", n)
	}
	// The card number and CVV never reach the fake's log.
	r := sent(1)[0]
	if r.Method != http.MethodPut || r.Path != "/v1/paymentMethods/creditCard" || bytes.Contains(r.Body, []byte("4444")) || bytes.Contains(r.Body, []byte(`"321"`)) {
		t.Errorf("request %s %s body %s", r.Method, r.Path, r.Body)
	}
	// The replaced card cannot be replaced again.
	if _, err := w.c.PaymentMethods.ReplaceCreditCard(ctx, params); !errors.Is(err, billing.ErrBadRequest) {
		t.Errorf("replacing the replaced card: %v, want ErrBadRequest", err)
	}
}

// ---- 4.8 Create wallet billing agreement ----

func TestConformanceWalletAgreement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := seedWorld(t)
	cases := []struct {
		name        string
		params      billing.WalletAgreementParams
		wantFirst   string
		wantDefault bool
	}{
		// Bob has no payment method, so the agreement becomes his default;
		// Ada has a default card, so hers does not.
		{"baid", billing.WalletAgreementParams{Baid: "B-123", CustomerID: w.bob, Source: billing.PaymentSourceAutomatic,
			PaymentCollectOptions: &billing.PaymentCollectOptions{CollectionAmount: dec("0.01")}}, "Bob", true},
		{"token", billing.WalletAgreementParams{Token: "EC-9", CustomerID: w.ada, Source: billing.PaymentSourceSelfServicePortal}, "Ada", false},
	}
	var created []int64
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tag, sent := tagged(t, w.srv)
			pm, err := w.c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &tc.params, tag)
			if err != nil {
				t.Fatal(err)
			}
			if pm.ID <= 0 || pm.CustomerID != tc.params.CustomerID || pm.FirstName != tc.wantFirst || pm.IsDefault != tc.wantDefault {
				t.Errorf("answer %+v", pm)
			}
			checkTime(t, "modifiedDate", pm.ModifiedDate, ctNow)
			if r := sent(1)[0]; r.Path != "/v1/Paypal" || r.Status != http.StatusOK {
				t.Errorf("request %s answered %d", r.Path, r.Status)
			}
			created = append(created, pm.ID)
		})
	}
	held := w.srv.WalletMethods()
	if len(held) != 2 {
		t.Fatalf("fake holds %d wallet methods, want 2", len(held))
	}
	if h := held[0]; h.ID != created[0] || h.Provider != "Paypal" || h.Baid != "B-123" || h.Source != billing.PaymentSourceAutomatic || !h.IsDefault {
		t.Errorf("held %+v", h)
	}
	if h := held[1]; h.Token != "EC-9" || h.Source != billing.PaymentSourceSelfServicePortal || h.IsDefault {
		t.Errorf("held %+v", h)
	}
}

// TestConformanceWalletWithoutTokenOrBaid checks the reference's one error
// with Key "agreement": the fake's answer on the wire, and the SDK, which
// refuses the request before sending it.
func TestConformanceWalletWithoutTokenOrBaid(t *testing.T) {
	t.Parallel()
	w := seedWorld(t)
	bodies := []struct{ name, body string }{
		{"neither field", fmt.Sprintf(`{"customerId":%d,"source":"Manual"}`, w.bob)},
		{"both empty", fmt.Sprintf(`{"token":"","baid":"","customerId":%d,"source":"Manual"}`, w.bob)},
		{"null and blank", fmt.Sprintf(`{"token":null,"baid":"  ","customerId":%d,"source":"Manual"}`, w.bob)},
	}
	for _, tc := range bodies {
		t.Run("wire/"+tc.name, func(t *testing.T) {
			if key, _ := billingtest.RawError(t, w.srv, http.MethodPost, "/v1/Paypal", tc.body, http.StatusBadRequest); key != "agreement" {
				t.Errorf("error Key %q, want agreement", key)
			}
		})
	}
	// The reference documents token as a decimal: a JSON number is a token.
	billingtest.RawCall(t, w.srv, http.MethodPost, "/v1/Paypal", fmt.Sprintf(`{"token":12345,"customerId":%d,"source":"Manual"}`, w.bob), http.StatusOK)

	t.Run("SDK refuses before sending", func(t *testing.T) {
		tag, sent := tagged(t, w.srv)
		_, err := w.c.PaymentMethods.CreateWalletAgreement(context.Background(), "Paypal", &billing.WalletAgreementParams{CustomerID: w.bob, Source: billing.PaymentSourceManual}, tag)
		var ve *billing.ValidationError
		if !errors.As(err, &ve) || ve.Field != "token" {
			t.Fatalf("err = %v, want a ValidationError on token", err)
		}
		var apiErr *billing.APIError
		if errors.As(err, &apiErr) || errors.Is(err, billing.ErrBadRequest) {
			t.Errorf("a validation error must not look like an answer: %v", err)
		}
		time.Sleep(10 * time.Millisecond) // let a request that was sent be recorded
		sent(0)
	})
	t.Run("SDK sends a blank token, the fake answers agreement", func(t *testing.T) {
		_, err := w.c.PaymentMethods.CreateWalletAgreement(context.Background(), "Paypal", &billing.WalletAgreementParams{Token: "   ", CustomerID: w.bob, Source: billing.PaymentSourceManual})
		apiErr := wantAPIError(t, err, billing.ErrBadRequest, http.StatusBadRequest, "agreement", http.MethodPost, "/v1/Paypal")
		if !apiErr.HasKey("AGREEMENT") {
			t.Error("HasKey is not case-insensitive")
		}
	})
	if n := len(w.srv.WalletMethods()); n != 1 {
		t.Errorf("fake holds %d wallet methods, want only the numeric-token one", n)
	}
}

// ---- 4.9 Create sales tracking code ----

func TestConformanceCreateTrackingCode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := seedWorld(t)
	cases := []struct {
		name   string
		params billing.CreateSalesTrackingCodeParams
	}{
		{"category", billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "SPRING", Name: "Spring promo", Description: "Spring 2024", Email: "sales@example.com"}},
		{"custom category name", billing.CreateSalesTrackingCodeParams{Type: "Region", Code: "EMEA", Name: "Europe"}},
		{"custom name, other case", billing.CreateSalesTrackingCodeParams{Type: "region", Code: "APAC", Name: "Asia Pacific"}},
		{"same code, other category", billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType5, Code: "SPRING", Name: "Spring, cat 5"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tag, sent := tagged(t, w.srv)
			code, err := w.c.SalesTrackingCodes.Create(ctx, &tc.params, tag)
			if err != nil {
				t.Fatal(err)
			}
			p := tc.params
			if code.ID <= 0 || code.Type != p.Type || code.Code != p.Code || code.Name != p.Name || code.Status != billing.TrackingCodeStatusActive {
				t.Errorf("answer %+v", code)
			}
			if (p.Description == "") != (code.Description == nil) || (p.Email == "") != (code.Email == nil) {
				t.Errorf("description %v, email %v; want null exactly when not sent", code.Description, code.Email)
			}
			if r := sent(1)[0]; r.Status != http.StatusOK {
				t.Errorf("status %d, want the reference's 200", r.Status)
			}
			held := w.srv.SalesTrackingCodes()
			if last := held[len(held)-1]; last.ID != code.ID || last.Code != p.Code || last.Type != p.Type {
				t.Errorf("fake holds %+v last, want %+v", last, code)
			}
		})
	}
	if n := len(w.srv.SalesTrackingCodes()); n != len(cases) {
		t.Errorf("%d codes held, want %d", n, len(cases))
	}
}

// ---- 4.10 List subscription product items ----

func TestConformanceSubscriptionItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := seedWorld(t)
	page, err := w.c.SubscriptionItems.List(ctx, w.sp1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(page.Items, itemID); !equalIDs(got, []int64{w.itemActive, w.itemDeleted}) {
		t.Fatalf("ids = %v", got)
	}
	a, b := page.Items[0], page.Items[1]
	if a.Reference.Value != "A-1" || a.Reference.IsNumber || a.Name != "Serial A" || a.Description != "first unit" || a.Status != billing.ItemStatusActive ||
		a.SubscriptionProductID != w.sp1 || a.SubscriptionID != w.sub1 || a.CustomerID != w.ada || a.ProductID != 901 {
		t.Errorf("item %+v", a)
	}
	checkTime(t, "createdDate", a.CreatedDate, day(2024, 2, 1))
	checkTime(t, "modifiedDate", a.ModifiedDate, day(2024, 3, 1))
	// Reference 2.11: reference is a string or a number; a 20-digit number
	// survives exactly.
	if b.Reference.Value != "12345678901234567890" || !b.Reference.IsNumber || b.Status != billing.ItemStatusDeleted {
		t.Errorf("item %+v", b)
	}

	cases := []struct {
		name   string
		filter billing.SubscriptionProductItemFilter
		want   []int64
	}{
		{"status", billing.SubscriptionProductItemFilter{Status: []billing.ItemStatus{billing.ItemStatusDeleted}}, []int64{w.itemDeleted}},
		{"name wildcard", billing.SubscriptionProductItemFilter{Name: query.StartsWith("serial")}, []int64{w.itemActive, w.itemDeleted}},
		{"reference", billing.SubscriptionProductItemFilter{Reference: query.Equals("a-1")}, []int64{w.itemActive}},
		{"createdTimestamp", billing.SubscriptionProductItemFilter{CreatedTimestamp: query.TimeRange{From: day(2024, 2, 2), DateOnly: true}}, []int64{w.itemDeleted}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page, err := w.c.SubscriptionItems.List(ctx, w.sp1, &billing.ListSubscriptionItemsParams{Filter: tc.filter})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(page.Items, itemID); !equalIDs(got, tc.want) || page.Count != len(tc.want) || page.MaxCount != 2 {
				t.Errorf("ids = %v (count %d of %d), want %v", got, page.Count, page.MaxCount, tc.want)
			}
		})
	}
	// A known subscription product without items lists nothing.
	page, err = w.c.SubscriptionItems.List(ctx, w.sp2, nil)
	if err != nil || len(page.Items) != 0 || page.Count != 0 {
		t.Errorf("product without items: %+v, %v", page, err)
	}
}

// ---- 4.11 Preview bulk price change ----

func TestConformanceBulkPreview(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := seedWorld(t)
	cases := []struct {
		name   string
		params billing.BulkPriceChangeParams
		want   []int64 // subscriptions listed
	}{
		{"select all", billing.BulkPriceChangeParams{SelectAll: true}, []int64{w.sub1}},
		{"select all, one excluded", billing.BulkPriceChangeParams{SelectAll: true, SubscriptionIDs: []int64{w.sub1}}, nil},
		{"only the listed", billing.BulkPriceChangeParams{SubscriptionIDs: []int64{w.sub1, w.sub2}}, []int64{w.sub1}},
		{"listed without a change", billing.BulkPriceChangeParams{SubscriptionIDs: []int64{w.sub2}}, nil},
		{"plan product without a change", billing.BulkPriceChangeParams{SelectAll: true, PlanProductIDs: []int64{802}}, nil},
		{"query search", billing.BulkPriceChangeParams{SelectAll: true, Query: billing.SubscriberFilter{FirstName: query.Equals("ADA")}}, []int64{w.sub1}},
		{"query search, no match", billing.BulkPriceChangeParams{SelectAll: true, Query: billing.SubscriberFilter{FirstName: query.Equals("Bob")}}, nil},
		{"filterOptions", billing.BulkPriceChangeParams{SelectAll: true, FilterOptions: &billing.BulkFilterOptions{
			Intervals: []billing.Interval{billing.IntervalMonthly}, NextBillingDateRangeStartDate: day(2024, 6, 1)}}, []int64{w.sub1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			preview, err := w.c.Bulk.PreviewPriceChange(ctx, ctPlan, &tc.params)
			if err != nil {
				t.Fatal(err)
			}
			var got billingtest.BulkPreview
			if err := preview.Decode(&got); err != nil {
				t.Fatalf("decoding %s: %v", preview.Raw, err)
			}
			var subs []int64
			for _, s := range got.Subscriptions {
				subs = append(subs, s.SubscriptionID)
			}
			if !equalIDs(subs, tc.want) || got.PlanID != ctPlan || got.SubscriptionCount != len(tc.want) {
				t.Fatalf("preview %s, want subscriptions %v", preview.Raw, tc.want)
			}
			if len(tc.want) == 1 {
				s := got.Subscriptions[0]
				if len(s.PlanProducts) != 1 || s.CustomerID != w.ada {
					t.Fatalf("subscription %+v, want one product of Ada's", s)
				}
				p := s.PlanProducts[0]
				if p.PlanProductID != 801 || p.SubscriptionProductID != w.sp1 || !p.CurrentPrice.Equal(dec("10.125")) || !p.NewPrice.Equal(dec("12.5")) {
					t.Errorf("product %+v, want 801 from 10.125 to 12.50", p)
				}
			}
		})
	}
	// A preview changes nothing and announces nothing.
	sub, _ := w.srv.Subscription(w.sub1)
	if !sub.Products[0].Price.Equal(dec("10.125")) {
		t.Errorf("price changed by a preview: %s", sub.Products[0].Price)
	}
	if ev := w.srv.Events(); len(ev) != 0 {
		t.Errorf("a preview emitted %v", ev)
	}
}

// ---- 4.12 Submit bulk job ----

func TestConformanceBulkProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := seedWorld(t)
	if j, _ := w.srv.BulkJob(w.job); j.Processed {
		t.Fatal("seeded job is processed already")
	}
	tag, sent := tagged(t, w.srv)
	job, err := w.c.Bulk.Process(ctx, w.job, tag)
	if err != nil {
		t.Fatal(err)
	}
	if job.ID != w.job || string(job.Extra["status"]) != `"Processing"` {
		t.Errorf("answer id %d, other members %s; want id %d, status Processing", job.ID, job.Extra, w.job)
	}
	if j, _ := w.srv.BulkJob(w.job); !j.Processed {
		t.Error("the fake does not hold the job as processed")
	}
	if r := sent(1)[0]; r.Path != "/v1/BulkApi/Process" || string(r.Body) != fmt.Sprintf(`{"id":%d}`, w.job) {
		t.Errorf("request %s %s", r.Path, r.Body)
	}
	if j, _ := w.srv.BulkJob(w.unvalidatedJob); j.Processed {
		t.Error("processing one job touched another")
	}
}

// ---- 7 Errors ----

// sentinels are the SDK's error categories; an API error matches exactly
// one of them.
var sentinels = []error{billing.ErrBadRequest, billing.ErrUnauthorized, billing.ErrForbidden, billing.ErrNotFound,
	billing.ErrConflict, billing.ErrRateLimited, billing.ErrServer, billing.ErrOutcomeUnknown, billing.ErrPagination}

// wantAPIError checks that err is the SDK's *APIError for the answer the
// case expects: the category (and no other), the status, a non-zero
// ErrorId, the first error's Key (when key is not empty), and the method
// and path of the request.
func wantAPIError(t *testing.T, err error, target error, status int, key, method, path string) *billing.APIError {
	t.Helper()
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v (%T), want a *billing.APIError", err, err)
	}
	for _, s := range sentinels {
		if errors.Is(err, s) != (s == target) {
			t.Errorf("errors.Is(err, %v) = %v", s, errors.Is(err, s))
		}
	}
	if apiErr.StatusCode != status || apiErr.ErrorID != 0 || apiErr.Method != method || apiErr.Path != path {
		t.Errorf("APIError status %d, ErrorId %d, %s %s; want %d, 0, %s %s", apiErr.StatusCode, apiErr.ErrorID, apiErr.Method, apiErr.Path, status, method, path)
	}
	if len(apiErr.Errors) == 0 {
		t.Fatalf("APIError has no Errors entry: %v", apiErr)
	}
	if key != "" && apiErr.Errors[0].Key != key {
		t.Errorf("Errors[0].Key = %q, want %q", apiErr.Errors[0].Key, key)
	}
	if apiErr.Errors[0].Value == "" {
		t.Error("Errors[0].Value is empty")
	}
	return apiErr
}

// errorCase is one error answer of the reference, provoked through the SDK.
type errorCase struct {
	name string
	// opts start the case's fake with other options than the default.
	opts         []billingtest.Option
	call         func(ctx context.Context, t *testing.T, w *ctWorld) error
	target       error
	status       int
	key          string
	method, path string
	// contains are fragments of the error message.
	contains []string
	// check, when set, looks further at the error and the fake's state.
	check func(t *testing.T, w *ctWorld, e *billing.APIError)
}

func TestConformanceErrors(t *testing.T) {
	t.Parallel()
	const api = "Api Error"
	unknown := fmt.Sprint(ctUnknownID)
	// Paths that hold seeded ids are filled in from the world per case.
	cases := []errorCase{
		// 400: query not valid, on every endpoint that takes one.
		{name: "invalid query/list invoices", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{Raw: "nosuch:1"}})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "GET", path: "/v1/Invoices", contains: []string{"nosuch"}},
		{name: "invalid query/list customer invoices", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Invoices.ListByCustomer(ctx, w.ada, &billing.ListCustomerInvoicesParams{Filter: billing.CustomerInvoiceFilter{Raw: "nosuch:1"}})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "GET", path: "/v1/Customers/{ada}/Invoices/", contains: []string{"nosuch"}},
		{name: "invalid query/customer-only name on customer invoices", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			// customerId is a filter of GET /v1/Invoices only (4.1 vs 4.2).
			_, err := w.c.Invoices.ListByCustomer(ctx, w.ada, &billing.ListCustomerInvoicesParams{Filter: billing.CustomerInvoiceFilter{Raw: "customerId:1"}})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "GET", path: "/v1/Customers/{ada}/Invoices/", contains: []string{"customerId"}},
		{name: "invalid query/invoice summaries", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.InvoiceSummaries.List(ctx, w.ada, &billing.ListInvoiceSummariesParams{Filter: billing.InvoiceSummaryFilter{Raw: "nosuch:1"}})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "GET", path: "/v1/customers/{ada}/invoiceSummaries", contains: []string{"nosuch"}},
		{name: "invalid query/subscription items", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.SubscriptionItems.List(ctx, w.sp1, &billing.ListSubscriptionItemsParams{Filter: billing.SubscriptionProductItemFilter{Raw: "nosuch:1"}})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "GET", path: "/v1/subscriptionProducts/{sp1}/items", contains: []string{"nosuch"}},
		{name: "invalid query/wildcard on an integer", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{Raw: "invoiceNumber:10*"}})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "GET", path: "/v1/Invoices", contains: []string{"invoiceNumber"}},
		{name: "invalid query/enum value", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.InvoiceSummaries.List(ctx, w.ada, &billing.ListInvoiceSummariesParams{Filter: billing.InvoiceSummaryFilter{InvoiceStatus: []billing.InvoiceStatus{"Lost"}}})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "GET", path: "/v1/customers/{ada}/invoiceSummaries", contains: []string{"Lost"}},
		{name: "invalid query/bulk preview search", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Bulk.PreviewPriceChange(ctx, ctPlan, &billing.BulkPriceChangeParams{SelectAll: true, Query: billing.SubscriberFilter{Raw: "nosuch:1"}})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "POST", path: "/v1/Subscribers/700/PreviewBulkPriceChange", contains: []string{"nosuch"}},

		// 400: tracking code type; the message lists the valid types,
		// custom names included.
		{name: "tracking code type invalid", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: "Sales Tracking Code 6", Code: "X", Name: "X"})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "POST", path: "/v1/salesTrackingCodes",
			contains: []string{"Sales Tracking Code 6", "Sales Tracking Code 1", "Sales Tracking Code 2", "Sales Tracking Code 3", "Sales Tracking Code 4", "Sales Tracking Code 5", "Region"},
			check: func(t *testing.T, w *ctWorld, _ *billing.APIError) {
				if n := len(w.srv.SalesTrackingCodes()); n != 0 {
					t.Errorf("%d codes created", n)
				}
			}},

		// 400: write-off amount differs from the outstanding balance.
		{name: "write-off partial amount", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: w.invDue, Amount: billing.Ptr(dec("32.23"))})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "POST", path: "/v1/invoices/writeoff", contains: []string{"32.24"},
			check: wantNotWrittenOff},
		{name: "write-off amount off by a fraction of a cent", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: w.invDue, Amount: billing.Ptr(dec("32.2400001"))})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "POST", path: "/v1/invoices/writeoff", check: wantNotWrittenOff},
		{name: "write-off of a paid invoice", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: w.invPaid, Amount: billing.Ptr(decimal.Zero)})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "POST", path: "/v1/invoices/writeoff"},

		// 400: replacing a deleted card.
		{name: "replace a deleted card", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.PaymentMethods.ReplaceCreditCard(ctx, &billing.ReplaceCreditCardParams{ID: w.deletedCard, CustomerID: w.ada,
				CardNumber: "4111111111111111", CVV: "123", ExpirationMonth: 12, ExpirationYear: 30})
			return err
		}, target: billing.ErrBadRequest, status: 400, key: api, method: "PUT", path: "/v1/paymentMethods/creditCard", contains: []string{"deleted"},
			check: func(t *testing.T, w *ctWorld, e *billing.APIError) {
				if c, _ := w.srv.CreditCard(w.deletedCard); !c.Deleted || c.ReplacedBy != 0 {
					t.Errorf("deleted card now %+v: it stays deleted", c)
				}
				if n := len(w.srv.CreditCards()); n != 2 {
					t.Errorf("%d cards, want the 2 seeded", n)
				}
				if strings.Contains(e.Error(), "4111111111111111") {
					t.Error("the card number reached the error")
				}
			}},

		// 404: unknown customer, invoice, draft invoice.
		{name: "unknown customer/invoices", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Invoices.ListByCustomer(ctx, ctUnknownID, nil)
			return err
		}, target: billing.ErrNotFound, status: 404, key: api, method: "GET", path: "/v1/Customers/" + unknown + "/Invoices/", contains: []string{unknown}},
		{name: "unknown customer/summaries", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.InvoiceSummaries.List(ctx, ctUnknownID, nil)
			return err
		}, target: billing.ErrNotFound, status: 404, key: api, method: "GET", path: "/v1/customers/" + unknown + "/invoiceSummaries", contains: []string{unknown}},
		{name: "unknown customer/wallet agreement", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{Token: "T", CustomerID: ctUnknownID, Source: billing.PaymentSourceManual})
			return err
		}, target: billing.ErrNotFound, status: 404, key: api, method: "POST", path: "/v1/Paypal", contains: []string{unknown}},
		{name: "unknown invoice/read", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Invoices.Get(ctx, ctUnknownID, &billing.GetInvoiceParams{GroupCharges: true})
			return err
		}, target: billing.ErrNotFound, status: 404, key: api, method: "GET", path: "/v1/Invoices/" + unknown, contains: []string{unknown}},
		{name: "unknown invoice/write-off", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: ctUnknownID, Amount: billing.Ptr(dec("1"))})
			return err
		}, target: billing.ErrNotFound, status: 404, key: api, method: "POST", path: "/v1/invoices/writeoff", contains: []string{unknown}},
		{name: "unknown draft invoice", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			rc, err := w.c.DraftInvoices.PDF(ctx, ctUnknownID, nil)
			if rc != nil {
				rc.Close()
			}
			return err
		}, target: billing.ErrNotFound, status: 404, key: api, method: "GET", path: "/v1/draftInvoices/pdf/" + unknown, contains: []string{unknown}},
		{name: "unknown subscription product", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.SubscriptionItems.List(ctx, ctUnknownID, nil)
			return err
		}, target: billing.ErrNotFound, status: 404, key: api, method: "GET", path: "/v1/subscriptionProducts/" + unknown + "/items"},
		{name: "unknown bulk plan", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Bulk.PreviewPriceChange(ctx, ctUnknownID, &billing.BulkPriceChangeParams{SelectAll: true})
			return err
		}, target: billing.ErrNotFound, status: 404, key: api, method: "POST", path: "/v1/Subscribers/" + unknown + "/PreviewBulkPriceChange"},
		{name: "unknown bulk job", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Bulk.Process(ctx, ctUnknownID)
			return err
		}, target: billing.ErrNotFound, status: 404, key: api, method: "POST", path: "/v1/BulkApi/Process"},

		// 404: write-off without the permission, even with the right amount.
		{name: "write-off without permission", opts: []billingtest.Option{billingtest.WithWriteOffPermission(false)}, call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: w.invDue, Amount: billing.Ptr(dec("32.24"))})
			return err
		}, target: billing.ErrNotFound, status: 404, method: "POST", path: "/v1/invoices/writeoff", check: wantNotWrittenOff},
		{name: "write-off without permission, unknown invoice", opts: []billingtest.Option{billingtest.WithWriteOffPermission(false)}, call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: ctUnknownID, Amount: billing.Ptr(dec("1"))})
			return err
		}, target: billing.ErrNotFound, status: 404, method: "POST", path: "/v1/invoices/writeoff"},

		// 401: wrong key.
		{name: "wrong API key", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			c, err := billing.NewClient("wrong", billing.WithBaseURL(w.srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Invoices.Get(ctx, w.invDue, nil)
			return err
		}, target: billing.ErrUnauthorized, status: 401, key: api, method: "GET", path: "/v1/Invoices/{invDue}",
			check: func(t *testing.T, w *ctWorld, _ *billing.APIError) {
				for _, r := range w.srv.Requests() {
					if r.Status == http.StatusUnauthorized && r.Authorized {
						t.Error("the fake logged the wrong key as authorized")
					}
				}
			}},
		{name: "wrong API key on a write", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			c, err := billing.NewClient("wrong", billing.WithBaseURL(w.srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: w.invDue, Amount: billing.Ptr(dec("32.24"))})
			return err
		}, target: billing.ErrUnauthorized, status: 401, key: api, method: "POST", path: "/v1/invoices/writeoff", check: wantNotWrittenOff},

		// 409: business rules the fake adds where the reference is silent.
		{name: "tracking code exists", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			p := &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "DUP", Name: "first"}
			if _, err := w.c.SalesTrackingCodes.Create(ctx, p); err != nil {
				t.Fatal(err)
			}
			_, err := w.c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "dup", Name: "second"})
			return err
		}, target: billing.ErrConflict, status: 409, key: api, method: "POST", path: "/v1/salesTrackingCodes", contains: []string{"already exists"},
			check: func(t *testing.T, w *ctWorld, _ *billing.APIError) {
				if n := len(w.srv.SalesTrackingCodes()); n != 1 {
					t.Errorf("%d codes, want 1", n)
				}
			}},
		{name: "bulk job not validated", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			_, err := w.c.Bulk.Process(ctx, w.unvalidatedJob)
			return err
		}, target: billing.ErrConflict, status: 409, key: api, method: "POST", path: "/v1/BulkApi/Process", contains: []string{"not validated"},
			check: func(t *testing.T, w *ctWorld, _ *billing.APIError) {
				if j, _ := w.srv.BulkJob(w.unvalidatedJob); j.Processed {
					t.Error("an unvalidated job was processed")
				}
			}},
		{name: "bulk job processed twice", call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			if _, err := w.c.Bulk.Process(ctx, w.job); err != nil {
				t.Fatal(err)
			}
			_, err := w.c.Bulk.Process(ctx, w.job)
			return err
		}, target: billing.ErrConflict, status: 409, key: api, method: "POST", path: "/v1/BulkApi/Process", contains: []string{"already"}},

		// 429: throttled, with the wait until the window ends (30s on the
		// fixed clock), beyond the client's MaxRetryAfter so not retried.
		{name: "rate limited", opts: []billingtest.Option{billingtest.WithRateLimit(1, 1000)}, call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			if _, err := w.c.Invoices.Get(ctx, w.invDue, nil); err != nil {
				t.Fatal(err)
			}
			_, err := w.c.Invoices.Get(ctx, w.invDue, nil)
			return err
		}, target: billing.ErrRateLimited, status: 429, key: api, method: "GET", path: "/v1/Invoices/{invDue}", contains: []string{"30 seconds"},
			check: func(t *testing.T, w *ctWorld, e *billing.APIError) {
				if e.RetryAfter != 30*time.Second || e.Header.Get("Retry-After") != "30" {
					t.Errorf("RetryAfter %v (header %q), want 30s", e.RetryAfter, e.Header.Get("Retry-After"))
				}
				if m := e.RateLimit.Minute; !m.Present || m.Limit != 1 || m.Remaining != 0 || m.Reset != 30*time.Second {
					t.Errorf("minute window %+v, want limit 1, none left, reset 30s", m)
				}
			}},
		{name: "rate limited write", opts: []billingtest.Option{billingtest.WithRateLimit(1, 1000)}, call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			if _, err := w.c.Invoices.Get(ctx, w.invDue, nil); err != nil {
				t.Fatal(err)
			}
			_, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: w.invDue, Amount: billing.Ptr(dec("32.24"))})
			return err
		}, target: billing.ErrRateLimited, status: 429, key: api, method: "POST", path: "/v1/invoices/writeoff", check: wantNotWrittenOff},
		{name: "draft PDF throttled", opts: []billingtest.Option{billingtest.WithPDFRateLimit(1)}, call: func(ctx context.Context, t *testing.T, w *ctWorld) error {
			rc, err := w.c.DraftInvoices.PDF(ctx, w.draft, nil)
			if err != nil {
				t.Fatal(err)
			}
			rc.Close()
			_, err = w.c.DraftInvoices.PDF(ctx, w.draft, nil)
			return err
		}, target: billing.ErrRateLimited, status: 429, key: api, method: "GET", path: "/v1/draftInvoices/pdf/{draft}",
			check: func(t *testing.T, w *ctWorld, e *billing.APIError) {
				if e.RetryAfter != 30*time.Second {
					t.Errorf("RetryAfter %v, want 30s", e.RetryAfter)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := seedWorld(t, tc.opts...)
			err := tc.call(context.Background(), t, w)
			path := strings.NewReplacer(
				"{ada}", fmt.Sprint(w.ada), "{sp1}", fmt.Sprint(w.sp1), "{invDue}", fmt.Sprint(w.invDue), "{draft}", fmt.Sprint(w.draft),
			).Replace(tc.path)
			apiErr := wantAPIError(t, err, tc.target, tc.status, tc.key, tc.method, path)
			for _, frag := range tc.contains {
				if !strings.Contains(apiErr.Errors[0].Value, frag) {
					t.Errorf("message %q lacks %q", apiErr.Errors[0].Value, frag)
				}
			}
			if !strings.Contains(apiErr.Error(), fmt.Sprint(tc.status)) || !strings.Contains(apiErr.Error(), path) {
				t.Errorf("Error() = %q, want the status and path", apiErr.Error())
			}
			// Answered once: 4xx are not retried (the 429's wait is beyond
			// the client's MaxRetryAfter), and a failed write announces
			// nothing.
			n := 0
			for _, r := range w.srv.Requests() {
				if r.Status == tc.status {
					n++
				}
			}
			if n != 1 {
				t.Errorf("the fake answered %d requests with %d, want 1", n, tc.status)
			}
			if tc.status != http.StatusConflict { // the 409 cases write once before failing
				if ev := w.srv.Events(); len(ev) != 0 {
					t.Errorf("events after a refused request: %v", ev)
				}
			}
			if tc.check != nil {
				tc.check(t, w, apiErr)
			}
		})
	}
}

// wantNotWrittenOff checks that invDue still owes its whole balance.
func wantNotWrittenOff(t *testing.T, w *ctWorld, _ *billing.APIError) {
	t.Helper()
	inv, _ := w.srv.Invoice(w.invDue)
	checkInvoice(t, inv, w.want[w.invDue], decimal.Zero)
}

// ---- 6 Events ----

func TestConformanceEvents(t *testing.T) {
	t.Parallel()
	writes := []struct {
		name      string
		operation string
		kinds     []billingtest.EventKind
		// write performs the write with opts and returns the id of the
		// entity the events name.
		write func(ctx context.Context, w *ctWorld, opts ...billing.RequestOption) (int64, error)
	}{
		{"write-off", "invoice.writeoff", []billingtest.EventKind{billingtest.EventWebhook, billingtest.EventCRM, billingtest.EventAccounting, billingtest.EventEmail},
			func(ctx context.Context, w *ctWorld, opts ...billing.RequestOption) (int64, error) {
				inv, err := w.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: w.invOverdue, Amount: billing.Ptr(dec("100"))}, opts...)
				if err != nil {
					return 0, err
				}
				return inv.ID, nil
			}},
		{"replace card", "paymentMethod.replaced", []billingtest.EventKind{billingtest.EventWebhook, billingtest.EventEmail},
			func(ctx context.Context, w *ctWorld, opts ...billing.RequestOption) (int64, error) {
				card, err := w.c.PaymentMethods.ReplaceCreditCard(ctx, &billing.ReplaceCreditCardParams{ID: w.card, CustomerID: w.ada,
					CardNumber: "4111111111111111", CVV: "123", ExpirationMonth: 12, ExpirationYear: 30}, opts...)
				if err != nil {
					return 0, err
				}
				return card.ID, nil
			}},
		{"wallet agreement", "paymentMethod.created", []billingtest.EventKind{billingtest.EventWebhook, billingtest.EventCRM},
			func(ctx context.Context, w *ctWorld, opts ...billing.RequestOption) (int64, error) {
				pm, err := w.c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{Token: "T", CustomerID: w.bob, Source: billing.PaymentSourceImport}, opts...)
				if err != nil {
					return 0, err
				}
				return pm.ID, nil
			}},
		{"tracking code", "salesTrackingCode.created", []billingtest.EventKind{billingtest.EventWebhook},
			func(ctx context.Context, w *ctWorld, opts ...billing.RequestOption) (int64, error) {
				code, err := w.c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType3, Code: "C", Name: "C"}, opts...)
				if err != nil {
					return 0, err
				}
				return code.ID, nil
			}},
		{"bulk process", "bulkJob.processed", []billingtest.EventKind{billingtest.EventWebhook, billingtest.EventEmail},
			func(ctx context.Context, w *ctWorld, opts ...billing.RequestOption) (int64, error) {
				job, err := w.c.Bulk.Process(ctx, w.job, opts...)
				if err != nil {
					return 0, err
				}
				return job.ID, nil
			}},
	}
	for _, wr := range writes {
		t.Run(wr.name+"/suppressed", func(t *testing.T) {
			w := seedWorld(t)
			tag, sent := tagged(t, w.srv)
			if _, err := wr.write(context.Background(), w, billing.SuppressEvents(), tag); err != nil {
				t.Fatal(err)
			}
			if ev := w.srv.Events(); len(ev) != 0 {
				t.Errorf("events with X-SUPPRESS-ALL-EVENTS: %v", ev)
			}
			if h := sent(1)[0].Header.Get("X-Suppress-All-Events"); h != "True" {
				t.Errorf("X-SUPPRESS-ALL-EVENTS sent as %q, want True", h)
			}
		})
		t.Run(wr.name+"/announced", func(t *testing.T) {
			w := seedWorld(t)
			tag, sent := tagged(t, w.srv)
			id, err := wr.write(context.Background(), w, tag)
			if err != nil {
				t.Fatal(err)
			}
			ev := w.srv.Events()
			if len(ev) != len(wr.kinds) {
				t.Fatalf("events %v, want %v", ev, wr.kinds)
			}
			for i, e := range ev {
				if e.Kind != wr.kinds[i] || e.Operation != wr.operation || e.EntityID != id || !e.Time.Equal(ctNow) {
					t.Errorf("event %d = %+v, want %s %s on %d at %v", i, e, wr.kinds[i], wr.operation, id, ctNow)
				}
			}
			if _, present := sent(1)[0].Header["X-Suppress-All-Events"]; present {
				t.Error("X-SUPPRESS-ALL-EVENTS sent without SuppressEvents")
			}
		})
	}
	t.Run("other header values are ignored", func(t *testing.T) {
		w := seedWorld(t)
		if _, err := writes[3].write(context.Background(), w, billing.WithHeader("X-SUPPRESS-ALL-EVENTS", "yes")); err != nil {
			t.Fatal(err)
		}
		if ev := w.srv.Events(); len(ev) != 1 {
			t.Errorf("events %v, want the webhook: only True suppresses", ev)
		}
	})
	t.Run("reads announce nothing", func(t *testing.T) {
		w := seedWorld(t)
		ctx := context.Background()
		if _, err := w.c.Invoices.List(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := w.c.Invoices.Get(ctx, w.invDue, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := w.c.InvoiceSummaries.List(ctx, w.ada, nil); err != nil {
			t.Fatal(err)
		}
		if ev := w.srv.Events(); len(ev) != 0 {
			t.Errorf("events after reads: %v", ev)
		}
	})
}

// TestConformanceRequestsRecordedBeforeAnswer checks that a request is in
// srv.Requests() by the time the SDK call that made it has returned, which
// tests that count or inspect requests rely on (ExampleServer_InjectFault
// counts them). Each call reads a page of 16 summaries, about 8 KiB: an
// answer that large is on the wire in full while the fake's handler is
// still running, so the SDK can decode it before the handler's deferred
// recording. (Answers under about 4 KiB stay in net/http's buffers until
// the handler returns, which hides the race.)
func TestConformanceRequestsRecordedBeforeAnswer(t *testing.T) {
	t.Parallel()
	const size, calls, enough = 16, 80, 3
	ctx := context.Background()
	srv := newFake(t)
	m := must(t)
	cust := m(srv.AddCustomer(billingtest.Customer{FirstName: "Log"}))
	for i := range size {
		m(srv.AddInvoice(ptInvoice(cust, i, "")))
	}
	c := srv.Client()
	params := &billing.ListInvoiceSummariesParams{ListOptions: billing.ListOptions{PageSize: size}}
	var late []int
	for i := 0; i < calls && len(late) < enough; i++ {
		tag := fmt.Sprintf("lag-%d", i)
		if _, err := c.InvoiceSummaries.List(ctx, cust, params, billing.WithHeader(tagHeader, tag)); err != nil {
			t.Fatal(err)
		}
		recorded := false
		for _, r := range srv.Requests() {
			recorded = recorded || r.Header.Get(tagHeader) == tag
		}
		if !recorded {
			late = append(late, i)
		}
	}
	if len(late) > 0 {
		t.Errorf("calls %v returned before the fake recorded their request in srv.Requests()", late)
	}
}

// TestConformanceFilterEscaping checks reference 4.0 rules 2 and 4 end to
// end: characters that mean something in a query (& ; , : * | % [ ]) are
// escaped by the SDK and taken literally by the fake, while the SDK's own
// wildcards and [empty] keep their meaning.
func TestConformanceFilterEscaping(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newFake(t)
	m := must(t)
	cust := m(srv.AddCustomer(billingtest.Customer{FirstName: "Esc"}))
	byPO := map[string]int64{}
	for i, po := range []string{"A&B;C,D:E*F", "A&B", "AxB;C,D:EzzF", "[empty]", "", "50%|x", "a b+c", "É-ü"} {
		byPO[po] = m(srv.AddInvoice(ptInvoice(cust, i, po)))
	}
	c := srv.Client()
	cases := []struct {
		name string
		text query.Text
		want []string
	}{
		{"reserved characters are literal", query.Equals("A&B;C,D:E*F"), []string{"A&B;C,D:E*F"}},
		{"prefix with reserved characters", query.StartsWith("A&B"), []string{"A&B;C,D:E*F", "A&B"}},
		{"a literal star is not a wildcard", query.Contains("*"), []string{"A&B;C,D:E*F"}},
		{"the text [empty] is not the [empty] token", query.Equals("[empty]"), []string{"[empty]"}},
		{"the [empty] token matches null", query.IsEmpty(), []string{""}},
		{"percent and bar", query.Equals("50%|x"), []string{"50%|x"}},
		{"space and plus", query.Equals("a b+c"), []string{"a b+c"}},
		{"case-insensitive beyond ASCII", query.Equals("é-Ü"), []string{"É-ü"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			page, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{PoNumber: tc.text}})
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			for _, po := range tc.want {
				want = append(want, byPO[po])
			}
			if got := ids(page.Items, invoiceID); !equalIDs(got, want) {
				t.Errorf("ids %v, want %v (%q)", got, want, tc.want)
			}
		})
	}
}

// TestConformanceWriteOffPermissionBeforeBody checks reference 4.6 rule 3
// and 5.2: on an account without the write-off permission the call
// "returns 404", whatever its body. The SDK always sends a well-formed
// body, so this is checked on the wire.
func TestConformanceWriteOffPermissionBeforeBody(t *testing.T) {
	t.Parallel()
	w := seedWorld(t, billingtest.WithWriteOffPermission(false))
	for _, body := range []string{
		fmt.Sprintf(`{"invoiceId":%d,"amount":32.24}`, w.invDue),
		`{}`,
		`{"invoiceId":"x"}`,
		`not json`,
		``,
	} {
		t.Run(fmt.Sprintf("%q", body), func(t *testing.T) {
			billingtest.RawCall(t, w.srv, http.MethodPost, "/v1/invoices/writeoff", body, http.StatusNotFound)
		})
	}
	wantNotWrittenOff(t, w, nil)
}

// TestConformanceErrorBodyOnTheWire checks the error body of section 7 as
// the fake sends it: ErrorId 0, HttpStatusCode equal to the status,
// and one Errors entry with Key and Value, for each status the fake uses.
func TestConformanceErrorBodyOnTheWire(t *testing.T) {
	t.Parallel()
	w := seedWorld(t)
	cases := []struct {
		name, method, path, key string
		status                  int
	}{
		{"invalid query", http.MethodGet, "/v1/Invoices?query=nosuch:1", "Api Error", http.StatusBadRequest},
		{"unknown invoice", http.MethodGet, fmt.Sprintf("/v1/Invoices/%d", ctUnknownID), "Api Error", http.StatusNotFound},
		{"not validated job", http.MethodPost, "/v1/BulkApi/Process", "Api Error", http.StatusConflict},
		{"wallet without token or baid", http.MethodPost, "/v1/Paypal", "agreement", http.StatusBadRequest},
	}
	bodies := map[string]string{
		"not validated job":            fmt.Sprintf(`{"id":%d}`, w.unvalidatedJob),
		"wallet without token or baid": fmt.Sprintf(`{"customerId":%d,"source":"Manual"}`, w.bob),
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if key, value := billingtest.RawError(t, w.srv, tc.method, tc.path, bodies[tc.name], tc.status); key != tc.key || value == "" {
				t.Errorf("error entry {%q, %q}, want Key %q and a Value", key, value, tc.key)
			}
		})
	}
	t.Run("wrong key", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, w.srv.URL+"/v1/Invoices", nil)
		req.Header.Set("Authorization", "Basic wrong")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusUnauthorized || !bytes.Contains(b, []byte(`"HttpStatusCode":401`)) || !bytes.Contains(b, []byte(`"ErrorId":`)) {
			t.Errorf("status %d, body %s", resp.StatusCode, b)
		}
	})
}

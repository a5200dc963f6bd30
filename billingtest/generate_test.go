package billingtest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/ledger"
	"github.com/shopspring/decimal"
)

// gtEnd is where generated data ends, the clock at which it shows every
// invoice status.
func gtEnd(o GenerateOptions) time.Time {
	start := o.Start
	if start.IsZero() {
		start = DefaultGenerateStart
	}
	return start.UTC().AddDate(2, 0, 0)
}

func gtServer(t testing.TB, o GenerateOptions) *Server {
	t.Helper()
	end := gtEnd(o)
	srv, err := NewHandler(WithGenerated(o), WithClock(func() time.Time { return end }))
	if err != nil {
		t.Fatalf("NewHandler: %v", err)
	}
	return srv
}

func gtInvoiceIDs(srv *Server) []int64 {
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	return idsOf(srv.store)
}

// storedInvoices returns the store's invoices in id order, as built from
// their records. The caller holds the lock.
func storedInvoices(st *store) []*Invoice {
	out := make([]*Invoice, st.invoices.Len())
	for i := range out {
		out[i] = st.invoices.At(i)
	}
	return out
}

func TestGenerateDeterministic(t *testing.T) {
	t.Parallel()
	o := GenerateOptions{Seed: 42, Invoices: 2000}
	a, b := gtServer(t, o), gtServer(t, o)
	ids := gtInvoiceIDs(a)
	if !slices.Equal(ids, gtInvoiceIDs(b)) {
		t.Fatal("same seed, different invoice ids")
	}
	for i := 0; i < len(ids); i += 37 {
		ia, _ := a.Invoice(ids[i])
		ib, _ := b.Invoice(ids[i])
		if !reflect.DeepEqual(ia, ib) {
			t.Fatalf("invoice %d differs between two servers with seed 42:\n%+v\n%+v", ids[i], ia, ib)
		}
		sa, _ := a.InvoiceSummary(ids[i])
		sb, _ := b.InvoiceSummary(ids[i])
		if !reflect.DeepEqual(sa, sb) {
			t.Fatalf("summary %d differs", ids[i])
		}
		ca, _ := a.Customer(ia.CustomerID)
		cb, _ := b.Customer(ia.CustomerID)
		if !reflect.DeepEqual(ca, cb) {
			t.Fatalf("customer %d differs", ia.CustomerID)
		}
	}
	if !reflect.DeepEqual(a.Counts(), b.Counts()) || !reflect.DeepEqual(a.SalesTrackingCodes(), b.SalesTrackingCodes()) {
		t.Fatal("counts or codes differ")
	}

	c := gtServer(t, GenerateOptions{Seed: 43, Invoices: 2000})
	differ := 0
	for i := 0; i < len(ids); i += 37 {
		ia, _ := a.Invoice(ids[i])
		ic, ok := c.Invoice(ids[i])
		if !ok || !reflect.DeepEqual(ia, ic) {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("seeds 42 and 43 gave the same invoices")
	}
}

func TestGenerateCounts(t *testing.T) {
	t.Parallel()
	o := GenerateOptions{Seed: 7, Customers: 50, Invoices: 500, DraftInvoices: 9, CreditCards: 30, Subscriptions: 40, ItemsPerProduct: 3, BulkJobs: 5}
	srv := gtServer(t, o)
	products := 0
	srv.mu.RLock()
	for _, sub := range srv.store.subscriptions {
		products += len(sub.Products)
	}
	srv.mu.RUnlock()
	want := map[string]int{
		"customers": 50, "invoices": 500, "draftInvoices": 9, "creditCards": 30, "walletMethods": 0,
		"subscriptions": 40, "subscriptionProductItems": 3 * products, "salesTrackingCodes": 16, "bulkJobs": 5,
	}
	if got := srv.Counts(); !reflect.DeepEqual(got, want) {
		t.Errorf("Counts = %v, want %v", got, want)
	}

	// Negative counts make none; the rest take their defaults.
	srv = gtServer(t, GenerateOptions{Invoices: 200, DraftInvoices: -1, CreditCards: -1, Subscriptions: -1, BulkJobs: -1})
	want = map[string]int{
		"customers": 20, "invoices": 200, "draftInvoices": 0, "creditCards": 0, "walletMethods": 0,
		"subscriptions": 0, "subscriptionProductItems": 0, "salesTrackingCodes": 16, "bulkJobs": 0,
	}
	if got := srv.Counts(); !reflect.DeepEqual(got, want) {
		t.Errorf("Counts = %v, want %v", got, want)
	}

	if _, err := NewHandler(WithGenerated(GenerateOptions{Customers: -1, Invoices: 10})); err == nil {
		t.Error("negative Customers with invoices: no error")
	}
	srv = gtServer(t, GenerateOptions{Customers: -1})
	if got := srv.Counts(); got["customers"] != 0 || got["bulkJobs"] != 4 {
		t.Errorf("only jobs: Counts = %v", got)
	}
}

func TestGenerateDefaults(t *testing.T) {
	t.Parallel()
	srv := gtServer(t, GenerateOptions{})
	got := srv.Counts()
	for kind, n := range map[string]int{"customers": 100, "invoices": 1000, "draftInvoices": 20, "creditCards": 100, "subscriptions": 90, "bulkJobs": 4} {
		if got[kind] != n {
			t.Errorf("%s = %d, want %d", kind, got[kind], n)
		}
	}
	from, to := DefaultGenerateStart, DefaultGenerateStart.AddDate(2, 0, 0)
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	for _, inv := range storedInvoices(srv.store) {
		if inv.PostedTimestamp.Before(from) || !inv.PostedTimestamp.Before(to) {
			t.Fatalf("invoice %d posted %v, outside [%v, %v)", inv.ID, inv.PostedTimestamp, from, to)
		}
	}
	for _, c := range srv.store.customers {
		if c.CreatedTimestamp.Before(from) || !c.CreatedTimestamp.Before(to) || c.ModifiedTimestamp.Before(c.CreatedTimestamp) {
			t.Fatalf("customer %d created %v, modified %v", c.ID, c.CreatedTimestamp, c.ModifiedTimestamp)
		}
	}
}

// TestGenerateInvariants checks that the data hangs together and has the
// variety the list, filter, grouping and preview tests rely on.
func TestGenerateInvariants(t *testing.T) {
	t.Parallel()
	o := GenerateOptions{Seed: 1, Invoices: 3000, Start: time.Date(2023, 4, 1, 0, 0, 0, 0, time.UTC)}
	srv := gtServer(t, o)
	end := gtEnd(o)
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	st := srv.store

	if !slices.IsSorted(idsOf(st)) {
		t.Fatal("the invoice ids are not sorted")
	}
	type tally map[string]int
	seen := tally{}
	balances := map[int64]decimal.Decimal{}
	chargeIDs := map[int64]bool{}
	var lastNumber int64
	for _, inv := range storedInvoices(st) {
		id := inv.ID
		if _, ok := st.customers[inv.CustomerID]; !ok {
			t.Fatalf("invoice %d: unknown customer %d", id, inv.CustomerID)
		}
		if inv.InvoiceNumber <= lastNumber {
			t.Fatalf("invoice %d: number %d after %d", id, inv.InvoiceNumber, lastNumber)
		}
		lastNumber = inv.InvoiceNumber
		if len(inv.Charges) < 1 || len(inv.Charges) > 6 {
			t.Fatalf("invoice %d: %d charges", id, len(inv.Charges))
		}
		var fromSub, fromPurchase bool
		for _, c := range inv.Charges {
			if chargeIDs[c.ID] || c.ID == 0 {
				t.Fatalf("invoice %d: charge id %d repeats", id, c.ID)
			}
			chargeIDs[c.ID] = true
			if !c.Quantity.Mul(c.UnitPrice).Equal(c.Amount) {
				t.Fatalf("invoice %d: %v × %v != %v", id, c.Quantity, c.UnitPrice, c.Amount)
			}
			if c.Amount.Exponent() < -4 || !c.Amount.IsPositive() {
				t.Fatalf("invoice %d: amount %v", id, c.Amount)
			}
			switch {
			case c.SubscriptionID != 0:
				fromSub = true
				sub := st.subscriptions[c.SubscriptionID]
				if sub == nil || sub.CustomerID != inv.CustomerID {
					t.Fatalf("invoice %d: charge of subscription %d, not the customer's", id, c.SubscriptionID)
				}
				if !slices.ContainsFunc(sub.Products, func(p SubscriptionProduct) bool { return p.ID == c.SubscriptionProductID }) {
					t.Fatalf("invoice %d: product %d not of subscription %d", id, c.SubscriptionProductID, sub.ID)
				}
			case c.PurchaseID != 0:
				fromPurchase = true
			default:
				t.Fatalf("invoice %d: charge %d from neither a subscription nor a purchase", id, c.ID)
			}
			if c.Tracked {
				seen["tracked"]++
			}
		}
		switch {
		case fromSub && fromPurchase:
			seen["mixed"]++
		case fromSub:
			seen["subscription"]++
		default:
			seen["purchase"]++
		}
		out := ledger.Outstanding(inv)
		if out.IsNegative() {
			t.Fatalf("invoice %d: outstanding %v", id, out)
		}
		amount := ledger.Amount(inv)
		if !amount.Sub(inv.TotalPayments).Sub(inv.SumOfCreditNotes).Equal(out) {
			t.Fatalf("invoice %d: amount %v - payments %v - credits %v != outstanding %v", id, amount, inv.TotalPayments, inv.SumOfCreditNotes, out)
		}
		if !inv.OpeningArBalance.Add(amount).Equal(inv.ClosingArBalance) {
			t.Fatalf("invoice %d: opening %v + amount %v != closing %v", id, inv.OpeningArBalance, amount, inv.ClosingArBalance)
		}
		balances[inv.CustomerID] = balances[inv.CustomerID].Add(out)
		if inv.TotalPayments.IsPositive() && inv.TotalPayments.LessThan(amount.Sub(inv.SumOfCreditNotes)) {
			seen["partly paid"]++
		}
		if inv.TotalTaxes.IsPositive() {
			seen["taxed"]++
		}
		if inv.TotalDiscount.IsPositive() {
			seen["discounted"]++
		}
		if inv.PoNumber != "" {
			seen["po"]++
		}
		if len(inv.PaymentSchedules) == 2 {
			seen["instalments"]++
		}
		seen[string(ledger.Status(inv, end))]++
		seen[inv.Terms]++
	}
	for _, k := range []string{"subscription", "purchase", "mixed", "tracked", "partly paid", "taxed", "discounted", "po", "instalments",
		"Paid", "Due", "Overdue", "Void", "Disputed", "Net15", "Net30", "Net45"} {
		if seen[k] == 0 {
			t.Errorf("no invoice is %s; tally %v", k, seen)
		}
	}
	if seen["Paid"] < seen["Overdue"] {
		t.Errorf("more overdue than paid invoices: %v", seen)
	}

	cs := tally{}
	for _, c := range st.customers {
		if !balances[c.ID].Equal(c.ArBalance) {
			t.Errorf("customer %d: arBalance %v, invoices owe %v", c.ID, c.ArBalance, balances[c.ID])
		}
		if c.ParentID != 0 {
			if _, ok := st.customers[c.ParentID]; !ok || c.ParentID >= c.ID {
				t.Errorf("customer %d: parent %d", c.ID, c.ParentID)
			}
			cs["parent"]++
		}
		cs[string(c.Status)]++
		cs[string(c.AccountStatus)]++
		if c.CompanyName != "" {
			cs["company"]++
		}
		if c.Reference1 == "" {
			cs["no reference1"]++
		}
		if c.CrmID == "" {
			cs["no crm"]++
		}
		if c.MonthlyRecurringRevenue.IsPositive() {
			cs["mrr"]++
		}
		for k, code := range c.SalesTrackingCodeIDs {
			if code == 0 {
				continue
			}
			i := slices.IndexFunc(st.codes, func(x SalesTrackingCode) bool { return x.ID == code })
			if i < 0 {
				t.Fatalf("customer %d: unknown code %d", c.ID, code)
			}
			if n, _ := st.category(string(st.codes[i].Type)); n != k+1 {
				t.Fatalf("customer %d: code %d of category %d in slot %d", c.ID, code, n, k+1)
			}
			cs["code"]++
		}
	}
	for _, k := range []string{"parent", "Active", "Draft", "Hold", "Suspended", "Cancelled", "Good", "PoorStanding", "company", "no reference1", "no crm", "mrr", "code"} {
		if cs[k] == 0 {
			t.Errorf("no customer is %s; tally %v", k, cs)
		}
	}
	if st.categoryNames[0] != "Region" || st.categoryNames[1] != "Channel" {
		t.Errorf("category names %q", st.categoryNames)
	}

	ss := tally{}
	plans := map[int64]bool{}
	for _, sub := range st.subscriptions {
		plans[sub.PlanID] = true
		ss[string(sub.Interval)]++
		ss[string(sub.Status)]++
		if len(sub.Products) < 1 || len(sub.Products) > 3 {
			t.Errorf("subscription %d: %d products", sub.ID, len(sub.Products))
		}
		for _, p := range sub.Products {
			if !p.Price.Equal(p.PlanPrice) {
				ss["below plan price"]++
			}
			if !st.products[p.ID] || p.ProductID == 0 || p.PlanProductID == 0 {
				t.Errorf("subscription %d: product %+v", sub.ID, p)
			}
			for _, item := range st.items[p.ID] {
				if item.SubscriptionID != sub.ID || item.CustomerID != sub.CustomerID {
					t.Errorf("item %d: of subscription %d, customer %d", item.ID, item.SubscriptionID, item.CustomerID)
				}
				switch {
				case item.Reference.IsNumber:
					ss["numeric reference"]++
				case item.Reference.Value != "":
					ss["string reference"]++
				}
				ss[string(item.Status)]++
			}
		}
		if sub.Status == billing.SubscriptionStatusActive && !sub.NextBillingDate.After(end) {
			t.Errorf("active subscription %d: next billing %v", sub.ID, sub.NextBillingDate)
		}
	}
	if len(plans) < 3 {
		t.Errorf("%d plans", len(plans))
	}
	for _, k := range []string{"Monthly", "Yearly", "Active", "Cancelled", "below plan price", "numeric reference", "string reference", "Deleted"} {
		if ss[k] == 0 {
			t.Errorf("no subscription or item is %s; tally %v", k, ss)
		}
	}

	var deleted, defaults int
	for _, c := range st.cards {
		if len(c.Last4) != 4 {
			t.Errorf("card %d: last4 %q", c.ID, c.Last4)
		}
		if c.Deleted {
			deleted++
		}
		if c.IsDefault {
			defaults++
		}
	}
	if deleted == 0 || defaults == 0 {
		t.Errorf("cards: %d deleted, %d default", deleted, defaults)
	}
	var validated, processed int
	for _, j := range st.jobs {
		if j.Validated {
			validated++
		}
		if j.Processed {
			processed++
		}
	}
	if validated == 0 || validated == len(st.jobs) || processed == 0 {
		t.Errorf("jobs: %d validated, %d processed of %d", validated, processed, len(st.jobs))
	}
	for _, d := range st.drafts {
		if len(d.Lines) == 0 || d.Created.After(end) {
			t.Errorf("draft %d: %d lines, created %v", d.ID, len(d.Lines), d.Created)
		}
	}
}

func TestGenerateLarge(t *testing.T) {
	t.Parallel()
	n := 100_000
	if testing.Short() {
		n = 20_000
	}
	start := time.Now()
	srv := gtServer(t, GenerateOptions{Seed: 9, Invoices: n})
	t.Logf("%d invoices in %v", n, time.Since(start))
	got := srv.Counts()
	if got["invoices"] != n || got["customers"] != n/10 {
		t.Fatalf("Counts = %v", got)
	}
	ids := gtInvoiceIDs(srv)
	if len(ids) != n || !slices.IsSorted(ids) {
		t.Fatal("invoice order is not sorted")
	}
}

func TestGenerateTwice(t *testing.T) {
	t.Parallel()
	o := GenerateOptions{Seed: 5, Invoices: 300}
	srv := gtServer(t, o)
	first := srv.Counts()
	if err := srv.Generate(o); err != nil {
		t.Fatal(err)
	}
	got := srv.Counts()
	for kind, n := range first {
		want := 2 * n
		if kind == "salesTrackingCodes" {
			want = n // reused, not repeated
		}
		if got[kind] != want {
			t.Errorf("%s = %d after two calls, want %d", kind, got[kind], want)
		}
	}
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	ids := idsOf(srv.store)
	if len(ids) != 600 || !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != 600 {
		t.Fatal("invoice ids not unique and sorted")
	}
	// Ids come from one sequence: no two entities of any kind share one.
	all := map[int64]string{}
	claim := func(kind string, id int64) {
		if prev, dup := all[id]; dup {
			t.Fatalf("id %d is a %s and a %s", id, prev, kind)
		}
		all[id] = kind
	}
	numbers := map[int64]bool{}
	for _, inv := range storedInvoices(srv.store) {
		claim("invoice", inv.ID)
		for _, c := range inv.Charges {
			claim("charge", c.ID)
		}
		if numbers[inv.InvoiceNumber] {
			t.Fatalf("invoice number %d repeats", inv.InvoiceNumber)
		}
		numbers[inv.InvoiceNumber] = true
	}
	for id := range srv.store.customers {
		claim("customer", id)
	}
	for id, sub := range srv.store.subscriptions {
		claim("subscription", id)
		for _, p := range sub.Products {
			claim("subscription product", p.ID)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, n := range []struct {
		name     string
		invoices int
	}{{"10k", 10_000}, {"100k", 100_000}} {
		b.Run(n.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				srv, err := NewHandler()
				if err != nil {
					b.Fatal(err)
				}
				if err := srv.Generate(GenerateOptions{Seed: 1, Invoices: n.invoices}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestGeneratePinned pins the data of a few options: a change to the
// generator that changes what any seed gives shows here, where the other
// tests, which check what the data has, may not notice.
func TestGeneratePinned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []GenerateOptions // one Generate call each
		want string            // sha256 of DumpFixtures
	}{
		{"seed 1", []GenerateOptions{{Seed: 1, Invoices: 37}},
			"91b8069e1cd56ce83b497f78d9b67280e72c425de12c2d475930aae6d148efde"},
		{"seed 7, all counts", []GenerateOptions{{Seed: 7, Customers: 20, Invoices: 300, DraftInvoices: 4, CreditCards: 25, Subscriptions: 30, ItemsPerProduct: 3, BulkJobs: 5,
			Start: time.Date(2021, 3, 31, 22, 0, 0, 0, time.FixedZone("UTC-2", -7200))}},
			"6886a2e854f787811cb0a3750bdd5e1257f511a9d0a23697beac4c7973a2fdb8"},
		{"seed 42, no customers", []GenerateOptions{{Seed: 42, Customers: -1}},
			"5fd74e93539d78803b511ca453d616b91bf1fa610494e387436048020300e2f4"},
		{"twice", []GenerateOptions{{Seed: 5, Invoices: 120}, {Seed: 6, Invoices: 80, Subscriptions: -1}},
			"ff5ebca95db6631b325e3e00ab8ca64cf66caaa379f1503c4ca257d82f3d4cfe"},
	}
	for _, tt := range tests {
		srv, err := NewHandler()
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range tt.opts {
			if err := srv.Generate(o); err != nil {
				t.Fatalf("%s: Generate: %v", tt.name, err)
			}
		}
		h := sha256.New()
		if err := srv.DumpFixtures(h); err != nil {
			t.Fatalf("%s: DumpFixtures: %v", tt.name, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != tt.want {
			t.Errorf("%s: the dump's sha256 is %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestGenerateOutOfIDs runs out of ids at one step of Generate after
// another: tracking codes, plans, customers, subscriptions, invoices and
// their purchases. Each time Generate stops with the store's error.
func TestGenerateOutOfIDs(t *testing.T) {
	t.Parallel()
	for _, left := range []int64{5, 30, 60, 150, 300, 1000} {
		srv, err := NewHandler()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.AddCustomer(Customer{ID: math.MaxInt64 - left, FirstName: "Late"}); err != nil {
			t.Fatal(err)
		}
		err = srv.Generate(GenerateOptions{Seed: 1, Invoices: 300})
		if !errors.Is(err, errIDsExhausted) || !strings.HasPrefix(err.Error(), "Generate: ") {
			t.Errorf("%d ids left: Generate = %v, want Generate: ... %v", left, err, errIDsExhausted)
		}
	}
}

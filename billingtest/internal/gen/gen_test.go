package gen

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/billingapi/billing-go/billingtest/seed"
)

// memSink keeps what Run adds, counting calls per method, and fails the
// failAt-th call of method fail.
type memSink struct {
	lastID  int64
	calls   map[string]int
	fail    string
	failAt  int
	codes   [5][]int64
	numbers int64
}

var errSink = errors.New("sink refuses")

func (m *memSink) call(name string) error {
	if m.calls == nil {
		m.calls = map[string]int{}
	}
	m.calls[name]++
	if name == m.fail && m.calls[name] == m.failAt {
		return errSink
	}
	return nil
}

func (m *memSink) add(name string) (int64, error) {
	if err := m.call(name); err != nil {
		return 0, err
	}
	m.lastID++
	return m.lastID, nil
}

// sink is m as Run takes it.
func (m *memSink) sink() Sink {
	return Sink{
		Assign: func() (int64, error) { return m.add("Assign") },
		Categories: func(names [5]string) ([5]string, [5][]int64) {
			_ = m.call("Categories")
			return names, m.codes
		},
		AddCode:         func(seed.SalesTrackingCode) (int64, error) { return m.add("AddCode") },
		AddCustomer:     func(seed.Customer) (int64, error) { return m.add("AddCustomer") },
		SetCustomer:     func(seed.Customer) { _ = m.call("SetCustomer") },
		AddSubscription: func(seed.Subscription) (int64, error) { return m.add("AddSubscription") },
		AddItem:         func(seed.SubscriptionProductItem) (int64, error) { return m.add("AddItem") },
		StartInvoices:   func(int) int64 { _ = m.call("StartInvoices"); return m.numbers },
		AddInvoice: func(inv *seed.Invoice) (int64, error) {
			m.lastID += int64(len(inv.Charges)) // the charges' ids
			return m.add("AddInvoice")
		},
		AddDraft: func(seed.DraftInvoice) (int64, error) { return m.add("AddDraft") },
		AddCard:  func(seed.CreditCard) (int64, error) { return m.add("AddCard") },
		AddJob:   func(seed.BulkJob) (int64, error) { return m.add("AddJob") },
	}
}

var testStart = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)

func TestRunStopsAtSinkError(t *testing.T) {
	t.Parallel()
	o := Options{Seed: 3, Invoices: 50, DraftInvoices: 3, Start: testStart}
	for _, method := range []string{"Assign", "AddCode", "AddCustomer", "AddSubscription", "AddItem", "AddInvoice", "AddDraft", "AddCard", "AddJob"} {
		for _, at := range []int{1, 2} {
			m := &memSink{fail: method, failAt: at}
			if err := Run(m.sink(), o); !errors.Is(err, errSink) {
				t.Errorf("%s failing on call %d: Run = %v, want the sink's error", method, at, err)
			}
			if m.calls[method] != at {
				t.Errorf("%s failing on call %d: called %d times", method, at, m.calls[method])
			}
		}
	}
}

// TestRunCalls checks how many entities of each kind Run hands the sink,
// and that codes the sink has already are reused, not added.
func TestRunCalls(t *testing.T) {
	t.Parallel()
	o := Options{Seed: 5, Customers: 12, Invoices: 40, DraftInvoices: 3, CreditCards: 7, Subscriptions: 9, ItemsPerProduct: 2, BulkJobs: 6, Start: testStart}
	m := &memSink{}
	if err := Run(m.sink(), o); err != nil {
		t.Fatal(err)
	}
	if got := m.calls["AddSubscription"]; got != 9 {
		t.Fatalf("AddSubscription called %d times, want 9", got)
	}
	want := map[string]int{
		"Categories": 1, "AddCode": 16, "AddCustomer": 12, "AddSubscription": 9, "AddItem": m.calls["AddItem"],
		"StartInvoices": 1, "AddInvoice": 40, "AddDraft": 3, "AddCard": 7, "AddJob": 6,
		"SetCustomer": m.calls["SetCustomer"], "Assign": m.calls["Assign"],
	}
	if !reflect.DeepEqual(m.calls, want) {
		t.Errorf("calls = %v, want %v", m.calls, want)
	}
	if n := m.calls["AddItem"]; n < 2*9 || n > 2*9*3 || n%2 != 0 {
		t.Errorf("%d items for 9 subscriptions of 1 to 3 products, 2 each", n)
	}

	reused := &memSink{codes: [5][]int64{{1001}, {1002}, {1003}, {1004}, {1005}}}
	if err := Run(reused.sink(), o); err != nil {
		t.Fatal(err)
	}
	if n := reused.calls["AddCode"]; n != 0 {
		t.Errorf("AddCode called %d times with codes of every category there", n)
	}
}

func TestOptionsResolved(t *testing.T) {
	t.Parallel()
	zone := time.FixedZone("UTC+1", 3600)
	tests := []struct {
		name string
		in   Options
		want Options
	}{
		{"defaults", Options{Start: testStart}, Options{
			Customers: 100, Invoices: 1000, DraftInvoices: 20, CreditCards: 100, Subscriptions: 90,
			ItemsPerProduct: 2, BulkJobs: 4, Start: testStart}},
		{"few invoices", Options{Invoices: 5, Start: testStart}, Options{
			Customers: 1, Invoices: 5, DraftInvoices: 1, CreditCards: 1, Subscriptions: 1,
			ItemsPerProduct: 2, BulkJobs: 4, Start: testStart}},
		{"negative counts", Options{Seed: 9, Invoices: 200, DraftInvoices: -1, CreditCards: -3, Subscriptions: -1, ItemsPerProduct: -1, BulkJobs: -1, Start: testStart.In(zone)}, Options{
			Seed: 9, Customers: 20, Invoices: 200, Start: testStart}},
		{"no customers", Options{Customers: -1, Start: testStart}, Options{BulkJobs: 4, ItemsPerProduct: 2, Start: testStart}},
	}
	for _, tt := range tests {
		got, err := tt.in.resolved()
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: resolved = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	for _, in := range []Options{{Customers: -1, Invoices: 1}, {Customers: -1, DraftInvoices: 1}, {Customers: -1, CreditCards: 1}, {Customers: -1, Subscriptions: 1}} {
		if _, err := in.resolved(); err == nil {
			t.Errorf("%+v: no error", in)
		}
	}
}

// TestDraw checks draw against the draws it replaced, which compared one
// number below 100 with cumulative bounds, or took the purchases' weights
// off one number below their sum, 95: the same source must give the same
// picks, or every seed's data would change.
func TestDraw(t *testing.T) {
	t.Parallel()
	byBounds := func(bounds ...int) func(*rand.Rand) int {
		return func(r *rand.Rand) int {
			k, i := r.IntN(100), 0
			for i < len(bounds) && k >= bounds[i] {
				i++
			}
			return i
		}
	}
	purchaseWeights := []int{10, 20, 8, 5, 5, 8, 30, 6, 3}
	tests := []struct {
		weights []int
		old     func(*rand.Rand) int
	}{
		{[]int{84, 4, 4, 3, 5}, byBounds(84, 88, 92, 95)},
		{[]int{88, 8, 4}, byBounds(88, 96)},
		{[]int{80, 10, 5, 5}, byBounds(80, 90, 95)},
		{[]int{80, 5, 8, 3, 4}, byBounds(80, 85, 93, 96)},
		{[]int{50, 30, 12, 8}, byBounds(50, 80, 92)},
		{purchaseWeights, func(r *rand.Rand) int {
			w := r.IntN(95)
			for i, pw := range purchaseWeights {
				if w -= pw; w < 0 {
					return i
				}
			}
			return 0
		}},
	}
	for _, tt := range tests {
		g := &generator{r: rand.New(rand.NewPCG(1, 2))}
		old := rand.New(rand.NewPCG(1, 2))
		for range 5000 {
			if got, want := g.draw(tt.weights...), tt.old(old); got != want {
				t.Fatalf("draw(%v) = %d, the old draw %d", tt.weights, got, want)
			}
		}
	}
	var weights []int
	for _, p := range purchases {
		weights = append(weights, p.weight)
	}
	if !slices.Equal(weights, purchaseWeights) {
		t.Errorf("purchase weights %v, the test has %v", weights, purchaseWeights)
	}
}

// Package gen generates the billing fake's realistic data
// (billingtest.Server.Generate) into a [Sink], reading nothing back but
// the ids the sink gives, so that it knows nothing of the fake's store.
package gen

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/shopspring/decimal"
)

// Options say how much data Run makes and from which seed. They are
// billingtest.GenerateOptions field for field (Generate converts one into
// the other), whose doc says what each field means and its default;
// Start must be set: Generate sets a zero one.
type Options struct {
	Seed                                            uint64
	Customers, Invoices, DraftInvoices, CreditCards int
	Subscriptions, ItemsPerProduct, BulkJobs        int
	Start                                           time.Time
}

// Sink takes what the generator makes: the fake's store. Its Add funcs
// store an entity as the fake's do, assigning the ids left 0, and return
// its id.
type Sink struct {
	// Assign takes the next id of the sequence all entities share.
	Assign func() (int64, error)
	// Categories gives the sales tracking code categories without a name
	// the one in names, and returns every category's name ("" for the
	// standard one) and the ids of its codes.
	Categories  func(names [5]string) ([5]string, [5][]int64)
	AddCode     func(seed.SalesTrackingCode) (int64, error)
	AddCustomer func(seed.Customer) (int64, error)
	// SetCustomer replaces the stored customer of c.ID with c.
	SetCustomer     func(c seed.Customer)
	AddSubscription func(seed.Subscription) (int64, error)
	AddItem         func(seed.SubscriptionProductItem) (int64, error)
	// StartInvoices makes room for n invoices and returns the largest
	// invoice number stored.
	StartInvoices func(n int) int64
	// AddInvoice keeps nothing of inv, which serves every invoice.
	AddInvoice func(inv *seed.Invoice) (int64, error)
	AddDraft   func(seed.DraftInvoice) (int64, error)
	AddCard    func(seed.CreditCard) (int64, error)
	AddJob     func(seed.BulkJob) (int64, error)
}

const (
	// pcgStream is the second PCG word, fixed so that Seed alone picks
	// the data.
	pcgStream = 0x9e3779b97f4a7c15
	day       = 24 * time.Hour
)

// resolved returns the options with defaults filled in and negative
// counts made zero.
func (o Options) resolved() (Options, error) {
	if o.Customers < 0 {
		if o.Invoices > 0 || o.DraftInvoices > 0 || o.CreditCards > 0 || o.Subscriptions > 0 {
			return o, fmt.Errorf("no customers for %d invoices, %d drafts, %d cards and %d subscriptions",
				o.Invoices, o.DraftInvoices, o.CreditCards, o.Subscriptions)
		}
		// Without customers, nothing that belongs to one.
		o.Invoices, o.DraftInvoices, o.CreditCards, o.Subscriptions = -1, -1, -1, -1
	}
	def := func(n *int, v int) { *n = max(cmp.Or(*n, v), 0) }
	def(&o.Invoices, 1000)
	def(&o.Customers, max(1, o.Invoices/10))
	def(&o.DraftInvoices, max(1, o.Invoices/50))
	def(&o.CreditCards, o.Customers)
	def(&o.Subscriptions, max(1, o.Customers*9/10))
	def(&o.ItemsPerProduct, 2)
	def(&o.BulkJobs, 4)
	o.Start = o.Start.UTC()
	return o, nil
}

// Run generates the data o asks for into sink, in the order customers,
// then what belongs to them, so that each entity's owner is there first.
// It stops at the first error of the sink and returns it.
func Run(sink Sink, opts Options) (err error) {
	o, err := opts.resolved()
	if err != nil {
		return err
	}
	g := &generator{
		sink: sink,
		o:    o,
		r:    rand.New(rand.NewPCG(o.Seed, pcgStream)),
		span: o.Start.AddDate(2, 0, 0).Sub(o.Start),
	}
	for _, p := range purchases {
		g.buyWeights = append(g.buyWeights, p.weight)
	}
	// A sink's error unwinds the steps from wherever it happens (see
	// must), which spares each of the many calls its own return.
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(sinkError)
			if !ok {
				panic(r)
			}
			err = e.err
		}
	}()
	for _, step := range []func(){
		g.trackingCodes, g.makePlans, g.customers, g.subscriptions, g.items,
		g.invoices, g.drafts, g.cards, g.jobs,
	} {
		step()
	}
	return nil
}

// sinkError carries an error of the sink from must to Run.
type sinkError struct{ err error }

// must returns id, or unwinds to Run with err.
func (g *generator) must(id int64, err error) int64 {
	if err != nil {
		panic(sinkError{err})
	}
	return id
}

// generator holds one Run's state. Offsets are durations from Start,
// which keeps the arithmetic in int64s.
type generator struct {
	sink Sink
	o    Options
	r    *rand.Rand
	span time.Duration
	buf  []byte

	codes [5][]int64
	plans []plan
	// custs are in creation order, which is also id order.
	custs []customer
	// active indexes the customers that are not drafts, in creation order;
	// activeCreated is their creation offsets, for binary search.
	active        []int32
	activeCreated []time.Duration
	subs          []subscription
	buyWeights    []int // of purchases
}

// customer is a generated customer and what its invoices need of it.
type customer struct {
	c       seed.Customer
	created time.Duration
	subs    []int32
	terms   int8  // index into paymentTerms
	taxBP   int64 // tax rate in basis points, 0 when exempt
	balance int64 // outstanding in 1e-4 units
	hasCard bool
}

type plan struct {
	id                int64
	name, description string
	products          []planProduct
}

type planProduct struct {
	catalogueProduct
	planProductID, productID int64
	price                    money // per month
}

// subscription is a generated subscription and what its charges need.
type subscription struct {
	sub     seed.Subscription
	cust    int32
	plan    int32
	created time.Duration
	months  int
	qty     []int64
	price   []money
}

// money is an exact amount v × 10^exp with exp in [-4, 0], kept beside
// its decimal so that sums stay in int64 arithmetic.
type money struct {
	v   int64
	exp int32
	d   decimal.Decimal
}

var pow10 = [...]int64{1, 10, 100, 1000, 10000}

func newMoney(v int64, exp int32) money { return money{v, exp, decimal.New(v, exp)} }

// units4 is m in units of 10^-4.
func (m money) units4() int64 { return m.v * pow10[4+m.exp] }

// dec is v × 10^exp, sharing the zero value: dec(v4, -4) for an amount
// in 1e-4 units, dec(v4/100, -2) for one with two decimals, as the
// service writes taxes and payments.
func dec(v int64, exp int32) decimal.Decimal {
	if v == 0 {
		return decimal.Zero
	}
	return decimal.New(v, exp)
}

// roundCents rounds a non-negative v4 to a whole number of cents.
func roundCents(v4 int64) int64 { return (v4 + 50) / 100 * 100 }

func (g *generator) pct(p int) bool { return g.r.IntN(100) < p }

// draw returns i weights[i] times in sum(weights), from one draw: {80,
// 10, 10} gives 0 eight times in ten.
func (g *generator) draw(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	k, i := g.r.IntN(total), 0
	for ; k >= weights[i]; i++ {
		k -= weights[i]
	}
	return i
}

// pick is values[g.draw(weights...)].
func pick[T any](g *generator, weights []int, values ...T) T { return values[g.draw(weights...)] }

// between is a random offset in [a, b), to the 100 ns the API writes.
func (g *generator) between(a, b time.Duration) time.Duration {
	if b <= a+100 {
		return a
	}
	return a + time.Duration(g.r.Int64N(int64(b-a)/100))*100
}

func (g *generator) at(off time.Duration) time.Time { return g.o.Start.Add(off) }

// num is prefix then n zero-padded to width digits, without fmt.
func (g *generator) num(prefix string, n int64, width int) string {
	b := append(g.buf[:0], prefix...)
	var d [20]byte
	digits := strconv.AppendInt(d[:0], n, 10)
	for i := len(digits); i < width; i++ {
		b = append(b, '0')
	}
	b = append(b, digits...)
	g.buf = b
	return string(b)
}

// ref is, p times in 100, prefix then a random number below n padded to
// width digits; else "".
func (g *generator) ref(p int, prefix string, n, width int) string {
	if !g.pct(p) {
		return ""
	}
	return g.num(prefix, int64(g.r.IntN(n)), width)
}

package billingtest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

// GenerateOptions says how much data [Server.Generate] makes and from which
// seed. A zero count takes a default derived from Invoices; a negative
// count makes none of that kind. The zero GenerateOptions makes a complete
// data set of 1,000 invoices.
type GenerateOptions struct {
	// Seed picks the data: the same options give the same data, from a
	// math/rand/v2 PCG source of their own, never the global one.
	Seed uint64
	// Customers is the number of customers; 0 means max(1, Invoices/10).
	// Negative makes none, and so no invoices, drafts, cards or
	// subscriptions, which belong to customers; asking for some of those
	// as well is an error.
	Customers int
	// Invoices is the number of posted invoices; 0 means 1,000.
	Invoices int
	// DraftInvoices is the number of draft invoices; 0 means
	// max(1, Invoices/50).
	DraftInvoices int
	// CreditCards is the number of credit card payment methods, about a
	// tenth of them deleted; 0 means one per customer.
	CreditCards int
	// Subscriptions is the number of subscriptions, each with 1 to 3
	// products; 0 means max(1, Customers*9/10). They go to distinct
	// customers first, so most customers have one.
	Subscriptions int
	// ItemsPerProduct is the number of items of every subscription
	// product; 0 means 2.
	ItemsPerProduct int
	// BulkJobs is the number of bulk jobs; 0 means 4. They cycle through
	// validated, not validated, validated, and validated and processed, so
	// that any four show every state.
	BulkJobs int
	// Start begins the two years the data spans: customers are created,
	// invoices posted and so on in [Start, Start+2 years). The zero Start
	// means 2024-01-01 UTC, so that the data never depends on the wall
	// clock.
	Start time.Time
}

const (
	genDefaultInvoices = 1000
	// genPCGStream is the second PCG word, fixed so that Seed alone picks the
	// data.
	genPCGStream = 0x9e3779b97f4a7c15
	genDay       = 24 * time.Hour
)

// DefaultGenerateStart is where generated data begins when
// [GenerateOptions] has no Start.
var DefaultGenerateStart = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)

// resolved returns the options with defaults filled in and negative
// counts made zero.
func (o GenerateOptions) resolved() (GenerateOptions, error) {
	if o.Customers < 0 {
		if o.Invoices > 0 || o.DraftInvoices > 0 || o.CreditCards > 0 || o.Subscriptions > 0 {
			return o, fmt.Errorf("Generate: no customers for %d invoices, %d drafts, %d cards and %d subscriptions",
				o.Invoices, o.DraftInvoices, o.CreditCards, o.Subscriptions)
		}
		// Without customers, nothing that belongs to one.
		o.Invoices, o.DraftInvoices, o.CreditCards, o.Subscriptions = -1, -1, -1, -1
	}
	def := func(n *int, v int) {
		if *n == 0 {
			*n = v
		}
		*n = max(*n, 0)
	}
	def(&o.Invoices, genDefaultInvoices)
	def(&o.Customers, max(1, o.Invoices/10))
	def(&o.DraftInvoices, max(1, o.Invoices/50))
	def(&o.CreditCards, o.Customers)
	def(&o.Subscriptions, max(1, o.Customers*9/10))
	def(&o.ItemsPerProduct, 2)
	def(&o.BulkJobs, 4)
	if o.Start.IsZero() {
		o.Start = DefaultGenerateStart
	}
	o.Start = o.Start.UTC()
	return o, nil
}

// Generate adds generated, realistic data to the fake: customers with
// sales tracking codes, parents and MRR figures; subscriptions to a
// handful of plans, some paying less than the plan price, with their
// product items; posted invoices with subscription and purchase charges,
// taxes, discounts, payments and credit notes; draft invoices; credit
// cards; and bulk jobs. The same options give the same data. See
// [GenerateOptions] for the amounts.
//
// About 60% of the invoices are posted by a monthly billing run, all
// within one second (02:00:00 UTC on the 1st, at sub-second times), as a
// real run posts them: many invoices share one second of postedTimestamp,
// more than fit a page at scale, which exercises paging inside one second
// (billing.Stable).
//
// The data spans [Start, Start+2 years). Invoice statuses follow the
// fake's clock, so tests that care about them should set [WithClock] to
// Start+2 years: then some invoices are paid, some partly paid, some due
// and some overdue. With the real clock and an old Start, every unpaid
// invoice is overdue.
//
// Calling Generate again adds another data set with new ids, plans and
// customers, reusing the sales tracking codes already there; invoice
// numbers continue from the largest. Generate holds the fake's lock
// throughout, a few hundred milliseconds for 100,000 invoices.
func (s *Server) Generate(opts GenerateOptions) error {
	o, err := opts.resolved()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := &generator{
		s:     s,
		o:     o,
		r:     rand.New(rand.NewPCG(o.Seed, genPCGStream)),
		start: o.Start,
		span:  o.Start.AddDate(2, 0, 0).Sub(o.Start),
		ints:  make([]decimal.Decimal, 256),
	}
	for i := range g.ints {
		g.ints[i] = decimal.New(int64(i), 0)
	}
	for _, step := range []func() error{
		g.trackingCodes, g.makePlans, g.customers, g.subscriptions, g.items,
		g.invoices, g.drafts, g.cards, g.jobs,
	} {
		if err := step(); err != nil {
			return fmt.Errorf("Generate: %w", err)
		}
	}
	return nil
}

// generator holds one Generate call's state. Offsets are durations from
// Start, which keeps the arithmetic in int64s.
type generator struct {
	s     *Server
	o     GenerateOptions
	r     *rand.Rand
	start time.Time
	span  time.Duration
	buf   []byte

	codes [5][]int64
	plans []genPlan
	// custs are in creation order, which is also id order.
	custs []genCustomer
	// active indexes the customers that are not drafts, in creation order;
	// activeCreated is their creation offsets, for binary search.
	active        []int32
	activeCreated []time.Duration
	subs          []genSub
	ints          []decimal.Decimal
}

type genCustomer struct {
	c       *Customer
	created time.Duration
	subs    []int32
	terms   int8  // index into genTerms
	taxBP   int64 // tax rate in basis points, 0 when exempt
	balance int64 // outstanding in 1e-4 units
	hasCard bool
}

type genPlan struct {
	id                int64
	name, description string
	products          []genPlanProduct
}

type genPlanProduct struct {
	planProductID, productID int64
	name, gl, itemPrefix     string
	price                    genMoney // per month
	perSeat                  int64    // largest quantity, 0 for one
}

type genSub struct {
	sub     *Subscription
	cust    int32
	plan    int32
	created time.Duration
	months  int
	qty     []int64
	price   []genMoney
}

// genMoney is an exact amount v × 10^exp with exp in [-4, 0], kept beside
// its decimal so that sums stay in int64 arithmetic.
type genMoney struct {
	v   int64
	exp int32
	d   decimal.Decimal
}

var genPow10 = [...]int64{1, 10, 100, 1000, 10000}

// units4 is m in units of 10^-4.
func (m genMoney) units4() int64 { return m.v * genPow10[4+m.exp] }

func newGenMoney(v int64, exp int32) genMoney {
	return genMoney{v: v, exp: exp, d: decimal.New(v, exp)}
}

// genDec4 is a decimal of v × 10^-4, sharing the zero value.
func genDec4(v int64) decimal.Decimal {
	if v == 0 {
		return decimal.Zero
	}
	return decimal.New(v, -4)
}

// genCents is a decimal of v4 (in 10^-4 units, a whole number of cents) with
// two decimals, as the service writes taxes and payments.
func genCents(v4 int64) decimal.Decimal {
	if v4 == 0 {
		return decimal.Zero
	}
	return decimal.New(v4/100, -2)
}

// genRoundCents rounds a non-negative v4 to a whole number of cents.
func genRoundCents(v4 int64) int64 { return (v4 + 50) / 100 * 100 }

func (g *generator) pct(p int) bool { return g.r.IntN(100) < p }

// pick draws one in 100 and returns values[i] for the first bounds[i]
// above the draw, the last value when none is: bounds {80, 90} and three
// values give them 80, 10 and 10 times in 100.
func pick[T any](g *generator, bounds []int, values ...T) T {
	k := g.r.IntN(100)
	i := 0
	for i < len(bounds) && k >= bounds[i] {
		i++
	}
	return values[i]
}

// between is a random offset in [a, b), to the 100 ns the API writes.
func (g *generator) between(a, b time.Duration) time.Duration {
	if b <= a+100 {
		return a
	}
	return a + time.Duration(g.r.Int64N(int64(b-a)/100))*100
}

func (g *generator) at(off time.Duration) time.Time { return g.start.Add(off) }

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

// intDec is a shared decimal of a small whole quantity: decimals are
// immutable, so one big.Int can serve every charge of quantity 3.
func (g *generator) intDec(n int64) decimal.Decimal {
	if n >= 0 && n < int64(len(g.ints)) {
		return g.ints[n]
	}
	return decimal.New(n, 0)
}

func (g *generator) assign() (int64, error) { return g.s.store.assign(0) }

// Sales tracking codes: category 1 and 2 get custom names, as accounts
// usually rename them; the rest keep the standard ones.
var genCategoryNames = [5]string{"Region", "Channel"}

var genCodes = [5][]struct{ code, name, email string }{
	{{"NORTH", "North", ""}, {"SOUTH", "South", ""}, {"EAST", "East", ""}, {"WEST", "West", ""}},
	{{"DIRECT", "Direct sales", ""}, {"PARTNER", "Partner", "partners@billing.example"}, {"ONLINE", "Online self-serve", ""}},
	{{"REP-AB", "Alex Brown", "alex.brown@billing.example"}, {"REP-CD", "Casey Diaz", "casey.diaz@billing.example"}, {"REP-EF", "Emery Fox", "emery.fox@billing.example"}},
	{{"SPRING24", "Spring 2024 campaign", ""}, {"BF24", "Black Friday 2024", ""}, {"WEBINAR", "Webinar sign-up", ""}},
	{{"RETAIL", "Retail", ""}, {"HEALTH", "Healthcare", ""}, {"LOGISTICS", "Logistics", ""}},
}

var genCodeShare = [5]int{90, 80, 60, 40, 30} // % of customers with a code of each category

func (g *generator) trackingCodes() error {
	st := g.s.store
	for i, name := range genCategoryNames {
		// A name the test set itself wins over ours.
		if name != "" && st.categoryNames[i] == "" {
			st.categoryNames[i] = name
		}
	}
	for _, c := range st.codes {
		if n, ok := st.category(string(c.Type)); ok {
			g.codes[n-1] = append(g.codes[n-1], c.ID)
		}
	}
	for i := range 5 {
		if len(g.codes[i]) > 0 {
			continue
		}
		typ := billing.TrackingCodeType("Sales Tracking Code " + strconv.Itoa(i+1))
		if st.categoryNames[i] != "" {
			typ = billing.TrackingCodeType(st.categoryNames[i])
		}
		for _, c := range genCodes[i] {
			// Not deletable: customers use them.
			code := billing.SalesTrackingCode{Type: typ, Code: c.code, Name: c.name, Email: strPtr(c.email)}
			if i == 2 {
				code.Description = strPtr("Sales representative")
			}
			id, err := g.s.addSalesTrackingCodeLocked(code)
			if err != nil {
				return err
			}
			g.codes[i] = append(g.codes[i], id)
		}
	}
	return nil
}

// genCatalogueProduct is a plan product: its price is v × 10^exp a month,
// and perSeat is the largest quantity a subscription has, 0 for one.
type genCatalogueProduct struct {
	name, gl, itemPrefix string
	v                    int64
	exp                  int32
	perSeat              int64
}

// The plan catalogue. Prices are monthly; yearly subscriptions pay ten
// months. Some prices have three or four decimals, as metered prices do.
var genPlanCatalogue = []struct {
	name, description string
	products          []genCatalogueProduct
}{
	{"Starter", "Starter plan", []genCatalogueProduct{
		{"Starter platform fee", "4000", "Workspace", 2900, -2, 0},
		{"Additional user", "4010", "User", 950, -2, 10},
	}},
	{"Professional", "Professional plan", []genCatalogueProduct{
		{"Professional platform fee", "4000", "Workspace", 9900, -2, 0},
		{"Additional user", "4010", "User", 14125, -3, 25},
		{"Priority support", "4300", "Support line", 4999, -2, 0},
	}},
	{"Enterprise", "Enterprise plan", []genCatalogueProduct{
		{"Enterprise platform fee", "4000", "Workspace", 49900, -2, 0},
		{"Additional user", "4010", "User", 19125, -3, 200},
		{"Dedicated success manager", "4300", "Manager", 25000, -2, 0},
	}},
	{"Fleet Tracking", "Fleet tracking plan, per vehicle", []genCatalogueProduct{
		{"Vehicle tracking", "4100", "Vehicle", 124995, -4, 120},
		{"Telematics data", "4100", "Device", 3275, -3, 120},
		{"Fleet dashboard", "4000", "Dashboard", 2500, -2, 0},
	}},
	{"Data Archive", "Cold storage archive", []genCatalogueProduct{
		{"Archive storage (per TB)", "4200", "Volume", 213333, -4, 40},
		{"Archive platform fee", "4000", "Vault", 1500, -2, 0},
	}},
}

func (g *generator) makePlans() error {
	if g.o.Subscriptions == 0 {
		return nil
	}
	productIDs := map[string]int64{} // one catalogue product per name, shared by plans
	for _, pc := range genPlanCatalogue {
		id, err := g.assign()
		if err != nil {
			return err
		}
		p := genPlan{id: id, name: pc.name, description: pc.description}
		for _, pp := range pc.products {
			ppID, err := g.assign()
			if err != nil {
				return err
			}
			prodID, ok := productIDs[pp.name]
			if !ok {
				if prodID, err = g.assign(); err != nil {
					return err
				}
				productIDs[pp.name] = prodID
			}
			p.products = append(p.products, genPlanProduct{
				planProductID: ppID, productID: prodID, name: pp.name, gl: pp.gl,
				itemPrefix: pp.itemPrefix, price: newGenMoney(pp.v, pp.exp), perSeat: pp.perSeat,
			})
		}
		g.plans = append(g.plans, p)
	}
	return nil
}

// Names are in pairs: as written, and as an email address has it.
var genFirstNames = [][2]string{
	{"Olivia", "olivia"}, {"Liam", "liam"}, {"Emma", "emma"}, {"Noah", "noah"}, {"Ava", "ava"},
	{"Mateo", "mateo"}, {"Sophia", "sophia"}, {"Lucas", "lucas"}, {"Isabella", "isabella"},
	{"Ethan", "ethan"}, {"Mia", "mia"}, {"James", "james"}, {"Amelia", "amelia"}, {"Aiden", "aiden"},
	{"Harper", "harper"}, {"Benjamin", "benjamin"}, {"Evelyn", "evelyn"}, {"Elijah", "elijah"},
	{"Chloé", "chloe"}, {"Wei", "wei"}, {"Priya", "priya"}, {"Omar", "omar"}, {"Fatima", "fatima"},
	{"Hiroshi", "hiroshi"}, {"Ingrid", "ingrid"}, {"Jean-Luc", "jean-luc"}, {"Sean", "sean"},
	{"Zoe", "zoe"}, {"Carlos", "carlos"}, {"Anika", "anika"}, {"Grace", "grace"}, {"Daniel", "daniel"},
}

var genLastNames = [][2]string{
	{"Smith", "smith"}, {"Johnson", "johnson"}, {"Williams", "williams"}, {"Brown", "brown"},
	{"García", "garcia"}, {"Miller", "miller"}, {"Davis", "davis"}, {"Rodriguez", "rodriguez"},
	{"Martinez", "martinez"}, {"Nguyen", "nguyen"}, {"O'Brien", "obrien"}, {"Müller", "mueller"},
	{"Kowalski", "kowalski"}, {"Tanaka", "tanaka"}, {"Patel", "patel"}, {"Anderson", "anderson"},
	{"Thomas", "thomas"}, {"Taylor", "taylor"}, {"Moore", "moore"}, {"Jackson", "jackson"},
	{"Martin", "martin"}, {"Lee", "lee"}, {"Thompson", "thompson"}, {"White", "white"},
	{"Harris", "harris"}, {"Clark", "clark"}, {"Lewis", "lewis"}, {"Walker", "walker"},
	{"Hall", "hall"}, {"Young", "young"}, {"King", "king"}, {"van der Berg", "vanderberg"},
}

var (
	genCompanyFirst  = []string{"Northwind", "Blue Harbor", "Summit", "Redwood", "Silver Lake", "Ironclad", "Bright Path", "Evergreen", "Granite", "Pioneer", "Lakeside", "Copperline"}
	genCompanySecond = []string{"Traders", "Systems", "Outfitters", "Partners", "Energy", "Dental", "Farms", "Freight", "Software", "Hotels", "Analytics", "Builders"}
	genCompanySuffix = []string{"Logistics", "Holdings", "Consulting", "Labs", "Foods", "Medical Group", "& Sons", "Transport", "Inc.", "LLC"}
	genTitles        = []string{"Mr.", "Ms.", "Dr.", "Mx."}
	genCurrencies    = []string{"USD", "CAD", "EUR", "GBP"}
	genTerms         = []struct {
		name string
		days int
	}{{"Net30", 30}, {"Net15", 15}, {"Net45", 45}}
	genTaxRates = []int64{500, 750, 1300} // basis points
)

// genSlug is a lower-case, letters-only form of s, for email domains.
func genSlug(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, s)
}

func (g *generator) customers() error {
	n := g.o.Customers
	if n == 0 {
		return nil
	}
	created := make([]time.Duration, n)
	for i := 1; i < n; i++ {
		// Squared so that more customers are old, as in a real book of
		// business, and the early invoices have customers to go to.
		u := g.r.Float64()
		created[i] = g.between(0, time.Duration(u*u*float64(g.span)))
	}
	slices.Sort(created)
	g.custs = make([]genCustomer, 0, n)
	for i := range n {
		first := genFirstNames[g.r.IntN(len(genFirstNames))]
		last := genLastNames[g.r.IntN(len(genLastNames))]
		c := Customer{
			FirstName:        first[0],
			LastName:         last[0],
			CreatedTimestamp: g.at(created[i]),
			Currency:         "USD",
			Status:           billing.CustomerStatusActive,
			AccountStatus:    billing.CustomerAccountStatusGood,
		}
		domain := "mail.example"
		switch k := g.r.IntN(100); {
		case k < 35:
			c.CompanyName = last[0] + " " + genCompanySuffix[g.r.IntN(len(genCompanySuffix))]
			domain = genSlug(c.CompanyName) + ".example"
		case k < 70:
			c.CompanyName = genCompanyFirst[g.r.IntN(len(genCompanyFirst))] + " " + genCompanySecond[g.r.IntN(len(genCompanySecond))]
			domain = genSlug(c.CompanyName) + ".example"
		}
		if g.pct(15) {
			c.Title = genTitles[g.r.IntN(len(genTitles))]
		}
		if g.pct(10) {
			c.MiddleName = string(rune('A' + g.r.IntN(26)))
		}
		if g.pct(3) {
			c.Suffix = "Jr."
		}
		c.PrimaryEmail = first[1] + "." + last[1] + "@" + domain
		if g.pct(90) {
			c.PrimaryPhone = g.num("+1 555 01", int64(g.r.IntN(100)), 2) + g.num(" ", int64(g.r.IntN(10000)), 4)
		}
		if g.pct(90) {
			c.Reference = g.num("CUST-", int64(10000+i), 5)
		}
		c.Reference1 = g.ref(80, "ACCT-", 10000, 4)
		c.Reference2 = g.ref(50, "CC-", 1000, 3)
		c.Reference3 = g.ref(25, "legacy-", 100000, 5)
		// The first customer is active, so that invoices always have one.
		if i > 0 {
			c.Status = pick(g, []int{84, 88, 92, 95}, c.Status, billing.CustomerStatusDraft,
				billing.CustomerStatusHold, billing.CustomerStatusSuspended, billing.CustomerStatusCancelled)
		}
		c.AccountStatus = pick(g, []int{88, 96}, c.AccountStatus,
			billing.CustomerAccountStatusPoorStanding, billing.CustomerAccountStatusCollection)
		if i > 0 && g.pct(8) {
			c.ParentID = g.custs[g.r.IntN(i)].c.ID
		}
		c.Currency = pick(g, []int{80, 90, 95}, genCurrencies...)
		c.CrmID = g.ref(60, "0015g0000", 1_000_000, 6)
		c.ErpID = g.ref(55, "ERP-C", 100000, 5)
		if g.pct(60) {
			c.AccountingID = int64(100000 + g.r.IntN(900000))
		}
		for k := range 5 {
			if len(g.codes[k]) > 0 && g.pct(genCodeShare[k]) {
				c.SalesTrackingCodeIDs[k] = g.codes[k][g.r.IntN(len(g.codes[k]))]
			}
		}
		c.ModifiedTimestamp = g.at(g.between(created[i], g.span))
		id, err := g.s.addCustomerLocked(c)
		if err != nil {
			return err
		}
		gc := genCustomer{c: g.s.store.customers[id], created: created[i], terms: int8(g.r.IntN(100) / 60)}
		if gc.terms == 1 && g.pct(50) {
			gc.terms = 2
		}
		if g.pct(65) {
			gc.taxBP = genTaxRates[g.r.IntN(len(genTaxRates))]
		}
		g.custs = append(g.custs, gc)
		if c.Status != billing.CustomerStatusDraft {
			g.active = append(g.active, int32(i))
			g.activeCreated = append(g.activeCreated, created[i])
		}
	}
	return nil
}

// activeCustomer is a random customer that is not a draft.
func (g *generator) activeCustomer() int32 { return g.active[g.r.IntN(len(g.active))] }

func (g *generator) subscriptions() error {
	n := g.o.Subscriptions
	if n == 0 || len(g.plans) == 0 {
		return nil
	}
	end := g.span
	g.subs = make([]genSub, 0, n)
	// Spread the first subscriptions over distinct customers, so that most
	// customers have one, as in a subscription business.
	order := slices.Clone(g.active)
	g.r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for i := range n {
		ci := order[i%len(order)]
		if i >= len(order) {
			ci = g.activeCustomer()
		}
		cust := &g.custs[ci]
		pi := g.r.IntN(len(g.plans))
		plan := &g.plans[pi]
		// A customer signs up with a subscription within a month; later
		// ones come any time after, more often early.
		var created time.Duration
		if len(cust.subs) == 0 {
			created = g.between(cust.created, min(end, cust.created+30*genDay))
		} else {
			u := g.r.Float64()
			created = cust.created + time.Duration(u*u*float64(end-cust.created))
			created -= created % 100
		}
		sub := Subscription{
			CustomerID:        cust.c.ID,
			PlanID:            plan.id,
			Name:              plan.name,
			Description:       plan.description,
			Status:            billing.SubscriptionStatusActive,
			Interval:          billing.IntervalMonthly,
			NumberOfIntervals: 1,
			CreatedTimestamp:  g.at(created),
		}
		sub.Reference = g.ref(60, "SUB-", 1_000_000, 6)
		sub.Status = pick(g, []int{80, 85, 93, 96}, sub.Status, billing.SubscriptionStatusDraft,
			billing.SubscriptionStatusCancelled, billing.SubscriptionStatusProvisioning, billing.SubscriptionStatusExpired)
		months := 1
		if g.pct(30) {
			sub.Interval = billing.IntervalYearly
			if g.pct(15) {
				sub.NumberOfIntervals = 2
			}
			months = 12 * sub.NumberOfIntervals
		} else if k := g.r.IntN(100); k < 15 {
			sub.NumberOfIntervals = 3
			months = 3
		} else if k < 20 {
			sub.NumberOfIntervals = 6
			months = 6
		}
		switch sub.Status {
		case billing.SubscriptionStatusActive:
			next := sub.CreatedTimestamp
			for !next.After(g.at(end)) {
				next = next.AddDate(0, months, 0)
			}
			sub.NextBillingDate = next
			sub.NextRechargeDate = next.AddDate(0, 0, -g.r.IntN(3))
		case billing.SubscriptionStatusProvisioning:
			sub.NextBillingDate = sub.CreatedTimestamp.AddDate(0, months, 0)
			sub.NextRechargeDate = sub.NextBillingDate
		}
		gs := genSub{cust: ci, plan: int32(pi), created: created, months: months}
		// 1 to 3 of the plan's products, the first (the platform fee)
		// always, in plan order.
		k := 1 + g.r.IntN(len(plan.products))
		for j := range plan.products[:k] {
			pp := &plan.products[j]
			planPrice := pp.price
			if sub.Interval == billing.IntervalYearly {
				planPrice = newGenMoney(pp.price.v*10*int64(sub.NumberOfIntervals), pp.price.exp)
			}
			price := planPrice
			// Older subscriptions kept an older, lower price, which a bulk
			// price change would push out.
			if g.pct(30) {
				price = newGenMoney(planPrice.v*int64(80+g.r.IntN(18))/100, planPrice.exp)
			}
			qty := int64(1)
			if pp.perSeat > 0 {
				qty = 1 + g.r.Int64N(pp.perSeat)
			}
			sub.Products = append(sub.Products, SubscriptionProduct{
				PlanProductID: pp.planProductID,
				ProductID:     pp.productID,
				Name:          pp.name,
				Price:         price.d,
				PlanPrice:     planPrice.d,
			})
			gs.qty = append(gs.qty, qty)
			gs.price = append(gs.price, price)
		}
		id, err := g.s.addSubscriptionLocked(sub)
		if err != nil {
			return err
		}
		gs.sub = g.s.store.subscriptions[id]
		cust.subs = append(cust.subs, int32(len(g.subs)))
		g.subs = append(g.subs, gs)
	}
	// MRR is what the subscriptions bill per month: Active and
	// Provisioning ones for the MRR, Active ones for the current MRR.
	mrr := make([]int64, len(g.custs))
	cur := make([]int64, len(g.custs))
	for i := range g.subs {
		gs := &g.subs[i]
		st := gs.sub.Status
		if st != billing.SubscriptionStatusActive && st != billing.SubscriptionStatusProvisioning {
			continue
		}
		var m int64
		for j, p := range gs.price {
			m += p.units4() * gs.qty[j] / int64(gs.months)
		}
		mrr[gs.cust] += m
		if st == billing.SubscriptionStatusActive {
			cur[gs.cust] += m
		}
	}
	for i := range g.custs {
		if mrr[i] == 0 {
			continue
		}
		c := g.custs[i].c
		off := int64(g.r.IntN(11)) // % discount, 0 to 10
		c.MonthlyRecurringRevenue = genDec4(mrr[i])
		c.NetMRR = genDec4(mrr[i] * (100 - off) / 100)
		c.CurrentMrr = genDec4(cur[i])
		c.CurrentNetMrr = genDec4(cur[i] * (100 - off) / 100)
	}
	return nil
}

func (g *generator) items() error {
	per := g.o.ItemsPerProduct
	if per == 0 {
		return nil
	}
	for i := range g.subs {
		gs := &g.subs[i]
		plan := &g.plans[gs.plan]
		for j, sp := range gs.sub.Products {
			pp := &plan.products[j]
			for k := range per {
				item := billing.SubscriptionProductItem{
					SubscriptionProductID: sp.ID,
					SubscriptionID:        gs.sub.ID,
					CustomerID:            gs.sub.CustomerID,
					ProductID:             sp.ProductID,
					Name:                  g.num(pp.itemPrefix+" ", int64(k+1), 1),
					Description:           sp.Name,
					Status:                billing.ItemStatusActive,
				}
				// The service sends references as strings or as numbers.
				switch r := g.r.IntN(100); {
				case r < 45:
					item.Reference = billing.ItemReference{Value: g.num("REF-", int64(g.r.IntN(10000)), 3)}
				case r < 90:
					item.Reference = billing.ItemReference{Value: strconv.Itoa(10000 + g.r.IntN(90000)), IsNumber: true}
				}
				if g.pct(15) {
					item.Status = billing.ItemStatusDeleted
				}
				created := g.between(gs.created, g.span)
				item.CreatedDate = billing.NewTimestamp(g.at(created))
				item.ModifiedDate = billing.NewTimestamp(g.at(g.between(created, g.span)))
				if _, err := g.s.addSubscriptionProductItemLocked(item); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// One-off products bought outside subscriptions. Tracked ones are
// hardware, listed only with showTrackedItems.
var genPurchases = []struct {
	name, description, gl string
	min, max              int64 // price range in cents
	qty                   byte  // '1' one, 'u' units, 'h' half hours, 'm' metered
	tracked               bool
	weight                int // how often it is bought, of genPurchaseWeight
}{
	{"Onboarding and setup", "One-time onboarding", "4500", 15000, 50000, '1', false, 10},
	{"Consulting hours", "Professional services", "4600", 12500, 17500, 'h', false, 20},
	{"Training session", "Remote training session", "4600", 30000, 90000, 'u', false, 8},
	{"GPS tracker unit", "Tracker hardware", "4700", 4900, 8900, 'u', true, 5},
	{"SIM card", "Data SIM", "4700", 500, 1000, 'u', true, 5},
	{"Installation visit", "On-site installation", "4600", 9500, 14500, 'u', false, 8},
	{"Data overage (GB)", "Data beyond the plan allowance", "4200", 150, 400, 'm', false, 30},
	{"Custom report development", "Custom reporting", "4600", 50000, 200000, '1', false, 6},
	{"Vehicle camera", "Dash camera hardware", "4700", 19900, 29900, 'u', true, 3},
}

const genPurchaseWeight = 95 // the sum of the weights above

// purchaseIndex picks a one-off product by weight.
func (g *generator) purchaseIndex() int {
	w := g.r.IntN(genPurchaseWeight)
	for i := range genPurchases {
		if w -= genPurchases[i].weight; w < 0 {
			return i
		}
	}
	return 0
}

var genShipping = struct{ name, description, gl string }{"Shipping and handling", "Courier delivery", "4800"}

// purchase returns a quantity and a unit price of one-off product p, with
// amount = quantity × price never beyond four decimals.
func (g *generator) purchase(p int) (qty, price genMoney) {
	cat := &genPurchases[p]
	c := cat.min + g.r.Int64N(cat.max-cat.min+1)
	switch cat.qty {
	case '1':
		qty = genMoney{v: 1, d: g.intDec(1)}
	case 'u':
		n := 1 + g.r.Int64N(12)
		qty = genMoney{v: n, d: g.intDec(n)}
	case 'h':
		qty = newGenMoney(1+g.r.Int64N(32)*5, -1)
	case 'm':
		qty = newGenMoney(100+g.r.Int64N(5000), -2)
	}
	if qty.exp == 0 {
		// Whole quantities leave room for three or four price decimals.
		switch k := g.r.IntN(10); {
		case k < 3:
			return qty, newGenMoney(c*10+g.r.Int64N(10), -3)
		case k < 4:
			return qty, newGenMoney(c*100+g.r.Int64N(100), -4)
		}
	}
	return qty, newGenMoney(c, -2)
}

// maxInvoiceNumber is where a second Generate continues numbering.
func genMaxInvoiceNumber(st *store) int64 {
	var n int64
	for i := range st.invoices.len() {
		n = max(n, st.invoices.byPosition(i).number())
	}
	return n
}

var genNotes = []string{"Thank you for your business.", "Includes prorated charges.", "Please reference the PO number on payment.", "Payment by bank transfer preferred."}

// genRunShare is the percentage of invoices posted by a monthly billing
// run rather than by hand.
const genRunShare = 60

// runOrAny moves most posting times to their month's billing run, which
// posts all its invoices within one second (02:00:00 UTC on the 1st, with
// sub-second times), as a real billing run does: many invoices then share
// one second of postedTimestamp, more than fit a page at scale.
func (g *generator) runOrAny(p time.Duration) time.Duration {
	if !g.pct(genRunShare) {
		return p
	}
	t := g.at(p)
	run := time.Date(t.Year(), t.Month(), 1, 2, 0, 0, 0, time.UTC)
	if run.Before(g.start) || run.After(t) {
		return p
	}
	return run.Sub(g.start) + g.between(0, time.Second)
}

func (g *generator) invoices() error {
	n := g.o.Invoices
	if n == 0 {
		return nil
	}
	st := g.s.store
	st.invoices.grow(n)
	posted := make([]time.Duration, n)
	for i := range posted {
		posted[i] = g.runOrAny(g.between(0, g.span))
	}
	// Sorted, so that ids and invoice numbers rise with the posting date.
	slices.Sort(posted)
	number := max(genMaxInvoiceNumber(st), 1000)
	// One invoice, charges and schedules serve every invoice: the store
	// keeps a packed copy. The packer shares the catalogue's charge texts.
	var inv Invoice
	chargeBuf := make([]Charge, 0, 6)
	schedBuf := make([]billing.PaymentSchedule, 0, 2)
	pk := &packer{texts: map[[3]string]string{}}
	end := g.span
	for i := range posted {
		inv = Invoice{}
		p := posted[i]
		// A customer that exists by then; binary search keeps this
		// O(log n).
		k := sort.Search(len(g.activeCreated), func(j int) bool { return g.activeCreated[j] > p })
		ci := g.active[g.r.IntN(max(k, 1))]
		cust := &g.custs[ci]
		pt := g.at(p)
		number++
		inv.CustomerID = cust.c.ID
		inv.InvoiceNumber = number
		inv.PostedTimestamp = pt
		inv.EffectiveTimestamp = pt
		inv.CreatedTimestamp = g.at(max(cust.created, p-g.between(0, 2*genDay)))
		terms := genTerms[cust.terms]
		inv.Terms = terms.name

		// Charges: from one of the customer's subscriptions, from
		// purchases, or both, 1 to 6 in all.
		want := 1 + g.r.IntN(6)
		charges := chargeBuf[:0]
		var sub *genSub
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
				charges = append(charges, Charge{
					Name:                  sp.Name,
					Description:           sub.sub.Description,
					GLCode:                g.plans[sub.plan].products[j].gl,
					Quantity:              g.intDec(sub.qty[j]),
					UnitPrice:             price.d,
					Amount:                decimal.New(amount, price.exp),
					EffectiveTimestamp:    pt,
					StartServiceDate:      pt,
					EndServiceDate:        periodEnd,
					SubscriptionID:        sub.sub.ID,
					SubscriptionProductID: sp.ID,
				})
				sub4 += amount * genPow10[4+price.exp]
			}
			if g.pct(55) {
				want = len(charges) // subscription charges only
			} else {
				want = max(want, len(charges)+1)
			}
		}
		for len(charges) < want {
			pid, err := g.assign()
			if err != nil {
				return err
			}
			pi := g.purchaseIndex()
			cat := &genPurchases[pi]
			qty, price := g.purchase(pi)
			amount := qty.v * price.v
			exp := qty.exp + price.exp
			charges = append(charges, Charge{
				Name:               cat.name,
				Description:        cat.description,
				GLCode:             cat.gl,
				Quantity:           qty.d,
				UnitPrice:          price.d,
				Amount:             decimal.New(amount, exp),
				EffectiveTimestamp: pt,
				StartServiceDate:   pt,
				EndServiceDate:     pt,
				PurchaseID:         pid,
				Tracked:            cat.tracked,
			})
			sub4 += amount * genPow10[4+exp]
			// Hardware ships: a second charge of the same purchase.
			if cat.tracked && len(charges) < 6 && g.pct(40) {
				ship := newGenMoney(995+g.r.Int64N(2000), -2)
				charges = append(charges, Charge{
					Name: genShipping.name, Description: genShipping.description, GLCode: genShipping.gl,
					Quantity: g.intDec(1), UnitPrice: ship.d, Amount: ship.d,
					EffectiveTimestamp: pt, StartServiceDate: pt, EndServiceDate: pt,
					PurchaseID: pid,
				})
				sub4 += ship.units4()
			}
		}
		inv.Charges = charges

		// Taxes, discount, credit notes and payments, in 1e-4 units.
		var tax4, disc4, credit4, pay4 int64
		if cust.taxBP > 0 {
			tax4 = genRoundCents(sub4 * cust.taxBP / 10000)
		}
		if g.pct(8) {
			disc4 = genRoundCents(sub4 * int64(5+5*g.r.IntN(2)) / 100)
		}
		amount4 := sub4 + tax4 - disc4
		if g.pct(2) {
			credit4 = genRoundCents(amount4 / 10)
		}
		due := p + time.Duration(terms.days)*genDay
		var paid, partly int
		switch {
		case due >= end: // not due yet at the end
			paid, partly = 25, 35
		case end-due < 60*genDay:
			paid, partly = 60, 72
		default:
			paid, partly = 88, 93
		}
		switch k := g.r.IntN(100); {
		case k < paid:
			pay4 = amount4 - credit4
		case k < partly:
			pay4 = genRoundCents((amount4 - credit4) * int64(20+g.r.IntN(61)) / 100)
			if pay4 >= amount4-credit4 {
				pay4 = 0
			}
		}
		switch k := g.r.IntN(1000); {
		case k < 4:
			inv.Status = billing.InvoiceStatusVoid
			pay4 = 0
		case k < 8:
			inv.Status = billing.InvoiceStatusDisputed
			pay4 = 0
		}
		outstanding4 := amount4 - pay4 - credit4
		amountDec := genDec4(amount4)
		inv.TotalTaxes = genCents(tax4)
		inv.TotalDiscount = genCents(disc4)
		inv.SumOfCreditNotes = genCents(credit4)
		if pay4 == amount4 {
			inv.TotalPayments = amountDec
		} else {
			inv.TotalPayments = genDec4(pay4)
		}
		// The balances are the customer's as the invoice was posted: what
		// it owed before, and that plus the invoice. Payments and credits
		// come later and lower the balance the next invoice opens on, as
		// on a real account; so invoices of one billing run rarely share
		// both balances, which is what a stable iteration splits on.
		inv.OpeningArBalance = genDec4(cust.balance)
		inv.ClosingArBalance = genDec4(cust.balance + amount4)
		cust.balance += outstanding4
		inv.ModifiedTimestamp = pt
		if pay4 > 0 {
			inv.ModifiedTimestamp = g.at(g.between(p, min(end, due+20*genDay)))
		}

		// One instalment, or now and then two a month apart.
		sched := schedBuf[:0]
		if g.pct(4) && amount4 >= 200 {
			a1 := amount4 / 200 * 100
			settled := pay4 + credit4
			o1 := max(0, a1-settled)
			o2 := outstanding4 - o1
			sched = append(sched,
				genInstalment(pt, terms.days, genDec4(a1), genDec4(o1), o1),
				genInstalment(pt, terms.days+30, genDec4(amount4-a1), genDec4(o2), o2))
		} else {
			o := amountDec
			if outstanding4 != amount4 {
				o = genDec4(outstanding4)
			}
			sched = append(sched, genInstalment(pt, terms.days, amountDec, o, outstanding4))
		}
		inv.PaymentSchedules = sched

		inv.PoNumber = g.ref(25, "PO-", 100000, 5)
		inv.ErpID = g.ref(50, "ERP-INV-", 1_000_000, 6)
		inv.CrmID = g.ref(35, "CRM-", 1_000_000, 6)
		if g.pct(50) {
			inv.AccountingID = int64(1_000_000 + g.r.IntN(9_000_000))
		}
		if g.pct(5) {
			inv.Notes = genNotes[g.r.IntN(len(genNotes))]
		}
		if _, err := g.s.insertInvoiceLocked(&inv, pk); err != nil {
			return err
		}
	}
	for i := range g.custs {
		if b := g.custs[i].balance; b != 0 {
			g.custs[i].c.ArBalance = genDec4(b)
		}
	}
	return nil
}

// genInstalment mirrors defaultSchedule, which calls a settled
// instalment Paid.
func genInstalment(posted time.Time, days int, amount, outstanding decimal.Decimal, outstanding4 int64) billing.PaymentSchedule {
	status := billing.PaymentScheduleStatusDue
	if outstanding4 == 0 {
		status = scheduleStatusPaid
	}
	return billing.PaymentSchedule{
		DueDateTimestamp:   billing.NewTimestamp(posted.AddDate(0, 0, days)),
		Status:             status,
		Amount:             amount,
		OutstandingBalance: outstanding,
		DaysDueAfterTerm:   days,
	}
}

func (g *generator) drafts() error {
	for range g.o.DraftInvoices {
		cust := &g.custs[g.activeCustomer()]
		d := DraftInvoice{
			CustomerID: cust.c.ID,
			Created:    g.at(g.between(max(cust.created, g.span-30*genDay), g.span)),
		}
		for range 1 + g.r.IntN(5) {
			pi := g.purchaseIndex()
			qty, price := g.purchase(pi)
			d.Lines = append(d.Lines, DraftLine{
				Description: genPurchases[pi].name,
				Quantity:    qty.d,
				Amount:      decimal.New(qty.v*price.v, qty.exp+price.exp),
				Tracked:     genPurchases[pi].tracked,
			})
		}
		if _, err := g.s.addDraftInvoiceLocked(d); err != nil {
			return err
		}
	}
	return nil
}

var (
	genStreets = []string{"Main St", "Oak Ave", "Maple Dr", "Cedar Ln", "Harbor Rd", "King St W", "Elm St", "Lakeshore Blvd"}
	genCities  = []string{"Springfield", "Riverside", "Franklin", "Toronto", "Portland", "Madison", "Georgetown", "Fairview"}
)

func (g *generator) cards() error {
	endYear := g.at(g.span).Year()
	for range g.o.CreditCards {
		cust := &g.custs[g.activeCustomer()]
		c := CreditCard{
			CustomerID:      cust.c.ID,
			Last4:           g.num("", int64(g.r.IntN(10000)), 4),
			FirstName:       cust.c.FirstName,
			LastName:        cust.c.LastName,
			ExpirationMonth: 1 + g.r.IntN(12),
			// Two-digit years, as the service has them; some expired.
			ExpirationYear: (endYear - 1 + g.r.IntN(6)) % 100,
			Address1:       strconv.Itoa(1+g.r.IntN(9999)) + " " + genStreets[g.r.IntN(len(genStreets))],
			City:           genCities[g.r.IntN(len(genCities))],
			PostalZip:      g.num("", int64(g.r.IntN(100000)), 5),
			CountryID:      1,
			StateID:        int64(1 + g.r.IntN(50)),
			ModifiedDate:   g.at(g.between(cust.created, g.span)),
		}
		c.CardType = pick(g, []int{50, 80, 92}, "Visa", "MasterCard", "AmericanExpress", "Discover")
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
		if _, err := g.s.addCreditCardLocked(c); err != nil {
			return err
		}
	}
	return nil
}

var genJobTypes = []string{"PriceChange", "CustomerImport", "SubscriptionImport", "PurchaseImport"}

func (g *generator) jobs() error {
	for i := range g.o.BulkJobs {
		j := BulkJob{Type: genJobTypes[g.r.IntN(len(genJobTypes))], Validated: i%4 != 1, Processed: i%4 == 3}
		if _, err := g.s.addBulkJobLocked(j); err != nil {
			return err
		}
	}
	return nil
}

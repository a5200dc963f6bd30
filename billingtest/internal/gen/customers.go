package gen

import (
	"slices"
	"strconv"
	"strings"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/seed"
)

// This file makes the account's customers and what they subscribe to:
// tracking codes, plans, customers, subscriptions and their items.

func (g *generator) trackingCodes() {
	names, codes := g.sink.Categories(categoryNames)
	g.codes = codes
	for i := range 5 {
		if len(g.codes[i]) > 0 {
			continue
		}
		typ := billing.TrackingCodeType("Sales Tracking Code " + strconv.Itoa(i+1))
		if names[i] != "" {
			typ = billing.TrackingCodeType(names[i])
		}
		for _, c := range codeCatalogue[i] {
			// Not deletable: customers use them.
			code := seed.SalesTrackingCode{Type: typ, Code: c.code, Name: c.name}
			if c.email != "" {
				code.Email = &c.email
			}
			if i == 2 {
				desc := "Sales representative"
				code.Description = &desc
			}
			g.codes[i] = append(g.codes[i], g.must(g.sink.AddCode(code)))
		}
	}
}

func (g *generator) makePlans() {
	if g.o.Subscriptions == 0 {
		return
	}
	productIDs := map[string]int64{} // one catalogue product per name, shared by plans
	for _, pc := range planCatalogue {
		p := plan{id: g.must(g.sink.Assign()), name: pc.name, description: pc.description}
		for _, pp := range pc.products {
			ppID := g.must(g.sink.Assign())
			prodID, ok := productIDs[pp.name]
			if !ok {
				prodID = g.must(g.sink.Assign())
				productIDs[pp.name] = prodID
			}
			p.products = append(p.products, planProduct{pp, ppID, prodID, newMoney(pp.v, pp.exp)})
		}
		g.plans = append(g.plans, p)
	}
}

// slug is s in lower-case ASCII letters only, for email domains.
func slug(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' {
			return r
		}
		return -1
	}, strings.ToLower(s))
}

func (g *generator) customers() {
	n := g.o.Customers
	created := make([]time.Duration, n)
	for i := 1; i < n; i++ {
		// Squared so that more customers are old, as in a real book of
		// business, and the early invoices have customers to go to.
		u := g.r.Float64()
		created[i] = g.between(0, time.Duration(u*u*float64(g.span)))
	}
	slices.Sort(created)
	g.custs = make([]customer, 0, n)
	for i := range n {
		first := firstNames[g.r.IntN(len(firstNames))]
		last := lastNames[g.r.IntN(len(lastNames))]
		c := seed.Customer{FirstName: first[0], LastName: last[0], CreatedTimestamp: g.at(created[i])}
		domain := "mail.example"
		switch k := g.r.IntN(100); {
		case k < 35:
			c.CompanyName = last[0] + " " + companySuffix[g.r.IntN(len(companySuffix))]
			domain = slug(c.CompanyName) + ".example"
		case k < 70:
			c.CompanyName = companyFirst[g.r.IntN(len(companyFirst))] + " " + companySecond[g.r.IntN(len(companySecond))]
			domain = slug(c.CompanyName) + ".example"
		}
		if g.pct(15) {
			c.Title = titles[g.r.IntN(len(titles))]
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
		c.Status = billing.CustomerStatusActive
		if i > 0 {
			c.Status = pick(g, []int{84, 4, 4, 3, 5}, c.Status, billing.CustomerStatusDraft,
				billing.CustomerStatusHold, billing.CustomerStatusSuspended, billing.CustomerStatusCancelled)
		}
		c.AccountStatus = pick(g, []int{88, 8, 4}, billing.CustomerAccountStatusGood,
			billing.CustomerAccountStatusPoorStanding, billing.CustomerAccountStatusCollection)
		if i > 0 && g.pct(8) {
			c.ParentID = g.custs[g.r.IntN(i)].c.ID
		}
		c.Currency = pick(g, []int{80, 10, 5, 5}, currencies...)
		c.CrmID = g.ref(60, "0015g0000", 1_000_000, 6)
		c.ErpID = g.ref(55, "ERP-C", 100000, 5)
		if g.pct(60) {
			c.AccountingID = int64(100000 + g.r.IntN(900000))
		}
		for k := range 5 {
			if len(g.codes[k]) > 0 && g.pct(codeShare[k]) {
				c.SalesTrackingCodeIDs[k] = g.codes[k][g.r.IntN(len(g.codes[k]))]
			}
		}
		c.ModifiedTimestamp = g.at(g.between(created[i], g.span))
		c.ID = g.must(g.sink.AddCustomer(c))
		gc := customer{c: c, created: created[i], terms: int8(g.r.IntN(100) / 60)}
		if gc.terms == 1 && g.pct(50) {
			gc.terms = 2
		}
		if g.pct(65) {
			gc.taxBP = taxRates[g.r.IntN(len(taxRates))]
		}
		g.custs = append(g.custs, gc)
		if c.Status != billing.CustomerStatusDraft {
			g.active = append(g.active, int32(i))
			g.activeCreated = append(g.activeCreated, created[i])
		}
	}
}

// activeCustomer is a random customer that is not a draft.
func (g *generator) activeCustomer() int32 { return g.active[g.r.IntN(len(g.active))] }

func (g *generator) subscriptions() {
	n := g.o.Subscriptions
	if n == 0 || len(g.plans) == 0 {
		return
	}
	g.subs = make([]subscription, 0, n)
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
			created = g.between(cust.created, min(g.span, cust.created+30*day))
		} else {
			u := g.r.Float64()
			created = cust.created + time.Duration(u*u*float64(g.span-cust.created))
			created -= created % 100
		}
		sub := seed.Subscription{CustomerID: cust.c.ID, PlanID: plan.id, Name: plan.name, Description: plan.description,
			Interval: billing.IntervalMonthly, NumberOfIntervals: 1, CreatedTimestamp: g.at(created)}
		sub.Reference = g.ref(60, "SUB-", 1_000_000, 6)
		sub.Status = pick(g, []int{80, 5, 8, 3, 4}, billing.SubscriptionStatusActive, billing.SubscriptionStatusDraft,
			billing.SubscriptionStatusCancelled, billing.SubscriptionStatusProvisioning, billing.SubscriptionStatusExpired)
		if g.pct(30) {
			sub.Interval = billing.IntervalYearly
			if g.pct(15) {
				sub.NumberOfIntervals = 2
			}
		} else if k := g.r.IntN(100); k < 15 {
			sub.NumberOfIntervals = 3
		} else if k < 20 {
			sub.NumberOfIntervals = 6
		}
		months := sub.NumberOfIntervals
		if sub.Interval == billing.IntervalYearly {
			months *= 12
		}
		switch sub.Status {
		case billing.SubscriptionStatusActive:
			next := sub.CreatedTimestamp
			for !next.After(g.at(g.span)) {
				next = next.AddDate(0, months, 0)
			}
			sub.NextBillingDate = next
			sub.NextRechargeDate = next.AddDate(0, 0, -g.r.IntN(3))
		case billing.SubscriptionStatusProvisioning:
			sub.NextBillingDate = sub.CreatedTimestamp.AddDate(0, months, 0)
			sub.NextRechargeDate = sub.NextBillingDate
		}
		gs := subscription{cust: ci, plan: int32(pi), created: created, months: months}
		// 1 to 3 of the plan's products, the first (the platform fee)
		// always, in plan order.
		k := 1 + g.r.IntN(len(plan.products))
		for j := range plan.products[:k] {
			pp := &plan.products[j]
			planPrice := pp.price
			if sub.Interval == billing.IntervalYearly {
				planPrice = newMoney(pp.price.v*10*int64(sub.NumberOfIntervals), pp.price.exp)
			}
			price := planPrice
			// Older subscriptions kept an older, lower price, which a bulk
			// price change would push out.
			if g.pct(30) {
				price = newMoney(planPrice.v*int64(80+g.r.IntN(18))/100, planPrice.exp)
			}
			qty := int64(1)
			if pp.perSeat > 0 {
				qty = 1 + g.r.Int64N(pp.perSeat)
			}
			sub.Products = append(sub.Products, seed.SubscriptionProduct{
				PlanProductID: pp.planProductID, ProductID: pp.productID, Name: pp.name, Price: price.d, PlanPrice: planPrice.d,
			})
			gs.qty = append(gs.qty, qty)
			gs.price = append(gs.price, price)
		}
		// The ids, in the order the sink would assign them, known here so
		// that the items and charges can name them.
		sub.ID = g.must(g.sink.Assign())
		for j := range sub.Products {
			sub.Products[j].ID = g.must(g.sink.Assign())
		}
		g.must(g.sink.AddSubscription(sub))
		gs.sub = sub
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
		c := &g.custs[i].c
		off := int64(g.r.IntN(11)) // % discount, 0 to 10
		c.MonthlyRecurringRevenue = dec(mrr[i], -4)
		c.NetMRR = dec(mrr[i]*(100-off)/100, -4)
		c.CurrentMrr = dec(cur[i], -4)
		c.CurrentNetMrr = dec(cur[i]*(100-off)/100, -4)
		g.sink.SetCustomer(*c)
	}
}

func (g *generator) items() {
	for i := range g.subs {
		gs := &g.subs[i]
		plan := &g.plans[gs.plan]
		for j, sp := range gs.sub.Products {
			pp := &plan.products[j]
			for k := range g.o.ItemsPerProduct {
				item := seed.SubscriptionProductItem{
					SubscriptionProductID: sp.ID, SubscriptionID: gs.sub.ID, CustomerID: gs.sub.CustomerID, ProductID: sp.ProductID,
					Name: g.num(pp.itemPrefix+" ", int64(k+1), 1), Description: sp.Name, Status: billing.ItemStatusActive,
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
				item.CreatedDate = g.at(created)
				item.ModifiedDate = g.at(g.between(created, g.span))
				g.must(g.sink.AddItem(item))
			}
		}
	}
}

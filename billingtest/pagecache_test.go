package billingtest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/ledger"
	"github.com/billingapi/billing-go/billingtest/internal/pagecache"
	"github.com/shopspring/decimal"
)

// pcPair is two fakes given the same requests and changes, one with the
// page cache and one without: every answer of one must be the other's,
// byte for byte. A change path that the cache's version does not see
// would let the cached fake answer a list from before the change.
type pcPair struct {
	t      *testing.T
	cached *Server
	bare   *Server
	clock  time.Time
	served int // list answers compared
	ok     int // of them, 200s
}

func newPCPair(t *testing.T, opts ...Option) *pcPair {
	p := &pcPair{t: t, clock: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	opts = append(opts,
		WithClock(func() time.Time { return p.clock }),
		WithGenerated(GenerateOptions{Seed: 7, Invoices: 60, Customers: 4, ItemsPerProduct: 4}),
		WithRateLimit(1_000_000_000, 1_000_000_000),
		WithRequestLogLimit(1),
	)
	for _, s := range []**Server{&p.cached, &p.bare} {
		srv, err := NewHandler(opts...)
		if err != nil {
			t.Fatal(err)
		}
		*s = srv
	}
	p.bare.pages = nil
	return p
}

// both applies change to each fake, which must give the same result.
func (p *pcPair) both(what string, change func(*Server) error) {
	p.t.Helper()
	errC, errB := change(p.cached), change(p.bare)
	if fmt.Sprint(errC) != fmt.Sprint(errB) {
		p.t.Fatalf("%s: %v with the cache, %v without", what, errC, errB)
	}
}

// do sends the same request to both fakes and compares the answers:
// status, every header and the body.
func (p *pcPair) do(method, uri, body string) *httptest.ResponseRecorder {
	p.t.Helper()
	var recs [2]*httptest.ResponseRecorder
	for i, s := range []*Server{p.cached, p.bare} {
		r := httptest.NewRequest(method, "http://billingtest.invalid"+uri, strings.NewReader(body))
		r.Header.Set("Authorization", "Basic "+DefaultAPIKey)
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		recs[i] = httptest.NewRecorder()
		s.ServeHTTP(recs[i], r)
	}
	c, b := recs[0], recs[1]
	if c.Code != b.Code || !slices.Equal(headerLines(c.Header()), headerLines(b.Header())) || !bytes.Equal(c.Body.Bytes(), b.Body.Bytes()) {
		at := 0
		for at < min(c.Body.Len(), b.Body.Len()) && c.Body.Bytes()[at] == b.Body.Bytes()[at] {
			at++
		}
		from := max(at-100, 0)
		p.t.Fatalf("%s %s after %d lists:\nwith the cache: %d %v\n...%.300s\nwithout: %d %v\n...%.300s",
			method, uri, p.served, c.Code, headerLines(c.Header()), c.Body.Bytes()[from:], b.Code, headerLines(b.Header()), b.Body.Bytes()[from:])
	}
	return c
}

func headerLines(h http.Header) []string {
	var lines []string
	for k, v := range h {
		lines = append(lines, k+": "+strings.Join(v, ", "))
	}
	slices.Sort(lines)
	return lines
}

// list compares a list answer.
func (p *pcPair) list(uri string) {
	p.t.Helper()
	if p.do(http.MethodGet, uri, "").Code == http.StatusOK {
		p.ok++
	}
	p.served++
}

// ids returns the sorted ids of the cached fake's customers and known
// subscription products (the same in both fakes).
func (p *pcPair) ids() (customers, products []int64) {
	s := p.cached
	s.mu.RLock()
	defer s.mu.RUnlock()
	for id := range s.store.customers {
		customers = append(customers, id)
	}
	for id := range s.store.products {
		products = append(products, id)
	}
	slices.Sort(customers)
	slices.Sort(products)
	return customers, products
}

// listURIs are list requests of every list route over the fakes' ids,
// filtered, sorted and paged in several ways, plus a parent that does not
// exist.
func (p *pcPair) listURIs() []string {
	customers, products := p.ids()
	uris := []string{
		"/v1/Invoices",
		"/v1/Invoices?pageNumber=1&pageSize=20",
		"/v1/Invoices?pageNumber=2&pageSize=15&sortExpression=postedTimestamp&sortOrder=Descending&query=" + url.QueryEscape("closingArBalance:100|;Customer.Status:Active"),
		"/v1/Invoices?pageSize=25&sortExpression=poNumber&query=" + url.QueryEscape("poNumber:changed*"),
		"/v1/Invoices?pageSize=10&sortExpression=postedTimestamp&query=" + url.QueryEscape("postedTimestamp:2025-01-01|"),
		"/v1/Customers/999999/Invoices/",
	}
	for _, c := range customers[:3] {
		uris = append(uris,
			fmt.Sprintf("/v1/Customers/%d/Invoices/?pageSize=7", c),
			fmt.Sprintf("/v1/Customers/%d/Invoices/?showTrackedItems=true&pageSize=5&pageNumber=1", c),
			fmt.Sprintf("/v1/customers/%d/invoiceSummaries?pageSize=30", c),
			fmt.Sprintf("/v1/customers/%d/invoiceSummaries?query=%s", c, url.QueryEscape("invoiceStatus:Overdue")),
		)
	}
	for _, pr := range products[:2] {
		uris = append(uris, fmt.Sprintf("/v1/subscriptionProducts/%d/items?pageSize=3", pr), fmt.Sprintf("/v1/subscriptionProducts/%d/items?sortExpression=name", pr))
	}
	return uris
}

// invoiceIDs are the ids of the cached fake's invoices (the same in
// both fakes), in id order.
func (p *pcPair) invoiceIDs() []int64 {
	customers, _ := p.ids()
	s := p.cached
	s.mu.RLock()
	defer s.mu.RUnlock()
	var ids []int64
	for _, c := range customers {
		for _, inv := range s.store.customerInvoices(c) {
			ids = append(ids, inv.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// unpaid is one of ids that owes something, so that a write-off
// changes it, and what it owes; any of ids when none does.
func (p *pcPair) unpaid(ids []int64, rng *rand.Rand) (int64, decimal.Decimal) {
	s := p.cached
	s.mu.RLock()
	defer s.mu.RUnlock()
	from := rng.IntN(len(ids))
	for i := range ids {
		id := ids[(from+i)%len(ids)]
		if owed := ledger.Outstanding(s.store.invoices.Get(id)); owed.IsPositive() {
			return id, owed
		}
	}
	return ids[from], decimal.Zero
}

// pcChanges name the kinds of change pcPair.change makes, by every path
// the fake has: the Go API, the HTTP API, seeding, the clock.
var pcChanges = []string{"UpdateInvoice", "UpdateInvoice posted", "DeleteInvoice", "WriteOffInvoice", "POST writeoff", "AddInvoice",
	"AddSubscriptionProductItem", "clock", "Generate", "Reset", "ReplaceFixtures", "AddCustomer"}

// change makes the change of kind k (an index of pcChanges) to both
// fakes, with rng's choices.
func (p *pcPair) change(k int, rng *rand.Rand, step int, fixtures []byte) {
	p.t.Helper()
	ids := p.invoiceIDs()
	pick := func() int64 { return ids[rng.IntN(len(ids))] }
	customers, products := p.ids()
	switch k {
	case 0:
		id, delta := pick(), decimal.NewFromInt(int64(rng.IntN(500))-250)
		p.both("UpdateInvoice", func(s *Server) error {
			return s.UpdateInvoice(id, func(inv *Invoice) {
				inv.PoNumber = fmt.Sprint("changed-", step)
				inv.ClosingArBalance = inv.ClosingArBalance.Add(delta)
			})
		})
	case 1:
		id, shift := pick(), time.Duration(rng.IntN(400)-200)*24*time.Hour
		p.both("UpdateInvoice posted", func(s *Server) error {
			return s.UpdateInvoice(id, func(inv *Invoice) { inv.PostedTimestamp = inv.PostedTimestamp.Add(shift) })
		})
	case 2:
		id := pick()
		p.both("DeleteInvoice", func(s *Server) error { s.DeleteInvoice(id); return nil })
	case 3:
		id, _ := p.unpaid(ids, rng)
		p.both("WriteOffInvoice", func(s *Server) error { return s.WriteOffInvoice(id) })
	case 4:
		id, owed := p.unpaid(ids, rng)
		if rng.IntN(4) == 0 {
			owed = owed.Add(decimal.NewFromInt(1)) // refused: changes nothing
		}
		p.do(http.MethodPost, "/v1/invoices/writeoff", fmt.Sprintf(`{"invoiceId":%d,"amount":%s}`, id, owed))
	case 5:
		c := customers[rng.IntN(3)]
		at := p.clock.Add(-time.Duration(rng.IntN(90)) * 24 * time.Hour)
		p.both("AddInvoice", func(s *Server) error {
			_, err := s.AddInvoice(Invoice{CustomerID: c, PostedTimestamp: at, EffectiveTimestamp: at, PoNumber: fmt.Sprint("changed-new-", step),
				Charges: []Charge{{Name: "Plan", Quantity: decimal.NewFromInt(1), UnitPrice: decimal.NewFromInt(40), Amount: decimal.NewFromInt(40)}}})
			return err
		})
	case 6:
		pr := products[rng.IntN(2)]
		p.both("AddSubscriptionProductItem", func(s *Server) error {
			_, err := s.AddSubscriptionProductItem(SubscriptionProductItem{SubscriptionProductID: pr, Name: fmt.Sprint("Seat ", step), CreatedDate: p.clock})
			return err
		})
	case 7:
		p.clock = p.clock.Add(time.Duration(30+rng.IntN(120)) * 24 * time.Hour) // summaries' overdue follows it
	case 8:
		p.both("Generate", func(s *Server) error {
			return s.Generate(GenerateOptions{Seed: uint64(step), Invoices: 20, Customers: 2})
		})
	case 9:
		p.both("Reset", (*Server).Reset)
	case 10:
		p.both("ReplaceFixtures", func(s *Server) error { return s.ReplaceFixtures(bytes.NewReader(fixtures)) })
	case 11:
		p.both("AddCustomer", func(s *Server) error {
			_, err := s.AddCustomer(Customer{FirstName: fmt.Sprint("New ", step)})
			return err
		})
	}
}

// TestPageCacheAnswersAsWithout runs random sequences of list requests,
// most of them repeats the cache serves, and of changes by every path,
// on a fake with the page cache and one without: the answers must be the
// same bytes.
func TestPageCacheAnswersAsWithout(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"plain store", []Option{WithPlainStore()}},
		{"scale store", []Option{WithScaleStore()}},
		{"variations", []Option{WithScaleStore(), WithPageCap(9, false), WithOtherPagingHeaders(), WithTimestampDigits(7, ZoneNone), WithUnknownMembers(), WithTieOrder(TieByIDDescending)}},
		{"churn", []Option{WithScaleStore(), WithChurn(Churn{Seed: 3, Every: 4, Inserts: 1, Deletes: 1, Rekeys: 1, Modifies: 1})}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newPCPair(t, c.opts...)
			var dump bytes.Buffer
			if err := p.cached.DumpFixtures(&dump); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(11, uint64(len(c.name))))
			uris := p.listURIs()
			for step := range 150 {
				if rng.IntN(5) == 0 {
					p.change(rng.IntN(len(pcChanges)), rng, step, dump.Bytes())
					continue
				}
				uri := uris[rng.IntN(len(uris))]
				for range 1 + rng.IntN(3) {
					p.list(uri)
				}
			}
			if p.ok < p.served*3/4 {
				t.Errorf("of %d list answers, %d were 200; want at least three quarters", p.served, p.ok)
			}
			// Churn takes the write lock before every list: nothing
			// can be served from the cache there.
			if hits := p.cached.pages.Stats().Hits; c.name != "churn" && hits < p.served/5 {
				t.Errorf("of %d list answers, %d came from the cache; want at least a fifth", p.served, hits)
			}
		})
	}
}

// With ties in a new random order on every request, no list answer is
// kept: two requests must be free to differ.
func TestPageCacheNotUsedWithRandomTies(t *testing.T) {
	t.Parallel()
	p := newPCPair(t, WithTieOrder(TieRandom))
	for range 5 {
		r := httptest.NewRequest(http.MethodGet, "http://billingtest.invalid/v1/Invoices?pageSize=50&sortExpression=poNumber", nil)
		r.Header.Set("Authorization", "Basic "+DefaultAPIKey)
		w := httptest.NewRecorder()
		p.cached.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	if got := p.cached.pages.Stats(); got != (pagecache.Stats{}) {
		t.Errorf("cache %+v; want nothing kept or served", got)
	}
}

// pcAnswer is what a list answer shows of the state: its body and count.
// (The rate-limit headers change on every request.)
func pcAnswer(w *httptest.ResponseRecorder) string {
	return w.Header().Get("X-Count") + " " + w.Body.String()
}

// TestPageCacheSeesEveryChange changes the fakes by each path in turn
// after every list has been cached: each change must show in some list,
// and both fakes must give the same answers after it.
func TestPageCacheSeesEveryChange(t *testing.T) {
	t.Parallel()
	for k, name := range pcChanges {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newPCPair(t, WithPlainStore())
			var dump bytes.Buffer
			if err := p.cached.DumpFixtures(&dump); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(5, uint64(k)))
			switch name {
			case "Reset", "ReplaceFixtures":
				p.change(0, rng, 1, nil) // something for them to undo
			case "clock":
				p.change(5, rng, 1, nil) // an unpaid invoice the move makes overdue
			}
			uris := p.listURIs()
			before := map[string]string{}
			for _, uri := range uris {
				for range 3 { // kept on the second, served on the third
					before[uri] = pcAnswer(p.do(http.MethodGet, uri, ""))
				}
			}
			if hits := p.cached.pages.Stats().Hits; hits < len(uris)-1 { // the 404 is not kept
				t.Fatalf("%d of %d lists served from the cache; want all but the 404", hits, len(uris))
			}
			p.change(k, rng, 2, dump.Bytes())
			changed := 0
			for _, uri := range uris {
				if pcAnswer(p.do(http.MethodGet, uri, "")) != before[uri] {
					changed++
				}
			}
			// A customer without invoices shows in none of these lists.
			if changed == 0 && name != "AddCustomer" {
				t.Errorf("no list shows the change")
			}
		})
	}
}

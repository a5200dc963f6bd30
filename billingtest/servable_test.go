package billingtest

import (
	"bytes"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// What the fake accepts it can serve and dump: input that would give an
// id past the largest int64, a date past 9999 (a due date from terms or
// from a late posting date included) or an amount the SDK cannot read is
// refused with an error naming it, the state left as it was; and after
// every refusal GET /_fake/state loads back and the SDK reads every
// answer. Before, such input was stored: an entity got id
// -9223372036854775808, or due dates in year 10000 and beyond broke the
// dump and the SDK's reading of every answer that held them.
func TestWhatTheFakeAcceptsItCanServe(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	const maxID = math.MaxInt64
	if _, err := srv.AddCustomer(Customer{ID: maxID, FirstName: "Last"}); err != nil {
		t.Fatal(err)
	}
	late := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	y10k := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	huge := decimal.New(1, 300)
	charge := []Charge{{ID: 1_000_001, Name: "x", Quantity: decimal.New(1, 0), UnitPrice: decimal.New(5, 0), Amount: decimal.New(5, 0)}}
	_, before := ccState(t, srv)

	goCalls := []struct {
		name, want string
		call       func() error
	}{
		{"customer without id after MaxInt64", "no id is left", func() error { _, err := srv.AddCustomer(Customer{}); return err }},
		{"invoice without id after MaxInt64", "no id is left", func() error {
			_, err := srv.AddInvoice(Invoice{CustomerID: maxID})
			return err
		}},
		{"charge without id after MaxInt64", "no id is left", func() error {
			_, err := srv.AddInvoice(Invoice{ID: 1_000_000, CustomerID: maxID, Charges: []Charge{{Name: "x"}}})
			return err
		}},
		{"subscription product without id", "no id is left", func() error {
			_, err := srv.AddSubscription(Subscription{ID: 1_000_002, CustomerID: maxID, Products: []SubscriptionProduct{{}}})
			return err
		}},
		{"terms Net99999999999", "Terms", func() error {
			_, err := srv.AddInvoice(Invoice{ID: 1_000_000, CustomerID: maxID, Terms: "Net99999999999", Charges: charge})
			return err
		}},
		{"posted 9999-12-31, Net30", "due date past 9999-12-31", func() error {
			_, err := srv.AddInvoice(Invoice{ID: 1_000_000, CustomerID: maxID, PostedTimestamp: late, Charges: charge})
			return err
		}},
		{"posted in year 10000", "PostedTimestamp", func() error {
			_, err := srv.AddInvoice(Invoice{ID: 1_000_000, CustomerID: maxID, PostedTimestamp: y10k, Charges: charge})
			return err
		}},
		{"charge amount 1e300", "Charges[0].Amount", func() error {
			c := append([]Charge(nil), charge...)
			c[0].Amount = huge
			_, err := srv.AddInvoice(Invoice{ID: 1_000_000, CustomerID: maxID, Charges: c})
			return err
		}},
		{"two charges of 240 nines: an amount of 241 digits", "instalment", func() error {
			nines := decimal.RequireFromString(strings.Repeat("9", 240))
			c := []Charge{{ID: 1_000_001, Name: "x", Quantity: decimal.New(1, 0), UnitPrice: nines, Amount: nines}, {ID: 1_000_006, Name: "y", Quantity: decimal.New(1, 0), UnitPrice: nines, Amount: nines}}
			_, err := srv.AddInvoice(Invoice{ID: 1_000_000, CustomerID: maxID, Charges: c})
			return err
		}},
		{"customer created in year 10000", "CreatedTimestamp", func() error {
			_, err := srv.AddCustomer(Customer{ID: 1_000_003, CreatedTimestamp: y10k})
			return err
		}},
		{"customer balance 1e300", "ArBalance", func() error {
			_, err := srv.AddCustomer(Customer{ID: 1_000_003, ArBalance: huge})
			return err
		}},
		{"item created in year 0", "CreatedDate", func() error {
			_, err := srv.AddSubscriptionProductItem(SubscriptionProductItem{ID: 1_000_004, SubscriptionProductID: 21, CreatedDate: time.Date(0, 6, 1, 0, 0, 0, 0, time.UTC)})
			return err
		}},
		{"update to terms Net99999999999", "Terms", func() error {
			return srv.UpdateInvoice(42, func(inv *Invoice) { inv.Terms = "Net99999999999" })
		}},
		{"update to posted in year 10000", "PostedTimestamp", func() error {
			return srv.UpdateInvoice(42, func(inv *Invoice) { inv.PostedTimestamp = y10k })
		}},
	}
	for _, c := range goCalls {
		if err := c.call(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}

	docs := []struct{ name, doc, want string }{
		{"customer without id after MaxInt64", `{"customers":[{"firstName":"x"}]}`, "past the largest int64"},
		{"terms Net99999999999", `{"invoices":[{"id":1000000,"customerId":9223372036854775807,"terms":"Net99999999999","charges":[{"amount":5}]}]}`, "terms"},
		{"posted 9999-12-31, Net30", `{"invoices":[{"id":1000000,"customerId":9223372036854775807,"postedTimestamp":"9999-12-31T00:00:00","terms":"Net30","charges":[{"amount":5}]}]}`, "past 9999-12-31"},
		{"amount 1e300", `{"customers":[{"id":1000003,"arBalance":1e300}]}`, "arBalance"},
		{"a good customer, then an amount of 246 digits", `{"customers":[{"id":1000005,"firstName":"a"},{"id":1000003,"arBalance":1e245}]}`, "customers[1] (id 1000003): ArBalance"},
		{"a good invoice, then an item created in year 10000", `{"invoices":[{"id":1000000,"customerId":9223372036854775807,"charges":[{"amount":5}]}],"subscriptionProductItems":[{"id":1000004,"subscriptionProductId":21,"createdDate":"9999-12-31T23:59:59-01:00"}]}`, "createdDate"},
		{"charge amount 1e300", `{"invoices":[{"id":1000000,"customerId":9223372036854775807,"charges":[{"amount":1e300}]}]}`, "Amount"},
		{"two charges of 240 nines", `{"invoices":[{"id":1000000,"customerId":9223372036854775807,"charges":[{"id":1000001,"amount":` + strings.Repeat("9", 240) + `},{"id":1000006,"amount":` + strings.Repeat("9", 240) + `}]}]}`, "instalment"},
	}
	for _, d := range docs {
		r := ccDo(t, srv, http.MethodPost, "/_fake/fixtures", d.doc)
		if r.status != http.StatusBadRequest || !strings.Contains(strings.ToLower(string(r.body)), strings.ToLower(d.want)) {
			t.Errorf("fixtures with %s: %d %s; want 400 naming %q", d.name, r.status, r.body, d.want)
		}
	}

	_, after := ccState(t, srv)
	if !bytes.Equal(before, after) {
		t.Error("a refused input changed the state")
	}
	fresh := ccServer(t)
	if r := ccDo(t, fresh, http.MethodPut, "/_fake/state", string(after)); r.status != http.StatusNoContent {
		t.Fatalf("the dumped state does not load back: %d %s", r.status, r.body)
	}
	for inv, err := range srv.Client().Invoices.All(t.Context(), nil) {
		if err != nil {
			t.Fatalf("the SDK cannot read the fake's invoices: %v", err)
		}
		if _, err := srv.Client().Invoices.Get(t.Context(), inv.ID, nil); err != nil {
			t.Fatalf("the SDK cannot read invoice %d: %v", inv.ID, err)
		}
	}
}

// TestItemsOfAProductNoSubscriptionHasLoadBack checks the dump of an item
// added to a subscription product no subscription has, which
// AddSubscriptionProductItem allows: it loads into a fresh fake, which
// then lists the item under that product.
func TestItemsOfAProductNoSubscriptionHasLoadBack(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	id, err := srv.AddSubscriptionProductItem(SubscriptionProductItem{SubscriptionProductID: 777, Name: "Seat"})
	if err != nil {
		t.Fatal(err)
	}
	_, state := ccState(t, srv)
	fresh := ccServer(t)
	if r := ccDo(t, fresh, http.MethodPut, "/_fake/state", string(state)); r.status != http.StatusNoContent {
		t.Fatalf("the dumped state does not load back: %d %s", r.status, r.body)
	}
	var got []int64
	for item, err := range fresh.Client().SubscriptionItems.All(t.Context(), 777, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, item.ID)
	}
	if len(got) != 1 || got[0] != id {
		t.Errorf("the loaded fake lists items %v of product 777, want [%d]", got, id)
	}
}

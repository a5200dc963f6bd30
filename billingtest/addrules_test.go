package billingtest

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// The Add methods refuse what a fixtures document may not hold either,
// one rule for both, and a refused entity leaves the state and the id
// sequence as they were.
func TestAddMethodsRefuseWhatFixturesRefuse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		add        func(*Server) error
	}{
		{"customer of an unknown parent", "AddCustomer: unknown customer 99", func(s *Server) error {
			_, err := s.AddCustomer(Customer{ParentID: 99})
			return err
		}},
		{"customer currency", `AddCustomer: "usd" is not an ISO currency code`, func(s *Server) error {
			_, err := s.AddCustomer(Customer{Currency: "usd"})
			return err
		}},
		{"customer code unknown", "AddCustomer: unknown sales tracking code 5", func(s *Server) error {
			_, err := s.AddCustomer(Customer{SalesTrackingCodeIDs: [5]int64{5}})
			return err
		}},
		{"customer id taken", "AddCustomer: customer 7 exists", func(s *Server) error {
			_, err := s.AddCustomer(Customer{ID: 7})
			return err
		}},
		{"charge id repeated in an invoice", "AddInvoice: id 5 repeats", func(s *Server) error {
			_, err := s.AddInvoice(Invoice{CustomerID: 7, Charges: []Charge{{ID: 5}, {ID: 5}}})
			return err
		}},
		{"draft of an unknown customer", "AddDraftInvoice: unknown customer 99", func(s *Server) error {
			_, err := s.AddDraftInvoice(DraftInvoice{CustomerID: 99})
			return err
		}},
		{"card digits", `AddCreditCard: want at least four digits, and only digits, in last4`, func(s *Server) error {
			_, err := s.AddCreditCard(CreditCard{CustomerID: 7, Last4: "42"})
			return err
		}},
		{"card month", "AddCreditCard: 13, want 1 to 12", func(s *Server) error {
			_, err := s.AddCreditCard(CreditCard{CustomerID: 7, Last4: "4242", ExpirationMonth: 13})
			return err
		}},
		{"card replacing an unknown card", "AddCreditCard: unknown credit card 99", func(s *Server) error {
			_, err := s.AddCreditCard(CreditCard{CustomerID: 7, Last4: "4242", OriginalPaymentMethodID: 99})
			return err
		}},
		{"card id taken", "AddCreditCard: credit card 910600 exists", func(s *Server) error {
			_, err := s.AddCreditCard(CreditCard{ID: 910600, CustomerID: 7, Last4: "4242"})
			return err
		}},
		{"wallet provider", `AddWalletMethod: "Venmo" is not a wallet provider of the fake`, func(s *Server) error {
			_, err := s.AddWalletMethod(WalletMethod{CustomerID: 7, Provider: "Venmo", Token: "T"})
			return err
		}},
		{"wallet without token or baid", "AddWalletMethod: give token or baid", func(s *Server) error {
			_, err := s.AddWalletMethod(WalletMethod{CustomerID: 7})
			return err
		}},
		{"wallet source", `AddWalletMethod: "Fax", want one of`, func(s *Server) error {
			_, err := s.AddWalletMethod(WalletMethod{CustomerID: 7, Token: "T", Source: "Fax"})
			return err
		}},
		{"subscription product id taken", "AddSubscription: subscription product 21 exists", func(s *Server) error {
			_, err := s.AddSubscription(Subscription{CustomerID: 7, Products: []SubscriptionProduct{{ID: 21}}})
			return err
		}},
		{"subscription intervals", "AddSubscription: negative", func(s *Server) error {
			_, err := s.AddSubscription(Subscription{CustomerID: 7, NumberOfIntervals: -1})
			return err
		}},
		{"item of another subscription's product", "AddSubscriptionProductItem: product 21 is of subscription 20, not 4", func(s *Server) error {
			_, err := s.AddSubscriptionProductItem(SubscriptionProductItem{SubscriptionProductID: 21, SubscriptionID: 4})
			return err
		}},
		{"item id taken", "AddSubscriptionProductItem: item 90 exists", func(s *Server) error {
			_, err := s.AddSubscriptionProductItem(SubscriptionProductItem{ID: 90, SubscriptionProductID: 21})
			return err
		}},
		{"code without name", "AddSalesTrackingCode: code and name are required", func(s *Server) error {
			_, err := s.AddSalesTrackingCode(SalesTrackingCode{Type: "Sales Tracking Code 1", Code: "N"})
			return err
		}},
		{"category name of another category", `SetTrackingCodeCategoryName: "sales tracking code 2" is already the name of category 2`, func(s *Server) error {
			return s.SetTrackingCodeCategoryName(1, "sales tracking code 2")
		}},
		{"job processed, not validated", "AddBulkJob: a job is processed only once validated", func(s *Server) error {
			_, err := s.AddBulkJob(BulkJob{Processed: true})
			return err
		}},
		{"job id taken", "AddBulkJob: bulk job 910602 exists", func(s *Server) error {
			_, err := s.AddBulkJob(BulkJob{ID: 910602})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := ccServer(t)
			_, before := ccState(t, srv)
			seq := adLastID(srv)
			err := tc.add(srv)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want one starting %q", err, tc.want)
			}
			if _, after := ccState(t, srv); !bytes.Equal(after, before) {
				t.Errorf("the refusal changed the state:\n%s", after)
			}
			if got := adLastID(srv); got != seq {
				t.Errorf("the id sequence moved from %d to %d", seq, got)
			}
		})
	}
}

// A document that fails late, loaded onto a fake holding data, leaves
// the fake exactly as it was: every kind added before the failure is
// removed again, the category names and the id sequence are put back.
func TestLoadFixturesFailingLateLeavesTheStateAsItWas(t *testing.T) {
	t.Parallel()
	const good = `"trackingCodeCategoryNames": {"1": "Region"},
  "salesTrackingCodes": [{"id": 1001, "type": "Region", "code": "N", "name": "North"}],
  "customers": [{"id": 1002, "parentId": 7, "salesTrackingCodeIds": [1001]}, {"firstName": "no id"}],
  "subscriptions": [{"id": 1003, "customerId": 1002, "products": [{"id": 1004}, {}]}],
  "invoices": [{"id": 1005, "customerId": 1002, "charges": [{"amount": 1, "subscriptionProductId": 1004}]}],
  "draftInvoices": [{"id": 1006, "customerId": 1002}],
  "creditCards": [{"id": 1007, "customerId": 1002, "last4": "1111"}],
  "walletMethods": [{"id": 1008, "customerId": 1002, "token": "T"}],
  "subscriptionProductItems": [{"id": 1009, "subscriptionProductId": 1004}, {"id": 1010, "subscriptionProductId": 5555}]`
	for _, tc := range []struct{ name, tail, want string }{
		{"bad job", `"bulkJobs": [{"id": 1011}, {"id": 1012, "processed": true}]`, "bulkJobs[1] (id 1012).processed: a job is processed only once validated"},
		{"job id the fake has", `"bulkJobs": [{"id": 910602}]`, "bulkJobs[0] (id 910602).id: the fake already has 910602"},
		{"job id repeated", `"bulkJobs": [{"id": 1011}, {"id": 1011}]`, "bulkJobs[1] (id 1011).id: id 1011 repeats"},
		{"item id repeated", `"subscriptionProductItems": [{"id": 1013, "subscriptionProductId": 21}, {"id": 1013, "subscriptionProductId": 21}]`,
			"subscriptionProductItems[1] (id 1013).id: id 1013 repeats"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := ccServer(t)
			_, before := ccState(t, srv)
			seq := adLastID(srv)
			doc := "{" + good + ",\n" + tc.tail + "}"
			if strings.Contains(tc.tail, "subscriptionProductItems") {
				doc = "{" + strings.Split(good, `,
  "subscriptionProductItems"`)[0] + ",\n" + tc.tail + "}"
			}
			err := srv.LoadFixtures(strings.NewReader(doc))
			if err == nil || err.Error() != "LoadFixtures: "+tc.want {
				t.Fatalf("error %v\nwant LoadFixtures: %s", err, tc.want)
			}
			if _, after := ccState(t, srv); !bytes.Equal(after, before) {
				t.Errorf("the failed load changed the state:\nbefore %s\nafter %s", before, after)
			}
			for _, path := range []string{"/v1/subscriptionProducts/5555/items", "/v1/subscriptionProducts/1004/items"} {
				if r := ccDo(t, srv, http.MethodGet, path, ""); r.status != http.StatusNotFound {
					t.Errorf("GET %s: %d %s; want 404, the product unknown again", path, r.status, r.body)
				}
			}
			if got := adLastID(srv); got != seq {
				t.Errorf("the id sequence moved from %d to %d", seq, got)
			}
			// The good part alone loads: the failure was the tail's.
			if err := srv.LoadFixtures(strings.NewReader("{" + good + "}")); err != nil {
				t.Errorf("the good part: %v", err)
			}
		})
	}
}

// References within a list may point forward: a parent customer and a
// replaced card may come after the entities naming them. A cycle of
// parents is refused.
func TestLoadFixturesOrdersReferencesWithinAList(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	doc := `{"customers": [{"id": 1003, "parentId": 1002}, {"id": 1002, "parentId": 1001}, {"id": 1001}],
  "creditCards": [{"id": 1005, "customerId": 1001, "last4": "2222", "originalPaymentMethodId": 1004},
                  {"id": 1004, "customerId": 1001, "last4": "1111", "replacedBy": 1005}]}`
	if err := srv.LoadFixtures(strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	if c, _ := srv.Customer(1003); c.ParentID != 1002 {
		t.Errorf("customer 1003 parent %d, want 1002", c.ParentID)
	}
	if c, _ := srv.CreditCard(1004); c.ReplacedBy != 1005 {
		t.Errorf("card 1004 replaced by %d, want 1005", c.ReplacedBy)
	}
	err := srv.LoadFixtures(strings.NewReader(`{"customers": [{"id": 2001, "parentId": 2002}, {"id": 2002, "parentId": 2001}]}`))
	if want := "LoadFixtures: customers[1] (id 2002).parentId: unknown customer 2001"; err == nil || err.Error() != want {
		t.Errorf("cycle: %v, want %s", err, want)
	}
}

// adLastID is the last id the fake's sequence gave or was given.
func adLastID(s *Server) int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.store.lastID
}

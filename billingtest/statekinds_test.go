package billingtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/billingapi/billing-go/billingtest/internal/fixture"
)

func TestControlStateByKind(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	whole, _ := ccState(t, srv)
	if len(whole.Invoices) == 0 || len(whole.Customers) == 0 || len(whole.WalletMethods) != 0 {
		t.Fatalf("the fixtures changed: %d invoices, %d customers, %d wallet methods", len(whole.Invoices), len(whole.Customers), len(whole.WalletMethods))
	}
	for _, tc := range []struct {
		query string
		keys  []string
		want  fixture.Document
	}{
		{"kind=invoices", []string{"invoices"}, fixture.Document{Invoices: whole.Invoices}},
		{"KIND=Customers,bulkJobs", []string{"bulkJobs", "customers"}, fixture.Document{Customers: whole.Customers, BulkJobs: whole.BulkJobs}},
		{"kind=customers&kind=invoices", []string{"customers", "invoices"}, fixture.Document{Customers: whole.Customers, Invoices: whole.Invoices}},
		// A kind with no entity is there, empty.
		{"kind=walletMethods", []string{"walletMethods"}, fixture.Document{WalletMethods: []WalletMethod{}}},
	} {
		r := ccDo(t, srv, http.MethodGet, "/_fake/state?"+tc.query, "")
		ccWant(t, tc.query, r, http.StatusOK)
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(r.body, &keys); err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for k := range keys {
			got = append(got, k)
		}
		slices.Sort(got)
		wantSame(t, tc.query+": keys", got, tc.keys)
		f, _, err := fixture.Decode(r.body)
		if err != nil {
			t.Fatal(err)
		}
		wantSame(t, tc.query+": document", *f, tc.want)
	}

	// What one kind gives loads back as a fixtures document.
	r := ccDo(t, srv, http.MethodGet, "/_fake/state?kind=customers", "")
	fresh := NewServer()
	t.Cleanup(fresh.Close)
	if err := fresh.LoadFixtures(bytes.NewReader(r.body)); err != nil {
		t.Fatalf("loading kind=customers: %v", err)
	}
	wantSame(t, "customers loaded back", fresh.Customers(), srv.Customers())

	for _, q := range []string{"kind=invoice", "kind=", "kind=invoices,", "kind=invoices&kind=nope"} {
		r := ccDo(t, srv, http.MethodGet, "/_fake/state?"+q, "")
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "is not one of customers, trackingCodeCategoryNames") {
			t.Errorf("%s: %d %s, want 400 naming the kinds", q, r.status, r.body)
		}
	}
}

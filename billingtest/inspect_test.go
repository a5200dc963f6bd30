package billingtest

import (
	"slices"
	"testing"
)

// TestInspectionNaming checks the getters of every kind: K(id) for one,
// Ks() for all by id, AddK to seed.
func TestInspectionNaming(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	walletID, err := srv.AddWalletMethod(WalletMethod{CustomerID: 8, Baid: "B-1"})
	if err != nil {
		t.Fatal(err)
	}
	codeID, err := srv.AddSalesTrackingCode(SalesTrackingCode{Type: "Sales Tracking Code 1", Code: "N", Name: "North"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AddWalletMethod(WalletMethod{CustomerID: 404}); err == nil {
		t.Error("AddWalletMethod accepted an unknown customer")
	}
	ids := func(n int, id func(int) int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = id(i)
		}
		return out
	}
	customers, drafts, jobs := srv.Customers(), srv.DraftInvoices(), srv.BulkJobs()
	for _, tc := range []struct {
		name      string
		got, want []int64
	}{
		{"Customers", ids(len(customers), func(i int) int64 { return customers[i].ID }), []int64{7, 8}},
		{"DraftInvoices", ids(len(drafts), func(i int) int64 { return drafts[i].ID }), []int64{3}},
		{"BulkJobs", ids(len(jobs), func(i int) int64 { return jobs[i].ID }), []int64{910602}},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s: ids %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if d, ok := srv.DraftInvoice(3); !ok || len(d.Lines) != 2 {
		t.Errorf("DraftInvoice(3) = %+v, %v", d, ok)
	}
	want := WalletMethod{ID: walletID, CustomerID: 8, Provider: "Paypal", Baid: "B-1", FirstName: "Alan", LastName: "Turing", ModifiedDate: ccNow}
	if w, ok := srv.WalletMethod(walletID); !ok || w != want {
		t.Errorf("WalletMethod = %+v, %v; want %+v", w, ok, want)
	}
	if c, ok := srv.SalesTrackingCode(codeID); !ok || c.Code != "N" {
		t.Errorf("SalesTrackingCode = %+v, %v", c, ok)
	}
	for name, found := range map[string]bool{
		"DraftInvoice":      func() bool { _, ok := srv.DraftInvoice(99); return ok }(),
		"WalletMethod":      func() bool { _, ok := srv.WalletMethod(99); return ok }(),
		"SalesTrackingCode": func() bool { _, ok := srv.SalesTrackingCode(99); return ok }(),
	} {
		if found {
			t.Errorf("%s(99) found an entity that does not exist", name)
		}
	}
}

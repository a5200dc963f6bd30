package billingtest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// mtServer is a fake with one customer and two invoices in the scale
// store, one that packs and one kept whole (a service date in 9999, see
// the scale store's records), with the list-all answer cached.
func mtServer(t *testing.T) (*Server, [2]int64) {
	t.Helper()
	srv, err := NewHandler(WithClock(func() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) }))
	if err != nil {
		t.Fatal(err)
	}
	cust, err := srv.AddCustomer(Customer{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	var ids [2]int64
	for i, end := range []time.Time{time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)} {
		inv, _ := listEdgeInvoice()
		inv.ID, inv.CustomerID, inv.PaymentSchedules, inv.Status = 0, cust, nil, ""
		inv.Charges[0].ID, inv.Charges[1].ID, inv.Charges[0].EndServiceDate = 0, 0, end
		inv.TotalPayments, inv.TotalWriteoffs = decimal.Zero, decimal.Zero
		if ids[i], err = srv.AddInvoice(*inv); err != nil {
			t.Fatal(err)
		}
	}
	useStore(t, srv, "scale")
	mtListAll(t, srv) // fills the cache
	return srv, ids
}

// mtListAll returns the notes of every invoice in a list-all answer, by id.
func mtListAll(t *testing.T, srv *Server) map[int64]string {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/v1/Invoices", nil)
	r.Header.Set("Authorization", "Basic "+DefaultAPIKey)
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("list all: %d %s", w.Code, w.Body)
	}
	var out []struct {
		ID    int64   `json:"id"`
		Notes *string `json:"notes"`
	}
	if err := jsonwire.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	notes := map[int64]string{}
	for _, inv := range out {
		if inv.Notes != nil {
			notes[inv.ID] = *inv.Notes
		}
	}
	return notes
}

// TestMutationsOfStoredInvoices checks that changes reach the stored
// record, packed or whole, and the list-all answer, and that a refused
// change leaves everything as it was.
func TestMutationsOfStoredInvoices(t *testing.T) {
	t.Parallel()
	for i, kind := range []string{"packed", "whole"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			srv, ids := mtServer(t)
			id := ids[i]
			before, _ := srv.Invoice(id)

			err := srv.UpdateInvoice(id, func(inv *Invoice) {
				inv.Notes = "changed"
				inv.Charges[0].Name = "Renamed"
				inv.Charges = inv.Charges[:1]
				inv.CustomerID++ // refused: nothing of this change may stay
			})
			if err == nil {
				t.Fatal("UpdateInvoice let the customer change")
			}
			if after, _ := srv.Invoice(id); after.Notes == nil || *after.Notes != *before.Notes || len(after.Charges) != 2 || after.Charges[0].Name != before.Charges[0].Name {
				t.Fatalf("a refused change left notes %v and %d charges, first %q", after.Notes, len(after.Charges), after.Charges[0].Name)
			}

			if err := srv.UpdateInvoice(id, func(inv *Invoice) {
				inv.Notes = "changed"
				inv.Charges[0].Name = "Renamed"
				inv.Charges = inv.Charges[:1]
			}); err != nil {
				t.Fatal(err)
			}
			after, _ := srv.Invoice(id)
			if *after.Notes != "changed" || len(after.Charges) != 1 || after.Charges[0].Name != "Renamed" || !after.ModifiedTimestamp.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("after the change: notes %q, %d charges, first %q, modified %v", *after.Notes, len(after.Charges), after.Charges[0].Name, after.ModifiedTimestamp)
			}
			if got := mtListAll(t, srv)[id]; got != "changed" {
				t.Errorf("list all after the change: notes %q, want the cache dropped", got)
			}

			balance := after.OutstandingBalance
			if err := srv.WriteOffInvoice(id); err != nil {
				t.Fatal(err)
			}
			if w, _ := srv.Invoice(id); !w.TotalWriteoffs.Equal(balance) || !w.OutstandingBalance.IsZero() || w.PaymentSchedules[0].Status != "WrittenOff" {
				t.Errorf("after the write-off: written off %s of %s, outstanding %s, schedule %q", w.TotalWriteoffs, balance, w.OutstandingBalance, w.PaymentSchedules[0].Status)
			}

			if !srv.DeleteInvoice(id) || srv.DeleteInvoice(id) {
				t.Fatal("DeleteInvoice did not report the invoice there once")
			}
			if _, ok := srv.Invoice(id); ok {
				t.Fatal("the deleted invoice is still there")
			}
			if _, listed := mtListAll(t, srv)[id]; listed {
				t.Error("the deleted invoice is still listed")
			}
			if err := srv.UpdateInvoice(id, func(*Invoice) {}); err == nil || !strings.Contains(err.Error(), "does not exist") {
				t.Errorf("UpdateInvoice of a deleted invoice: %v", err)
			}
			// Its id is free again; the other invoice is untouched.
			readd, _ := listEdgeInvoice()
			readd.ID, readd.CustomerID, readd.Notes = id, after.CustomerID, "again"
			readd.Charges[0].ID, readd.Charges[1].ID = 0, 0
			if _, err := srv.AddInvoice(*readd); err != nil {
				t.Fatal(err)
			}
			if notes := mtListAll(t, srv); notes[id] != "again" || notes[ids[1-i]] != *before.Notes {
				t.Errorf("after adding it again: notes %v", notes)
			}
		})
	}
}

package billingtest

import (
	"context"
	"math"
	"testing"

	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/billingtest/internal/scale"
)

// useStore makes srv keep its invoices in the store named kind from now
// on, whatever their number: "scale" moves them into the scale store at
// once, "plain" keeps an account that has not moved in the plain store.
func useStore(t *testing.T, srv *Server, kind string) {
	t.Helper()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	inv := &srv.store.invoices
	switch kind {
	case "scale":
		inv.scaleAt = 0
		inv.fit(inv.Len())
		if _, ok := inv.invoiceStore.(*scale.Store); !ok {
			t.Fatalf("store %T, want the scale store", inv.invoiceStore)
		}
	default:
		inv.scaleAt = math.MaxInt
		if _, ok := inv.invoiceStore.(*plainInvoices); !ok {
			t.Fatalf("store %T, want the plain store", inv.invoiceStore)
		}
	}
}

// newHandlerWith is NewHandler with its invoices in the store named kind.
func newHandlerWith(t *testing.T, kind string, opts ...Option) *Server {
	t.Helper()
	srv, err := NewHandler(opts...)
	if err != nil {
		t.Fatal(err)
	}
	useStore(t, srv, kind)
	return srv
}

// plainCopy is a plain store of srv's invoices, what the scale store's
// answers must equal. The caller holds srv.mu.
func plainCopy(srv *Server) *plainInvoices {
	p := &plainInvoices{st: srv.store}
	for i := range srv.store.invoices.Len() {
		p.Insert(srv.store.invoices.At(i))
	}
	return p
}

// invoiceIDs are srv's invoice ids, ascending.
func invoiceIDs(srv *Server) []int64 {
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	return idsOf(srv.store)
}

// idsOf is invoiceIDs for a caller that holds the lock.
func idsOf(st *store) []int64 {
	page := st.invoices.Query(context.Background(), &filter.Request{SortField: -1, Size: math.MaxInt})
	return mapped(page.Items, func(h filter.Hit) int64 { return h.ID })
}

// pageSummary is a page of invoices as ids and counts, for comparing.
type pageSummary struct {
	IDs             []int64
	Count, MaxCount int
}

func summarize(p filter.Page[filter.Hit]) pageSummary {
	s := pageSummary{IDs: []int64{}, Count: p.Count, MaxCount: p.MaxCount}
	for _, h := range p.Items {
		s.IDs = append(s.IDs, h.ID)
	}
	return s
}

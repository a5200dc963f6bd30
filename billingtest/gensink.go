package billingtest

import "github.com/billingapi/billing-go/billingtest/internal/gen"

// genSink is the generator's way into the store: the locked add methods,
// for a caller that holds s.mu.
func (s *Server) genSink() gen.Sink {
	st := s.store
	return gen.Sink{
		Assign: func() (int64, error) { return st.assign(0) },
		Categories: func(names [5]string) ([5]string, [5][]int64) {
			for i, name := range names {
				if st.categoryNames[i] == "" { // a name the test set itself wins
					st.categoryNames[i] = name
				}
			}
			var codes [5][]int64
			for _, c := range st.codes {
				if n, ok := st.category(string(c.Type)); ok {
					codes[n-1] = append(codes[n-1], c.ID)
				}
			}
			return st.categoryNames, codes
		},
		AddCode: func(c SalesTrackingCode) (int64, error) {
			return s.addSalesTrackingCodeLocked(storeCode(c))
		},
		AddCustomer:     s.addCustomerLocked,
		SetCustomer:     func(c Customer) { *st.customers[c.ID] = c },
		AddSubscription: s.addSubscriptionLocked,
		AddItem: func(item SubscriptionProductItem) (int64, error) {
			return s.addSubscriptionProductItemLocked(storeItem(item))
		},
		StartInvoices: func(n int) int64 {
			st.invoices.grow(n)
			var most int64
			for i := range st.invoices.Len() {
				most = max(most, st.invoices.At(i).InvoiceNumber)
			}
			return most
		},
		AddInvoice: s.insertInvoiceLocked,
		AddDraft:   s.addDraftInvoiceLocked,
		AddCard:    s.addCreditCardLocked,
		AddJob:     s.addBulkJobLocked,
	}
}

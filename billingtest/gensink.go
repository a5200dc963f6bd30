package billingtest

import "github.com/billingapi/billing-go/billingtest/internal/gen"

// genSink is the generator's way into the store, [gen.Sink]: the locked
// add methods, for a caller that holds s.mu.
type genSink struct{ s *Server }

var _ gen.Sink = genSink{}

func (g genSink) Assign() (int64, error) { return g.s.store.assign(0) }

func (g genSink) Categories(names [5]string) ([5]string, [5][]int64) {
	st := g.s.store
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
}

func (g genSink) AddCode(c SalesTrackingCode) (int64, error) {
	return g.s.addSalesTrackingCodeLocked(storeCode(c))
}
func (g genSink) AddCustomer(c Customer) (int64, error) { return g.s.addCustomerLocked(c) }
func (g genSink) SetCustomer(c Customer)                { g.s.store.customers[c.ID] = &c } // never in place: see scale.New
func (g genSink) AddSubscription(sub Subscription) (int64, error) {
	return g.s.addSubscriptionLocked(sub)
}
func (g genSink) AddItem(item SubscriptionProductItem) (int64, error) {
	return g.s.addSubscriptionProductItemLocked(storeItem(item))
}
func (g genSink) AddInvoice(inv *Invoice) (int64, error) { return g.s.insertInvoiceLocked(inv) }
func (g genSink) AddDraft(d DraftInvoice) (int64, error) { return g.s.addDraftInvoiceLocked(d) }
func (g genSink) AddCard(c CreditCard) (int64, error)    { return g.s.addCreditCardLocked(c) }
func (g genSink) AddJob(j BulkJob) (int64, error)        { return g.s.addBulkJobLocked(j) }

func (g genSink) StartInvoices(n int) int64 {
	g.s.store.invoices.grow(n)
	var most int64
	for i := range g.s.store.invoices.Len() {
		most = max(most, g.s.store.invoices.At(i).InvoiceNumber)
	}
	return most
}

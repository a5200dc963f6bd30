package billingtest

import (
	"fmt"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/gen"
)

// GenerateOptions says how much data [Server.Generate] makes and from which
// seed. A zero count takes a default derived from Invoices; a negative
// count makes none of that kind. The zero GenerateOptions makes a complete
// data set of 1,000 invoices. Its fields, Seed, Customers, Invoices,
// DraftInvoices, CreditCards, Subscriptions, ItemsPerProduct, BulkJobs
// and Start, are the generator's, documented there (go doc
// github.com/billingapi/billing-go/billingtest/internal/gen.Options).
type GenerateOptions gen.Options

// DefaultGenerateStart is where generated data begins when
// [GenerateOptions] has no Start.
var DefaultGenerateStart = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)

// Generate adds generated, realistic data to the fake: customers with
// sales tracking codes, parents and MRR figures; subscriptions to a
// handful of plans, some paying less than the plan price, with their
// product items; posted invoices with subscription and purchase charges,
// taxes, discounts, payments and credit notes; draft invoices; credit
// cards; and bulk jobs. The same options give the same data. See
// [GenerateOptions] for the amounts.
//
// About 60% of the invoices are posted by a monthly billing run, all
// within one second (02:00:00 UTC on the 1st, at sub-second times), as a
// real run posts them: many invoices share one second of postedTimestamp,
// more than fit a page at scale, which exercises paging inside one second
// (billing.Stable).
//
// The data spans [Start, Start+2 years). Invoice statuses follow the
// fake's clock, so tests that care about them should set [WithClock] to
// Start+2 years: then some invoices are paid, some partly paid, some due
// and some overdue. With the real clock and an old Start, every unpaid
// invoice is overdue.
//
// Calling Generate again adds another data set with new ids, plans and
// customers, reusing the sales tracking codes already there; invoice
// numbers continue from the largest. Generate holds the fake's lock
// throughout, a few hundred milliseconds for 100,000 invoices.
func (s *Server) Generate(opts GenerateOptions) error {
	defaultTime(&opts.Start, DefaultGenerateStart)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := gen.Run(s.genSink(), gen.Options(opts)); err != nil {
		return fmt.Errorf("Generate: %w", err)
	}
	return nil
}

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

package billingtest

import (
	"fmt"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/gen"
)

// GenerateOptions says how much data [Server.Generate] makes and from which
// seed. A zero count takes a default derived from Invoices; a negative
// count makes none of that kind. The zero GenerateOptions makes a complete
// data set of 1,000 invoices.
type GenerateOptions struct {
	// Seed picks the data: the same options give the same data, from a
	// math/rand/v2 PCG source of their own, never the global one.
	Seed uint64
	// Customers is the number of customers; 0 means max(1, Invoices/10).
	// Negative makes none, and so no invoices, drafts, cards or
	// subscriptions, which belong to customers; asking for some of those
	// as well is an error.
	Customers int
	// Invoices is the number of posted invoices; 0 means 1,000.
	Invoices int
	// DraftInvoices is the number of draft invoices; 0 means
	// max(1, Invoices/50).
	DraftInvoices int
	// CreditCards is the number of credit card payment methods, about a
	// tenth of them deleted; 0 means one per customer.
	CreditCards int
	// Subscriptions is the number of subscriptions, each with 1 to 3
	// products; 0 means max(1, Customers*9/10). They go to distinct
	// customers first, so most customers have one.
	Subscriptions int
	// ItemsPerProduct is the number of items of every subscription
	// product; 0 means 2.
	ItemsPerProduct int
	// BulkJobs is the number of bulk jobs; 0 means 4. They cycle through
	// validated, not validated, validated, and validated and processed, so
	// that any four show every state.
	BulkJobs int
	// Start begins the two years the data spans: customers are created,
	// invoices posted and so on in [Start, Start+2 years). The zero Start
	// means [DefaultGenerateStart], 2024-01-01 UTC, so that the data never
	// depends on the wall clock.
	Start time.Time
}

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
			return s.addSalesTrackingCodeLocked(c)
		},
		AddCustomer:     s.addCustomerLocked,
		SetCustomer:     func(c Customer) { st.customers[c.ID] = &c }, // never in place: see scale.New
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

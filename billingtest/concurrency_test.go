package billingtest_test

// Many goroutines sharing one SDK client against one fake, reading and
// writing at once; run with -race. The invariants at the end are those of
// the reference's transitions (section 3): a write-off takes the whole
// balance exactly once, a replaced card is replaced once, and the fake's
// own rule that a tracking code is unique in its category.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/shopspring/decimal"
)

// ccWorkers is how many goroutines share the client.
const ccWorkers = 16

// ccFixture is the account the workers share: one invoice and one card of
// their own each, and one shared invoice, card and draft they all go for.
type ccFixture struct {
	srv                       *billingtest.Server
	c                         *billing.Client
	customer                  int64
	invoices, cards           []int64 // one per worker
	amounts                   []decimal.Decimal
	sharedInvoice, sharedCard int64
	sharedAmount              decimal.Decimal
	draft                     int64
	allInvoices               []int64
}

// ccSeed seeds the shared account.
func ccSeed(t *testing.T) *ccFixture {
	t.Helper()
	// The PDF limit would otherwise throttle 16 workers reading at once.
	srv := newFake(t, billingtest.WithPDFRateLimit(10_000))
	m := must(t)
	f := &ccFixture{srv: srv, c: srv.Client()}
	f.customer = m(srv.AddCustomer(billingtest.Customer{FirstName: "Conc", LastName: "Urrent"}))
	for i := range ccWorkers {
		// Distinct balances with a fraction of a cent: 10.015, 20.030, ...
		amount := decimal.New(int64(10015*(i+1)), -3)
		inv := ptInvoice(f.customer, i, fmt.Sprintf("W%02d", i))
		inv.Charges[0].Amount, inv.Charges[0].UnitPrice = amount, amount
		f.invoices = append(f.invoices, m(srv.AddInvoice(inv)))
		f.amounts = append(f.amounts, amount)
		f.cards = append(f.cards, m(srv.AddCreditCard(billingtest.CreditCard{CustomerID: f.customer, Last4: fmt.Sprintf("%04d", i), CardType: "Visa"})))
	}
	f.sharedAmount = dec("99.999")
	shared := ptInvoice(f.customer, ccWorkers, "SHARED")
	shared.Charges[0].Amount, shared.Charges[0].UnitPrice = f.sharedAmount, f.sharedAmount
	f.sharedInvoice = m(srv.AddInvoice(shared))
	f.sharedCard = m(srv.AddCreditCard(billingtest.CreditCard{CustomerID: f.customer, Last4: "9999", CardType: "Visa", IsDefault: true}))
	f.draft = m(srv.AddDraftInvoice(billingtest.DraftInvoice{CustomerID: f.customer, Lines: []billingtest.DraftLine{{Description: "Line", Quantity: dec("1"), Amount: dec("1")}}}))
	f.allInvoices = append(append([]int64{}, f.invoices...), f.sharedInvoice)
	return f
}

// ccCard is a valid replacement for card id.
func ccCard(f *ccFixture, id int64, worker int) *billing.ReplaceCreditCardParams {
	return &billing.ReplaceCreditCardParams{ID: id, CustomerID: f.customer, CardNumber: fmt.Sprintf("41111111111111%02d", worker),
		CVV: "123", ExpirationMonth: 1 + worker%12, ExpirationYear: 30}
}

// ccResult is what one worker saw of the contended writes.
type ccResult struct {
	sharedWriteOff, sharedCard, sharedCode error
	newCard, newSharedCard, code           int64
	sharedCodeID                           int64
}

// TestConcurrentClients runs every kind of call from 16 goroutines at
// once through one client, each in its own order so that different calls
// overlap, then checks the invariants.
func TestConcurrentClients(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := ccSeed(t)
	results := make([]ccResult, ccWorkers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range ccWorkers {
		r := &results[i]
		ops := []func(){
			func() { // list every invoice, each exactly once, while others write
				seen := map[int64]bool{}
				for inv, err := range f.c.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 7}}) {
					if err != nil {
						t.Errorf("worker %d: list: %v", i, err)
						return
					}
					if seen[inv.ID] {
						t.Errorf("worker %d: invoice %d listed twice", i, inv.ID)
					}
					seen[inv.ID] = true
				}
				if len(seen) != len(f.allInvoices) {
					t.Errorf("worker %d: listed %d invoices, want %d", i, len(seen), len(f.allInvoices))
				}
			},
			func() { // read another worker's invoice, grouped
				id := f.invoices[(i+1)%ccWorkers]
				inv, err := f.c.Invoices.Get(ctx, id, &billing.GetInvoiceParams{GroupCharges: true})
				if err != nil || inv.ID != id || len(inv.ChargeGroups) != 1 {
					t.Errorf("worker %d: read %d: %v, %v", i, id, inv, err)
				}
			},
			func() { // summaries
				page, err := f.c.InvoiceSummaries.List(ctx, f.customer, &billing.ListInvoiceSummariesParams{ListOptions: billing.ListOptions{PageSize: 1000}})
				if err != nil || page.Count != len(f.allInvoices) {
					t.Errorf("worker %d: summaries: %v", i, err)
				}
			},
			func() { // write off its own invoice
				inv, err := f.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: f.invoices[i], Amount: &f.amounts[i]})
				if err != nil || !inv.OutstandingBalance.IsZero() || !inv.TotalWriteoffs.Equal(f.amounts[i]) {
					t.Errorf("worker %d: own write-off: %v, %v", i, inv, err)
				}
			},
			func() { // all go for the shared invoice
				_, r.sharedWriteOff = f.c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: f.sharedInvoice, Amount: &f.sharedAmount})
			},
			func() { // replace its own card
				card, err := f.c.PaymentMethods.ReplaceCreditCard(ctx, ccCard(f, f.cards[i], i))
				if err != nil {
					t.Errorf("worker %d: own card: %v", i, err)
					return
				}
				r.newCard = card.ID
			},
			func() { // all go for the shared card
				card, err := f.c.PaymentMethods.ReplaceCreditCard(ctx, ccCard(f, f.sharedCard, i))
				r.sharedCard = err
				if err == nil {
					r.newSharedCard = card.ID
				}
			},
			func() { // a code of its own
				code, err := f.c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: fmt.Sprintf("W%02d", i), Name: "own"})
				if err != nil {
					t.Errorf("worker %d: own code: %v", i, err)
					return
				}
				r.code = code.ID
			},
			func() { // all go for the same code, in different cases
				code, err := f.c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType2, Code: []string{"SHARED", "shared", "Shared"}[i%3], Name: "shared"})
				r.sharedCode = err
				if err == nil {
					r.sharedCodeID = code.ID
				}
			},
			func() { // the draft as PDF
				rc, err := f.c.DraftInvoices.PDF(ctx, f.draft, nil)
				if err != nil {
					t.Errorf("worker %d: PDF: %v", i, err)
					return
				}
				defer rc.Close()
				head := make([]byte, 5)
				if _, err := io.ReadFull(rc, head); err != nil || string(head) != "%PDF-" {
					t.Errorf("worker %d: PDF starts %q, %v", i, head, err)
				}
				if _, err := io.Copy(io.Discard, rc); err != nil {
					t.Errorf("worker %d: PDF body: %v", i, err)
				}
			},
		}
		wg.Go(func() {
			<-start
			for k := range ops {
				ops[(k+i)%len(ops)]()
			}
		})
	}
	close(start)
	wg.Wait()

	// Contended write-off: exactly one took the whole balance; every other
	// attempt was refused as no longer equal to the (zero) balance.
	var writeOffWinners, cardWinners, codeWinners int
	var sharedCardWinner, sharedCodeWinner int64
	for i, r := range results {
		switch {
		case r.sharedWriteOff == nil:
			writeOffWinners++
		case !errors.Is(r.sharedWriteOff, billing.ErrBadRequest):
			t.Errorf("worker %d: shared write-off: %v, want success or ErrBadRequest", i, r.sharedWriteOff)
		}
		switch {
		case r.sharedCard == nil:
			cardWinners++
			sharedCardWinner = r.newSharedCard
		case !errors.Is(r.sharedCard, billing.ErrBadRequest):
			t.Errorf("worker %d: shared card: %v, want success or ErrBadRequest", i, r.sharedCard)
		}
		switch {
		case r.sharedCode == nil:
			codeWinners++
			sharedCodeWinner = r.sharedCodeID
		case !errors.Is(r.sharedCode, billing.ErrConflict):
			t.Errorf("worker %d: shared code: %v, want success or ErrConflict", i, r.sharedCode)
		}
	}
	if writeOffWinners != 1 || cardWinners != 1 || codeWinners != 1 {
		t.Fatalf("winners: write-off %d, card %d, code %d; want exactly one each", writeOffWinners, cardWinners, codeWinners)
	}

	inv, _ := f.srv.Invoice(f.sharedInvoice)
	if !inv.TotalWriteoffs.Equal(f.sharedAmount) || !inv.OutstandingBalance.IsZero() {
		t.Errorf("shared invoice: totalWriteoffs %s, outstanding %s; want %s once, 0", inv.TotalWriteoffs, inv.OutstandingBalance, f.sharedAmount)
	}
	for i, id := range f.invoices {
		inv, _ := f.srv.Invoice(id)
		if !inv.TotalWriteoffs.Equal(f.amounts[i]) || !inv.OutstandingBalance.IsZero() {
			t.Errorf("invoice %d: totalWriteoffs %s, outstanding %s; want %s, 0", id, inv.TotalWriteoffs, inv.OutstandingBalance, f.amounts[i])
		}
		if s, _ := f.srv.InvoiceSummary(id); s.InvoiceStatus != billing.InvoiceStatusWrittenOff {
			t.Errorf("invoice %d: status %s", id, s.InvoiceStatus)
		}
	}

	// Cards: each old card replaced by exactly the card its worker got; the
	// shared one by the single winner; nothing else.
	replacements := map[int64][]int64{}
	for _, c := range f.srv.CreditCards() {
		if c.OriginalPaymentMethodID != 0 {
			replacements[c.OriginalPaymentMethodID] = append(replacements[c.OriginalPaymentMethodID], c.ID)
		}
	}
	for i, old := range f.cards {
		if got := replacements[old]; len(got) != 1 || got[0] != results[i].newCard {
			t.Errorf("card %d replaced by %v, want [%d]", old, got, results[i].newCard)
		}
		if c, _ := f.srv.CreditCard(old); c.ReplacedBy != results[i].newCard {
			t.Errorf("card %d: replacedBy %d, want %d", old, c.ReplacedBy, results[i].newCard)
		}
	}
	if got := replacements[f.sharedCard]; len(got) != 1 || got[0] != sharedCardWinner {
		t.Errorf("shared card replaced by %v, want [%d]", got, sharedCardWinner)
	}
	if n := len(f.srv.CreditCards()); n != 2*(ccWorkers+1) {
		t.Errorf("%d cards, want %d", n, 2*(ccWorkers+1))
	}

	// Codes: one per worker and the shared one, ids unique.
	codes := f.srv.SalesTrackingCodes()
	if len(codes) != ccWorkers+1 {
		t.Errorf("%d codes, want %d", len(codes), ccWorkers+1)
	}
	seen := map[int64]bool{}
	for _, c := range codes {
		if seen[c.ID] {
			t.Errorf("code id %d twice", c.ID)
		}
		seen[c.ID] = true
	}
	if !seen[sharedCodeWinner] {
		t.Errorf("the winning shared code %d is not held", sharedCodeWinner)
	}

	// Ids are unique across all the entities created concurrently.
	created := map[int64]string{}
	for i, r := range results {
		for kind, id := range map[string]int64{"card": r.newCard, "code": r.code} {
			if prev, dup := created[id]; dup {
				t.Errorf("worker %d: %s id %d already used by a %s", i, kind, id, prev)
			}
			created[id] = kind
		}
	}

	// Events: one write-off announcement per invoice written off.
	webhooks := 0
	for _, e := range f.srv.Events() {
		if e.Operation == "invoice.writeoff" && e.Kind == billingtest.EventWebhook {
			webhooks++
		}
	}
	if webhooks != ccWorkers+1 {
		t.Errorf("%d write-off webhooks, want %d", webhooks, ccWorkers+1)
	}
	// No answer was a server error or a throttle.
	for _, r := range f.srv.Requests() {
		if r.Status != http.StatusOK && r.Status != http.StatusBadRequest && r.Status != http.StatusConflict {
			t.Errorf("%s %s answered %d", r.Method, r.Path, r.Status)
		}
	}
}

// TestConcurrentWriteOffSameInvoice repeats the contended write-off on
// fresh invoices: in each round exactly one of 16 simultaneous write-offs
// succeeds, the rest are 400s, and the invoice's totalWriteoffs is the
// amount once.
func TestConcurrentWriteOffSameInvoice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newFake(t)
	m := must(t)
	cust := m(srv.AddCustomer(billingtest.Customer{FirstName: "Race"}))
	c := srv.Client()
	for round := range 5 {
		amount := decimal.New(int64(12345+round), -2)
		inv := ptInvoice(cust, round, "")
		inv.Charges[0].Amount, inv.Charges[0].UnitPrice = amount, amount
		id := m(srv.AddInvoice(inv))

		errs := make([]error, ccWorkers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range ccWorkers {
			wg.Go(func() {
				<-start
				_, errs[i] = c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: id, Amount: &amount})
			})
		}
		close(start)
		wg.Wait()

		won := 0
		for i, err := range errs {
			var apiErr *billing.APIError
			switch {
			case err == nil:
				won++
			case !errors.Is(err, billing.ErrBadRequest) || !errors.As(err, &apiErr) || !apiErr.HasKey("Api Error"):
				t.Errorf("round %d, worker %d: %v, want ErrBadRequest with Key Api Error", round, i, err)
			}
		}
		held, _ := srv.Invoice(id)
		if won != 1 || !held.TotalWriteoffs.Equal(amount) || !held.OutstandingBalance.IsZero() {
			t.Errorf("round %d: %d winners, totalWriteoffs %s, outstanding %s; want 1, %s, 0", round, won, held.TotalWriteoffs, held.OutstandingBalance, amount)
		}
	}
}

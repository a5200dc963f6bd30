package billingtest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/cards"
	"github.com/billingapi/billing-go/billingtest/internal/draft"
	"github.com/billingapi/billing-go/billingtest/internal/ledger"
	"github.com/billingapi/billing-go/billingtest/internal/pdf"
	"github.com/shopspring/decimal"
)

// Each write below decodes and checks its body without the lock, then
// applies the change in a method that holds s.mu for the whole
// check-and-change, so that two concurrent writes cannot both pass a check
// (two write-offs of one invoice, two replacements of one card). The
// answer is rendered under the lock and encoded after it is released.

// emitted is a write's answer: v, after the events kinds of operation on
// entity id, when err is nil; err alone otherwise.
func (s *Server) emitted(r *http.Request, v any, id int64, err error, operation string, kinds ...EventKind) (any, error) {
	if err != nil {
		return nil, err
	}
	s.emit(r, operation, id, kinds...)
	return v, nil
}

// ---- Write off invoice (reference 4.6) ----

// handleWriteOff writes off the whole outstanding balance of an invoice.
func (s *Server) handleWriteOff(r *http.Request) (any, error) {
	// The permission check comes first: the reference says the call
	// returns 404 unless the account has the permission, whatever the body
	// holds, so an account without it learns nothing about its invoices.
	if !s.cfg.writeOffPermission {
		return nil, notFound("write-off is not enabled for this account")
	}
	var p billing.WriteOffParams
	switch err := decodeBody(r, &p); {
	case err != nil:
		return nil, err
	case p.InvoiceID <= 0:
		return nil, badRequest("invoiceId is required: a positive invoice id")
	case p.Amount == nil:
		return nil, badRequest("amount is required: the invoice's full outstanding balance")
	}
	inv, err := s.writeOff(p.InvoiceID, *p.Amount)
	return s.emitted(r, grouped(inv), inv.ID, err, "invoice.writeoff", EventWebhook, EventCRM, EventAccounting, EventEmail)
}

// writeOff applies a write-off and returns the invoice as the write-off
// answers it: with charge groups and tracked items.
func (s *Server) writeOff(id int64, amount decimal.Decimal) (billing.Invoice, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inv := s.store.invoices.Get(id)
	if inv == nil {
		return billing.Invoice{}, fail(http.StatusNotFound, "invoice %d does not exist", id)
	}
	balance := ledger.Outstanding(inv)
	if !balance.IsPositive() {
		return billing.Invoice{}, fail(http.StatusBadRequest, "invoice %d has no outstanding balance to write off", id)
	}
	// Equal compares values exactly (10.125 is not 10.12; 10.10 is 10.1):
	// the service refuses anything but the whole balance, so a fake that
	// rounded would let a partial write-off pass in tests only.
	if !amount.Equal(balance) {
		return billing.Invoice{}, fail(http.StatusBadRequest,
			"amount %s does not equal the outstanding balance %s of invoice %d; partial write-offs are not possible",
			amount.String(), balance.String(), id)
	}
	for i := range inv.PaymentSchedules {
		ps := &inv.PaymentSchedules[i]
		if ps.OutstandingBalance.IsPositive() {
			ps.Status = billing.PaymentScheduleStatusWrittenOff
			ps.OutstandingBalance = decimal.Zero
		}
	}
	inv.TotalWriteoffs = inv.TotalWriteoffs.Add(amount)
	inv.ModifiedTimestamp = s.now()
	s.store.invoices.Replace(inv)
	out := s.store.renderInvoice(inv, chargesGrouped, true)
	out.CrmID = ptr(inv.CrmID) // the reference shows crmId in the write-off answer
	return out, nil
}

// ---- Replace credit card (reference 4.7) ----

// handleReplaceCreditCard replaces a credit card payment method with a
// new one. The card number and CVV live only in this request's memory:
// the store keeps the last four digits, and no message repeats either.
func (s *Server) handleReplaceCreditCard(r *http.Request) (any, error) {
	var p billing.ReplaceCreditCardParams
	if err := decodeBody(r, &p); err != nil {
		return nil, err
	}
	digits, err := cards.Check(&p)
	if err != nil {
		return nil, badRequest("%s", err)
	}
	card, err := s.replaceCard(&p, digits)
	return s.emitted(r, card, card.ID, err, "paymentMethod.replaced", EventWebhook, EventEmail)
}

// replaceCard stores the replacement card and retires the old one.
func (s *Server) replaceCard(p *billing.ReplaceCreditCardParams, digits string) (billing.CreditCard, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.store.cards[p.ID]
	if !ok {
		return billing.CreditCard{}, fail(http.StatusNotFound, "payment method %d does not exist", p.ID)
	}
	if p.CustomerID != 0 && p.CustomerID != old.CustomerID {
		return billing.CreditCard{}, fail(http.StatusBadRequest, "payment method %d does not belong to customer %d", p.ID, p.CustomerID)
	}
	if old.Deleted {
		return billing.CreditCard{}, fail(http.StatusBadRequest, "payment method %d has been deleted and cannot be replaced", p.ID)
	}
	if old.ReplacedBy != 0 {
		return billing.CreditCard{}, fail(http.StatusBadRequest,
			"payment method %d was replaced by payment method %d; the old method cannot be replaced again", p.ID, old.ReplacedBy)
	}
	now := s.now()
	// The replacement is a new card: names, expiry and address are the
	// request's (a PUT sends the whole card), not merged with the old
	// card's, and only isDefault falls back to the old value when absent.
	card := CreditCard{
		CustomerID:              old.CustomerID,
		Last4:                   digits[len(digits)-4:], // never the number itself, even in passing
		CardType:                cards.Type(digits),
		FirstName:               p.FirstName,
		LastName:                p.LastName,
		ExpirationMonth:         p.ExpirationMonth,
		ExpirationYear:          p.ExpirationYear,
		Address1:                p.Address1,
		Address2:                p.Address2,
		City:                    p.City,
		PostalZip:               p.PostalZip,
		IsDefault:               old.IsDefault,
		OriginalPaymentMethodID: old.ID,
		ModifiedDate:            now,
	}
	if p.CountryID != nil {
		card.CountryID = *p.CountryID
	}
	if p.StateID != nil {
		card.StateID = *p.StateID
	}
	if p.IsDefault != nil {
		card.IsDefault = *p.IsDefault
	}
	id, err := s.addCreditCardLocked(card)
	if err != nil {
		return billing.CreditCard{}, fail(http.StatusInternalServerError, "%v", err)
	}
	if card.IsDefault {
		// A customer has one default payment method: the new card.
		s.clearDefaults(card.CustomerID)
		s.store.cards[id].IsDefault = true
	}
	old.ReplacedBy, old.ModifiedDate = id, now
	return renderCard(s.store.cards[id]), nil
}

// clearDefaults unmarks every payment method of a customer as default.
// s.mu is held.
func (s *Server) clearDefaults(customerID int64) {
	for _, c := range s.store.cards {
		if c.CustomerID == customerID {
			c.IsDefault = false
		}
	}
	for _, wm := range s.store.wallets {
		if wm.CustomerID == customerID {
			wm.IsDefault = false
		}
	}
}

// hasDefault reports whether a customer has a usable default payment
// method: replaced and deleted cards no longer count. s.mu is held.
func (s *Server) hasDefault(customerID int64) bool {
	for _, c := range s.store.cards {
		if c.CustomerID == customerID && c.IsDefault && !c.Deleted && c.ReplacedBy == 0 {
			return true
		}
	}
	for _, wm := range s.store.wallets {
		if wm.CustomerID == customerID && wm.IsDefault {
			return true
		}
	}
	return false
}

// ---- Create wallet billing agreement (reference 4.8) ----

// paymentSources are the sources the reference lists, in its order.
var paymentSources = []billing.PaymentSource{
	billing.PaymentSourceManual, billing.PaymentSourceAutomatic,
	billing.PaymentSourceSelfServicePortal, billing.PaymentSourceImport,
}

// walletAgreementBody is billing.WalletAgreementParams as the service
// reads it: the reference documents token and baid as decimals although
// clients send strings; the binder takes both (see bind.JSON).
type walletAgreementBody struct {
	Token                 string                         `json:"token"`
	Baid                  string                         `json:"baid"`
	PaymentCollectOptions *billing.PaymentCollectOptions `json:"paymentCollectOptions"`
	CustomerID            int64                          `json:"customerId"`
	Source                billing.PaymentSource          `json:"source"`
}

// handleWalletAgreement creates a payment method from a wallet
// provider's billing agreement.
func (s *Server) handleWalletAgreement(r *http.Request) (any, error) {
	// The front door matched the provider without regard to case and
	// passes its configured spelling.
	provider := r.PathValue("provider")
	var p walletAgreementBody
	if err := decodeBody(r, &p); err != nil {
		return nil, err
	}
	token, baid := strings.TrimSpace(p.Token), strings.TrimSpace(p.Baid)
	source, ok := parseSource(p.Source)
	switch {
	case token == "" && baid == "":
		return nil, &requestError{status: http.StatusBadRequest, key: "agreement", msg: "a token or a baid is required"}
	case !ok:
		return nil, badRequest("source must be one of %s, got %q", joinSources(), p.Source)
	case p.CustomerID <= 0:
		return nil, badRequest("customerId is required: a positive customer id")
	case p.PaymentCollectOptions != nil && p.PaymentCollectOptions.CollectionAmount.IsNegative():
		return nil, badRequest("paymentCollectOptions.collectionAmount must not be negative")
	}
	pm, err := s.createWallet(provider, token, baid, p.CustomerID, source)
	return s.emitted(r, pm, pm.ID, err, "paymentMethod.created", EventWebhook, EventCRM)
}

// parseSource reads a payment source case-insensitively, as the service
// parses enums, and returns its canonical spelling.
func parseSource(src billing.PaymentSource) (billing.PaymentSource, bool) {
	i := slices.IndexFunc(paymentSources, func(k billing.PaymentSource) bool { return strings.EqualFold(string(src), string(k)) })
	return paymentSources[max(i, 0)], i >= 0
}

func joinSources() string {
	return strings.Join(enumValues(paymentSources...), ", ")
}

func (s *Server) createWallet(provider, token, baid string, customerID int64, source billing.PaymentSource) (billing.WalletPaymentMethod, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.store.customers[customerID]; !ok {
		return billing.WalletPaymentMethod{}, fail(http.StatusNotFound, "customer %d does not exist", customerID)
	}
	id, err := s.addWalletMethodLocked(WalletMethod{CustomerID: customerID, Provider: provider, Token: token, Baid: baid, Source: source, IsDefault: !s.hasDefault(customerID)})
	if err != nil {
		return billing.WalletPaymentMethod{}, fail(http.StatusInternalServerError, "%v", err)
	}
	wm := s.store.wallets[id]
	return billing.WalletPaymentMethod{ID: id, CustomerID: customerID, FirstName: wm.FirstName, LastName: wm.LastName,
		IsDefault: wm.IsDefault, ModifiedDate: billing.NewTimestamp(wm.ModifiedDate)}, nil
}

// ---- Create sales tracking code (reference 4.9) ----

// handleCreateTrackingCode creates a sales tracking code. A code that
// already exists in the same category is refused with 409: the reference
// does not show this case, but codes identify a category's entries (they
// are what bulk filters and the query syntax match on), so the fake keeps
// them unique per category, compared case-insensitively as the service's
// string matching is.
func (s *Server) handleCreateTrackingCode(r *http.Request) (any, error) {
	var p billing.CreateSalesTrackingCodeParams
	switch err := decodeBody(r, &p); {
	case err != nil:
		return nil, err
	case strings.TrimSpace(p.Code) == "":
		return nil, badRequest("code is required")
	case strings.TrimSpace(p.Name) == "":
		return nil, badRequest("name is required")
	}
	code, err := s.createTrackingCode(&p)
	return s.emitted(r, code, code.ID, err, "salesTrackingCode.created", EventWebhook)
}

func (s *Server) createTrackingCode(p *billing.CreateSalesTrackingCodeParams) (billing.SalesTrackingCode, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	category, ok := s.store.category(string(p.Type))
	if !ok {
		return billing.SalesTrackingCode{}, fail(http.StatusBadRequest, "type %q is not a sales tracking code type; valid types: %s",
			p.Type, strings.Join(s.store.validTypes(), ", "))
	}
	for _, c := range s.store.codes {
		if n, _ := s.store.category(string(c.Type)); n == category && strings.EqualFold(c.Code, p.Code) {
			return billing.SalesTrackingCode{}, fail(http.StatusConflict,
				"a sales tracking code with code %q already exists in category Sales Tracking Code %d (id %d)", p.Code, category, c.ID)
		}
	}
	id, err := s.addSalesTrackingCodeLocked(SalesTrackingCode{Type: p.Type, Code: p.Code, Name: p.Name,
		Description: ptr(p.Description), Email: ptr(p.Email), Deletable: true})
	if err != nil {
		return billing.SalesTrackingCode{}, fail(http.StatusInternalServerError, "%v", err)
	}
	c := s.store.codes[len(s.store.codes)-1]
	return billing.SalesTrackingCode{ID: id, URI: uri("salesTrackingCodes", id), Type: c.Type, Code: c.Code, Name: c.Name,
		Description: c.Description, Email: c.Email, Status: c.Status, Deletable: c.Deletable}, nil
}

// ---- Submit bulk job (reference 4.12) ----

// bulkProcessAnswer is the answer to a bulk job submission. The reference
// shows only id; type and status tell tests what was started.
type bulkProcessAnswer struct {
	ID     int64  `json:"id"`
	Type   string `json:"type"`
	Status string `json:"status"`
}

// handleBulkProcess submits a validated bulk job, once. Both refusals are
// 409: the request is well-formed, a business rule (validated first,
// processed only once) refuses it.
func (s *Server) handleBulkProcess(r *http.Request) (any, error) {
	var p struct {
		ID int64 `json:"id"`
	}
	switch err := decodeBody(r, &p); {
	case err != nil:
		return nil, err
	case p.ID <= 0:
		return nil, badRequest("id is required: a positive bulk job id")
	}
	answer, err := s.processJob(p.ID)
	return s.emitted(r, answer, answer.ID, err, "bulkJob.processed", EventWebhook, EventEmail)
}

func (s *Server) processJob(id int64) (bulkProcessAnswer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	job, ok := s.store.jobs[id]
	switch {
	case !ok:
		return bulkProcessAnswer{}, fail(http.StatusNotFound, "bulk job %d does not exist", id)
	case !job.Validated:
		return bulkProcessAnswer{}, fail(http.StatusConflict, "bulk job %d is not validated; only a validated job can be processed", id)
	case job.Processed:
		return bulkProcessAnswer{}, fail(http.StatusConflict, "bulk job %d was already submitted for processing", id)
	}
	job.Processed = true
	return bulkProcessAnswer{ID: job.ID, Type: job.Type, Status: "Processing"}, nil
}

// ---- Read draft invoice as PDF (reference 4.5) ----

// handleDraftPDF answers with the draft invoice as a PDF. Throttling is
// the pipeline's (see Server.throttle).
func (s *Server) handleDraftPDF(w http.ResponseWriter, r *http.Request) {
	id, ok := s.pathInt(w, r, "Id")
	if !ok {
		return
	}
	showTracked, err := boolParam(r, "showTrackedItems")
	if err != nil {
		s.writeRequestError(w, err)
		return
	}
	s.mu.RLock()
	d, ok := s.store.drafts[id]
	if !ok {
		s.mu.RUnlock()
		s.writeRequestError(w, fail(http.StatusNotFound, "draft invoice %d does not exist", id))
		return
	}
	meta, lines := draft.Document(d, s.store.customers[d.CustomerID], showTracked)
	s.mu.RUnlock()

	doc := pdf.Render(meta, lines)
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="draft-invoice-%d.pdf"`, id))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(doc)
}

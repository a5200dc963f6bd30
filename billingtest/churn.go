package billingtest

import (
	"fmt"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/churn"
	"github.com/billingapi/billing-go/billingtest/internal/filter"
)

// Churn makes the fake a busy account, one that other systems write to
// between any two requests: before answering a list request, the fake
// inserts, deletes, re-keys and modifies a few rows of that list's scope
// (all invoices, the customer's invoices, the subscription product's
// items), as [WithChurn] describes. It is for tests of code that must
// cope with data changing under it, e.g. a sync job or a stable iteration.
//
// The changes are deterministic: they depend only on Seed and on the
// order and content of the list requests, so that a test run twice sees
// the same changes, and [Server.ChurnLog] says what they were.
type Churn struct {
	// Seed seeds the changes (a PCG from math/rand/v2).
	Seed int64
	// Every makes a round of changes before every Every-th list request;
	// 0 means 1, a round before every one.
	Every int
	// Inserts is the rows a round adds, each a look-alike of a row of the
	// scope (same customer and charges; new ids; balances, and the amount
	// of a charge of one, raised by up to 99.99) with a new key.
	Inserts int
	// Deletes is the rows a round removes, as [Server.DeleteInvoice]
	// does.
	Deletes int
	// Rekeys is the rows a round gives a new key (see ChurnChange.Field):
	// another instant in the same second, an instant in another row's
	// second or elsewhere in the scope's range, or a key the row had
	// before in this run. Their modifiedTimestamp becomes the clock's now.
	Rekeys int
	// Modifies is the rows a round changes in place: modifiedTimestamp
	// becomes the clock's now, and sometimes the amounts change
	// (openingArBalance and closingArBalance, or the invoice amount
	// through its taxes; an item's description).
	Modifies int
	// KeepCount pairs every delete with an insert of a look-alike of the
	// deleted row, keyed in the same second: deletes then leave the
	// number of rows of every second, and so X-Count, as they were
	// (inserts and re-keys still change it).
	KeepCount bool
	// Aim aims the changes at the range being read: when the request's
	// query has a range or match on its sort field (e.g.
	// postedTimestamp:2024-02-01T00:00:00|2024-02-01T00:00:01), the rows
	// deleted, re-keyed and modified are inside that range whenever it has
	// any, and new keys are inside it 3 times in 4 (the 4th lets a row
	// leave the range being read, or land elsewhere).
	Aim bool
}

// ChurnKind is the kind of a [ChurnChange].
type ChurnKind string

// The kinds of change [WithChurn] makes.
const (
	ChurnInsert ChurnKind = "insert"
	ChurnDelete ChurnKind = "delete"
	ChurnRekey  ChurnKind = "rekey"
	ChurnModify ChurnKind = "modify"
)

// ChurnChange is one change [WithChurn] made, as [Server.ChurnLog] reports
// it.
type ChurnChange struct {
	// Request is the list request before whose answer the change was
	// made, counted from 1 over every list request the fake accepted (a
	// 400 is not counted; a 404 for an unknown customer is).
	Request int
	// Route is that request's route.
	Route Route
	Kind  ChurnKind
	// ID is the invoice's or item's id.
	ID int64
	// Field is the key the change is described by: the request's
	// sortExpression (as the reference spells it) when it is a date churn
	// can set (createdTimestamp, effectiveTimestamp, postedTimestamp or
	// modifiedTimestamp of an invoice; createdTimestamp or
	// modifiedTimestamp of an item), else postedTimestamp for invoices and
	// createdTimestamp for items.
	Field string
	// OldKey and NewKey are Field's value before and after the change;
	// OldKey is zero for an insert and NewKey for a delete. They differ
	// for a modify only when Field is modifiedTimestamp.
	OldKey, NewKey time.Time
}

// WithChurn makes the fake apply a round of changes c describes to the
// scope of a list (the invoices, the customer's invoices or the
// subscription product's items) before answering every c.Every-th list
// request: GET /v1/Invoices, a customer's invoices, invoice summaries
// and subscription product items. The changes are made under the fake's
// lock, to invoices through the paths [Server.AddInvoice],
// [Server.DeleteInvoice] and [Server.UpdateInvoice] take (items through
// the store's item list, which [Server.AddSubscriptionProductItem] fills),
// so that the answer they come before and every later one sees them, and
// [Server.ChurnLog] records them.
//
// What a test may rely on: a row that keeps its key and keeps matching
// the filter for the whole run (one that ChurnLog never names, or names
// only in modifies that leave its key and the filtered fields alone) is
// read exactly once by a correct stable iteration; a row that changed may
// be read once, twice or not at all.
//
// Negative counts, or a negative Every, are an error. Churn is not part
// of [WithAllVariations]: those are what the reference leaves open, this
// is data changing.
func WithChurn(c Churn) Option {
	return func(cfg *config) error {
		if c.Every < 0 || c.Inserts < 0 || c.Deletes < 0 || c.Rekeys < 0 || c.Modifies < 0 {
			return fmt.Errorf("WithChurn: Every and the counts must not be negative, got %+v", c)
		}
		if c.Every == 0 {
			c.Every = 1
		}
		cfg.churn = &c
		return nil
	}
}

// ChurnLog returns the changes [WithChurn] has made so far, in the order
// made; nil without WithChurn. It keeps every change of the run.
func (s *Server) ChurnLog() []ChurnChange {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.churn == nil || len(s.churn.Log()) == 0 {
		return nil // as before the first change
	}
	return mapped(s.churn.Log(), func(c churn.Change) ChurnChange {
		return ChurnChange{Request: c.Request, Route: Route(c.Route), Kind: ChurnKind(c.Kind), ID: c.ID, Field: c.Field, OldKey: c.OldKey, NewKey: c.NewKey}
	})
}

// sortedOn is the name of lr's sort field as the reference spells it, ""
// for the default order by id.
func sortedOn[T any](sc *filter.Schema[T], lr listRequest) string {
	if lr.SortField < 0 {
		return ""
	}
	return sc.Fields[lr.SortField].Name
}

// churnBefore counts a list request of route, of the rows scopeOf gives
// for parent, sorted on sorted, whose filter admits key on that field,
// and makes a round of changes to them when one is due. A list without a
// scope (nil) is not churned.
func (s *Server) churnBefore(route Route, sorted string, key *filter.TimeRange, scopeOf func(*Server, int64) churn.Scope, parent int64) {
	if s.churn == nil || scopeOf == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.churn.Before(string(route), sorted, key, func() churn.Scope { return scopeOf(s, parent) }, s.now)
}

// invoiceChurn is the invoices of customer customerID (0: all) as churn
// changes them: on the invoice store seam, through the paths AddInvoice,
// DeleteInvoice and UpdateInvoice take.
func invoiceChurn(s *Server, customerID int64) churn.Scope {
	return churn.InvoiceScope{Invoices: &s.store.invoices, CustomerID: customerID, Customers: s.store.customers, Add: s.addInvoiceLocked, Update: s.updateInvoiceLocked}
}

// itemChurn is the items of subscription product productID as churn
// changes them.
func itemChurn(s *Server, productID int64) churn.Scope {
	return churn.ItemScope{Stored: s.store.items, ProductID: productID, Known: s.store.products[productID], Add: s.addSubscriptionProductItemLocked}
}

package billingtest

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/fixture"
	"github.com/billingapi/billing-go/billingtest/internal/ledger"
)

// LoadFixturesFile loads the fixtures document at path; see
// [Server.LoadFixtures] for its schema. [WithFixtures] calls it.
func (s *Server) LoadFixturesFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("LoadFixturesFile: %w", err)
	}
	if err := s.loadFixtures(data); err != nil {
		return fmt.Errorf("LoadFixturesFile %s: %w", path, err)
	}
	return nil
}

// LoadFixtures adds the entities of a JSON fixtures document to the fake,
// each through its Add method ([Server.AddCustomer], ...), whose rules it
// follows. When anything is wrong it adds nothing, so that a typo fails
// loudly instead of leaving half a data set. Errors name the entity by
// index and id, and the field, e.g.
//
//	invoices[2] (id 501).charges[0]: unknown field "amout"; the fields are id, name, ...
//
// The document is one JSON object whose keys are lists of the seeding
// types; package [seed] documents its format, keys and defaults.
//
// See testdata/fixtures.json in this package for an example of every kind.
func (s *Server) LoadFixtures(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("LoadFixtures: %w", err)
	}
	if err := s.loadFixtures(data); err != nil {
		return fmt.Errorf("LoadFixtures: %w", err)
	}
	return nil
}

// loadFixtures decodes outside the lock, then adds every entity under one
// lock through the Add methods, in the order their references need, so
// that the rules a Go caller meets are the rules a document meets, in one
// place.
//
// On the first refusal the adds already done are undone: the loader keeps
// the ids it added and removes them again. Validating the whole document
// first would be a second copy of the Add methods' rules, and loading into
// a copy of the store would copy a big generated state for every document
// loaded onto it. (ReplaceFixtures and Reset load into a fresh store,
// which they swap in: they replace the state anyway.)
func (s *Server) loadFixtures(data []byte) error {
	doc, maxID, err := fixture.Decode(data)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.store
	l := &fixtureLoader{s: s, lastID: st.lastID, names: st.categoryNames, codes: len(st.codes), added: map[string]map[int64]bool{}}
	if len(doc.TrackingCodeCategoryNames) > 0 {
		// A new name retypes the category's codes (setCategoryNameLocked).
		for _, c := range st.codes {
			l.types = append(l.types, c.Type)
		}
	}
	if err := l.load(doc, maxID); err != nil {
		l.undo()
		return err
	}
	return nil
}

// fixtureLoader adds a document's entities and keeps what it added, by
// the document's key ("products" for subscription products), to undo.
type fixtureLoader struct {
	s      *Server
	lastID int64
	names  [5]string
	codes  int
	types  []billing.TrackingCodeType // of the codes before, when the document names categories
	added  map[string]map[int64]bool
	err    error // the first refusal
}

func (l *fixtureLoader) load(doc *fixture.Document, maxID int64) error {
	st := l.s.store
	// Assigned ids come after every id the document gives, so that an
	// entity without an id cannot take one the document uses later on.
	st.lastID = max(st.lastID, maxID)
	for _, k := range slices.Sorted(maps.Keys(doc.TrackingCodeCategoryNames)) {
		n, _ := strconv.Atoi(k) // checked by Decode
		if err := l.s.setCategoryNameLocked(n, doc.TrackingCodeCategoryNames[k]); err != nil {
			return fmt.Errorf("trackingCodeCategoryNames.%s: %w", k, err)
		}
	}
	// Codes before the customers that name them; items after the
	// subscriptions whose products they name, and before the invoices
	// whose charges name the products the items make known.
	st.invoices.grow(len(doc.Invoices))
	loadList(l, "salesTrackingCodes", doc.SalesTrackingCodes, nil, func(c SalesTrackingCode) (int64, error) {
		return l.s.addSalesTrackingCodeLocked(c)
	})
	loadList(l, "customers", doc.Customers, func(c *Customer) int64 { return c.ParentID }, l.s.addCustomerLocked)
	loadList(l, "subscriptions", doc.Subscriptions, nil, func(sub Subscription) (int64, error) {
		id, err := l.s.addSubscriptionLocked(sub)
		if err == nil {
			for _, p := range st.subscriptions[id].Products {
				l.mark("products", p.ID)
			}
		}
		return id, err
	})
	loadList(l, "subscriptionProductItems", doc.SubscriptionProductItems, nil, func(it SubscriptionProductItem) (int64, error) {
		if !st.products[it.SubscriptionProductID] {
			l.mark("products", it.SubscriptionProductID)
		}
		return l.s.addSubscriptionProductItemLocked(storeItem(it))
	})
	// The document is ours: its invoices may take their ids in place.
	loadList(l, "invoices", doc.Invoices, nil, func(inv Invoice) (int64, error) {
		if err := l.s.settleCharges(&inv); err != nil {
			return 0, err
		}
		return l.s.insertInvoiceLocked(&inv)
	})
	loadList(l, "draftInvoices", doc.DraftInvoices, nil, l.s.addDraftInvoiceLocked)
	loadList(l, "creditCards", doc.CreditCards, func(c *CreditCard) int64 { return c.OriginalPaymentMethodID }, l.s.addCreditCardLocked)
	loadList(l, "walletMethods", doc.WalletMethods, nil, l.s.addWalletMethodLocked)
	loadList(l, "bulkJobs", doc.BulkJobs, nil, l.s.addBulkJobLocked)
	return l.err
}

func (l *fixtureLoader) mark(key string, id int64) {
	if l.added[key] == nil {
		l.added[key] = map[int64]bool{}
	}
	l.added[key][id] = true
}

// loadList adds the entities of the document's list key with add, each
// after the one of the list it refers to (ref, when not nil), checking
// their times and amounts as the exported Add methods do (invoices check
// their own). The first refusal, named by the entity's path in the
// document, goes to l.err, and ends the load.
func loadList[T any](l *fixtureLoader, key string, list []T, ref func(*T) int64, add func(T) (int64, error)) {
	for _, i := range refsFirst(list, ref) {
		if l.err != nil {
			return
		}
		v := list[i]
		var err error
		if key != "invoices" {
			err = ledger.Check(&v)
		}
		var id int64
		if err == nil {
			id, err = add(v)
		}
		if err != nil {
			l.err = l.pathError(fixture.At(key, i, reflect.ValueOf(v).FieldByName("ID").Int()), key, err)
			return
		}
		l.mark(key, id)
	}
}

// pathError names err, an Add method's, by the document's path: at and
// the member at fault. An id the kind has is one the document repeats
// when this load added it, else one the fake had.
func (l *fixtureLoader) pathError(at, key string, err error) error {
	var ae *addError
	if !errors.As(err, &ae) {
		return fmt.Errorf("%s: %w", at, err)
	}
	if ae.field != "" {
		at += "." + ae.field
	}
	if errors.Is(ae.err, errExists) {
		if strings.HasPrefix(ae.field, "products[") {
			key = "products"
		}
		if l.added[key][ae.id] {
			return fmt.Errorf("%s: id %d repeats", at, ae.id)
		}
		return fmt.Errorf("%s: the fake already has %d", at, ae.id)
	}
	return fmt.Errorf("%s: %w", at, ae.err)
}

// refsFirst orders the indices of list so that an entity comes after the
// one of the list its ref names, in the list's order otherwise. A cycle
// is left in an order its Add method refuses.
func refsFirst[T any](list []T, ref func(*T) int64) []int {
	order := make([]int, 0, len(list))
	if ref == nil {
		for i := range list {
			order = append(order, i)
		}
		return order
	}
	at := make(map[int64]int, len(list))
	for i := range list {
		at[reflect.ValueOf(list[i]).FieldByName("ID").Int()] = i
	}
	seen := make([]bool, len(list))
	var visit func(i int)
	visit = func(i int) {
		if seen[i] {
			return
		}
		seen[i] = true
		if j, ok := at[ref(&list[i])]; ok && ref(&list[i]) != 0 {
			visit(j)
		}
		order = append(order, i)
	}
	for i := range list {
		visit(i)
	}
	return order
}

// undo removes what load added and puts back the sequence, the category
// names and the types of the codes they renamed.
func (l *fixtureLoader) undo() {
	st, added := l.s.store, l.added
	for id := range added["invoices"] {
		st.invoices.Delete(id)
	}
	deleteIDs(st.customers, added["customers"])
	deleteIDs(st.subscriptions, added["subscriptions"])
	deleteIDs(st.drafts, added["draftInvoices"])
	deleteIDs(st.cards, added["creditCards"])
	deleteIDs(st.wallets, added["walletMethods"])
	deleteIDs(st.jobs, added["bulkJobs"])
	deleteIDs(st.products, added["products"])
	deleteIDs(st.productSub, added["products"])
	deleteIDs(st.itemProduct, added["subscriptionProductItems"])
	for p, items := range st.items {
		st.items[p] = slices.DeleteFunc(items, func(it billing.SubscriptionProductItem) bool { return added["subscriptionProductItems"][it.ID] })
	}
	st.codes = st.codes[:l.codes]
	for i, typ := range l.types {
		st.codes[i].Type = typ
	}
	st.lastID, st.categoryNames = l.lastID, l.names
}

func deleteIDs[V any](m map[int64]V, ids map[int64]bool) {
	maps.DeleteFunc(m, func(id int64, _ V) bool { return ids[id] })
}

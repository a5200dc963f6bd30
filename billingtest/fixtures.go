package billingtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
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

// LoadFixtures adds the entities of a JSON fixtures document to the fake.
// It checks the whole document against itself and the fake's state before
// adding anything, and adds nothing when something is wrong, so that a
// typo fails loudly instead of leaving half a data set. Errors name the
// entity by index and id, and the field, e.g.
//
//	invoices[2] (id 501).charges[0]: unknown field "amout"; the fields are id, name, ...
//
// # Format
//
// The document is one JSON object. Every key is optional. Unknown keys,
// at the top and in every entity, are errors, except "$comment", which
// any object may carry (JSON has no comments) and which is ignored. The
// entities are the seeding types ([Customer], [Invoice], ...), which the
// document decodes into directly: field names are their JSON names (the
// Go field names in camelCase), matched exactly. Values:
//
//   - integer: a JSON number without a fraction.
//   - amount: a JSON number, decoded exactly (10.125 stays 10.125, never a
//     float), or a decimal in a JSON string ("10.125").
//   - timestamp: a JSON string in RFC 3339 (2024-03-01T10:15:00Z,
//     2024-03-01T10:15:00+02:00; offsets are converted to UTC) or in the
//     API's own form without offset (2024-03-01T10:15:00.1234567), with 0
//     to 9 fractional digits. null, "" or absent means the default.
//   - enum: a JSON string, one of the values listed, in that case.
//
// An entity's "id" may be absent or 0; the fake then assigns one, above
// every id in the document, so assigned and given ids never clash. Give an
// id to whatever another entity refers to. Ids must not repeat within a
// kind, nor name an entity the fake already has.
//
// Defaults of the form "now" are the fake's clock when the document is
// loaded, so give timestamps where tests depend on them.
//
// # Top-level keys
//
// They are added in this order. References may point anywhere in the
// document, whatever the order, or at what the fake already holds.
//
//   - customers: array of [Customer] objects.
//   - trackingCodeCategoryNames: object from a category number, "1" to
//     "5", to the custom name of that sales tracking code category, e.g.
//     {"1": "Region"}. A code's type may then be either name.
//   - salesTrackingCodes: array of [SalesTrackingCode] objects.
//   - subscriptions: array of [Subscription] objects.
//   - invoices: array of posted [Invoice] objects.
//   - draftInvoices: array of [DraftInvoice] objects.
//   - creditCards: array of [CreditCard] objects.
//   - walletMethods: array of [WalletMethod] objects.
//   - subscriptionProductItems: array of [SubscriptionProductItem]
//     objects.
//   - bulkJobs: array of [BulkJob] objects.
//
// Each field below is given as name (type, default): meaning.
//
// # Customer
//
//   - id (integer, assigned).
//   - firstName, middleName, lastName, suffix, title, companyName,
//     primaryEmail, primaryPhone (string, ""): as on the invoice customer.
//   - reference (string, ""): the customer's own reference, shown on
//     invoice summaries.
//   - reference1, reference2, reference3 (string, ""): the customer
//     reference fields the invoice filters name.
//   - status (enum Draft, Active, Cancelled, Hold, Suspended; Active).
//   - accountStatus (enum Good, PoorStanding, Collection; Good).
//   - parentId (integer, none): the parent customer, in the document or the
//     fake.
//   - currency (string, "USD"): ISO 4217 code, three capital letters.
//   - createdTimestamp (timestamp, now).
//   - modifiedTimestamp (timestamp, createdTimestamp).
//   - arBalance, monthlyRecurringRevenue, netMrr, currentMrr, currentNetMrr
//     (amount, 0): the figures the invoice filters range over.
//   - crmId, erpId (string, "").
//   - accountingId (integer, none).
//   - salesTrackingCodeIds (array of up to 5 integers, none): the
//     customer's code of category 1, 2, ... in that order, 0 for none; each
//     must be a code of that category, in the document or the fake.
//
// # Sales tracking code
//
//   - id (integer, assigned).
//   - type (string, required): "Sales Tracking Code 1" to "Sales Tracking
//     Code 5" or a custom category name, compared without case.
//   - code, name (string, required).
//   - description, email (string, null).
//   - status (enum Active; Active).
//   - deletable (boolean, false).
//
// # Subscription
//
//   - id (integer, assigned).
//   - customerId (integer, required).
//   - planId (integer, 0): the plan a bulk price change previews.
//   - name (string, ""): the plan's name, the charge group's name.
//   - description, reference (string, "").
//   - status (enum Active, Draft, Cancelled, Provisioning, Expired; Active).
//   - interval (enum Monthly, Yearly; Monthly).
//   - numberOfIntervals (integer, 1).
//   - createdTimestamp (timestamp, now).
//   - nextBillingDate, nextRechargeDate (timestamp, none).
//   - products (array of subscription product objects, none).
//
// # Subscription product (in a subscription's products)
//
//   - id (integer, assigned): the subscription product id, which items and
//     charges refer to; unique across the document and the fake.
//   - planProductId, productId (integer, 0): the plan product and the
//     catalogue product.
//   - name (string, "").
//   - price (amount, 0): what the subscription pays.
//   - planPrice (amount, price): the plan's current price; a bulk price
//     change pushes it out where it differs from price.
//
// # Posted invoice
//
//   - id (integer, assigned).
//   - customerId (integer, required).
//   - invoiceNumber (integer, the id).
//   - poNumber, notes, erpId, crmId (string, "").
//   - accountingId (integer, none).
//   - postedTimestamp (timestamp, now).
//   - effectiveTimestamp, createdTimestamp, modifiedTimestamp (timestamp,
//     postedTimestamp).
//   - terms (string, Net30): "Net" and a number of days, e.g. Net15.
//   - charges (array of charge objects, none).
//   - totalTaxes, totalDiscount (amount, 0): the invoice amount is the sum
//     of the charges plus taxes minus discount.
//   - totalPayments, sumOfCreditNotes (amount, 0): they reduce the
//     outstanding balance.
//   - openingArBalance, closingArBalance (amount, 0): may be negative.
//   - paymentSchedules (array of payment schedule objects, one instalment
//     of the whole balance due terms days after posting).
//   - status (enum Void, Disputed, Pending, Due, Overdue, Paid, WrittenOff;
//     derived): forces the summary status; leave it out to have it derived
//     from the balance, the due date and the clock.
//   - totalWriteoffs (amount, 0): what write-offs have taken off; a state
//     dump carries it so that a written-off invoice loads back as it was.
//
// # Charge (in an invoice's charges)
//
//   - id (integer, assigned).
//   - name, description, glCode (string, "").
//   - quantity (amount, 1).
//   - unitPrice (amount, amount when quantity is 1).
//   - amount (amount, quantity × unitPrice): give unitPrice, amount or
//     both.
//   - effectiveTimestamp (timestamp, the invoice's effectiveTimestamp).
//   - startServiceDate, endServiceDate (timestamp, none).
//   - subscriptionId (integer, the subscription of subscriptionProductId):
//     the charge comes from this subscription, in the document or the fake.
//   - subscriptionProductId (integer, none): a product of that
//     subscription.
//   - purchaseId (integer, none): the charge comes from this purchase. A
//     read with grouping groups charges by subscription or by purchase.
//   - tracked (boolean, false): a tracked item, listed only with
//     showTrackedItems.
//
// # Payment schedule (in an invoice's paymentSchedules)
//
//   - dueDateTimestamp (timestamp, required).
//   - amount (amount, required).
//   - outstandingBalance (amount, amount).
//   - status (string, Due when outstandingBalance is positive, else Paid).
//   - daysDueAfterTerm (integer, the days of the invoice's terms).
//
// # Draft invoice
//
//   - id (integer, assigned).
//   - customerId (integer, required).
//   - created (timestamp, now).
//   - lines (array of draft line objects, none).
//
// # Draft line (in a draft invoice's lines)
//
//   - description (string, "").
//   - quantity (amount, 1).
//   - amount (amount, 0): the line total.
//   - tracked (boolean, false): printed only with showTrackedItems.
//
// # Credit card
//
//   - id (integer, assigned).
//   - customerId (integer, required).
//   - last4 (string of digits, required): the end of the card number; a
//     longer number is cut to its last four digits, the only ones kept.
//   - cardType (string, ""), e.g. Visa.
//   - firstName, lastName, address1, address2, city, postalZip (string, "").
//   - expirationMonth (integer 1 to 12, none).
//   - expirationYear (integer, none): two digits, as the service has it.
//   - countryId, stateId (integer, none).
//   - isDefault (boolean, false).
//   - deleted (boolean, false): a deleted card cannot be replaced.
//   - originalPaymentMethodId (integer, none): the card this one replaced.
//   - replacedBy (integer, none): the card that replaced this one, which
//     then cannot be replaced again. Both refer to cards in the document or
//     the fake.
//   - modifiedDate (timestamp, now).
//
// # Wallet payment method
//
//   - id (integer, assigned).
//   - customerId (integer, required): a customer in the document or the
//     fake.
//   - provider (string, the first of [WithWalletProviders]).
//   - token, baid (string, ""): at least one of them.
//   - source (enum Manual, Automatic, SelfServicePortal, Import; Manual).
//   - firstName, lastName (string, ""): empty takes the customer's.
//   - isDefault (boolean, false).
//   - modifiedDate (timestamp, now).
//
// # Subscription product item
//
//   - id (integer, assigned).
//   - subscriptionProductId (integer, required): a product of a
//     subscription in the document or the fake.
//   - subscriptionId, customerId, productId (integer, those of the
//     subscription product).
//   - reference (string or number, none): kept as given, so 12345 is
//     listed as a number and "REF-001" as a string.
//   - name, description (string, "").
//   - status (enum Active, Deleted; Active).
//   - createdDate (timestamp, now).
//   - modifiedDate (timestamp, createdDate).
//
// # Bulk job
//
//   - id (integer, assigned).
//   - type (string, "").
//   - validated (boolean, false): only a validated job can be processed.
//   - processed (boolean, false): processed already, which needs validated.
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

// fixtureFile is a fixtures document: the seeding types themselves, whose
// JSON names are the format.
type fixtureFile struct {
	Customers                 []Customer                `json:"customers"`
	TrackingCodeCategoryNames map[string]string         `json:"trackingCodeCategoryNames"`
	SalesTrackingCodes        []SalesTrackingCode       `json:"salesTrackingCodes"`
	Subscriptions             []Subscription            `json:"subscriptions"`
	Invoices                  []Invoice                 `json:"invoices"`
	DraftInvoices             []DraftInvoice            `json:"draftInvoices"`
	CreditCards               []CreditCard              `json:"creditCards"`
	WalletMethods             []WalletMethod            `json:"walletMethods"`
	SubscriptionProductItems  []SubscriptionProductItem `json:"subscriptionProductItems"`
	BulkJobs                  []BulkJob                 `json:"bulkJobs"`
}

// fixtureObject is the members of one decoded JSON object, by name.
type fixtureObject map[string]json.RawMessage

// fixtureDefaults settles the defaults of a seeding type that depend on
// which members the document gave, which its Go zero values cannot tell.
// fixtureDecode calls it once the members of v are decoded, with the
// object's path for its errors.
func fixtureDefaults(v any, obj fixtureObject, path string) error {
	switch v := v.(type) {
	case *Charge:
		return chargeDefaults(v, obj, path)
	case *SubscriptionProduct:
		if _, ok := obj["planPrice"]; !ok {
			v.PlanPrice = v.Price
		}
	case *DraftLine:
		if _, ok := obj["quantity"]; !ok {
			v.Quantity = one
		}
	case *Invoice:
		return invoiceDefaults(v, obj, path)
	}
	return nil
}

var one = decimal.New(1, 0)

func chargeDefaults(c *Charge, obj fixtureObject, path string) error {
	_, hasQuantity := obj["quantity"]
	_, hasUnitPrice := obj["unitPrice"]
	_, hasAmount := obj["amount"]
	if !hasQuantity {
		c.Quantity = one
	}
	switch {
	case hasUnitPrice && hasAmount:
	case hasUnitPrice:
		c.Amount = c.Quantity.Mul(c.UnitPrice)
	case hasAmount && c.Quantity.Equal(one):
		c.UnitPrice = c.Amount
	case hasAmount:
		return fmt.Errorf("%s.unitPrice: required when quantity is not 1", path)
	default:
		return fmt.Errorf("%s: give unitPrice or amount", path)
	}
	return nil
}

// invoiceDefaults settles the payment schedules: billing.PaymentSchedule
// is the service's type, so its defaults are applied here, from its
// members.
func invoiceDefaults(inv *Invoice, obj fixtureObject, path string) error {
	days := 30
	if inv.Terms != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(inv.Terms), "net"))
		if err != nil || n < 0 || !strings.EqualFold(inv.Terms[:min(3, len(inv.Terms))], "net") {
			return fmt.Errorf("%s.terms: %q, want Net and a number of days, e.g. Net30", path, inv.Terms)
		}
		days = n
	}
	var schedules []fixtureObject
	if err := jsonwire.Unmarshal(obj["paymentSchedules"], &schedules); err != nil && obj["paymentSchedules"] != nil {
		return fmt.Errorf("%s.paymentSchedules: %w", path, err) // decoded once already: cannot happen
	}
	for j := range inv.PaymentSchedules {
		ps, given := &inv.PaymentSchedules[j], schedules[j]
		at := path + ".paymentSchedules[" + strconv.Itoa(j) + "]"
		if ps.DueDateTimestamp.IsZero() {
			return fmt.Errorf("%s.dueDateTimestamp: required", at)
		}
		if _, ok := given["amount"]; !ok {
			return fmt.Errorf("%s.amount: required", at)
		}
		if _, ok := given["outstandingBalance"]; !ok {
			ps.OutstandingBalance = ps.Amount
		}
		if _, ok := given["daysDueAfterTerm"]; !ok {
			ps.DaysDueAfterTerm = days
		}
		if ps.Status == "" {
			ps.Status = billing.PaymentScheduleStatusDue
			if !ps.OutstandingBalance.IsPositive() {
				ps.Status = scheduleStatusPaid
			}
		}
	}
	return nil
}

// loadFixtures decodes outside the lock, then checks and adds under one
// lock, so that nothing can change between the check and the adding.
func (s *Server) loadFixtures(data []byte) error {
	var f fixtureFile
	if err := fixtureDecodeDocument(data, &f); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	names, maxID, err := s.checkFixtures(&f)
	if err != nil {
		return err
	}
	return s.applyFixtures(&f, names, maxID)
}

// fixtureDecodeDocument decodes data into f strictly.
func fixtureDecodeDocument(data []byte, f *fixtureFile) error {
	var top json.RawMessage
	if err := jsonwire.Unmarshal(data, &top); err != nil {
		var se *jsonwire.SyntaxError
		if errors.As(err, &se) {
			line, col := fixtureLineCol(data, se.Offset)
			return fmt.Errorf("line %d, column %d: %w", line, col, err)
		}
		return err
	}
	if t := bytes.TrimSpace(top); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("the document must be a JSON object")
	}
	return fixtureDecode(top, reflect.ValueOf(f).Elem(), "")
}

// fixtureLineCol turns a SyntaxError offset, the count of the bytes read
// up to and including the offending one (as encoding/json counts), into
// the 1-based line and column of that byte.
func fixtureLineCol(data []byte, off int64) (line, col int) {
	off = min(max(off-1, 0), int64(len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

var fixtureUnmarshaler = reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()

// fixtureDecode decodes raw into v like encoding/json with
// DisallowUnknownFields, but one field at a time, so that every error can
// say where it is: encoding/json names neither the array index nor, for
// errors of custom decoders such as decimals and timestamps, the field.
// Matching is exact; "$comment" keys are skipped.
func fixtureDecode(raw json.RawMessage, v reflect.Value, path string) error {
	t := v.Type()
	switch {
	case t == timeType:
		// Times are in the service's form, or RFC 3339.
		var ts billing.Timestamp
		if err := jsonwire.Unmarshal(raw, &ts); err != nil {
			return fixtureValueError(path, timestampType, raw, err)
		}
		v.Set(reflect.ValueOf(ts.Time))
		return nil
	case t.Kind() == reflect.Array:
		// Up to the array's length, the rest zero. The format's one
		// array is a customer's sales tracking codes.
		s := reflect.New(reflect.SliceOf(t.Elem()))
		if err := fixtureDecode(raw, s.Elem(), path); err != nil {
			return err
		}
		if n := s.Elem().Len(); n > t.Len() {
			return fmt.Errorf("%s: %d codes, at most %d", fixturePath(path), n, t.Len())
		}
		v.SetZero()
		reflect.Copy(v, s.Elem())
		return nil
	}
	structured := fixtureStructured(t) || (t.Kind() == reflect.Slice && fixtureStructured(t.Elem()))
	if !structured {
		if err := jsonwire.Unmarshal(raw, v.Addr().Interface()); err != nil {
			return fixtureValueError(path, t, raw, err)
		}
		return nil
	}
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	if t.Kind() == reflect.Slice {
		var elems []json.RawMessage
		if err := jsonwire.Unmarshal(raw, &elems); err != nil {
			return fmt.Errorf("%s: want an array, got %s", fixturePath(path), fixtureKind(raw))
		}
		out := reflect.MakeSlice(t, len(elems), len(elems))
		for i, e := range elems {
			if err := fixtureDecode(e, out.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		v.Set(out)
		return nil
	}
	var obj map[string]json.RawMessage
	if err := jsonwire.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("%s: want an object, got %s", fixturePath(path), fixtureKind(raw))
	}
	if id, ok := obj["id"]; ok && strings.HasSuffix(path, "]") {
		path += " (id " + string(bytes.TrimSpace(id)) + ")"
	}
	fields := fixtureFieldsOf(t)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, ok := fields.index[k]; !ok && k != "$comment" {
			return fmt.Errorf("%s: unknown field %q; the fields are %s", fixturePath(path), k, strings.Join(fields.names, ", "))
		}
	}
	for _, name := range fields.names {
		f := v.Field(fields.index[name])
		if r, ok := obj[name]; ok && f.CanSet() {
			if err := fixtureDecode(r, f, fixtureSub(path, name)); err != nil {
				return err
			}
		}
	}
	return fixtureDefaults(v.Addr().Interface(), obj, fixturePath(path))
}

func fixtureSub(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// fixtureStructured reports whether fixtureDecode decodes values of type
// t member by member: structs, but those that decode themselves, except
// the payment schedule, whose own decoder is the service's (lenient about
// unknown members) and whose fields are the format.
func fixtureStructured(t reflect.Type) bool {
	if t == reflect.TypeFor[billing.PaymentSchedule]() {
		return true
	}
	return t.Kind() == reflect.Struct && t != timeType && !reflect.PointerTo(t).Implements(fixtureUnmarshaler)
}

type fixtureFields struct {
	index map[string]int
	names []string
}

var fixtureFieldCache sync.Map // reflect.Type → *fixtureFields

func fixtureFieldsOf(t reflect.Type) *fixtureFields {
	if f, ok := fixtureFieldCache.Load(t); ok {
		return f.(*fixtureFields)
	}
	f := &fixtureFields{index: map[string]int{}}
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "" || name == "-" {
			continue
		}
		f.index[name] = i
		f.names = append(f.names, name)
	}
	fixtureFieldCache.Store(t, f)
	return f
}

func fixturePath(path string) string {
	if path == "" {
		return "document"
	}
	return path
}

// fixtureKind names the JSON kind of raw, for errors.
func fixtureKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// fixtureValueError rewords encoding/json's type errors, whose field path
// would name the Go types, for a value of type t.
func fixtureValueError(path string, t reflect.Type, raw json.RawMessage, err error) error {
	// A bad amount: the path names the field better than the decimal
	// error's pointer into raw, which is always the root.
	var de *jsonwire.DecimalError
	if errors.As(err, &de) {
		err = de.Err
	}
	var te *jsonwire.UnmarshalTypeError
	if errors.As(err, &te) {
		if t == reflect.TypeFor[billing.ItemReference]() {
			return fmt.Errorf("%s: want a string or a number, got %s", fixturePath(path), fixtureKind(raw))
		}
		if te.Type != t && (t.Kind() != reflect.Pointer || t.Elem() != te.Type) {
			// A bad element of an array or an object: name the key when
			// there is one.
			if t.Kind() == reflect.Map && te.Field != "" {
				path += "." + te.Field
			}
			return fmt.Errorf("%s: want %s, got %s", fixturePath(path), fixtureWant(te.Type), te.Value)
		}
		shown := string(bytes.TrimSpace(raw))
		if len(shown) > 40 {
			shown = shown[:40] + "..."
		}
		return fmt.Errorf("%s: want %s, got %s %s", fixturePath(path), fixtureWant(te.Type), fixtureKind(raw), shown)
	}
	return fmt.Errorf("%s: %w", fixturePath(path), err)
}

// fixtureWant names what a value of type t must be in JSON.
func fixtureWant(t reflect.Type) string {
	want := t.String()
	switch t.Kind() {
	case reflect.Int, reflect.Int32, reflect.Int64:
		want = "an integer"
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "a boolean"
	case reflect.Map:
		want = "an object"
	case reflect.Slice:
		want = "an array"
	}
	return want
}

// fixtureChecker collects what the document defines, beside what the
// store has, for the cross-references.
type fixtureChecker struct {
	st    *store
	names [5]string
	maxID int64
	// unassigned counts the entities without an id, charges and
	// subscription products included, which adding them assigns.
	unassigned int64
	seen       map[string]map[int64]bool // kind → ids given in the document
	codes      map[int64]int             // document code id → category
	// products maps every document subscription product to its
	// subscription; storeProducts and storeItems index the store's, on
	// first use, as few documents refer to them.
	products      map[int64]*Subscription
	storeProducts map[int64]*Subscription
	storeItems    map[int64]bool
}

// id records an id given for kind and fails on a repeat or on an id the
// store already holds.
func (c *fixtureChecker) id(kind, path string, id int64) error {
	if id < 0 {
		return fmt.Errorf("%s.id: negative id %d", path, id)
	}
	if id == 0 {
		c.unassigned++
		return nil
	}
	if c.seen[kind][id] {
		return fmt.Errorf("%s.id: id %d repeats", path, id)
	}
	if c.inStore(kind, id) {
		return fmt.Errorf("%s.id: the fake already has %d", path, id)
	}
	if c.seen[kind] == nil {
		c.seen[kind] = map[int64]bool{}
	}
	c.seen[kind][id] = true
	c.maxID = max(c.maxID, id)
	return nil
}

// inStore reports whether the store holds id as an entity of kind, named
// by its key in the document ("products" and "charges" for the nested
// ones; a charge id need only be unique within the document).
func (c *fixtureChecker) inStore(kind string, id int64) bool {
	st := c.st
	switch kind {
	case "customers":
		return has(st.customers, id)
	case "salesTrackingCodes":
		return slices.ContainsFunc(st.codes, func(x billing.SalesTrackingCode) bool { return x.ID == id })
	case "subscriptions":
		return has(st.subscriptions, id)
	case "products":
		return st.products[id]
	case "invoices":
		return st.invoices.get(id) != nil
	case "draftInvoices":
		return has(st.drafts, id)
	case "creditCards":
		return has(st.cards, id)
	case "walletMethods":
		return has(st.wallets, id)
	case "bulkJobs":
		return has(st.jobs, id)
	case "subscriptionProductItems":
		if c.storeItems == nil { // the store keeps items by product
			c.storeItems = map[int64]bool{}
			for _, list := range st.items {
				for _, it := range list {
					c.storeItems[it.ID] = true
				}
			}
		}
		return c.storeItems[id]
	}
	return false
}

func has[V any](m map[int64]V, id int64) bool { _, ok := m[id]; return ok }

// known reports whether id is an entity of kind in the document or the
// store.
func (c *fixtureChecker) known(kind string, id int64) bool {
	return c.seen[kind][id] || c.inStore(kind, id)
}

// customer fails unless id is a customer of the document or the store.
func (c *fixtureChecker) customer(at string, id int64) error {
	if !c.known("customers", id) {
		return fmt.Errorf("%s.customerId: unknown customer %d", at, id)
	}
	return nil
}

// knownValue fails when v is set but is none of its type's values.
func knownValue[E interface {
	~string
	IsKnown() bool
}](at, field string, v E) error {
	if v != "" && !v.IsKnown() {
		return fmt.Errorf("%s.%s: unknown %s %q", at, field, strings.TrimPrefix(strings.ToLower(field), "account"), v)
	}
	return nil
}

// category is the category (1 to 5) of a code type under the document's
// and the store's category names.
func (c *fixtureChecker) category(typ string) (int, bool) {
	return (&store{categoryNames: c.names}).category(typ)
}

// subOfProduct returns the subscription id, customer and catalogue
// product of a known subscription product, from the document or the
// store.
func (c *fixtureChecker) subOfProduct(id int64) (subID, custID, productID int64, ok bool) {
	if c.storeProducts == nil && c.products[id] == nil {
		c.storeProducts = map[int64]*Subscription{}
		for _, sub := range c.st.subscriptions {
			for _, p := range sub.Products {
				c.storeProducts[p.ID] = sub
			}
		}
	}
	if sub := cmp.Or(c.products[id], c.storeProducts[id]); sub != nil {
		for _, sp := range sub.Products {
			if sp.ID == id {
				return sub.ID, sub.CustomerID, sp.ProductID, true
			}
		}
	}
	return 0, 0, 0, c.st.products[id] // known to the store through its items only
}

func fixtureAt(path string, i int, id int64) string {
	p := path + "[" + strconv.Itoa(i) + "]"
	if id != 0 {
		p += " (id " + strconv.FormatInt(id, 10) + ")"
	}
	return p
}

// checkFixtures checks the decoded document against itself and the
// store, settling in place the defaults that depend on other entities,
// and returns the category names to set and the largest id it gives. What
// the add methods check alone (times, amounts) is checked here too, so
// that adding cannot fail half-way. The caller holds s.mu.
func (s *Server) checkFixtures(f *fixtureFile) (names [5]string, maxID int64, err error) {
	st := s.store
	c := &fixtureChecker{
		st: st, names: st.categoryNames, seen: map[string]map[int64]bool{},
		codes: map[int64]int{}, products: map[int64]*Subscription{},
	}
	checks := []func(*fixtureChecker, *fixtureFile) error{
		checkFixtureIDs, checkFixtureCategoryNames, checkFixtureCodes, checkFixtureCustomers,
		checkFixtureSubscriptions, s.checkFixtureInvoices, checkFixtureCards,
		s.checkFixtureWallets, checkFixtureItems, checkFixtureJobs,
	}
	for _, check := range checks {
		if err := check(c, f); err != nil {
			return names, 0, err
		}
	}
	if need := c.unassigned; need > math.MaxInt64-max(st.lastID, c.maxID) {
		return names, 0, fmt.Errorf("%d entities without an id need ids after %d, past the largest int64: give them ids", need, max(st.lastID, c.maxID))
	}
	return c.names, c.maxID, nil
}

// checkFixtureIDs comes first, as references may point at an entity
// later in the document: it records the ids of every list, checks that
// the customer of every entity that belongs to one exists, and checks
// the times and amounts of the entities but invoices (checked with the
// other invoice checks) as the add methods will.
func checkFixtureIDs(c *fixtureChecker, f *fixtureFile) error {
	v := reflect.ValueOf(f).Elem()
	fields := fixtureFieldsOf(v.Type())
	for _, name := range fields.names {
		list := v.Field(fields.index[name])
		if list.Kind() != reflect.Slice {
			continue
		}
		for i := range list.Len() {
			e := list.Index(i)
			id := e.FieldByName("ID").Int()
			at := fixtureAt(name, i, id)
			if err := c.id(name, at, id); err != nil {
				return err
			}
			// Customers come first in the document, so that every
			// customer id is known by the time another list names one.
			// An item's customer is its product's.
			if owner := e.FieldByName("CustomerID"); owner.IsValid() && name != "subscriptionProductItems" {
				if err := c.customer(at, owner.Int()); err != nil {
					return err
				}
			}
			if name == "invoices" {
				continue
			}
			if err := checkTimes(e.Addr().Interface()); err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
		}
	}
	return nil
}

// checkFixtureCategoryNames comes before the codes whose types they name.
func checkFixtureCategoryNames(c *fixtureChecker, f *fixtureFile) error {
	for _, k := range slices.Sorted(maps.Keys(f.TrackingCodeCategoryNames)) {
		name := f.TrackingCodeCategoryNames[k]
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 || n > 5 || strconv.Itoa(n) != k {
			return fmt.Errorf("trackingCodeCategoryNames: key %q, want \"1\" to \"5\"", k)
		}
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("trackingCodeCategoryNames.%s: empty name", k)
		}
		c.names[n-1] = name
	}
	// A name shared by two categories would make a code's type ambiguous.
	for i := range 5 {
		for j := range 5 {
			if c.names[i] == "" || j == i {
				continue
			}
			if strings.EqualFold(c.names[i], c.names[j]) || strings.EqualFold(c.names[i], "Sales Tracking Code "+strconv.Itoa(j+1)) {
				return fmt.Errorf("trackingCodeCategoryNames.%d: %q is already the name of category %d", i+1, c.names[i], j+1)
			}
		}
	}
	return nil
}

func checkFixtureCodes(c *fixtureChecker, f *fixtureFile) error {
	for i := range f.SalesTrackingCodes {
		fc := &f.SalesTrackingCodes[i]
		at := fixtureAt("salesTrackingCodes", i, fc.ID)
		n, ok := c.category(string(fc.Type))
		if !ok {
			return fmt.Errorf("%s.type: unknown type %q", at, fc.Type)
		}
		if fc.Code == "" || fc.Name == "" {
			return fmt.Errorf("%s: code and name are required", at)
		}
		if err := knownValue(at, "status", fc.Status); err != nil {
			return err
		}
		if fc.ID != 0 {
			c.codes[fc.ID] = n
		}
	}
	// The store's codes, under the category names the document may set.
	for _, code := range c.st.codes {
		if n, ok := c.category(string(code.Type)); ok {
			c.codes[code.ID] = cmp.Or(c.codes[code.ID], n)
		}
	}
	return nil
}

func checkFixtureCustomers(c *fixtureChecker, f *fixtureFile) error {
	for i := range f.Customers {
		fc := &f.Customers[i]
		at := fixtureAt("customers", i, fc.ID)
		if err := cmp.Or(knownValue(at, "status", fc.Status), knownValue(at, "accountStatus", fc.AccountStatus)); err != nil {
			return err
		}
		if fc.ParentID != 0 && (fc.ParentID == fc.ID || !c.known("customers", fc.ParentID)) {
			return fmt.Errorf("%s.parentId: unknown customer %d", at, fc.ParentID)
		}
		if fc.Currency != "" && (len(fc.Currency) != 3 || strings.ToUpper(fc.Currency) != fc.Currency || strings.ContainsAny(fc.Currency, "0123456789 ")) {
			return fmt.Errorf("%s.currency: %q is not an ISO currency code", at, fc.Currency)
		}
		for k, id := range fc.SalesTrackingCodeIDs {
			n, ok := c.codes[id]
			switch {
			case id == 0:
			case !ok:
				return fmt.Errorf("%s.salesTrackingCodeIds[%d]: unknown sales tracking code %d", at, k, id)
			case n != k+1:
				return fmt.Errorf("%s.salesTrackingCodeIds[%d]: code %d is of category %d, not %d", at, k, id, n, k+1)
			}
		}
	}
	return nil
}

func checkFixtureSubscriptions(c *fixtureChecker, f *fixtureFile) error {
	for i := range f.Subscriptions {
		fs := &f.Subscriptions[i]
		at := fixtureAt("subscriptions", i, fs.ID)
		if err := cmp.Or(knownValue(at, "status", fs.Status), knownValue(at, "interval", fs.Interval)); err != nil {
			return err
		}
		if fs.NumberOfIntervals < 0 {
			return fmt.Errorf("%s.numberOfIntervals: negative", at)
		}
		for j := range fs.Products {
			fp := &fs.Products[j]
			if err := c.id("products", fixtureAt(at+".products", j, fp.ID), fp.ID); err != nil {
				return err
			}
			if fp.ID != 0 {
				c.products[fp.ID] = fs
			}
		}
	}
	return nil
}

func (s *Server) checkFixtureInvoices(c *fixtureChecker, f *fixtureFile) error {
	for i := range f.Invoices {
		inv := &f.Invoices[i]
		at := fixtureAt("invoices", i, inv.ID)
		if err := knownValue(at, "status", inv.Status); err != nil {
			return err
		}
		// The charge default needs the invoice's effective date, which
		// AddInvoice would only settle later.
		if inv.PostedTimestamp.IsZero() {
			inv.PostedTimestamp = s.now()
		}
		if inv.EffectiveTimestamp.IsZero() {
			inv.EffectiveTimestamp = inv.PostedTimestamp
		}
		for j := range inv.Charges {
			ch := &inv.Charges[j]
			cat := fixtureAt(at+".charges", j, ch.ID)
			if err := c.id("charges", cat, ch.ID); err != nil {
				return err
			}
			if ch.EffectiveTimestamp.IsZero() {
				ch.EffectiveTimestamp = inv.EffectiveTimestamp
			}
			if ch.SubscriptionProductID != 0 {
				subID, _, _, ok := c.subOfProduct(ch.SubscriptionProductID)
				if !ok {
					return fmt.Errorf("%s.subscriptionProductId: unknown subscription product %d", cat, ch.SubscriptionProductID)
				}
				if ch.SubscriptionID == 0 {
					ch.SubscriptionID = subID
				} else if subID != 0 && subID != ch.SubscriptionID {
					return fmt.Errorf("%s.subscriptionProductId: product %d is of subscription %d, not %d", cat, ch.SubscriptionProductID, subID, ch.SubscriptionID)
				}
			}
			if ch.SubscriptionID != 0 && !c.known("subscriptions", ch.SubscriptionID) {
				return fmt.Errorf("%s.subscriptionId: unknown subscription %d", cat, ch.SubscriptionID)
			}
		}
		if err := checkInvoiceWritable(inv); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
	}
	return nil
}

func checkFixtureCards(c *fixtureChecker, f *fixtureFile) error {
	for i := range f.CreditCards {
		fc := &f.CreditCards[i]
		at := fixtureAt("creditCards", i, fc.ID)
		if len(fc.Last4) < 4 || strings.Trim(fc.Last4, "0123456789") != "" {
			return fmt.Errorf("%s.last4: %q, want at least four digits", at, fc.Last4)
		}
		if fc.ExpirationMonth < 0 || fc.ExpirationMonth > 12 {
			return fmt.Errorf("%s.expirationMonth: %d, want 1 to 12", at, fc.ExpirationMonth)
		}
		for _, ref := range []struct {
			name string
			id   int64
		}{{"originalPaymentMethodId", fc.OriginalPaymentMethodID}, {"replacedBy", fc.ReplacedBy}} {
			if ref.id != 0 && (ref.id == fc.ID || !c.known("creditCards", ref.id)) {
				return fmt.Errorf("%s.%s: unknown credit card %d", at, ref.name, ref.id)
			}
		}
	}
	return nil
}

func (s *Server) checkFixtureWallets(c *fixtureChecker, f *fixtureFile) error {
	for i := range f.WalletMethods {
		w := &f.WalletMethods[i]
		at := fixtureAt("walletMethods", i, w.ID)
		provider, ok := s.cfg.walletProviders[0], true
		if w.Provider != "" {
			if provider, ok = s.walletProvider(w.Provider); !ok {
				return fmt.Errorf("%s.provider: %q is not a wallet provider of the fake (%s)", at, w.Provider, strings.Join(s.cfg.walletProviders, ", "))
			}
		}
		w.Provider = provider
		if strings.TrimSpace(w.Token) == "" && strings.TrimSpace(w.Baid) == "" {
			return fmt.Errorf("%s: give token or baid", at)
		}
		source := billing.PaymentSourceManual
		if w.Source != "" {
			if source, ok = parseSource(w.Source); !ok {
				return fmt.Errorf("%s.source: %q, want one of %s", at, w.Source, joinSources())
			}
		}
		w.Source = source
	}
	return nil
}

func checkFixtureItems(c *fixtureChecker, f *fixtureFile) error {
	for i := range f.SubscriptionProductItems {
		it := &f.SubscriptionProductItems[i]
		at := fixtureAt("subscriptionProductItems", i, it.ID)
		if it.SubscriptionProductID == 0 {
			return fmt.Errorf("%s.subscriptionProductId: required", at)
		}
		// A product no subscription has becomes known through its items,
		// as with AddSubscriptionProductItem, so that every state the fake
		// holds dumps and loads back.
		subID, custID, prodID, _ := c.subOfProduct(it.SubscriptionProductID)
		if it.SubscriptionID != 0 && subID != 0 && it.SubscriptionID != subID {
			return fmt.Errorf("%s.subscriptionId: product %d is of subscription %d, not %d", at, it.SubscriptionProductID, subID, it.SubscriptionID)
		}
		if err := knownValue(at, "status", it.Status); err != nil {
			return err
		}
		it.SubscriptionID = cmp.Or(it.SubscriptionID, subID)
		it.CustomerID = cmp.Or(it.CustomerID, custID)
		it.ProductID = cmp.Or(it.ProductID, prodID)
	}
	return nil
}

func checkFixtureJobs(_ *fixtureChecker, f *fixtureFile) error {
	for i, j := range f.BulkJobs {
		if j.Processed && !j.Validated {
			return fmt.Errorf("%s.processed: a job is processed only once validated", fixtureAt("bulkJobs", i, j.ID))
		}
	}
	return nil
}

// applyFixtures adds a checked document through the add methods' own
// path. The caller holds s.mu. The add methods check again, so an error
// here means a check above is missing.
func (s *Server) applyFixtures(f *fixtureFile, names [5]string, maxID int64) error {
	st := s.store
	// Assigned ids come after every id the document gives, so that a
	// charge or a customer without an id cannot take one the document
	// uses later on.
	st.lastID = max(st.lastID, maxID)
	st.categoryNames = names
	st.invoices.grow(len(f.Invoices))
	texts := &packer{texts: map[[3]string]string{}}
	for _, add := range []func() error{
		func() error { return addAll(f.Customers, s.addCustomerLocked) },
		func() error { return addAll(mapped(f.SalesTrackingCodes, storeCode), s.addSalesTrackingCodeLocked) },
		func() error { return addAll(f.Subscriptions, s.addSubscriptionLocked) },
		func() error {
			// The document is ours: its invoices may take their ids in place.
			return addAll(f.Invoices, func(inv Invoice) (int64, error) { return s.insertInvoiceLocked(&inv, texts) })
		},
		func() error { return addAll(f.DraftInvoices, s.addDraftInvoiceLocked) },
		func() error { return addAll(f.CreditCards, s.addCreditCardLocked) },
		func() error { return addAll(f.WalletMethods, s.addWalletMethodLocked) },
		func() error {
			return addAll(mapped(f.SubscriptionProductItems, storeItem), s.addSubscriptionProductItemLocked)
		},
		func() error { return addAll(f.BulkJobs, s.addBulkJobLocked) },
	} {
		if err := add(); err != nil {
			return err
		}
	}
	return nil
}

// addAll adds every entity of list with add, in order.
func addAll[T any](list []T, add func(T) (int64, error)) error {
	for _, v := range list {
		if _, err := add(v); err != nil {
			return err
		}
	}
	return nil
}

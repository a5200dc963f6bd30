package billingtest

import (
	"bytes"
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
	"time"

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
// any object may carry (JSON has no comments) and which is ignored. Field
// names are the Go field names of the seeding types ([Customer],
// [Invoice], ...) in camelCase, matched exactly. Values:
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
//   - salesTrackingCodes: array of sales tracking code objects.
//   - subscriptions: array of [Subscription] objects.
//   - invoices: array of posted [Invoice] objects.
//   - draftInvoices: array of [DraftInvoice] objects.
//   - creditCards: array of [CreditCard] objects.
//   - walletMethods: array of [WalletMethod] objects.
//   - subscriptionProductItems: array of subscription product item objects.
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

// The fixture types mirror the seeding types with JSON names. Pointers
// mark the fields whose default depends on whether they were given.
type fixtureFile struct {
	Customers                 []fixtureCustomer     `json:"customers"`
	TrackingCodeCategoryNames map[string]string     `json:"trackingCodeCategoryNames"`
	SalesTrackingCodes        []fixtureCode         `json:"salesTrackingCodes"`
	Subscriptions             []fixtureSubscription `json:"subscriptions"`
	Invoices                  []fixtureInvoice      `json:"invoices"`
	DraftInvoices             []fixtureDraft        `json:"draftInvoices"`
	CreditCards               []fixtureCard         `json:"creditCards"`
	WalletMethods             []fixtureWallet       `json:"walletMethods"`
	SubscriptionProductItems  []fixtureItem         `json:"subscriptionProductItems"`
	BulkJobs                  []fixtureJob          `json:"bulkJobs"`
}

type fixtureCustomer struct {
	ID                      int64                         `json:"id"`
	FirstName               string                        `json:"firstName"`
	MiddleName              string                        `json:"middleName"`
	LastName                string                        `json:"lastName"`
	Suffix                  string                        `json:"suffix"`
	Title                   string                        `json:"title"`
	CompanyName             string                        `json:"companyName"`
	PrimaryEmail            string                        `json:"primaryEmail"`
	PrimaryPhone            string                        `json:"primaryPhone"`
	Reference               string                        `json:"reference"`
	Reference1              string                        `json:"reference1"`
	Reference2              string                        `json:"reference2"`
	Reference3              string                        `json:"reference3"`
	Status                  billing.CustomerStatus        `json:"status"`
	AccountStatus           billing.CustomerAccountStatus `json:"accountStatus"`
	ParentID                int64                         `json:"parentId"`
	Currency                string                        `json:"currency"`
	CreatedTimestamp        billing.Timestamp             `json:"createdTimestamp"`
	ModifiedTimestamp       billing.Timestamp             `json:"modifiedTimestamp"`
	ArBalance               decimal.Decimal               `json:"arBalance"`
	MonthlyRecurringRevenue decimal.Decimal               `json:"monthlyRecurringRevenue"`
	NetMRR                  decimal.Decimal               `json:"netMrr"`
	CurrentMrr              decimal.Decimal               `json:"currentMrr"`
	CurrentNetMrr           decimal.Decimal               `json:"currentNetMrr"`
	CrmID                   string                        `json:"crmId"`
	ErpID                   string                        `json:"erpId"`
	AccountingID            int64                         `json:"accountingId"`
	SalesTrackingCodeIDs    []int64                       `json:"salesTrackingCodeIds"`
}

type fixtureCode struct {
	ID          int64                      `json:"id"`
	Type        billing.TrackingCodeType   `json:"type"`
	Code        string                     `json:"code"`
	Name        string                     `json:"name"`
	Description *string                    `json:"description"`
	Email       *string                    `json:"email"`
	Status      billing.TrackingCodeStatus `json:"status"`
	Deletable   bool                       `json:"deletable"`
}

type fixtureSubscription struct {
	ID                int64                      `json:"id"`
	CustomerID        int64                      `json:"customerId"`
	PlanID            int64                      `json:"planId"`
	Name              string                     `json:"name"`
	Description       string                     `json:"description"`
	Reference         string                     `json:"reference"`
	Status            billing.SubscriptionStatus `json:"status"`
	Interval          billing.Interval           `json:"interval"`
	NumberOfIntervals int                        `json:"numberOfIntervals"`
	CreatedTimestamp  billing.Timestamp          `json:"createdTimestamp"`
	NextBillingDate   billing.Timestamp          `json:"nextBillingDate"`
	NextRechargeDate  billing.Timestamp          `json:"nextRechargeDate"`
	Products          []fixtureProduct           `json:"products"`
}

type fixtureProduct struct {
	ID            int64            `json:"id"`
	PlanProductID int64            `json:"planProductId"`
	ProductID     int64            `json:"productId"`
	Name          string           `json:"name"`
	Price         decimal.Decimal  `json:"price"`
	PlanPrice     *decimal.Decimal `json:"planPrice"`
}

type fixtureInvoice struct {
	ID                 int64                 `json:"id"`
	CustomerID         int64                 `json:"customerId"`
	InvoiceNumber      int64                 `json:"invoiceNumber"`
	PoNumber           string                `json:"poNumber"`
	CreatedTimestamp   billing.Timestamp     `json:"createdTimestamp"`
	EffectiveTimestamp billing.Timestamp     `json:"effectiveTimestamp"`
	PostedTimestamp    billing.Timestamp     `json:"postedTimestamp"`
	ModifiedTimestamp  billing.Timestamp     `json:"modifiedTimestamp"`
	Terms              string                `json:"terms"`
	Charges            []fixtureCharge       `json:"charges"`
	TotalTaxes         decimal.Decimal       `json:"totalTaxes"`
	TotalDiscount      decimal.Decimal       `json:"totalDiscount"`
	TotalPayments      decimal.Decimal       `json:"totalPayments"`
	SumOfCreditNotes   decimal.Decimal       `json:"sumOfCreditNotes"`
	PaymentSchedules   []fixtureSchedule     `json:"paymentSchedules"`
	OpeningArBalance   decimal.Decimal       `json:"openingArBalance"`
	ClosingArBalance   decimal.Decimal       `json:"closingArBalance"`
	ErpID              string                `json:"erpId"`
	CrmID              string                `json:"crmId"`
	AccountingID       int64                 `json:"accountingId"`
	Notes              string                `json:"notes"`
	Status             billing.InvoiceStatus `json:"status"`
	TotalWriteoffs     decimal.Decimal       `json:"totalWriteoffs"`
}

type fixtureCharge struct {
	ID                    int64             `json:"id"`
	Name                  string            `json:"name"`
	Description           string            `json:"description"`
	GLCode                string            `json:"glCode"`
	Quantity              *decimal.Decimal  `json:"quantity"`
	UnitPrice             *decimal.Decimal  `json:"unitPrice"`
	Amount                *decimal.Decimal  `json:"amount"`
	EffectiveTimestamp    billing.Timestamp `json:"effectiveTimestamp"`
	StartServiceDate      billing.Timestamp `json:"startServiceDate"`
	EndServiceDate        billing.Timestamp `json:"endServiceDate"`
	SubscriptionID        int64             `json:"subscriptionId"`
	SubscriptionProductID int64             `json:"subscriptionProductId"`
	PurchaseID            int64             `json:"purchaseId"`
	Tracked               bool              `json:"tracked"`
}

type fixtureSchedule struct {
	DueDateTimestamp   billing.Timestamp             `json:"dueDateTimestamp"`
	Status             billing.PaymentScheduleStatus `json:"status"`
	Amount             *decimal.Decimal              `json:"amount"`
	OutstandingBalance *decimal.Decimal              `json:"outstandingBalance"`
	DaysDueAfterTerm   *int                          `json:"daysDueAfterTerm"`
}

type fixtureDraft struct {
	ID         int64              `json:"id"`
	CustomerID int64              `json:"customerId"`
	Created    billing.Timestamp  `json:"created"`
	Lines      []fixtureDraftLine `json:"lines"`
}

type fixtureDraftLine struct {
	Description string           `json:"description"`
	Quantity    *decimal.Decimal `json:"quantity"`
	Amount      decimal.Decimal  `json:"amount"`
	Tracked     bool             `json:"tracked"`
}

type fixtureCard struct {
	ID                      int64             `json:"id"`
	CustomerID              int64             `json:"customerId"`
	Last4                   string            `json:"last4"`
	CardType                string            `json:"cardType"`
	FirstName               string            `json:"firstName"`
	LastName                string            `json:"lastName"`
	ExpirationMonth         int               `json:"expirationMonth"`
	ExpirationYear          int               `json:"expirationYear"`
	Address1                string            `json:"address1"`
	Address2                string            `json:"address2"`
	City                    string            `json:"city"`
	PostalZip               string            `json:"postalZip"`
	CountryID               int64             `json:"countryId"`
	StateID                 int64             `json:"stateId"`
	IsDefault               bool              `json:"isDefault"`
	Deleted                 bool              `json:"deleted"`
	OriginalPaymentMethodID int64             `json:"originalPaymentMethodId"`
	ReplacedBy              int64             `json:"replacedBy"`
	ModifiedDate            billing.Timestamp `json:"modifiedDate"`
}

type fixtureWallet struct {
	ID           int64                 `json:"id"`
	CustomerID   int64                 `json:"customerId"`
	Provider     string                `json:"provider"`
	Token        string                `json:"token"`
	Baid         string                `json:"baid"`
	Source       billing.PaymentSource `json:"source"`
	FirstName    string                `json:"firstName"`
	LastName     string                `json:"lastName"`
	IsDefault    bool                  `json:"isDefault"`
	ModifiedDate billing.Timestamp     `json:"modifiedDate"`
}

type fixtureItem struct {
	ID                    int64                 `json:"id"`
	SubscriptionProductID int64                 `json:"subscriptionProductId"`
	SubscriptionID        int64                 `json:"subscriptionId"`
	CustomerID            int64                 `json:"customerId"`
	ProductID             int64                 `json:"productId"`
	Reference             billing.ItemReference `json:"reference"`
	Name                  string                `json:"name"`
	Description           string                `json:"description"`
	Status                billing.ItemStatus    `json:"status"`
	CreatedDate           billing.Timestamp     `json:"createdDate"`
	ModifiedDate          billing.Timestamp     `json:"modifiedDate"`
}

type fixtureJob struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Validated bool   `json:"validated"`
	Processed bool   `json:"processed"`
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
	p, err := s.planFixtures(&f)
	if err != nil {
		return err
	}
	return s.applyFixtures(p)
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
	structured := t.Kind() == reflect.Struct ||
		(t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct && !reflect.PointerTo(t.Elem()).Implements(fixtureUnmarshaler))
	if !structured || reflect.PointerTo(t).Implements(fixtureUnmarshaler) {
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
		if r, ok := obj[name]; ok {
			sub := name
			if path != "" {
				sub = path + "." + name
			}
			if err := fixtureDecode(r, v.Field(fields.index[name]), sub); err != nil {
				return err
			}
		}
	}
	return nil
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
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
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

// fixturePlan is a checked document, converted to the seeding types, ready
// to add without further checks.
type fixturePlan struct {
	categoryNames [5]string
	customers     []Customer
	codes         []billing.SalesTrackingCode
	subscriptions []Subscription
	invoices      []Invoice
	drafts        []DraftInvoice
	cards         []CreditCard
	wallets       []WalletMethod
	items         []billing.SubscriptionProductItem
	jobs          []BulkJob
	maxID         int64
}

// fixtureChecker collects what the document defines, beside what the
// store has, for the cross-references.
type fixtureChecker struct {
	st    *store
	names [5]string
	maxID int64
	seen  map[string]map[int64]bool // kind → ids given in the document
	codes map[int64]int             // document code id → category
	// products maps every document subscription product to its
	// subscription.
	products      map[int64]*fixtureSubscription
	storeProducts map[int64]*Subscription
}

// id records an id given for kind and fails on a repeat; exists reports
// whether the store already has it.
func (c *fixtureChecker) id(kind, path string, id int64, exists func(int64) bool) error {
	if id < 0 {
		return fmt.Errorf("%s.id: negative id %d", path, id)
	}
	if id == 0 {
		return nil
	}
	if c.seen[kind][id] {
		return fmt.Errorf("%s.id: id %d repeats", path, id)
	}
	if exists != nil && exists(id) {
		return fmt.Errorf("%s.id: the fake already has %d", path, id)
	}
	if c.seen[kind] == nil {
		c.seen[kind] = map[int64]bool{}
	}
	c.seen[kind][id] = true
	c.maxID = max(c.maxID, id)
	return nil
}

func (c *fixtureChecker) has(kind string, id int64, inStore func(int64) bool) bool {
	return c.seen[kind][id] || inStore(id)
}

// category is the category (1 to 5) of a code type under the document's
// and the store's category names.
func (c *fixtureChecker) category(typ string) (int, bool) {
	for i := range 5 {
		if strings.EqualFold(typ, "Sales Tracking Code "+strconv.Itoa(i+1)) || (c.names[i] != "" && strings.EqualFold(typ, c.names[i])) {
			return i + 1, true
		}
	}
	return 0, false
}

func (c *fixtureChecker) storeCodeCategory(id int64) (int, bool) {
	for _, code := range c.st.codes {
		if code.ID == id {
			return c.category(string(code.Type))
		}
	}
	return 0, false
}

// storeSubOfProduct finds the store's subscription holding product id.
// The index is built on first use, as few documents refer to the store's
// products.
func (c *fixtureChecker) storeSubOfProduct(id int64) *Subscription {
	if c.storeProducts == nil {
		c.storeProducts = map[int64]*Subscription{}
		for _, sub := range c.st.subscriptions {
			for _, p := range sub.Products {
				c.storeProducts[p.ID] = sub
			}
		}
	}
	return c.storeProducts[id]
}

func fixtureAt(path string, i int, id int64) string {
	p := path + "[" + strconv.Itoa(i) + "]"
	if id != 0 {
		p += " (id " + strconv.FormatInt(id, 10) + ")"
	}
	return p
}

func fixtureTime(t billing.Timestamp) time.Time { return t.Time }

func fixtureDec(d *decimal.Decimal, def decimal.Decimal) decimal.Decimal {
	if d == nil {
		return def
	}
	return *d
}

// planFixtures checks the document against itself and the store and
// converts it. The caller holds s.mu.
func (s *Server) planFixtures(f *fixtureFile) (*fixturePlan, error) {
	st := s.store
	c := &fixtureChecker{
		st: st, names: st.categoryNames, seen: map[string]map[int64]bool{},
		codes: map[int64]int{}, products: map[int64]*fixtureSubscription{},
	}
	p := &fixturePlan{}
	custInStore := func(id int64) bool { _, ok := st.customers[id]; return ok }

	// Customer ids first: parents may come later in the list.
	for i := range f.Customers {
		fc := &f.Customers[i]
		if err := c.id("customer", fixtureAt("customers", i, fc.ID), fc.ID, custInStore); err != nil {
			return nil, err
		}
	}

	// Category names, before the codes whose types they name.
	for _, k := range slices.Sorted(maps.Keys(f.TrackingCodeCategoryNames)) {
		name := f.TrackingCodeCategoryNames[k]
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 || n > 5 || strconv.Itoa(n) != k {
			return nil, fmt.Errorf("trackingCodeCategoryNames: key %q, want \"1\" to \"5\"", k)
		}
		if strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("trackingCodeCategoryNames.%s: empty name", k)
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
				return nil, fmt.Errorf("trackingCodeCategoryNames.%d: %q is already the name of category %d", i+1, c.names[i], j+1)
			}
		}
	}
	p.categoryNames = c.names

	codeInStore := func(id int64) bool {
		return slices.ContainsFunc(st.codes, func(x billing.SalesTrackingCode) bool { return x.ID == id })
	}
	for i := range f.SalesTrackingCodes {
		fc := &f.SalesTrackingCodes[i]
		at := fixtureAt("salesTrackingCodes", i, fc.ID)
		if err := c.id("code", at, fc.ID, codeInStore); err != nil {
			return nil, err
		}
		n, ok := c.category(string(fc.Type))
		if !ok {
			return nil, fmt.Errorf("%s.type: unknown type %q", at, fc.Type)
		}
		if fc.Code == "" || fc.Name == "" {
			return nil, fmt.Errorf("%s: code and name are required", at)
		}
		if fc.Status != "" && !fc.Status.IsKnown() {
			return nil, fmt.Errorf("%s.status: unknown status %q", at, fc.Status)
		}
		if fc.ID != 0 {
			c.codes[fc.ID] = n
		}
		p.codes = append(p.codes, billing.SalesTrackingCode{
			ID: fc.ID, Type: fc.Type, Code: fc.Code, Name: fc.Name,
			Description: fc.Description, Email: fc.Email, Status: fc.Status, Deletable: fc.Deletable,
		})
	}

	for i := range f.Customers {
		fc := &f.Customers[i]
		at := fixtureAt("customers", i, fc.ID)
		if fc.Status != "" && !fc.Status.IsKnown() {
			return nil, fmt.Errorf("%s.status: unknown status %q", at, fc.Status)
		}
		if fc.AccountStatus != "" && !fc.AccountStatus.IsKnown() {
			return nil, fmt.Errorf("%s.accountStatus: unknown status %q", at, fc.AccountStatus)
		}
		if fc.ParentID != 0 && (fc.ParentID == fc.ID || !c.has("customer", fc.ParentID, custInStore)) {
			return nil, fmt.Errorf("%s.parentId: unknown customer %d", at, fc.ParentID)
		}
		if fc.Currency != "" && (len(fc.Currency) != 3 || strings.ToUpper(fc.Currency) != fc.Currency || strings.ContainsAny(fc.Currency, "0123456789 ")) {
			return nil, fmt.Errorf("%s.currency: %q is not an ISO currency code", at, fc.Currency)
		}
		if len(fc.SalesTrackingCodeIDs) > 5 {
			return nil, fmt.Errorf("%s.salesTrackingCodeIds: %d codes, at most 5", at, len(fc.SalesTrackingCodeIDs))
		}
		cust := Customer{
			ID: fc.ID, FirstName: fc.FirstName, MiddleName: fc.MiddleName, LastName: fc.LastName,
			Suffix: fc.Suffix, Title: fc.Title, CompanyName: fc.CompanyName, PrimaryEmail: fc.PrimaryEmail,
			PrimaryPhone: fc.PrimaryPhone, Reference: fc.Reference, Reference1: fc.Reference1,
			Reference2: fc.Reference2, Reference3: fc.Reference3, Status: fc.Status,
			AccountStatus: fc.AccountStatus, ParentID: fc.ParentID, Currency: fc.Currency,
			CreatedTimestamp: fixtureTime(fc.CreatedTimestamp), ModifiedTimestamp: fixtureTime(fc.ModifiedTimestamp),
			ArBalance: fc.ArBalance, MonthlyRecurringRevenue: fc.MonthlyRecurringRevenue, NetMRR: fc.NetMRR,
			CurrentMrr: fc.CurrentMrr, CurrentNetMrr: fc.CurrentNetMrr, CrmID: fc.CrmID, ErpID: fc.ErpID,
			AccountingID: fc.AccountingID,
		}
		for k, id := range fc.SalesTrackingCodeIDs {
			if id == 0 {
				continue
			}
			n, ok := c.codes[id]
			if !ok {
				n, ok = c.storeCodeCategory(id)
			}
			if !ok {
				return nil, fmt.Errorf("%s.salesTrackingCodeIds[%d]: unknown sales tracking code %d", at, k, id)
			}
			if n != k+1 {
				return nil, fmt.Errorf("%s.salesTrackingCodeIds[%d]: code %d is of category %d, not %d", at, k, id, n, k+1)
			}
			cust.SalesTrackingCodeIDs[k] = id
		}
		p.customers = append(p.customers, cust)
	}

	subInStore := func(id int64) bool { _, ok := st.subscriptions[id]; return ok }
	for i := range f.Subscriptions {
		fs := &f.Subscriptions[i]
		at := fixtureAt("subscriptions", i, fs.ID)
		if err := c.id("subscription", at, fs.ID, subInStore); err != nil {
			return nil, err
		}
		if !c.has("customer", fs.CustomerID, custInStore) {
			return nil, fmt.Errorf("%s.customerId: unknown customer %d", at, fs.CustomerID)
		}
		if fs.Status != "" && !fs.Status.IsKnown() {
			return nil, fmt.Errorf("%s.status: unknown status %q", at, fs.Status)
		}
		if fs.Interval != "" && !fs.Interval.IsKnown() {
			return nil, fmt.Errorf("%s.interval: unknown interval %q", at, fs.Interval)
		}
		if fs.NumberOfIntervals < 0 {
			return nil, fmt.Errorf("%s.numberOfIntervals: negative", at)
		}
		sub := Subscription{
			ID: fs.ID, CustomerID: fs.CustomerID, PlanID: fs.PlanID, Name: fs.Name,
			Description: fs.Description, Reference: fs.Reference, Status: fs.Status, Interval: fs.Interval,
			NumberOfIntervals: fs.NumberOfIntervals, CreatedTimestamp: fixtureTime(fs.CreatedTimestamp),
			NextBillingDate: fixtureTime(fs.NextBillingDate), NextRechargeDate: fixtureTime(fs.NextRechargeDate),
		}
		for j := range fs.Products {
			fp := &fs.Products[j]
			pat := fixtureAt(at+".products", j, fp.ID)
			if err := c.id("product", pat, fp.ID, func(id int64) bool { return st.products[id] }); err != nil {
				return nil, err
			}
			if fp.ID != 0 {
				c.products[fp.ID] = fs
			}
			sub.Products = append(sub.Products, SubscriptionProduct{
				ID: fp.ID, PlanProductID: fp.PlanProductID, ProductID: fp.ProductID, Name: fp.Name,
				Price: fp.Price, PlanPrice: fixtureDec(fp.PlanPrice, fp.Price),
			})
		}
		p.subscriptions = append(p.subscriptions, sub)
	}

	// subOfProduct returns the subscription id and customer of a known
	// subscription product, from the document or the store.
	subOfProduct := func(id int64) (subID, custID, productID int64, ok bool) {
		if fs := c.products[id]; fs != nil {
			for _, fp := range fs.Products {
				if fp.ID == id {
					return fs.ID, fs.CustomerID, fp.ProductID, true
				}
			}
		}
		if sub := c.storeSubOfProduct(id); sub != nil {
			for _, sp := range sub.Products {
				if sp.ID == id {
					return sub.ID, sub.CustomerID, sp.ProductID, true
				}
			}
		}
		if st.products[id] {
			return 0, 0, 0, true // known to the store through its items only
		}
		return 0, 0, 0, false
	}

	invInStore := func(id int64) bool { return st.invoices.get(id) != nil }
	for i := range f.Invoices {
		fi := &f.Invoices[i]
		at := fixtureAt("invoices", i, fi.ID)
		if err := c.id("invoice", at, fi.ID, invInStore); err != nil {
			return nil, err
		}
		if !c.has("customer", fi.CustomerID, custInStore) {
			return nil, fmt.Errorf("%s.customerId: unknown customer %d", at, fi.CustomerID)
		}
		if fi.Status != "" && !fi.Status.IsKnown() {
			return nil, fmt.Errorf("%s.status: unknown status %q", at, fi.Status)
		}
		days := 30
		if fi.Terms != "" {
			n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(fi.Terms), "net"))
			if err != nil || n < 0 || !strings.EqualFold(fi.Terms[:min(3, len(fi.Terms))], "net") {
				return nil, fmt.Errorf("%s.terms: %q, want Net and a number of days, e.g. Net30", at, fi.Terms)
			}
			days = n
		}
		inv := Invoice{
			ID: fi.ID, CustomerID: fi.CustomerID, InvoiceNumber: fi.InvoiceNumber, PoNumber: fi.PoNumber,
			CreatedTimestamp: fixtureTime(fi.CreatedTimestamp), EffectiveTimestamp: fixtureTime(fi.EffectiveTimestamp),
			PostedTimestamp: fixtureTime(fi.PostedTimestamp), ModifiedTimestamp: fixtureTime(fi.ModifiedTimestamp),
			Terms: fi.Terms, TotalTaxes: fi.TotalTaxes, TotalDiscount: fi.TotalDiscount,
			TotalPayments: fi.TotalPayments, SumOfCreditNotes: fi.SumOfCreditNotes,
			OpeningArBalance: fi.OpeningArBalance, ClosingArBalance: fi.ClosingArBalance,
			ErpID: fi.ErpID, CrmID: fi.CrmID, AccountingID: fi.AccountingID, Notes: fi.Notes, Status: fi.Status,
			totalWriteoffs: fi.TotalWriteoffs,
		}
		// The charge default needs the invoice's effective date, which
		// AddInvoice would only settle later.
		if inv.PostedTimestamp.IsZero() {
			inv.PostedTimestamp = s.now()
		}
		if inv.EffectiveTimestamp.IsZero() {
			inv.EffectiveTimestamp = inv.PostedTimestamp
		}
		for j := range fi.Charges {
			fc := &fi.Charges[j]
			cat := fixtureAt(at+".charges", j, fc.ID)
			if err := c.id("charge", cat, fc.ID, nil); err != nil {
				return nil, err
			}
			ch := Charge{
				ID: fc.ID, Name: fc.Name, Description: fc.Description, GLCode: fc.GLCode,
				EffectiveTimestamp: fixtureTime(fc.EffectiveTimestamp), StartServiceDate: fixtureTime(fc.StartServiceDate),
				EndServiceDate: fixtureTime(fc.EndServiceDate), SubscriptionID: fc.SubscriptionID,
				SubscriptionProductID: fc.SubscriptionProductID, PurchaseID: fc.PurchaseID, Tracked: fc.Tracked,
			}
			if ch.EffectiveTimestamp.IsZero() {
				ch.EffectiveTimestamp = inv.EffectiveTimestamp
			}
			ch.Quantity = fixtureDec(fc.Quantity, decimal.New(1, 0))
			switch {
			case fc.UnitPrice != nil && fc.Amount != nil:
				ch.UnitPrice, ch.Amount = *fc.UnitPrice, *fc.Amount
			case fc.UnitPrice != nil:
				ch.UnitPrice = *fc.UnitPrice
				ch.Amount = ch.Quantity.Mul(ch.UnitPrice)
			case fc.Amount != nil && ch.Quantity.Equal(decimal.New(1, 0)):
				ch.UnitPrice, ch.Amount = *fc.Amount, *fc.Amount
			case fc.Amount != nil:
				return nil, fmt.Errorf("%s.unitPrice: required when quantity is not 1", cat)
			default:
				return nil, fmt.Errorf("%s: give unitPrice or amount", cat)
			}
			if ch.SubscriptionProductID != 0 {
				subID, _, _, ok := subOfProduct(ch.SubscriptionProductID)
				if !ok {
					return nil, fmt.Errorf("%s.subscriptionProductId: unknown subscription product %d", cat, ch.SubscriptionProductID)
				}
				if ch.SubscriptionID == 0 {
					ch.SubscriptionID = subID
				} else if subID != 0 && subID != ch.SubscriptionID {
					return nil, fmt.Errorf("%s.subscriptionProductId: product %d is of subscription %d, not %d", cat, ch.SubscriptionProductID, subID, ch.SubscriptionID)
				}
			}
			if ch.SubscriptionID != 0 && !c.has("subscription", ch.SubscriptionID, subInStore) {
				return nil, fmt.Errorf("%s.subscriptionId: unknown subscription %d", cat, ch.SubscriptionID)
			}
			inv.Charges = append(inv.Charges, ch)
		}
		if fi.PaymentSchedules != nil {
			inv.PaymentSchedules = []billing.PaymentSchedule{}
		}
		for j := range fi.PaymentSchedules {
			fs := &fi.PaymentSchedules[j]
			sat := at + ".paymentSchedules[" + strconv.Itoa(j) + "]"
			if fs.DueDateTimestamp.IsZero() {
				return nil, fmt.Errorf("%s.dueDateTimestamp: required", sat)
			}
			if fs.Amount == nil {
				return nil, fmt.Errorf("%s.amount: required", sat)
			}
			ps := billing.PaymentSchedule{
				DueDateTimestamp:   fs.DueDateTimestamp,
				Status:             fs.Status,
				Amount:             *fs.Amount,
				OutstandingBalance: fixtureDec(fs.OutstandingBalance, *fs.Amount),
				DaysDueAfterTerm:   days,
			}
			if fs.DaysDueAfterTerm != nil {
				ps.DaysDueAfterTerm = *fs.DaysDueAfterTerm
			}
			if ps.Status == "" {
				ps.Status = billing.PaymentScheduleStatusDue
				if !ps.OutstandingBalance.IsPositive() {
					ps.Status = scheduleStatusPaid
				}
			}
			inv.PaymentSchedules = append(inv.PaymentSchedules, ps)
		}
		if err := checkInvoiceWritable(&inv); err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		p.invoices = append(p.invoices, inv)
	}

	draftInStore := func(id int64) bool { _, ok := st.drafts[id]; return ok }
	for i := range f.DraftInvoices {
		fd := &f.DraftInvoices[i]
		at := fixtureAt("draftInvoices", i, fd.ID)
		if err := c.id("draft", at, fd.ID, draftInStore); err != nil {
			return nil, err
		}
		if !c.has("customer", fd.CustomerID, custInStore) {
			return nil, fmt.Errorf("%s.customerId: unknown customer %d", at, fd.CustomerID)
		}
		d := DraftInvoice{ID: fd.ID, CustomerID: fd.CustomerID, Created: fixtureTime(fd.Created)}
		for _, l := range fd.Lines {
			d.Lines = append(d.Lines, DraftLine{
				Description: l.Description, Quantity: fixtureDec(l.Quantity, decimal.New(1, 0)),
				Amount: l.Amount, Tracked: l.Tracked,
			})
		}
		p.drafts = append(p.drafts, d)
	}

	cardInStore := func(id int64) bool { _, ok := st.cards[id]; return ok }
	for i := range f.CreditCards {
		fc := &f.CreditCards[i]
		if err := c.id("card", fixtureAt("creditCards", i, fc.ID), fc.ID, cardInStore); err != nil {
			return nil, err
		}
	}
	for i := range f.CreditCards {
		fc := &f.CreditCards[i]
		at := fixtureAt("creditCards", i, fc.ID)
		if !c.has("customer", fc.CustomerID, custInStore) {
			return nil, fmt.Errorf("%s.customerId: unknown customer %d", at, fc.CustomerID)
		}
		if len(fc.Last4) < 4 || strings.Trim(fc.Last4, "0123456789") != "" {
			return nil, fmt.Errorf("%s.last4: %q, want at least four digits", at, fc.Last4)
		}
		if fc.ExpirationMonth < 0 || fc.ExpirationMonth > 12 {
			return nil, fmt.Errorf("%s.expirationMonth: %d, want 1 to 12", at, fc.ExpirationMonth)
		}
		for _, ref := range []struct {
			name string
			id   int64
		}{{"originalPaymentMethodId", fc.OriginalPaymentMethodID}, {"replacedBy", fc.ReplacedBy}} {
			if ref.id != 0 && (ref.id == fc.ID || !c.has("card", ref.id, cardInStore)) {
				return nil, fmt.Errorf("%s.%s: unknown credit card %d", at, ref.name, ref.id)
			}
		}
		p.cards = append(p.cards, CreditCard{
			ID: fc.ID, CustomerID: fc.CustomerID, Last4: fc.Last4, CardType: fc.CardType,
			FirstName: fc.FirstName, LastName: fc.LastName, ExpirationMonth: fc.ExpirationMonth,
			ExpirationYear: fc.ExpirationYear, Address1: fc.Address1, Address2: fc.Address2, City: fc.City,
			PostalZip: fc.PostalZip, CountryID: fc.CountryID, StateID: fc.StateID, IsDefault: fc.IsDefault,
			Deleted: fc.Deleted, OriginalPaymentMethodID: fc.OriginalPaymentMethodID, ReplacedBy: fc.ReplacedBy,
			ModifiedDate: fixtureTime(fc.ModifiedDate),
		})
	}

	if err := s.planWallets(f, c, p, custInStore); err != nil {
		return nil, err
	}

	var storeItems map[int64]bool // built on first use: the store keeps items by product
	itemInStore := func(id int64) bool {
		if storeItems == nil {
			storeItems = map[int64]bool{}
			for _, list := range st.items {
				for _, it := range list {
					storeItems[it.ID] = true
				}
			}
		}
		return storeItems[id]
	}
	for i := range f.SubscriptionProductItems {
		fi := &f.SubscriptionProductItems[i]
		at := fixtureAt("subscriptionProductItems", i, fi.ID)
		if err := c.id("item", at, fi.ID, itemInStore); err != nil {
			return nil, err
		}
		if fi.SubscriptionProductID == 0 {
			return nil, fmt.Errorf("%s.subscriptionProductId: required", at)
		}
		// A product no subscription has becomes known through its items,
		// as with AddSubscriptionProductItem, so that every state the fake
		// holds dumps and loads back.
		subID, custID, prodID, _ := subOfProduct(fi.SubscriptionProductID)
		if fi.SubscriptionID != 0 && subID != 0 && fi.SubscriptionID != subID {
			return nil, fmt.Errorf("%s.subscriptionId: product %d is of subscription %d, not %d", at, fi.SubscriptionProductID, subID, fi.SubscriptionID)
		}
		if fi.Status != "" && !fi.Status.IsKnown() {
			return nil, fmt.Errorf("%s.status: unknown status %q", at, fi.Status)
		}
		item := billing.SubscriptionProductItem{
			ID: fi.ID, Reference: fi.Reference, Name: fi.Name, Description: fi.Description,
			SubscriptionProductID: fi.SubscriptionProductID, SubscriptionID: fi.SubscriptionID,
			CustomerID: fi.CustomerID, ProductID: fi.ProductID, Status: fi.Status,
			CreatedDate: fi.CreatedDate, ModifiedDate: fi.ModifiedDate,
		}
		if item.SubscriptionID == 0 {
			item.SubscriptionID = subID
		}
		if item.CustomerID == 0 {
			item.CustomerID = custID
		}
		if item.ProductID == 0 {
			item.ProductID = prodID
		}
		p.items = append(p.items, item)
	}

	jobInStore := func(id int64) bool { _, ok := st.jobs[id]; return ok }
	for i := range f.BulkJobs {
		fj := &f.BulkJobs[i]
		at := fixtureAt("bulkJobs", i, fj.ID)
		if err := c.id("job", at, fj.ID, jobInStore); err != nil {
			return nil, err
		}
		if fj.Processed && !fj.Validated {
			return nil, fmt.Errorf("%s.processed: a job is processed only once validated", at)
		}
		p.jobs = append(p.jobs, BulkJob{ID: fj.ID, Type: fj.Type, Validated: fj.Validated, Processed: fj.Processed})
	}
	p.maxID = c.maxID
	if err := p.checkWritable(); err != nil {
		return nil, err
	}
	if need := p.idsNeeded(); need > math.MaxInt64-max(st.lastID, p.maxID) {
		return nil, fmt.Errorf("%d entities without an id need ids after %d, past the largest int64: give them ids", need, max(st.lastID, p.maxID))
	}
	return p, nil
}

// checkWritable checks the times and amounts of the plan's entities but
// invoices (checked as they are planned) as the add methods will, so that
// applying the plan cannot fail half-way.
func (p *fixturePlan) checkWritable() error {
	check := func(kind string, i int, id int64, ptr any) error {
		if err := checkTimes(ptr); err != nil {
			return fmt.Errorf("%s: %w", fixtureAt(kind, i, id), err)
		}
		return nil
	}
	var err error
	for i := 0; err == nil && i < len(p.customers); i++ {
		err = check("customers", i, p.customers[i].ID, &p.customers[i])
	}
	for i := 0; err == nil && i < len(p.codes); i++ {
		err = check("salesTrackingCodes", i, p.codes[i].ID, &p.codes[i])
	}
	for i := 0; err == nil && i < len(p.subscriptions); i++ {
		err = check("subscriptions", i, p.subscriptions[i].ID, &p.subscriptions[i])
	}
	for i := 0; err == nil && i < len(p.drafts); i++ {
		err = check("draftInvoices", i, p.drafts[i].ID, &p.drafts[i])
	}
	for i := 0; err == nil && i < len(p.cards); i++ {
		err = check("creditCards", i, p.cards[i].ID, &p.cards[i])
	}
	for i := 0; err == nil && i < len(p.wallets); i++ {
		err = check("walletMethods", i, p.wallets[i].ID, &p.wallets[i])
	}
	for i := 0; err == nil && i < len(p.items); i++ {
		err = check("subscriptionProductItems", i, p.items[i].ID, &p.items[i])
	}
	for i := 0; err == nil && i < len(p.jobs); i++ {
		err = check("bulkJobs", i, p.jobs[i].ID, &p.jobs[i])
	}
	return err
}

// idsNeeded counts the plan's entities without an id, which applying it
// assigns.
func (p *fixturePlan) idsNeeded() int64 {
	var n int64
	count := func(id int64) {
		if id == 0 {
			n++
		}
	}
	for i := range p.customers {
		count(p.customers[i].ID)
	}
	for i := range p.codes {
		count(p.codes[i].ID)
	}
	for i := range p.subscriptions {
		count(p.subscriptions[i].ID)
		for j := range p.subscriptions[i].Products {
			count(p.subscriptions[i].Products[j].ID)
		}
	}
	for i := range p.invoices {
		count(p.invoices[i].ID)
		for j := range p.invoices[i].Charges {
			count(p.invoices[i].Charges[j].ID)
		}
	}
	for i := range p.drafts {
		count(p.drafts[i].ID)
	}
	for i := range p.cards {
		count(p.cards[i].ID)
	}
	for i := range p.wallets {
		count(p.wallets[i].ID)
	}
	for i := range p.items {
		count(p.items[i].ID)
	}
	for i := range p.jobs {
		count(p.jobs[i].ID)
	}
	return n
}

// applyFixtures adds a checked document. The caller holds s.mu. The add
// methods check again, so an error here means a check above is missing.
func (s *Server) applyFixtures(p *fixturePlan) error {
	st := s.store
	// Assigned ids come after every id the document gives, so that a
	// charge or a customer without an id cannot take one the document
	// uses later on.
	st.lastID = max(st.lastID, p.maxID)
	for _, c := range p.customers {
		if _, err := s.addCustomerLocked(c); err != nil {
			return err
		}
	}
	st.categoryNames = p.categoryNames
	for _, c := range p.codes {
		if _, err := s.addSalesTrackingCodeLocked(c); err != nil {
			return err
		}
	}
	for _, sub := range p.subscriptions {
		if _, err := s.addSubscriptionLocked(sub); err != nil {
			return err
		}
	}
	st.invoices.grow(len(p.invoices))
	texts := &packer{texts: map[[3]string]string{}}
	for i := range p.invoices {
		// The plan is ours: its invoices may take their ids in place.
		if _, err := s.insertInvoiceLocked(&p.invoices[i], texts); err != nil {
			return err
		}
	}
	for _, d := range p.drafts {
		if _, err := s.addDraftInvoiceLocked(d); err != nil {
			return err
		}
	}
	for _, c := range p.cards {
		if _, err := s.addCreditCardLocked(c); err != nil {
			return err
		}
	}
	for _, wm := range p.wallets {
		if _, err := s.addWalletMethodLocked(wm); err != nil {
			return err
		}
	}
	for _, item := range p.items {
		if _, err := s.addSubscriptionProductItemLocked(item); err != nil {
			return err
		}
	}
	for _, j := range p.jobs {
		if _, err := s.addBulkJobLocked(j); err != nil {
			return err
		}
	}
	return nil
}

// planWallets checks and converts the document's wallet methods.
func (s *Server) planWallets(f *fixtureFile, c *fixtureChecker, p *fixturePlan, custInStore func(int64) bool) error {
	walletInStore := func(id int64) bool { _, ok := s.store.wallets[id]; return ok }
	for i := range f.WalletMethods {
		fw := &f.WalletMethods[i]
		at := fixtureAt("walletMethods", i, fw.ID)
		if err := c.id("wallet", at, fw.ID, walletInStore); err != nil {
			return err
		}
		if !c.has("customer", fw.CustomerID, custInStore) {
			return fmt.Errorf("%s.customerId: unknown customer %d", at, fw.CustomerID)
		}
		provider := s.cfg.walletProviders[0]
		if fw.Provider != "" {
			var ok bool
			if provider, ok = s.walletProvider(fw.Provider); !ok {
				return fmt.Errorf("%s.provider: %q is not a wallet provider of the fake (%s)", at, fw.Provider, strings.Join(s.cfg.walletProviders, ", "))
			}
		}
		if strings.TrimSpace(fw.Token) == "" && strings.TrimSpace(fw.Baid) == "" {
			return fmt.Errorf("%s: give token or baid", at)
		}
		source := billing.PaymentSourceManual
		if fw.Source != "" {
			var ok bool
			if source, ok = parseSource(fw.Source); !ok {
				return fmt.Errorf("%s.source: %q, want one of %s", at, fw.Source, joinSources())
			}
		}
		wm := WalletMethod{
			ID: fw.ID, CustomerID: fw.CustomerID, Provider: provider, Token: fw.Token, Baid: fw.Baid,
			Source: source, FirstName: fw.FirstName, LastName: fw.LastName, IsDefault: fw.IsDefault,
			ModifiedDate: fixtureTime(fw.ModifiedDate),
		}
		p.wallets = append(p.wallets, wm)
	}
	return nil
}

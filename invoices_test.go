package billing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/query"
	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
)

// ---------------------------------------------------------------------------
// Helpers (prefixed inv to stay clear of other test files of the package).
// ---------------------------------------------------------------------------

// invFixture reads a file of testdata.
func invFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatalf("reading fixture: %v", err)
	}
	return string(b)
}

// invListBody turns the invoice fixture into a list-all answer of n
// invoices with ids 7, 8, ...: charges empty, every other field as sent.
// Numbers keep their text because only raw JSON is moved around.
func invListBody(t *testing.T, ids ...int64) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(invFixture(t, "invoice.json")), &m); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	m["charges"] = json.RawMessage(`[]`)
	out := make([]json.RawMessage, 0, len(ids))
	for _, id := range ids {
		m["id"] = json.RawMessage(strconv.FormatInt(id, 10))
		m["invoiceNumber"] = json.RawMessage(strconv.FormatInt(1000+id, 10))
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// invCatchAll records every request no responder was registered for and
// answers 599, so that "nothing was sent" is checked whatever the path.
func invCatchAll(w *wire) {
	w.mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		w.record(req)
		return httpmock.NewStringResponse(599, "unexpected request "+req.Method+" "+req.URL.String()), nil
	})
}

func invDec(t *testing.T, field string, got decimal.Decimal, want string) {
	t.Helper()
	if !got.Equal(decimal.RequireFromString(want)) {
		t.Errorf("%s = %s, want %s", field, got, want)
	}
}

func invDecPtr(t *testing.T, field string, got *decimal.Decimal, want string) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = nil, want %s", field, want)
		return
	}
	invDec(t, field, *got, want)
}

func invTime(t *testing.T, field string, got billing.Timestamp, want time.Time) {
	t.Helper()
	if want.IsZero() {
		if !got.IsZero() {
			t.Errorf("%s = %v, want the zero Timestamp", field, got.Time)
		}
		return
	}
	if !got.Time.Equal(want) {
		t.Errorf("%s = %v, want %v", field, got.Time, want)
	}
	if got.Time.Location() != time.UTC {
		t.Errorf("%s location = %v, want UTC", field, got.Time.Location())
	}
}

func invStr(t *testing.T, field string, got *string, want string) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = nil, want %q", field, want)
		return
	}
	if *got != want {
		t.Errorf("%s = %q, want %q", field, *got, want)
	}
}

func invNil[T any](t *testing.T, field string, got *T) {
	t.Helper()
	if got != nil {
		t.Errorf("%s = %v, want nil (JSON null)", field, *got)
	}
}

// invRawNull reports whether a raw field holds no value: absent or null.
func invRawNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

func invUTC(y int, m time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, m, d, h, mi, s, ns, time.UTC)
}

// invAssertCommon checks the fixture fields that the plain and the grouped
// invoice share.
func invAssertCommon(t *testing.T, inv *billing.Invoice) {
	t.Helper()
	if inv.ID != 7 || inv.InvoiceNumber != 1047 || inv.CustomerID != 42 {
		t.Errorf("id, invoiceNumber, customerId = %d, %d, %d; want 7, 1047, 42", inv.ID, inv.InvoiceNumber, inv.CustomerID)
	}
	invStr(t, "uri", inv.URI, "https://billing.example.test/v1/Invoices/7")
	if want := "<p>Thank you for your business &amp; prompt payment.</p>\n**Northwind Billing**"; inv.InvoiceSignature != want {
		t.Errorf("invoiceSignature = %q, want %q", inv.InvoiceSignature, want)
	}
	invNil(t, "poNumber", inv.PoNumber)
	invTime(t, "effectiveTimestamp (no offset, no fraction)", inv.EffectiveTimestamp, invUTC(2024, 3, 1, 0, 0, 0, 0))
	invTime(t, "postedTimestamp (7 fractional digits)", inv.PostedTimestamp, invUTC(2024, 3, 1, 10, 15, 0, 123456700))
	invTime(t, "modifiedTimestamp (Z, 1 fractional digit)", inv.ModifiedTimestamp, invUTC(2024, 3, 2, 8, 30, 45, 500000000))
	invDec(t, "subtotal", inv.Subtotal, "110.1249")
	invDec(t, "invoiceAmount", inv.InvoiceAmount, "118.933")
	invDec(t, "totalPayments", inv.TotalPayments, "0")
	if inv.Terms != "Net30" || inv.DefaultTerms != "Net30" || !inv.IsDefaultTerms {
		t.Errorf("terms = %q/%q/%v", inv.Terms, inv.DefaultTerms, inv.IsDefaultTerms)
	}
	invDec(t, "sumOfCreditNotes", inv.SumOfCreditNotes, "0")
	invDec(t, "totalTaxes", inv.TotalTaxes, "8.8081")
	invDec(t, "totalDiscount", inv.TotalDiscount, "1.25")
	invDec(t, "openingArBalance (negative)", inv.OpeningArBalance, "-25.375")
	if !inv.OpeningArBalance.IsNegative() {
		t.Errorf("openingArBalance lost its sign: %s", inv.OpeningArBalance)
	}
	invDec(t, "closingArBalance", inv.ClosingArBalance, "93.558")
	invStr(t, "notes", inv.Notes, "Thank you")
	invNil(t, "customerReferenceValue", inv.CustomerReferenceValue)
	if inv.InvoiceInMemoryOnly || inv.IsSummarized || !inv.RollUpPdf {
		t.Errorf("invoiceInMemoryOnly, isSummarized, rollUpPdf = %v, %v, %v; want false, false, true", inv.InvoiceInMemoryOnly, inv.IsSummarized, inv.RollUpPdf)
	}

	// Raw fields keep what the server sent, numbers included.
	assertJSON(t, inv.Taxes, `[{"name":"HST","amount":8.8081,"percentage":13,"taxRuleId":7}]`)
	assertJSON(t, inv.InvoiceRevisions, `[]`)

	// Customer snapshot: id 0 and many nulls.
	c := inv.InvoiceCustomer
	if c == nil {
		t.Fatal("invoiceCustomer = nil")
	}
	if c.ID != 0 {
		t.Errorf("invoiceCustomer.id = %d, want 0 (snapshot)", c.ID)
	}
	invNil(t, "invoiceCustomer.uri", c.URI)
	invStr(t, "invoiceCustomer.firstName", c.FirstName, "Ada")
	invNil(t, "invoiceCustomer.middleName", c.MiddleName)
	invStr(t, "invoiceCustomer.lastName", c.LastName, "Lovelace")
	invStr(t, "invoiceCustomer.companyName", c.CompanyName, "Analytical Engines Ltd")
	invStr(t, "invoiceCustomer.primaryEmail", c.PrimaryEmail, "ada@example.test")
	invStr(t, "invoiceCustomer.title", c.Title, "Ms")
	invStr(t, "invoiceCustomer.currency", c.Currency, "CAD")
	for name, p := range map[string]*string{
		"suffix": c.Suffix, "primaryPhone": c.PrimaryPhone, "secondaryEmail": c.SecondaryEmail,
		"secondaryPhone": c.SecondaryPhone, "reference": c.Reference, "crmId": c.CrmID,
		"crmAccountType": c.CrmAccountType, "crmSynchStatus": c.CrmSynchStatus, "erpId": c.ErpID,
		"erpSynchStatus": c.ErpSynchStatus, "erpCustomerType": c.ErpCustomerType, "portalUserName": c.PortalUserName,
		"accountingLatchType": c.AccountingLatchType, "accountingId": c.AccountingID,
		"accountingSyncToken": c.AccountingSyncToken, "marketingId": c.MarketingID,
		"marketingCompanyId": c.MarketingCompanyID, "telematicsId": c.TelematicsID,
	} {
		invNil(t, "invoiceCustomer."+name, p)
	}
	invNil(t, "invoiceCustomer.parentId", c.ParentID)
	if c.Status != billing.CustomerStatusActive || !c.Status.IsKnown() {
		t.Errorf("invoiceCustomer.status = %q", c.Status)
	}
	if c.CustomerAccountStatus != billing.CustomerAccountStatusGood {
		t.Errorf("invoiceCustomer.customerAccountStatus = %q", c.CustomerAccountStatus)
	}
	if !invRawNull(c.CustomerReference) || !invRawNull(c.CustomerAcquisition) {
		t.Errorf("customerReference, customerAcquisition = %s, %s; want null", c.CustomerReference, c.CustomerAcquisition)
	}
	invDec(t, "invoiceCustomer.monthlyRecurringRevenue", c.MonthlyRecurringRevenue, "1250.5")
	invDec(t, "invoiceCustomer.netMonthlyRecurringRevenue", c.NetMonthlyRecurringRevenue, "1100.125")
	invTime(t, "invoiceCustomer.modifiedTimestamp (5 fractional digits)", c.ModifiedTimestamp, invUTC(2024, 2, 28, 17, 5, 9, 123450000))
	invTime(t, "invoiceCustomer.createdTimestamp (-05:00 offset)", c.CreatedTimestamp, invUTC(2019, 11, 5, 9, 0, 0, 0))

	// Address preference.
	ap := inv.InvoiceCustomerAddressPreference
	if ap == nil {
		t.Fatal("invoiceCustomerAddressPreference = nil")
	}
	if ap.ID != 9001 || ap.UseBillingAddressAsShippingAddress {
		t.Errorf("address preference id, useBilling = %d, %v", ap.ID, ap.UseBillingAddressAsShippingAddress)
	}
	invStr(t, "contactName", ap.ContactName, "Accounts Payable")
	invNil(t, "shippingInstructions", ap.ShippingInstructions)
	if ap.BillingAddress == nil || ap.ShippingAddress == nil {
		t.Fatal("billing or shipping address nil")
	}
	ba, sa := ap.BillingAddress, ap.ShippingAddress
	if ba.ID != 31001 || ba.CustomerAddressPreferenceID != 9001 || ba.CountryID != 124 || !ba.Valid {
		t.Errorf("billing address = %+v", *ba)
	}
	invStr(t, "billingAddress.line1", ba.Line1, "12 Difference Way")
	invNil(t, "billingAddress.line2", ba.Line2)
	if ba.StateID == nil || *ba.StateID != 9 {
		t.Errorf("billingAddress.stateId = %v, want 9", ba.StateID)
	}
	invStr(t, "billingAddress.postalZip", ba.PostalZip, "M5V 2T6")
	invStr(t, "billingAddress.addressType", ba.AddressType, "Billing")
	invNil(t, "shippingAddress.stateId", sa.StateID)
	invNil(t, "shippingAddress.addressType", sa.AddressType)
	invNil(t, "shippingAddress.companyName", sa.CompanyName)
	invStr(t, "shippingAddress.state (empty string, not null)", sa.State, "")
	invStr(t, "shippingAddress.line2", sa.Line2, "Unit 400")
	if sa.CountryID != 840 || sa.Valid {
		t.Errorf("shipping address countryId, valid = %d, %v", sa.CountryID, sa.Valid)
	}

	// Payment schedules, the second with a status the SDK does not know.
	if len(inv.PaymentSchedules) != 2 {
		t.Fatalf("paymentSchedules: %d, want 2", len(inv.PaymentSchedules))
	}
	ps0, ps1 := inv.PaymentSchedules[0], inv.PaymentSchedules[1]
	invTime(t, "paymentSchedules[0].dueDateTimestamp", ps0.DueDateTimestamp, invUTC(2024, 3, 31, 0, 0, 0, 0))
	invTime(t, "paymentSchedules[1].dueDateTimestamp (7 zero digits)", ps1.DueDateTimestamp, invUTC(2024, 4, 30, 0, 0, 0, 0))
	invDec(t, "paymentSchedules[0].amount", ps0.Amount, "59.4665")
	if ps0.DaysDueAfterTerm != 0 || ps1.DaysDueAfterTerm != 30 {
		t.Errorf("daysDueAfterTerm = %d, %d", ps0.DaysDueAfterTerm, ps1.DaysDueAfterTerm)
	}
	if ps1.Status != "PartiallyPaid" || ps1.Status.IsKnown() {
		t.Errorf("unknown status = %q (known %v), want PartiallyPaid kept as sent and not known", ps1.Status, ps1.Status.IsKnown())
	}
}

// invAssertCharges checks the two charges of the fixture: one from a
// subscription, one from a purchase.
func invAssertCharges(t *testing.T, sub, pur billing.Charge) {
	t.Helper()
	if sub.ID != 550001 || sub.Name != "API calls (tiered)" || sub.GLCode != "4000-USAGE" || !sub.IsReversable {
		t.Errorf("charge 1 = id %d, name %q, glCode %q, reversable %v", sub.ID, sub.Name, sub.GLCode, sub.IsReversable)
	}
	invStr(t, "charge 1 uri", sub.URI, "https://billing.example.test/v1/charges/550001")
	invStr(t, "charge 1 description", sub.Description, "Usage for February")
	invDec(t, "charge 1 quantity", sub.Quantity, "3.5")
	invDec(t, "charge 1 unitPrice", sub.UnitPrice, "2.893")
	invDec(t, "charge 1 amount (3 decimals)", sub.Amount, "10.125")
	invNil(t, "charge 1 proratedUnitPrice", sub.ProratedUnitPrice)
	invDecPtr(t, "charge 1 rangeQuantity", sub.RangeQuantity, "3.5")
	invTime(t, "charge 1 effectiveTimestamp (Z)", sub.EffectiveTimestamp, invUTC(2024, 3, 1, 0, 0, 0, 0))
	invTime(t, "charge 1 startServiceDate (+00:00)", sub.StartServiceDate, invUTC(2024, 2, 1, 0, 0, 0, 0))
	invTime(t, "charge 1 endServiceDate (3 fractional digits)", sub.EndServiceDate, invUTC(2024, 2, 29, 23, 59, 59, 999000000))
	if sub.SubscriptionProduct == nil || sub.SubscriptionProduct.ID != 77001 {
		t.Errorf("charge 1 subscriptionProduct = %+v, want id 77001", sub.SubscriptionProduct)
	} else {
		invStr(t, "charge 1 subscriptionProduct.uri", sub.SubscriptionProduct.URI, "https://billing.example.test/v1/subscriptionProducts/77001")
	}
	if !invRawNull(sub.Purchase) {
		t.Errorf("charge 1 purchase = %s, want null", sub.Purchase)
	}
	assertJSON(t, sub.Discount, `{"amount":1.25,"discountType":"Amount","configuredDiscountAmount":1.25}`)
	assertJSON(t, sub.Discounts, `[{"amount":1.25,"discountType":"Amount","remainingUsages":null}]`)
	if len(sub.ChargeTiers) != 2 {
		t.Fatalf("charge 1 chargeTiers: %d, want 2", len(sub.ChargeTiers))
	}
	t0, t1 := sub.ChargeTiers[0], sub.ChargeTiers[1]
	if t0.Label != "0 - 1" || t1.Label != "1 - 5" {
		t.Errorf("tier labels = %q, %q", t0.Label, t1.Label)
	}
	invDec(t, "tier 1 quantity", t0.Quantity, "1")
	invDec(t, "tier 1 unitPrice", t0.UnitPrice, "3")
	invDec(t, "tier 2 quantity", t1.Quantity, "2.5")
	invDec(t, "tier 2 unitPrice", t1.UnitPrice, "2.85")
	invDec(t, "tier 2 amount", t1.Amount, "7.125")
	invNil(t, "charge 1 erpChargeItem", sub.ErpChargeItem)
	if !invRawNull(sub.ErpLocationID) {
		t.Errorf("charge 1 erpLocationId = %s, want null", sub.ErpLocationID)
	}

	if pur.ID != 550002 || pur.IsReversable {
		t.Errorf("charge 2 id, reversable = %d, %v", pur.ID, pur.IsReversable)
	}
	invNil(t, "charge 2 uri", pur.URI)
	invNil(t, "charge 2 description", pur.Description)
	invDec(t, "charge 2 unitPrice", pur.UnitPrice, "99.9999")
	invDecPtr(t, "charge 2 proratedUnitPrice (5 decimals)", pur.ProratedUnitPrice, "49.99995")
	invNil(t, "charge 2 rangeQuantity", pur.RangeQuantity)
	invTime(t, "charge 2 effectiveTimestamp (2 fractional digits)", pur.EffectiveTimestamp, invUTC(2024, 3, 1, 10, 15, 0, 120000000))
	invTime(t, "charge 2 startServiceDate (0001-01-01T00:00:00)", pur.StartServiceDate, time.Time{})
	invTime(t, "charge 2 endServiceDate (0001-01-01T00:00:00)", pur.EndServiceDate, time.Time{})
	if pur.SubscriptionProduct != nil {
		t.Errorf("charge 2 subscriptionProduct = %+v, want nil", pur.SubscriptionProduct)
	}
	assertJSON(t, pur.Purchase, `{"id":880012,"name":"Onboarding package","status":"Purchased","uri":"https://billing.example.test/v1/purchases/880012"}`)
	if !invRawNull(pur.Discount) {
		t.Errorf("charge 2 discount = %s, want null", pur.Discount)
	}
	assertJSON(t, pur.Discounts, `[]`)
	if pur.ChargeTiers == nil || len(pur.ChargeTiers) != 0 {
		t.Errorf("charge 2 chargeTiers = %#v, want empty", pur.ChargeTiers)
	}
	invStr(t, "charge 2 erpChargeItem", pur.ErpChargeItem, "ONB-01")
	assertJSON(t, pur.ErpLocationID, `12`)
}

// invAPIError checks the category and returns the *APIError.
func invAPIError(t *testing.T, err error, category error) *billing.APIError {
	t.Helper()
	if err == nil {
		t.Fatal("err = nil, want an *APIError")
	}
	if !errors.Is(err, category) {
		t.Errorf("errors.Is(%v, %v) = false", err, category)
	}
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %T %v, want *billing.APIError", err, err)
	}
	return apiErr
}

// invValidation checks that err is a *ValidationError naming field.
func invValidation(t *testing.T, err error, field string) {
	t.Helper()
	var ve *billing.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %T %v, want *billing.ValidationError", err, err)
	}
	if ve.Field != field {
		t.Errorf("ValidationError.Field = %q, want %q (%v)", ve.Field, field, ve)
	}
	var apiErr *billing.APIError
	if errors.As(err, &apiErr) {
		t.Errorf("a validation failure must not be an *APIError")
	}
}

func invRequireQuery(t *testing.T, r recorded, want url.Values) {
	t.Helper()
	if !reflect.DeepEqual(r.Query, want) {
		t.Errorf("query = %v (raw %q), want %v", r.Query, r.RawQuery, want)
	}
}

var invPageHeaders = []string{
	"X-Count", "5", "X-MaxCount", "12", "X-CurrentPage", "1", "X-NextPage", "2",
	"X-PreviousPage", "0", "X-PageSize", "2", "X-MaxPageIndex", "3",
	"X-SortOrder", "Descending", "X-SortExpression", "postedTimestamp",
}

// ---------------------------------------------------------------------------
// GET /v1/Invoices
// ---------------------------------------------------------------------------

func TestInvoicesListRequest(t *testing.T) {
	tests := []struct {
		name   string
		params *billing.ListInvoicesParams
		want   url.Values
	}{
		{
			name:   "nil params send only pageNumber 0",
			params: nil,
			want:   url.Values{"pageNumber": {"0"}},
		},
		{
			name:   "page number and size",
			params: &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageNumber: 3, PageSize: 50}},
			want:   url.Values{"pageNumber": {"3"}, "pageSize": {"50"}},
		},
		{
			name: "sort on a date field, descending",
			params: &billing.ListInvoicesParams{ListOptions: billing.ListOptions{
				PageSize: 100, Sort: query.Sort{Field: "postedTimestamp", Order: query.Descending},
			}},
			want: url.Values{"pageNumber": {"0"}, "pageSize": {"100"}, "sortExpression": {"postedTimestamp"}, "sortOrder": {"Descending"}},
		},
		{
			name:   "sort on a string field defaults to Ascending",
			params: &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "erpId"}}},
			want:   url.Values{"pageNumber": {"0"}, "sortExpression": {"erpId"}, "sortOrder": {"Ascending"}},
		},
		{
			name: "filter becomes the query parameter",
			params: &billing.ListInvoicesParams{
				ListOptions: billing.ListOptions{PageNumber: 1, PageSize: 25},
				Filter:      billing.InvoiceFilter{CustomerID: query.Ints{42}, ErpID: query.StartsWith("INV")},
			},
			want: url.Values{"pageNumber": {"1"}, "pageSize": {"25"}, "query": {"customerId:42;erpId:INV*"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWire(t)
			w.on(http.MethodGet, "/v1/Invoices", http.StatusOK, `[]`)
			page, err := w.client.Invoices.List(context.Background(), tt.params)
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if page == nil || len(page.Items) != 0 {
				t.Fatalf("page = %+v, want an empty page", page)
			}
			r := w.last()
			if r.Method != http.MethodGet || r.Path != "/v1/Invoices" {
				t.Errorf("request = %s %s, want GET /v1/Invoices", r.Method, r.Path)
			}
			assertCommonHeaders(t, r, false)
			if got := r.Header.Get("Accept"); got != "application/json" {
				t.Errorf("Accept = %q, want application/json", got)
			}
			if len(r.Body) != 0 {
				t.Errorf("GET carried a body: %q", r.Body)
			}
			invRequireQuery(t, r, tt.want)
		})
	}
}

func TestInvoicesListDecodesPage(t *testing.T) {
	w := newWire(t)
	w.on(http.MethodGet, "/v1/Invoices", http.StatusOK, invListBody(t, 7, 8), invPageHeaders...)
	page, err := w.client.Invoices.List(context.Background(), &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{PageNumber: 1, PageSize: 2},
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}

	t.Run("all nine paging headers", func(t *testing.T) {
		got := []int{page.Count, page.MaxCount, page.CurrentPage, page.NextPage, page.PreviousPage, page.PageSize, page.MaxPageIndex}
		want := []int{5, 12, 1, 2, 0, 2, 3}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Count, MaxCount, CurrentPage, NextPage, PreviousPage, PageSize, MaxPageIndex = %v, want %v", got, want)
		}
		if page.SortOrder != query.Descending || page.SortExpression != "postedTimestamp" {
			t.Errorf("SortOrder, SortExpression = %q, %q", page.SortOrder, page.SortExpression)
		}
		if page.Response.StatusCode != http.StatusOK || page.Response.Header.Get("X-Count") != "5" {
			t.Errorf("Response = %d, X-Count %q", page.Response.StatusCode, page.Response.Header.Get("X-Count"))
		}
	})

	t.Run("items without charges", func(t *testing.T) {
		if len(page.Items) != 2 {
			t.Fatalf("items: %d, want 2", len(page.Items))
		}
		for i, wantID := range []int64{7, 8} {
			inv := page.Items[i]
			if inv.ID != wantID || inv.InvoiceNumber != 1000+wantID {
				t.Errorf("item %d: id %d, number %d", i, inv.ID, inv.InvoiceNumber)
			}
			if len(inv.Charges) != 0 || len(inv.ChargeGroups) != 0 {
				t.Errorf("item %d: %d charges, %d groups; list-all has none", i, len(inv.Charges), len(inv.ChargeGroups))
			}
		}
		inv := page.Items[0]
		invDec(t, "outstandingBalance", inv.OutstandingBalance, "118.933")
		invDec(t, "openingArBalance", inv.OpeningArBalance, "-25.375")
		invTime(t, "postedTimestamp", inv.PostedTimestamp, invUTC(2024, 3, 1, 10, 15, 0, 123456700))
		if inv.InvoiceCustomer == nil || inv.InvoiceCustomer.ID != 0 {
			t.Errorf("invoiceCustomer snapshot = %+v", inv.InvoiceCustomer)
		}
	})

	t.Run("X-PreviousPage -1 on the first page", func(t *testing.T) {
		w := newWire(t)
		w.on(http.MethodGet, "/v1/Invoices", http.StatusOK, invListBody(t, 7),
			"X-CurrentPage", "0", "X-PreviousPage", "-1", "X-NextPage", "1")
		p, err := w.client.Invoices.List(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.PreviousPage != -1 || p.CurrentPage != 0 || p.NextPage != 1 {
			t.Errorf("PreviousPage, CurrentPage, NextPage = %d, %d, %d; want -1, 0, 1", p.PreviousPage, p.CurrentPage, p.NextPage)
		}
		if p.Count != -1 || p.MaxPageIndex != -1 || p.SortOrder != "" {
			t.Errorf("absent headers: Count %d, MaxPageIndex %d, SortOrder %q; want -1, -1, empty", p.Count, p.MaxPageIndex, p.SortOrder)
		}
	})
}

func TestInvoicesPageHasNext(t *testing.T) {
	tests := []struct {
		name    string
		ids     []int64
		headers []string
		params  billing.ListOptions
		want    bool
	}{
		{
			name:    "first page of three",
			ids:     []int64{1, 2},
			headers: []string{"X-Count", "5", "X-CurrentPage", "0", "X-NextPage", "1", "X-PreviousPage", "-1", "X-PageSize", "2", "X-MaxPageIndex", "3"},
			want:    true,
		},
		{
			name:    "middle page",
			ids:     []int64{3, 4},
			headers: []string{"X-Count", "5", "X-CurrentPage", "1", "X-NextPage", "2", "X-PreviousPage", "0", "X-PageSize", "2", "X-MaxPageIndex", "3"},
			params:  billing.ListOptions{PageNumber: 1},
			want:    true,
		},
		{
			name:    "last page reached by X-Count",
			ids:     []int64{5},
			headers: []string{"X-Count", "5", "X-CurrentPage", "2", "X-NextPage", "3", "X-PreviousPage", "1", "X-PageSize", "2", "X-MaxPageIndex", "3"},
			params:  billing.ListOptions{PageNumber: 2},
			want:    false,
		},
		{
			name:    "last page: X-NextPage does not move forward",
			ids:     []int64{5, 6},
			headers: []string{"X-CurrentPage", "2", "X-NextPage", "2", "X-PreviousPage", "1"},
			params:  billing.ListOptions{PageNumber: 2},
			want:    false,
		},
		{
			name:    "last page: short page without count headers",
			ids:     []int64{5},
			headers: []string{"X-CurrentPage", "2", "X-PreviousPage", "1"},
			params:  billing.ListOptions{PageNumber: 2, PageSize: 2},
			want:    false,
		},
		{
			// The reference writes "none" as -1 (X-PreviousPage). A full last
			// page whose X-NextPage says -1 has no next page, even without
			// X-Count or X-MaxPageIndex.
			name:    "last page: explicit X-NextPage -1 on a full page",
			ids:     []int64{3, 4},
			headers: []string{"X-CurrentPage", "1", "X-NextPage", "-1", "X-PreviousPage", "0", "X-PageSize", "2"},
			params:  billing.ListOptions{PageNumber: 1, PageSize: 2},
			want:    false,
		},
		{
			name:    "empty page",
			ids:     nil,
			headers: []string{"X-Count", "0", "X-CurrentPage", "0", "X-NextPage", "1"},
			want:    false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWire(t)
			w.on(http.MethodGet, "/v1/Invoices", http.StatusOK, invListBody(t, tt.ids...), tt.headers...)
			p, err := w.client.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: tt.params})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Items) != len(tt.ids) {
				t.Fatalf("items: %d, want %d", len(p.Items), len(tt.ids))
			}
			if got := p.HasNext(); got != tt.want {
				t.Errorf("HasNext() = %v, want %v (items %d, CurrentPage %d, NextPage %d, Count %d, PageSize %d, MaxPageIndex %d)",
					got, tt.want, len(p.Items), p.CurrentPage, p.NextPage, p.Count, p.PageSize, p.MaxPageIndex)
			}
			if tt.want {
				if got, want := p.NextPageNumber(), tt.params.PageNumber+1; got != want {
					t.Errorf("NextPageNumber() = %d, want %d", got, want)
				}
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Filters and sorting
// ---------------------------------------------------------------------------

func TestInvoiceFiltersRendering(t *testing.T) {
	est := time.FixedZone("EST", -5*3600)
	hostile := `A;B,C*D:E%F&G=H|I[J]+K#L?M`
	from := decimal.RequireFromString("-25.375")
	to := decimal.RequireFromString("100.10")

	tests := []struct {
		name string
		path string
		call func(c *billing.Client) error
		want query.Expr
	}{
		{
			name: "InvoiceFilter on GET /v1/Invoices",
			path: "/v1/Invoices",
			call: func(c *billing.Client) error {
				_, err := c.Invoices.List(context.Background(), &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{
					// 22:30 EST is 03:30 UTC on the next day: the UTC date is sent.
					PostedTimestamp:       query.TimeRange{From: time.Date(2024, 1, 15, 22, 30, 0, 0, est), To: invUTC(2024, 2, 1, 0, 0, 0, 0), DateOnly: true},
					CreatedTimestamp:      query.TimeRange{From: invUTC(2024, 1, 1, 8, 0, 0, 999)},
					ClosingArBalance:      query.AtLeast(decimal.Zero),
					OpeningArBalance:      query.DecimalRange{From: &from, To: &to},
					CustomerID:            query.Ints{42, 43},
					InvoiceNumber:         query.Ints{1047},
					ErpID:                 query.Equals(hostile),
					CrmID:                 query.StartsWith("00;x"),
					CustomerAccountStatus: []billing.CustomerAccountStatus{billing.CustomerAccountStatusPoorStanding},
					CustomerStatus:        []billing.CustomerStatus{billing.CustomerStatusActive, billing.CustomerStatusHold},
					CustomerReference1:    query.Contains("a,b&c"),
					CustomerReference2:    query.IsEmpty(),
					CustomerReference3:    query.EndsWith("%25"),
					Raw:                   "totalInstallments:3",
				}})
				return err
			},
			want: query.Expr{
				query.CondRange("createdTimestamp", "2024-01-01T08:00:00", ""),
				query.CondRange("postedTimestamp", "2024-01-16", "2024-02-01"),
				query.CondRange("closingArBalance", "0", ""),
				query.CondRange("openingArBalance", "-25.375", "100.1"),
				query.CondIn("customerId", "42", "43"),
				query.CondEquals("invoiceNumber", "1047"),
				query.CondEquals("erpId", hostile),
				query.CondStartsWith("crmId", "00;x"),
				query.CondEquals("Customer.AccountStatus", "PoorStanding"),
				query.CondIn("Customer.Status", "Active", "Hold"),
				query.CondContains("Customer.CustomerReference.Reference1", "a,b&c"),
				query.CondIsEmpty("Customer.CustomerReference.Reference2"),
				query.CondEndsWith("Customer.CustomerReference.Reference3", "%25"),
				query.CondEquals("totalInstallments", "3"),
			},
		},
		{
			name: "CustomerInvoiceFilter on GET /v1/Customers/42/Invoices/",
			path: "/v1/Customers/42/Invoices/",
			call: func(c *billing.Client) error {
				_, err := c.Invoices.ListByCustomer(context.Background(), 42, &billing.ListCustomerInvoicesParams{Filter: billing.CustomerInvoiceFilter{
					EffectiveTimestamp: query.TimeRange{To: invUTC(2024, 3, 1, 12, 0, 0, 0)},
					PoNumber:           query.Equals("PO-1;invoiceNumber:1"),
					InvoiceNumber:      query.Ints{1, 2, 3},
					AccountingID:       query.Ints{9},
				}})
				return err
			},
			// In field order of CustomerInvoiceFilter.
			want: query.Expr{
				query.CondRange("effectiveTimestamp", "", "2024-03-01T12:00:00"),
				query.CondIn("invoiceNumber", "1", "2", "3"),
				query.CondEquals("poNumber", "PO-1;invoiceNumber:1"),
				query.CondEquals("accountingId", "9"),
			},
		},
		{
			name: "InvoiceSummaryFilter on GET /v1/customers/42/invoiceSummaries",
			path: "/v1/customers/42/invoiceSummaries",
			call: func(c *billing.Client) error {
				f := false
				_, err := c.InvoiceSummaries.List(context.Background(), 42, &billing.ListInvoiceSummariesParams{Filter: billing.InvoiceSummaryFilter{
					ID:            query.Ints{7},
					Reference:     query.Equals(hostile),
					InvoiceAmount: query.Below(decimal.RequireFromString("10.125")),
					InvoiceStatus: []billing.InvoiceStatus{billing.InvoiceStatusWrittenOff, billing.InvoiceStatusOverdue},
					Unsettled:     &f,
				}})
				return err
			},
			want: query.Expr{
				query.CondEquals("Id", "7"),
				query.CondEquals("reference", hostile),
				query.CondRange("invoiceAmount", "", "10.125"),
				query.CondIn("invoiceStatus", "WrittenOff", "Overdue"),
				query.CondEquals("unsettled", "false"),
			},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWire(t)
			w.on(http.MethodGet, tt.path, http.StatusOK, `[]`)
			if err := tt.call(w.client); err != nil {
				t.Fatalf("call: %v", err)
			}
			r := w.last()
			if r.Path != tt.path {
				t.Errorf("path = %q, want %q", r.Path, tt.path)
			}
			// No value may add URL parameters: only pageNumber and query.
			if len(r.Query) != 2 || len(r.Query["query"]) != 1 || len(r.Query["pageNumber"]) != 1 {
				t.Fatalf("URL parameters = %v (raw %q), want exactly pageNumber and one query", r.Query, r.RawQuery)
			}
			expr := r.Query.Get("query")
			got, err := query.Parse(expr)
			if err != nil {
				t.Fatalf("the server cannot parse the query %q: %v", expr, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("query %q parses to\n %#v\nwant\n %#v", expr, got, tt.want)
			}
			// Structure is carried by unescaped separators only.
			if n := strings.Count(expr, ";"); n != len(tt.want)-1 {
				t.Errorf("query %q has %d ';', want %d", expr, n, len(tt.want)-1)
			}
		})
	}

	t.Run("a value cannot smuggle URL parameters", func(t *testing.T) {
		w := newWire(t)
		w.on(http.MethodGet, "/v1/Invoices", http.StatusOK, `[]`)
		_, err := w.client.Invoices.List(context.Background(), &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{
			ErpID: query.Equals("x&pageSize=1000&query=customerId:1#frag"),
		}})
		if err != nil {
			t.Fatal(err)
		}
		r := w.last()
		if _, ok := r.Query["pageSize"]; ok || len(r.Query["query"]) != 1 {
			t.Errorf("URL parameters = %v, a value added parameters", r.Query)
		}
		got, err := query.Parse(r.Query.Get("query"))
		if err != nil {
			t.Fatal(err)
		}
		if want := (query.Expr{query.CondEquals("erpId", "x&pageSize=1000&query=customerId:1#frag")}); !reflect.DeepEqual(got, want) {
			t.Errorf("parsed %#v, want %#v", got, want)
		}
	})
}

func TestInvoicesSortOnNonSortableField(t *testing.T) {
	tests := []struct {
		name string
		call func(c *billing.Client) error
	}{
		{"List on customerId (integer filter)", func(c *billing.Client) error {
			_, err := c.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "customerId"}}})
			return err
		}},
		{"List on openingArBalance (decimal filter)", func(c *billing.Client) error {
			_, err := c.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "openingArBalance", Order: query.Descending}}})
			return err
		}},
		{"List on Customer.Status (enum filter)", func(c *billing.Client) error {
			_, err := c.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "Customer.Status"}}})
			return err
		}},
		{"List on a name that is no filter", func(c *billing.Client) error {
			_, err := c.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "invoiceAmount"}}})
			return err
		}},
		{"ListByCustomer on invoiceNumber", func(c *billing.Client) error {
			_, err := c.Invoices.ListByCustomer(context.Background(), 42, &billing.ListCustomerInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "invoiceNumber"}}})
			return err
		}},
		{"ListSummaries on customerId", func(c *billing.Client) error {
			_, err := c.InvoiceSummaries.List(context.Background(), 42, &billing.ListInvoiceSummariesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "customerId"}}})
			return err
		}},
		{"All on customerId", func(c *billing.Client) error {
			for _, err := range c.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "customerId"}}}) {
				return err
			}
			return errors.New("All yielded nothing")
		}},
		{"Count on customerId", func(c *billing.Client) error {
			_, err := c.Invoices.Count(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "customerId"}}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWire(t)
			invCatchAll(w)
			invValidation(t, tt.call(w.client), "sortExpression")
			if n := w.sent(); n != 0 {
				t.Errorf("requests sent: %d, want 0", n)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Validation before sending
// ---------------------------------------------------------------------------

func TestInvoicesValidationSendsNothing(t *testing.T) {
	ctx := context.Background()
	amount := decimal.RequireFromString("10.125")
	negative := decimal.RequireFromString("-0.01")
	tests := []struct {
		name  string
		field string
		call  func(c *billing.Client) error
	}{
		{"ListByCustomer customerId 0", "customerId", func(c *billing.Client) error {
			_, err := c.Invoices.ListByCustomer(ctx, 0, nil)
			return err
		}},
		{"ListByCustomer customerId -1", "customerId", func(c *billing.Client) error {
			_, err := c.Invoices.ListByCustomer(ctx, -1, nil)
			return err
		}},
		{"AllByCustomer customerId 0", "customerId", func(c *billing.Client) error {
			for _, err := range c.Invoices.AllByCustomer(ctx, 0, nil) {
				return err
			}
			return errors.New("AllByCustomer yielded nothing")
		}},
		{"CountByCustomer customerId -5", "customerId", func(c *billing.Client) error {
			_, err := c.Invoices.CountByCustomer(ctx, -5, nil)
			return err
		}},
		{"Get invoiceId 0", "invoiceId", func(c *billing.Client) error {
			_, err := c.Invoices.Get(ctx, 0, nil)
			return err
		}},
		{"Get invoiceId -7", "invoiceId", func(c *billing.Client) error {
			_, err := c.Invoices.Get(ctx, -7, &billing.GetInvoiceParams{GroupCharges: true})
			return err
		}},
		{"ListSummaries customerId 0", "customerId", func(c *billing.Client) error {
			_, err := c.InvoiceSummaries.List(ctx, 0, nil)
			return err
		}},
		{"CountSummaries customerId -1", "customerId", func(c *billing.Client) error {
			_, err := c.InvoiceSummaries.Count(ctx, -1, nil)
			return err
		}},
		{"WriteOff nil params", "WriteOffParams", func(c *billing.Client) error {
			_, err := c.Invoices.WriteOff(ctx, nil)
			return err
		}},
		{"WriteOff invoiceId 0", "invoiceId", func(c *billing.Client) error {
			_, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{Amount: &amount})
			return err
		}},
		{"WriteOff invoiceId -3", "invoiceId", func(c *billing.Client) error {
			_, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: -3, Amount: &amount})
			return err
		}},
		{"WriteOff nil Amount", "amount", func(c *billing.Client) error {
			_, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7})
			return err
		}},
		{"WriteOff negative Amount", "amount", func(c *billing.Client) error {
			_, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7, Amount: &negative})
			return err
		}},
		{"List negative pageNumber", "pageNumber", func(c *billing.Client) error {
			_, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageNumber: -1}})
			return err
		}},
		{"List negative pageSize", "pageSize", func(c *billing.Client) error {
			_, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: -10}})
			return err
		}},
		{"List unknown sort order", "sortOrder", func(c *billing.Client) error {
			_, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "erpId", Order: "Sideways"}}})
			return err
		}},
		{"List invalid Raw filter", "query", func(c *billing.Client) error {
			_, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{Raw: "customerId"}})
			return err
		}},
		{"List Raw filter with an unescaped bracket", "query", func(c *billing.Client) error {
			_, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{Raw: "erpId:[x]"}})
			return err
		}},
		{"List empty date range", "query", func(c *billing.Client) error {
			d := invUTC(2024, 3, 1, 0, 0, 0, 0)
			_, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{PostedTimestamp: query.TimeRange{From: d, To: d}}})
			return err
		}},
		{"List text value that is not UTF-8", "query", func(c *billing.Client) error {
			_, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{ErpID: query.Equals("ab\xffcd")}})
			return err
		}},
		{"ListByCustomer invalid Raw filter", "query", func(c *billing.Client) error {
			_, err := c.Invoices.ListByCustomer(ctx, 42, &billing.ListCustomerInvoicesParams{Filter: billing.CustomerInvoiceFilter{Raw: ";;"}})
			return err
		}},
		{"ListSummaries invalid Raw filter", "query", func(c *billing.Client) error {
			_, err := c.InvoiceSummaries.List(ctx, 42, &billing.ListInvoiceSummariesParams{Filter: billing.InvoiceSummaryFilter{Raw: "1bad:x"}})
			return err
		}},
		{"ListSummaries empty decimal range", "query", func(c *billing.Client) error {
			_, err := c.InvoiceSummaries.List(ctx, 42, &billing.ListInvoiceSummariesParams{Filter: billing.InvoiceSummaryFilter{
				InvoiceAmount: query.DecimalBetween(decimal.RequireFromString("5"), decimal.RequireFromString("5.000")),
			}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWire(t)
			invCatchAll(w)
			invValidation(t, tt.call(w.client), tt.field)
			if n := w.sent(); n != 0 {
				t.Errorf("requests sent: %d, want 0", n)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// GET /v1/Customers/{customerId}/Invoices/
// ---------------------------------------------------------------------------

func TestInvoicesListByCustomer(t *testing.T) {
	tests := []struct {
		name   string
		id     int64
		params *billing.ListCustomerInvoicesParams
		path   string
		want   url.Values
	}{
		{
			name: "nil params", id: 42, path: "/v1/Customers/42/Invoices/",
			want: url.Values{"pageNumber": {"0"}},
		},
		{
			name: "showTrackedItems, paging and sort", id: 9000000001, path: "/v1/Customers/9000000001/Invoices/",
			params: &billing.ListCustomerInvoicesParams{
				ListOptions:      billing.ListOptions{PageNumber: 2, PageSize: 10, Sort: query.Sort{Field: "poNumber", Order: query.Ascending}},
				ShowTrackedItems: true,
				Filter:           billing.CustomerInvoiceFilter{CrmID: query.IsEmpty()},
			},
			want: url.Values{
				"pageNumber": {"2"}, "pageSize": {"10"}, "showTrackedItems": {"true"},
				"sortExpression": {"poNumber"}, "sortOrder": {"Ascending"}, "query": {"crmId:[empty]"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWire(t)
			w.on(http.MethodGet, tt.path, http.StatusOK, "["+invFixture(t, "invoice.json")+"]",
				"X-Count", "1", "X-CurrentPage", strconv.Itoa(invPageOf(tt.params)), "X-PreviousPage", "-1")
			page, err := w.client.Invoices.ListByCustomer(context.Background(), tt.id, tt.params)
			if err != nil {
				t.Fatalf("ListByCustomer: %v", err)
			}
			r := w.last()
			if r.Method != http.MethodGet || r.Path != tt.path {
				t.Errorf("request = %s %s, want GET %s (trailing slash and casing kept)", r.Method, r.Path, tt.path)
			}
			assertCommonHeaders(t, r, false)
			if got := r.Header.Get("Accept"); got != "application/json" {
				t.Errorf("Accept = %q", got)
			}
			invRequireQuery(t, r, tt.want)
			if len(page.Items) != 1 {
				t.Fatalf("items: %d, want 1", len(page.Items))
			}
			inv := page.Items[0]
			invAssertCommon(t, &inv)
			if len(inv.ChargeGroups) != 0 || len(inv.Charges) != 2 {
				t.Fatalf("charges %d, groups %d; want 2 charges, no groups", len(inv.Charges), len(inv.ChargeGroups))
			}
			invAssertCharges(t, inv.Charges[0], inv.Charges[1])
			if page.Count != 1 || page.PreviousPage != -1 {
				t.Errorf("Count, PreviousPage = %d, %d", page.Count, page.PreviousPage)
			}
		})
	}
}

func invPageOf(p *billing.ListCustomerInvoicesParams) int {
	if p == nil {
		return 0
	}
	return p.PageNumber
}

// ---------------------------------------------------------------------------
// GET /v1/Invoices/{invoiceId}
// ---------------------------------------------------------------------------

func TestInvoicesGet(t *testing.T) {
	tests := []struct {
		name    string
		params  *billing.GetInvoiceParams
		fixture string
		want    url.Values
	}{
		{"nil params: no query", nil, "invoice.json", url.Values{}},
		{"showTrackedItems", &billing.GetInvoiceParams{ShowTrackedItems: true}, "invoice.json", url.Values{"showTrackedItems": {"true"}}},
		{"groupCharges", &billing.GetInvoiceParams{GroupCharges: true}, "invoice_grouped.json", url.Values{"groupCharges": {"true"}}},
		{"both flags", &billing.GetInvoiceParams{ShowTrackedItems: true, GroupCharges: true}, "invoice_grouped.json", url.Values{"showTrackedItems": {"true"}, "groupCharges": {"true"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWire(t)
			w.on(http.MethodGet, "/v1/Invoices/7", http.StatusOK, invFixture(t, tt.fixture))
			inv, err := w.client.Invoices.Get(context.Background(), 7, tt.params)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			r := w.last()
			if r.Method != http.MethodGet || r.Path != "/v1/Invoices/7" {
				t.Errorf("request = %s %s, want GET /v1/Invoices/7", r.Method, r.Path)
			}
			assertCommonHeaders(t, r, false)
			if got := r.Header.Get("Accept"); got != "application/json" {
				t.Errorf("Accept = %q", got)
			}
			if len(tt.want) == 0 && r.RawQuery != "" {
				t.Errorf("query = %q, want none", r.RawQuery)
			} else if len(tt.want) > 0 {
				invRequireQuery(t, r, tt.want)
			}
			invAssertCommon(t, inv)
		})
	}
}

func TestInvoicesGetDecodes(t *testing.T) {
	t.Run("charges when not grouped", func(t *testing.T) {
		w := newWire(t)
		w.on(http.MethodGet, "/v1/Invoices/7", http.StatusOK, invFixture(t, "invoice.json"))
		inv, err := w.client.Invoices.Get(context.Background(), 7, nil)
		if err != nil {
			t.Fatal(err)
		}
		invAssertCommon(t, inv)
		if len(inv.ChargeGroups) != 0 {
			t.Errorf("chargeGroups = %d, want none", len(inv.ChargeGroups))
		}
		if len(inv.Charges) != 2 {
			t.Fatalf("charges = %d, want 2", len(inv.Charges))
		}
		invAssertCharges(t, inv.Charges[0], inv.Charges[1])
		invDec(t, "outstandingBalance", inv.OutstandingBalance, "118.933")
		invDec(t, "totalWriteoffs", inv.TotalWriteoffs, "0")
		if !inv.Unsettled {
			t.Errorf("unsettled = false, want true")
		}
		invNil(t, "crmId", inv.CrmID)
		if inv.PaymentSchedules[0].Status != billing.PaymentScheduleStatusDue {
			t.Errorf("paymentSchedules[0].status = %q, want Due", inv.PaymentSchedules[0].Status)
		}
	})

	t.Run("chargeGroups when grouped", func(t *testing.T) {
		w := newWire(t)
		w.on(http.MethodGet, "/v1/Invoices/7", http.StatusOK, invFixture(t, "invoice_grouped.json"))
		inv, err := w.client.Invoices.Get(context.Background(), 7, &billing.GetInvoiceParams{GroupCharges: true})
		if err != nil {
			t.Fatal(err)
		}
		invAssertCommon(t, inv)
		invAssertGroups(t, inv)
	})

	t.Run("unknown fields and a missing modifiedTimestamp are accepted", func(t *testing.T) {
		w := newWire(t)
		w.on(http.MethodGet, "/v1/Invoices/8", http.StatusOK,
			`{"id":8,"uri":null,"invoiceNumber":1,"effectiveTimestamp":"2024-01-01T00:00:00","postedTimestamp":null,"charges":[],"subtotal":0.1,"brandNewField":{"x":[1,2]},"openingArBalance":-0.001}`)
		inv, err := w.client.Invoices.Get(context.Background(), 8, nil)
		if err != nil {
			t.Fatal(err)
		}
		if inv.ID != 8 || !inv.ModifiedTimestamp.IsZero() || !inv.PostedTimestamp.IsZero() || inv.InvoiceCustomer != nil {
			t.Errorf("decoded %+v", inv)
		}
		invDec(t, "subtotal", inv.Subtotal, "0.1")
		invDec(t, "openingArBalance", inv.OpeningArBalance, "-0.001")
	})

	t.Run("a body that is not an invoice is a DecodeError", func(t *testing.T) {
		w := newWire(t)
		w.on(http.MethodGet, "/v1/Invoices/7", http.StatusOK, `{"id":"seven"}`)
		_, err := w.client.Invoices.Get(context.Background(), 7, nil)
		var de *billing.DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("err = %T %v, want *billing.DecodeError", err, err)
		}
		if de.StatusCode != 200 || de.Path != "/v1/Invoices/7" || de.Applied || errors.Is(err, billing.ErrOutcomeUnknown) {
			t.Errorf("DecodeError = %+v; a read is never an unknown outcome", de)
		}
	})
}

// invAssertGroups checks the grouped fixture's chargeGroups.
func invAssertGroups(t *testing.T, inv *billing.Invoice) {
	t.Helper()
	if len(inv.Charges) != 0 {
		t.Errorf("charges = %d, want none when grouped", len(inv.Charges))
	}
	if len(inv.ChargeGroups) != 2 {
		t.Fatalf("chargeGroups = %d, want 2", len(inv.ChargeGroups))
	}
	sub, pur := inv.ChargeGroups[0], inv.ChargeGroups[1]
	if sub.Name != "Pro plan (monthly)" {
		t.Errorf("group 1 name = %q", sub.Name)
	}
	invStr(t, "group 1 description", sub.Description, "Subscription #3301")
	invStr(t, "group 1 reference", sub.Reference, "SUB-3301")
	if sub.SubscriptionID == nil || *sub.SubscriptionID != 3301 {
		t.Errorf("group 1 subscriptionId = %v, want 3301", sub.SubscriptionID)
	}
	if pur.Name != "Onboarding package" {
		t.Errorf("group 2 name = %q", pur.Name)
	}
	invNil(t, "group 2 description", pur.Description)
	invNil(t, "group 2 reference", pur.Reference)
	invNil(t, "group 2 subscriptionId (purchase group)", pur.SubscriptionID)
	if len(sub.Charges) != 1 || len(pur.Charges) != 1 {
		t.Fatalf("group charges = %d, %d; want 1, 1", len(sub.Charges), len(pur.Charges))
	}
	invAssertCharges(t, sub.Charges[0], pur.Charges[0])
}

// ---------------------------------------------------------------------------
// GET /v1/customers/{customerId}/invoiceSummaries
// ---------------------------------------------------------------------------

const invSummaries = `[
 {"customerId":42,"reference":null,"companyName":"Analytical Engines Ltd","customerParentId":null,"customerName":"Ada Lovelace",
  "effectiveTimestamp":"2024-03-01T00:00:00","postedTimestamp":"2024-03-01T10:15:00.1234567Z","dueDate":"2024-03-31T00:00:00+00:00",
  "modifiedTimestamp":"0001-01-01T00:00:00","invoiceStatus":"PartiallyWrittenOff","invoiceNumber":"1047",
  "invoiceAmount":118.933,"sumOfCharges":110.1249,"totalPayments":0,"totalCreditNotes":0.00,"writeoffs":0,"outstandingBalance":118.933,
  "currency":"CAD","taxServiceId":null,"unsettled":true,"id":7,"uri":"https://billing.example.test/v1/Invoices/7"},
 {"customerId":42,"reference":"REF-2","companyName":null,"customerParentId":40,"customerName":"Ada Lovelace",
  "effectiveTimestamp":"2024-04-01T00:00:00.0","postedTimestamp":"2024-04-01T00:00:01","dueDate":"2024-05-01T00:00:00",
  "modifiedTimestamp":"2024-04-02T00:00:00.000001+00:00","invoiceStatus":"Overdue","invoiceNumber":"INV-1048",
  "invoiceAmount":12345678.9012,"sumOfCharges":12345678.9012,"totalPayments":1.005,"totalCreditNotes":-2.5,"writeoffs":0.001,"outstandingBalance":12345675.3952,
  "currency":"USD","taxServiceId":"TX-9","unsettled":false,"id":8,"uri":null}
]`

func TestInvoicesListSummaries(t *testing.T) {
	w := newWire(t)
	w.on(http.MethodGet, "/v1/customers/42/invoiceSummaries", http.StatusOK, invSummaries,
		"X-Count", "2", "X-MaxCount", "2", "X-CurrentPage", "0", "X-NextPage", "1", "X-PreviousPage", "-1",
		"X-PageSize", "50", "X-MaxPageIndex", "1", "X-SortOrder", "Ascending", "X-SortExpression", "postedTimestamp")
	page, err := w.client.InvoiceSummaries.List(context.Background(), 42, &billing.ListInvoiceSummariesParams{
		ListOptions: billing.ListOptions{PageSize: 50, Sort: query.Sort{Field: "postedTimestamp"}},
		Filter:      billing.InvoiceSummaryFilter{InvoiceStatus: []billing.InvoiceStatus{billing.InvoiceStatusDue}},
	})
	if err != nil {
		t.Fatalf("ListSummaries: %v", err)
	}

	t.Run("request", func(t *testing.T) {
		r := w.last()
		if r.Method != http.MethodGet || r.Path != "/v1/customers/42/invoiceSummaries" {
			t.Errorf("request = %s %s, want GET /v1/customers/42/invoiceSummaries", r.Method, r.Path)
		}
		assertCommonHeaders(t, r, false)
		invRequireQuery(t, r, url.Values{
			"pageNumber": {"0"}, "pageSize": {"50"}, "sortExpression": {"postedTimestamp"},
			"sortOrder": {"Ascending"}, "query": {"invoiceStatus:Due"},
		})
	})

	t.Run("page", func(t *testing.T) {
		if page.Count != 2 || page.PageSize != 50 || page.PreviousPage != -1 || page.HasNext() {
			t.Errorf("page: Count %d, PageSize %d, PreviousPage %d, HasNext %v", page.Count, page.PageSize, page.PreviousPage, page.HasNext())
		}
	})

	t.Run("items", func(t *testing.T) {
		if len(page.Items) != 2 {
			t.Fatalf("items: %d", len(page.Items))
		}
		a, b := page.Items[0], page.Items[1]
		if a.ID != 7 || a.CustomerID != 42 || a.CustomerName != "Ada Lovelace" || a.InvoiceNumber != "1047" || a.Currency != "CAD" || !a.Unsettled {
			t.Errorf("summary 1 = %+v", a)
		}
		invNil(t, "summary 1 reference", a.Reference)
		invNil(t, "summary 1 customerParentId", a.CustomerParentID)
		invStr(t, "summary 1 companyName", a.CompanyName, "Analytical Engines Ltd")
		if a.InvoiceStatus != "PartiallyWrittenOff" || a.InvoiceStatus.IsKnown() {
			t.Errorf("unknown invoiceStatus = %q, want kept as sent", a.InvoiceStatus)
		}
		invTime(t, "summary 1 postedTimestamp", a.PostedTimestamp, invUTC(2024, 3, 1, 10, 15, 0, 123456700))
		invTime(t, "summary 1 dueDate", a.DueDate, invUTC(2024, 3, 31, 0, 0, 0, 0))
		invTime(t, "summary 1 modifiedTimestamp", a.ModifiedTimestamp, time.Time{})
		invDec(t, "summary 1 sumOfCharges", a.SumOfCharges, "110.1249")
		if !invRawNull(a.TaxServiceID) {
			t.Errorf("summary 1 taxServiceId = %s", a.TaxServiceID)
		}

		if b.InvoiceStatus != billing.InvoiceStatusOverdue || b.InvoiceNumber != "INV-1048" || b.Unsettled {
			t.Errorf("summary 2 = %+v", b)
		}
		if b.CustomerParentID == nil || *b.CustomerParentID != 40 {
			t.Errorf("summary 2 customerParentId = %v", b.CustomerParentID)
		}
		invStr(t, "summary 2 reference", b.Reference, "REF-2")
		invNil(t, "summary 2 uri", b.URI)
		invDec(t, "summary 2 invoiceAmount", b.InvoiceAmount, "12345678.9012")
		invDec(t, "summary 2 totalPayments", b.TotalPayments, "1.005")
		invDec(t, "summary 2 totalCreditNotes", b.TotalCreditNotes, "-2.5")
		invDec(t, "summary 2 writeoffs", b.Writeoffs, "0.001")
		invDec(t, "summary 2 outstandingBalance", b.OutstandingBalance, "12345675.3952")
		invTime(t, "summary 2 modifiedTimestamp (6 digits, +00:00)", b.ModifiedTimestamp, invUTC(2024, 4, 2, 0, 0, 0, 1000))
		assertJSON(t, b.TaxServiceID, `"TX-9"`)
	})
}

// ---------------------------------------------------------------------------
// POST /v1/invoices/writeoff
// ---------------------------------------------------------------------------

func TestInvoicesWriteOffRequest(t *testing.T) {
	d := func(s string) *decimal.Decimal { v := decimal.RequireFromString(s); return &v }
	tests := []struct {
		name   string
		params *billing.WriteOffParams
		want   string
	}{
		{"amount with three decimals", &billing.WriteOffParams{InvoiceID: 7, Amount: d("10.125")}, `{"invoiceId":7,"amount":10.125}`},
		{"zero amount is sent as 0", &billing.WriteOffParams{InvoiceID: 7, Amount: d("0")}, `{"invoiceId":7,"amount":0}`},
		{"zero with an exponent is still 0", &billing.WriteOffParams{InvoiceID: 7, Amount: d("0.000")}, `{"invoiceId":7,"amount":0}`},
		{"large amount keeps every digit", &billing.WriteOffParams{InvoiceID: 9007199254740993, Amount: d("12345678901234567.891234")}, `{"invoiceId":9007199254740993,"amount":12345678901234567.891234}`},
		{"reference is sent when set", &billing.WriteOffParams{InvoiceID: 7, Amount: d("118.933"), Reference: "AR cleanup <2024> & co"}, `{"invoiceId":7,"amount":118.933,"reference":"AR cleanup <2024> & co"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWire(t)
			// The answer is the invoice written off: its id is the one sent.
			answer := strings.Replace(invFixture(t, "invoice_grouped.json"), `  "id": 7,`, fmt.Sprintf(`  "id": %d,`, tt.params.InvoiceID), 1)
			w.on(http.MethodPost, "/v1/invoices/writeoff", http.StatusOK, answer)
			inv, err := w.client.Invoices.WriteOff(context.Background(), tt.params)
			if err != nil {
				t.Fatalf("WriteOff: %v", err)
			}
			r := w.last()
			if r.Method != http.MethodPost || r.Path != "/v1/invoices/writeoff" {
				t.Errorf("request = %s %s, want POST /v1/invoices/writeoff", r.Method, r.Path)
			}
			if r.RawQuery != "" {
				t.Errorf("query = %q, want none", r.RawQuery)
			}
			assertCommonHeaders(t, r, true)
			if got := r.Header.Get("Accept"); got != "application/json" {
				t.Errorf("Accept = %q", got)
			}
			assertJSON(t, r.Body, tt.want)
			if tt.params.Reference == "" && bytes.Contains(r.Body, []byte("reference")) {
				t.Errorf("empty reference was sent: %s", r.Body)
			}
			if inv == nil || inv.ID != tt.params.InvoiceID {
				t.Fatalf("invoice = %+v", inv)
			}
		})
	}
}

func TestInvoicesWriteOffDecodesUpdatedInvoice(t *testing.T) {
	w := newWire(t)
	w.on(http.MethodPost, "/v1/invoices/writeoff", http.StatusOK, invFixture(t, "invoice_grouped.json"))
	amount := decimal.RequireFromString("118.933")
	inv, err := w.client.Invoices.WriteOff(context.Background(), &billing.WriteOffParams{InvoiceID: 7, Amount: &amount}, billing.SuppressEvents())
	if err != nil {
		t.Fatalf("WriteOff: %v", err)
	}
	t.Run("suppress events header", func(t *testing.T) {
		if got := w.last().Header.Get("X-SUPPRESS-ALL-EVENTS"); got != "True" {
			t.Errorf("X-SUPPRESS-ALL-EVENTS = %q, want True", got)
		}
	})
	t.Run("invoice after the write-off", func(t *testing.T) {
		invAssertCommon(t, inv)
		invAssertGroups(t, inv)
		invDec(t, "outstandingBalance", inv.OutstandingBalance, "0")
		invDec(t, "totalWriteoffs", inv.TotalWriteoffs, "118.933")
		if inv.Unsettled {
			t.Errorf("unsettled = true after the write-off")
		}
		invStr(t, "crmId", inv.CrmID, "0065g00000XyZ12AAB")
		if s := inv.PaymentSchedules[0]; s.Status != billing.PaymentScheduleStatusWrittenOff || !s.OutstandingBalance.IsZero() {
			t.Errorf("paymentSchedules[0] = %q, %s; want WrittenOff, 0", s.Status, s.OutstandingBalance)
		}
	})
}

func TestInvoicesWriteOffUndecodableAnswer(t *testing.T) {
	// The write-off was applied (2xx) but its result cannot be read: the
	// caller must learn that the change happened.
	w := newWire(t)
	w.on(http.MethodPost, "/v1/invoices/writeoff", http.StatusOK, `{"id":7,"outstandingBalance":"zero"`)
	amount := decimal.RequireFromString("118.933")
	inv, err := w.client.Invoices.WriteOff(context.Background(), &billing.WriteOffParams{InvoiceID: 7, Amount: &amount})
	if inv != nil {
		t.Errorf("invoice = %+v, want nil with the error", inv)
	}
	var de *billing.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("err = %T %v, want *billing.DecodeError", err, err)
	}
	if !de.Applied || de.StatusCode != 200 || de.Method != http.MethodPost || de.Path != "/v1/invoices/writeoff" {
		t.Errorf("DecodeError = %+v, want Applied on POST /v1/invoices/writeoff", de)
	}
	if !errors.Is(err, billing.ErrOutcomeUnknown) {
		t.Errorf("errors.Is(err, ErrOutcomeUnknown) = false for an applied write-off whose answer was lost")
	}
	if n := w.sent(); n != 1 {
		t.Errorf("requests sent: %d, want 1", n)
	}
}

// ---------------------------------------------------------------------------
// Errors (section 7)
// ---------------------------------------------------------------------------

func TestInvoicesErrors(t *testing.T) {
	ctx := context.Background()
	amount := decimal.RequireFromString("10.125")
	list := func(c *billing.Client) error {
		_, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{ErpID: query.Equals("secret-filter-value")}})
		return err
	}
	byCustomer := func(c *billing.Client) error {
		_, err := c.Invoices.ListByCustomer(ctx, 404404, &billing.ListCustomerInvoicesParams{ShowTrackedItems: true})
		return err
	}
	get := func(c *billing.Client) error {
		_, err := c.Invoices.Get(ctx, 7, &billing.GetInvoiceParams{GroupCharges: true})
		return err
	}
	summaries := func(c *billing.Client) error {
		_, err := c.InvoiceSummaries.List(ctx, 42, nil)
		return err
	}
	writeOff := func(c *billing.Client) error {
		_, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7, Amount: &amount})
		return err
	}
	const html502 = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

	tests := []struct {
		name      string
		method    string
		path      string
		status    int
		body      string
		headers   []string
		call      func(*billing.Client) error
		category  error
		errorID   int64
		key       string // "" when Errors must be empty
		value     string
		bodyHas   string // excerpt expected in APIError.Body
		notInMsgs []string
	}{
		{
			name: "400 invalid query on List", method: http.MethodGet, path: "/v1/Invoices", status: 400,
			body: errorBody(400, "Api Error", "The query parameter is not valid: unknown field 'foo'"),
			call: list, category: billing.ErrBadRequest, errorID: 1234, key: "Api Error",
			value: "The query parameter is not valid: unknown field 'foo'", notInMsgs: []string{"secret-filter-value", "?"},
		},
		{
			name: "400 invalid query on ListByCustomer", method: http.MethodGet, path: "/v1/Customers/404404/Invoices/", status: 400,
			body: errorBody(400, "Api Error", "Invalid query"), call: byCustomer, category: billing.ErrBadRequest,
			errorID: 1234, key: "Api Error", value: "Invalid query", notInMsgs: []string{"showTrackedItems"},
		},
		{
			name: "404 unknown customer on ListByCustomer", method: http.MethodGet, path: "/v1/Customers/404404/Invoices/", status: 404,
			body: errorBody(404, "Api Error", "Customer 404404 does not exist"), call: byCustomer, category: billing.ErrNotFound,
			errorID: 1234, key: "Api Error", value: "Customer 404404 does not exist",
		},
		{
			name: "404 unknown invoice on Get", method: http.MethodGet, path: "/v1/Invoices/7", status: 404,
			body: errorBody(404, "Api Error", "Invoice 7 not found"), call: get, category: billing.ErrNotFound,
			errorID: 1234, key: "Api Error", value: "Invoice 7 not found", notInMsgs: []string{"groupCharges"},
		},
		{
			name: "404 unknown customer on ListSummaries", method: http.MethodGet, path: "/v1/customers/42/invoiceSummaries", status: 404,
			body: errorBody(404, "Api Error", "Customer not found"), call: summaries, category: billing.ErrNotFound,
			errorID: 1234, key: "Api Error", value: "Customer not found",
		},
		{
			name: "400 write-off amount differs from the balance", method: http.MethodPost, path: "/v1/invoices/writeoff", status: 400,
			body: errorBody(400, "Api Error", "Amount must equal the outstanding balance of 118.933"), call: writeOff,
			category: billing.ErrBadRequest, errorID: 1234, key: "Api Error", value: "Amount must equal the outstanding balance of 118.933",
		},
		{
			name: "404 write-off without the permission (no key)", method: http.MethodPost, path: "/v1/invoices/writeoff", status: 404,
			body: `{"ErrorId":98765,"HttpStatusCode":404,"Errors":[]}`, call: writeOff, category: billing.ErrNotFound, errorID: 98765,
		},
		{
			name: "401 unauthorized", method: http.MethodGet, path: "/v1/Invoices", status: 401,
			body: errorBody(401, "Api Error", "Authorization has been denied for this request."), call: list,
			category: billing.ErrUnauthorized, errorID: 1234, key: "Api Error", value: "Authorization has been denied for this request.",
			notInMsgs: []string{testKey},
		},
		{
			name: "409 conflict on write-off", method: http.MethodPost, path: "/v1/invoices/writeoff", status: 409,
			body: errorBody(409, "Api Error", "Invoice is locked"), call: writeOff, category: billing.ErrConflict,
			errorID: 1234, key: "Api Error", value: "Invoice is locked",
		},
		{
			name: "500 server error on Get", method: http.MethodGet, path: "/v1/Invoices/7", status: 500,
			body: errorBody(500, "Api Error", "An unexpected error occurred"), call: get, category: billing.ErrServer,
			errorID: 1234, key: "Api Error", value: "An unexpected error occurred",
		},
		{
			name: "500 on write-off", method: http.MethodPost, path: "/v1/invoices/writeoff", status: 500,
			body: errorBody(500, "Api Error", "boom"), call: writeOff, category: billing.ErrServer,
			errorID: 1234, key: "Api Error", value: "boom",
		},
		{
			name: "HTML 502 from a proxy", method: http.MethodGet, path: "/v1/Invoices", status: 502, body: html502,
			headers: []string{"Content-Type", "text/html"}, call: list, category: billing.ErrServer,
			bodyHas: "<title>502 Bad Gateway</title>",
		},
		{
			name: "HTML 502 from a proxy on ListSummaries", method: http.MethodGet, path: "/v1/customers/42/invoiceSummaries", status: 502, body: html502,
			headers: []string{"Content-Type", "text/html"}, call: summaries, category: billing.ErrServer,
			bodyHas: "nginx",
		},
	}
	others := []error{billing.ErrBadRequest, billing.ErrUnauthorized, billing.ErrNotFound, billing.ErrConflict, billing.ErrRateLimited, billing.ErrServer}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWire(t)
			w.on(tt.method, tt.path, tt.status, tt.body, tt.headers...)
			err := tt.call(w.client)
			apiErr := invAPIError(t, err, tt.category)
			for _, o := range others {
				if o != tt.category && errors.Is(err, o) {
					t.Errorf("errors.Is(err, %v) = true for a %d", o, tt.status)
				}
			}
			if apiErr.StatusCode != tt.status {
				t.Errorf("StatusCode = %d, want %d", apiErr.StatusCode, tt.status)
			}
			if apiErr.ErrorID != tt.errorID {
				t.Errorf("ErrorID = %d, want %d", apiErr.ErrorID, tt.errorID)
			}
			if apiErr.Method != tt.method || apiErr.Path != tt.path {
				t.Errorf("Method, Path = %q, %q; want %q, %q (no query)", apiErr.Method, apiErr.Path, tt.method, tt.path)
			}
			if tt.key != "" {
				if len(apiErr.Errors) != 1 || apiErr.Errors[0].Key != tt.key || apiErr.Errors[0].Value != tt.value {
					t.Errorf("Errors = %+v, want [{%s %s}]", apiErr.Errors, tt.key, tt.value)
				}
				if !apiErr.HasKey(strings.ToLower(tt.key)) {
					t.Errorf("HasKey(%q) = false", strings.ToLower(tt.key))
				}
				if !strings.Contains(apiErr.Error(), tt.value) {
					t.Errorf("Error() = %q, want the server's message", apiErr.Error())
				}
				if apiErr.Body != "" {
					t.Errorf("Body = %q, want empty when the envelope was decoded", apiErr.Body)
				}
			} else if len(apiErr.Errors) != 0 {
				t.Errorf("Errors = %+v, want none", apiErr.Errors)
			}
			if tt.bodyHas != "" {
				if !strings.Contains(apiErr.Body, tt.bodyHas) {
					t.Errorf("Body = %q, want an excerpt containing %q", apiErr.Body, tt.bodyHas)
				}
				if strings.ContainsAny(apiErr.Body, "\r\n") || len(apiErr.Body) > 512 {
					t.Errorf("Body = %q, want a short one-line excerpt", apiErr.Body)
				}
				if !strings.Contains(apiErr.Error(), "502 Bad Gateway") {
					t.Errorf("Error() = %q", apiErr.Error())
				}
			}
			for _, s := range append(tt.notInMsgs, testKey) {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error message %q contains %q", err.Error(), s)
				}
			}
			if n := w.sent(); n != 1 {
				t.Errorf("requests sent: %d, want 1 (retries are off)", n)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// All, Pages and Count
// ---------------------------------------------------------------------------

// invPager answers list requests page by page: pages[n] holds the ids of
// page n, and headers(n) the paging headers of its answer.
func invPager(t *testing.T, pages [][]int64, headers func(n int) []string) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		n, err := strconv.Atoi(req.URL.Query().Get("pageNumber"))
		if err != nil {
			return httpmock.NewStringResponse(400, errorBody(400, "Api Error", "bad pageNumber")), nil
		}
		if n > len(pages)+2 {
			// Guard: an iterator that does not stop fails instead of hanging.
			return httpmock.NewStringResponse(400, errorBody(400, "Api Error", "paged past the end")), nil
		}
		var ids []int64
		if n >= 0 && n < len(pages) {
			ids = pages[n]
		}
		resp := httpmock.NewStringResponse(200, invListBody(t, ids...))
		resp.Header.Set("Content-Type", "application/json")
		h := headers(n)
		for i := 0; i+1 < len(h); i += 2 {
			resp.Header.Set(h[i], h[i+1])
		}
		return resp, nil
	}
}

func invRequestedPages(w *wire) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, r := range w.requests {
		out = append(out, r.Query.Get("pageNumber"))
	}
	return out
}

func TestInvoicesAllPagesCount(t *testing.T) {
	ctx := context.Background()
	threePages := [][]int64{{1, 2}, {3, 4}, {5}}
	// Only X-CurrentPage and X-NextPage; X-NextPage -1 on the last page.
	nextOnly := func(n int) []string {
		next := n + 1
		if n >= 2 {
			next = -1
		}
		return []string{"X-CurrentPage", strconv.Itoa(n), "X-NextPage", strconv.Itoa(next)}
	}
	full := func(n int) []string {
		prev := n - 1
		return []string{"X-Count", "5", "X-MaxCount", "5", "X-CurrentPage", strconv.Itoa(n), "X-NextPage", strconv.Itoa(n + 1),
			"X-PreviousPage", strconv.Itoa(prev), "X-PageSize", "2", "X-MaxPageIndex", "3"}
	}
	// The last page points at itself.
	selfNext := func(n int) []string {
		return []string{"X-CurrentPage", strconv.Itoa(n), "X-NextPage", strconv.Itoa(min(n+1, 2))}
	}

	for _, hc := range []struct {
		name    string
		headers func(int) []string
	}{
		{"X-NextPage and X-CurrentPage only", nextOnly},
		{"all paging headers", full},
		{"last page's X-NextPage is itself", selfNext},
	} {
		t.Run("All over three pages: "+hc.name, func(t *testing.T) {
			w := newWire(t)
			w.onResponder(http.MethodGet, "/v1/Invoices", invPager(t, threePages, hc.headers))
			var ids []int64
			for inv, err := range w.client.Invoices.All(ctx, &billing.ListInvoicesParams{
				ListOptions: billing.ListOptions{PageSize: 2},
				Filter:      billing.InvoiceFilter{CustomerID: query.Ints{42}},
			}) {
				if err != nil {
					t.Fatalf("All: %v", err)
				}
				ids = append(ids, inv.ID)
			}
			if want := []int64{1, 2, 3, 4, 5}; !reflect.DeepEqual(ids, want) {
				t.Errorf("ids = %v, want %v", ids, want)
			}
			if got, want := invRequestedPages(w), []string{"0", "1", "2"}; !reflect.DeepEqual(got, want) {
				t.Errorf("pageNumbers requested = %v, want %v", got, want)
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			for _, r := range w.requests {
				if r.Query.Get("pageSize") != "2" || r.Query.Get("query") != "customerId:42" || r.Path != "/v1/Invoices" {
					t.Errorf("request %s %v lost the params", r.Path, r.Query)
				}
			}
		})
	}

	t.Run("Pages starts at params.PageNumber and leaves params alone", func(t *testing.T) {
		w := newWire(t)
		w.onResponder(http.MethodGet, "/v1/Invoices", invPager(t, threePages, full))
		params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageNumber: 1, PageSize: 2}}
		var current []int
		for p, err := range w.client.Invoices.Pages(ctx, params) {
			if err != nil {
				t.Fatal(err)
			}
			current = append(current, p.CurrentPage)
		}
		if want := []int{1, 2}; !reflect.DeepEqual(current, want) {
			t.Errorf("pages = %v, want %v", current, want)
		}
		if params.PageNumber != 1 {
			t.Errorf("params.PageNumber changed to %d", params.PageNumber)
		}
	})

	t.Run("stopping early sends no further request", func(t *testing.T) {
		w := newWire(t)
		w.onResponder(http.MethodGet, "/v1/Invoices", invPager(t, threePages, full))
		for inv, err := range w.client.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 2}}) {
			if err != nil || inv.ID != 1 {
				t.Fatalf("first = %d, %v", inv.ID, err)
			}
			break
		}
		if n := w.sent(); n != 1 {
			t.Errorf("requests sent: %d, want 1", n)
		}
	})

	t.Run("an error on page 2 is yielded once after page 1's items", func(t *testing.T) {
		w := newWire(t)
		w.onResponder(http.MethodGet, "/v1/Invoices", func(req *http.Request) (*http.Response, error) {
			if req.URL.Query().Get("pageNumber") == "1" {
				return httpmock.NewStringResponse(500, errorBody(500, "Api Error", "boom")), nil
			}
			return invPager(t, threePages, full)(req)
		})
		var ids []int64
		var errs []error
		for inv, err := range w.client.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 2}}) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			ids = append(ids, inv.ID)
		}
		if !reflect.DeepEqual(ids, []int64{1, 2}) || len(errs) != 1 || !errors.Is(errs[0], billing.ErrServer) {
			t.Errorf("ids %v, errs %v; want [1 2] then one ErrServer", ids, errs)
		}
	})

	t.Run("a server that repeats a page stops with ErrPagination", func(t *testing.T) {
		w := newWire(t)
		w.onResponder(http.MethodGet, "/v1/Invoices", invPager(t, [][]int64{{1, 2}, {1, 2}}, func(int) []string {
			return []string{"X-CurrentPage", "0", "X-NextPage", "1"}
		}))
		var last error
		n := 0
		for _, err := range w.client.Invoices.All(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 2}}) {
			n++
			last = err
		}
		if !errors.Is(last, billing.ErrPagination) || n != 3 {
			t.Errorf("yields %d, last err %v; want 2 items then ErrPagination", n, last)
		}
	})

	t.Run("AllByCustomer and AllSummaries follow the pages too", func(t *testing.T) {
		w := newWire(t)
		w.onResponder(http.MethodGet, "/v1/Customers/42/Invoices/", invPager(t, threePages, nextOnly))
		var ids []int64
		for inv, err := range w.client.Invoices.AllByCustomer(ctx, 42, &billing.ListCustomerInvoicesParams{ListOptions: billing.ListOptions{PageSize: 2}}) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, inv.ID)
		}
		if !reflect.DeepEqual(ids, []int64{1, 2, 3, 4, 5}) {
			t.Errorf("AllByCustomer ids = %v", ids)
		}

		w2 := newWire(t)
		w2.onResponder(http.MethodGet, "/v1/customers/42/invoiceSummaries", func(req *http.Request) (*http.Response, error) {
			n, _ := strconv.Atoi(req.URL.Query().Get("pageNumber"))
			if n > 5 {
				return httpmock.NewStringResponse(400, errorBody(400, "Api Error", "paged past the end")), nil
			}
			body := fmt.Sprintf(`[{"id":%d,"customerId":42,"invoiceNumber":"%d","invoiceAmount":1.5}]`, 10+n, n)
			resp := httpmock.NewStringResponse(200, body)
			resp.Header.Set("X-CurrentPage", strconv.Itoa(n))
			resp.Header.Set("X-NextPage", strconv.Itoa(n+1))
			resp.Header.Set("X-MaxPageIndex", "2")
			return resp, nil
		})
		var sids []int64
		for s, err := range w2.client.InvoiceSummaries.All(ctx, 42, nil) {
			if err != nil {
				t.Fatal(err)
			}
			sids = append(sids, s.ID)
		}
		if !reflect.DeepEqual(sids, []int64{10, 11, 12}) {
			t.Errorf("AllSummaries ids = %v, want [10 11 12]", sids)
		}
		if got := invRequestedPages(w2); !reflect.DeepEqual(got, []string{"0", "1", "2"}) {
			t.Errorf("summary pages requested = %v", got)
		}
	})

	countTests := []struct {
		name string
		path string
		call func(c *billing.Client) (int, error)
	}{
		{"Count", "/v1/Invoices", func(c *billing.Client) (int, error) {
			return c.Invoices.Count(ctx, &billing.ListInvoicesParams{
				ListOptions: billing.ListOptions{PageNumber: 4, PageSize: 200},
				Filter:      billing.InvoiceFilter{CustomerID: query.Ints{42}},
			})
		}},
		{"CountByCustomer", "/v1/Customers/42/Invoices/", func(c *billing.Client) (int, error) {
			return c.Invoices.CountByCustomer(ctx, 42, &billing.ListCustomerInvoicesParams{
				ListOptions: billing.ListOptions{PageNumber: 4, PageSize: 200},
				Filter:      billing.CustomerInvoiceFilter{InvoiceNumber: query.Ints{1047}},
			})
		}},
		{"CountSummaries", "/v1/customers/42/invoiceSummaries", func(c *billing.Client) (int, error) {
			return c.InvoiceSummaries.Count(ctx, 42, &billing.ListInvoiceSummariesParams{
				ListOptions: billing.ListOptions{PageNumber: 4, PageSize: 200},
				Filter:      billing.InvoiceSummaryFilter{CustomerID: query.Ints{42}},
			})
		}},
	}
	for _, ct := range countTests {
		t.Run(ct.name+" sends pageSize=1 and returns X-Count", func(t *testing.T) {
			w := newWire(t)
			w.on(http.MethodGet, ct.path, http.StatusOK, `[{"id":1}]`, "X-Count", "1234", "X-CurrentPage", "0")
			n, err := ct.call(w.client)
			if err != nil {
				t.Fatalf("%s: %v", ct.name, err)
			}
			if n != 1234 {
				t.Errorf("count = %d, want 1234", n)
			}
			r := w.last()
			if r.Path != ct.path || r.Query.Get("pageSize") != "1" || r.Query.Get("pageNumber") != "0" {
				t.Errorf("request %s %v, want pageSize=1 and pageNumber=0", r.Path, r.Query)
			}
			if r.Query.Get("query") == "" {
				t.Errorf("the filter was not sent with the count request: %v", r.Query)
			}
		})
	}

	t.Run("Count without X-Count is an error", func(t *testing.T) {
		w := newWire(t)
		w.on(http.MethodGet, "/v1/Invoices", http.StatusOK, `[]`)
		if _, err := w.client.Invoices.Count(ctx, nil); err == nil {
			t.Error("Count = nil error without an X-Count header")
		}
	})
}

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

func invUTC(y int, m time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, m, d, h, mi, s, ns, time.UTC)
}

// invWant is testdata/invoice.json as the SDK must decode it: two charges,
// one from a subscription and one from a purchase; amounts of three to
// five decimals and a negative one; timestamps in every form the service
// writes (0 to 7 fractional digits, Z, +00:00, -05:00, and
// 0001-01-01T00:00:00 for none), all in UTC; a customer snapshot of id 0
// and nulls; a payment schedule status the SDK does not know, kept as
// sent; and the members of unshown shape kept as the server sent them.
func invWant() billing.Invoice {
	d := decimal.RequireFromString
	dp := func(s string) *decimal.Decimal { v := d(s); return &v }
	s := billing.Ptr[string]
	ts := func(y int, m time.Month, day, h, mi, sec, ns int) billing.Timestamp {
		return billing.NewTimestamp(invUTC(y, m, day, h, mi, sec, ns))
	}
	return billing.Invoice{
		ID:                 7,
		URI:                s("https://billing.example.test/v1/Invoices/7"),
		InvoiceNumber:      1047,
		InvoiceSignature:   "<p>Thank you for your business &amp; prompt payment.</p>\n**Northwind Billing**",
		EffectiveTimestamp: ts(2024, 3, 1, 0, 0, 0, 0),           // no offset, no fraction
		PostedTimestamp:    ts(2024, 3, 1, 10, 15, 0, 123456700), // 7 fractional digits
		ModifiedTimestamp:  ts(2024, 3, 2, 8, 30, 45, 500000000), // Z, 1 fractional digit
		Charges: []billing.Charge{
			{
				ID:                 550001,
				URI:                s("https://billing.example.test/v1/charges/550001"),
				Quantity:           d("3.5"),
				UnitPrice:          d("2.893"),
				Amount:             d("10.125"),
				Name:               "API calls (tiered)",
				Description:        s("Usage for February"),
				GLCode:             "4000-USAGE",
				EffectiveTimestamp: ts(2024, 3, 1, 0, 0, 0, 0),             // Z
				StartServiceDate:   ts(2024, 2, 1, 0, 0, 0, 0),             // +00:00
				EndServiceDate:     ts(2024, 2, 29, 23, 59, 59, 999000000), // 3 fractional digits
				RangeQuantity:      dp("3.5"),
				IsReversable:       true,
				Discount:           json.RawMessage(`{"amount":1.25,"discountType":"Amount","configuredDiscountAmount":1.25}`),
				Discounts:          json.RawMessage(`[{"amount":1.25,"discountType":"Amount","remainingUsages":null}]`),
				SubscriptionProduct: &billing.ResourceRef{
					ID: 77001, URI: s("https://billing.example.test/v1/subscriptionProducts/77001"),
				},
				Purchase: json.RawMessage(`null`),
				ChargeTiers: []billing.ChargeTier{
					{Label: "0 - 1", Quantity: d("1"), UnitPrice: d("3"), Amount: d("3")},
					{Label: "1 - 5", Quantity: d("2.5"), UnitPrice: d("2.85"), Amount: d("7.125")},
				},
				ErpLocationID: json.RawMessage(`null`),
			},
			{
				ID:                 550002,
				Quantity:           d("1"),
				UnitPrice:          d("99.9999"),
				Amount:             d("99.9999"),
				Name:               "Onboarding package",
				GLCode:             "4100-SERVICES",
				EffectiveTimestamp: ts(2024, 3, 1, 10, 15, 0, 120000000), // 2 fractional digits
				ProratedUnitPrice:  dp("49.99995"),                       // 5 decimals
				// StartServiceDate and EndServiceDate: 0001-01-01T00:00:00, none.
				Discount:      json.RawMessage(`null`),
				Discounts:     json.RawMessage(`[]`),
				Purchase:      json.RawMessage(`{"id":880012,"name":"Onboarding package","status":"Purchased","uri":"https://billing.example.test/v1/purchases/880012"}`),
				ChargeTiers:   []billing.ChargeTier{},
				ErpChargeItem: s("ONB-01"),
				ErpLocationID: json.RawMessage(`12`),
			},
		},
		Subtotal:           d("110.1249"),
		InvoiceAmount:      d("118.933"),
		TotalPayments:      d("0"),
		Unsettled:          true,
		OutstandingBalance: d("118.933"),
		Terms:              "Net30",
		DefaultTerms:       "Net30",
		IsDefaultTerms:     true,
		CustomerID:         42,
		InvoiceCustomer: &billing.InvoiceCustomer{
			ID:                         0, // a snapshot
			FirstName:                  s("Ada"),
			LastName:                   s("Lovelace"),
			CompanyName:                s("Analytical Engines Ltd"),
			PrimaryEmail:               s("ada@example.test"),
			Title:                      s("Ms"),
			Status:                     billing.CustomerStatusActive,
			CustomerAccountStatus:      billing.CustomerAccountStatusGood,
			Currency:                   s("CAD"),
			CustomerReference:          json.RawMessage(`null`),
			CustomerAcquisition:        json.RawMessage(`null`),
			MonthlyRecurringRevenue:    d("1250.5"),
			NetMonthlyRecurringRevenue: d("1100.125"),
			ModifiedTimestamp:          ts(2024, 2, 28, 17, 5, 9, 123450000), // 5 fractional digits
			CreatedTimestamp:           ts(2019, 11, 5, 9, 0, 0, 0),          // -05:00
		},
		InvoiceCustomerAddressPreference: &billing.AddressPreference{
			ID:          9001,
			ContactName: s("Accounts Payable"),
			BillingAddress: &billing.Address{
				ID: 31001, CustomerAddressPreferenceID: 9001, CompanyName: s("Analytical Engines Ltd"),
				Line1: s("12 Difference Way"), CountryID: 124, Country: s("Canada"), StateID: billing.Ptr[int64](9),
				State: s("Ontario"), City: s("Toronto"), PostalZip: s("M5V 2T6"), AddressType: s("Billing"), Valid: true,
			},
			ShippingAddress: &billing.Address{
				ID: 31002, CustomerAddressPreferenceID: 9001,
				Line1: s("1 Harbour Sq"), Line2: s("Unit 400"), CountryID: 840, Country: s("United States"),
				State: s(""), // an empty string, not null
				City:  s("Seattle"), PostalZip: s("98101"),
			},
		},
		SumOfCreditNotes: d("0"),
		TotalWriteoffs:   d("0"),
		Taxes:            json.RawMessage(`[{"name":"HST","amount":8.8081,"percentage":13,"taxRuleId":7}]`),
		TotalTaxes:       d("8.8081"),
		TotalDiscount:    d("1.25"),
		PaymentSchedules: []billing.PaymentSchedule{
			{DueDateTimestamp: ts(2024, 3, 31, 0, 0, 0, 0), Status: billing.PaymentScheduleStatusDue, Amount: d("59.4665"), OutstandingBalance: d("59.4665")},
			{DueDateTimestamp: ts(2024, 4, 30, 0, 0, 0, 0), Status: "PartiallyPaid", Amount: d("59.4665"), OutstandingBalance: d("59.4665"), DaysDueAfterTerm: 30},
		},
		Notes:            s("Thank you"),
		OpeningArBalance: d("-25.375"),
		ClosingArBalance: d("93.558"),
		InvoiceRevisions: json.RawMessage(`[]`),
		RollUpPdf:        true,
	}
}

// invGroupedWant is testdata/invoice_grouped.json as the SDK must decode
// it: the answer of a read that groups charges, and of the write-off that
// settled invWant. Its charges are invWant's, in a group per subscription
// or purchase.
func invGroupedWant() billing.Invoice {
	inv := invWant()
	sub, pur := inv.Charges[0], inv.Charges[1]
	inv.Charges = nil
	inv.ChargeGroups = []billing.ChargeGroup{
		{
			Name: "Pro plan (monthly)", Description: billing.Ptr("Subscription #3301"), Reference: billing.Ptr("SUB-3301"),
			SubscriptionID: billing.Ptr[int64](3301), Charges: []billing.Charge{sub},
		},
		{Name: "Onboarding package", Charges: []billing.Charge{pur}}, // a purchase's group: no subscriptionId
	}
	inv.Unsettled = false
	inv.OutstandingBalance = decimal.Zero
	inv.TotalWriteoffs = decimal.RequireFromString("118.933")
	for i := range inv.PaymentSchedules {
		inv.PaymentSchedules[i].OutstandingBalance = decimal.Zero
	}
	inv.PaymentSchedules[0].Status = billing.PaymentScheduleStatusWrittenOff
	inv.CrmID = billing.Ptr("0065g00000XyZ12AAB")
	return inv
}

// invCheck fails the test when got is not want, naming what differs.
func invCheck(t *testing.T, what string, got *billing.Invoice, want billing.Invoice) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no invoice", what)
	}
	if d := diff(want, *got); d != "" {
		t.Errorf("%s: the invoice differs from the fixture's:\n%s", what, d)
	}
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

// invAssertRead checks a read: GET of path exactly as given, with the
// headers every request carries, asking for JSON, without a body.
func invAssertRead(t *testing.T, r recorded, path string) {
	t.Helper()
	if r.Method != http.MethodGet || r.Path != path {
		t.Errorf("request = %s %s, want GET %s (trailing slash and casing kept)", r.Method, r.Path, path)
	}
	assertCommonHeaders(t, r, false)
	if got := r.Header.Get("Accept"); got != "application/json" {
		t.Errorf("Accept = %q, want application/json", got)
	}
	if len(r.Body) != 0 {
		t.Errorf("GET carried a body: %q", r.Body)
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
	t.Parallel()
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
			t.Parallel()
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
			invAssertRead(t, r, "/v1/Invoices")
			invRequireQuery(t, r, tt.want)
		})
	}
}

func TestInvoicesListDecodesPage(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on(http.MethodGet, "/v1/Invoices", http.StatusOK, invListBody(t, 7, 8), invPageHeaders...)
	page, err := w.client.Invoices.List(context.Background(), &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{PageNumber: 1, PageSize: 2},
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}

	t.Run("all nine paging headers", func(t *testing.T) {
		want := billing.PageInfo{
			Count: 5, MaxCount: 12, CurrentPage: 1, NextPage: 2, PreviousPage: 0, PageSize: 2, MaxPageIndex: 3,
			SortOrder: query.Descending, SortExpression: "postedTimestamp",
		}
		if d := diff(want, page.PageInfo); d != "" {
			t.Errorf("PageInfo differs:\n%s", d)
		}
		if page.Response.StatusCode != http.StatusOK || page.Response.Header.Get("X-Count") != "5" {
			t.Errorf("Response = %d, X-Count %q", page.Response.StatusCode, page.Response.Header.Get("X-Count"))
		}
	})

	t.Run("items without charges", func(t *testing.T) {
		// Each item is the fixture with its own id and number (invListBody
		// leaves the rest, uri included, as it is), and no charges: the
		// list-all answer has none.
		var want []billing.Invoice
		for _, id := range []int64{7, 8} {
			inv := invWant()
			inv.ID, inv.InvoiceNumber, inv.Charges = id, 1000+id, []billing.Charge{}
			want = append(want, inv)
		}
		if d := diff(want, page.Items); d != "" {
			t.Errorf("items differ:\n%s", d)
		}
	})

	t.Run("X-PreviousPage -1 on the first page", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodGet, "/v1/Invoices", http.StatusOK, invListBody(t, 7),
			"X-CurrentPage", "0", "X-PreviousPage", "-1", "X-NextPage", "1")
		p, err := w.client.Invoices.List(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Absent headers are -1, or empty.
		want := billing.PageInfo{Count: -1, MaxCount: -1, CurrentPage: 0, NextPage: 1, PreviousPage: -1, PageSize: -1, MaxPageIndex: -1}
		if d := diff(want, p.PageInfo); d != "" {
			t.Errorf("PageInfo differs:\n%s", d)
		}
	})
}

func TestInvoicesPageHasNext(t *testing.T) {
	t.Parallel()
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
			t.Parallel()
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
	t.Parallel()
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
			t.Parallel()
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
		t.Parallel()
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
	t.Parallel()
	tests := []struct {
		name string
		call func(c *billing.Client) error
	}{
		{"List on customerId (integer filter)", func(c *billing.Client) error {
			return errOf(c.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "customerId"}}}))
		}},
		{"List on openingArBalance (decimal filter)", func(c *billing.Client) error {
			return errOf(c.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "openingArBalance", Order: query.Descending}}}))
		}},
		{"List on Customer.Status (enum filter)", func(c *billing.Client) error {
			return errOf(c.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "Customer.Status"}}}))
		}},
		{"List on a name that is no filter", func(c *billing.Client) error {
			return errOf(c.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "invoiceAmount"}}}))
		}},
		{"ListByCustomer on invoiceNumber", func(c *billing.Client) error {
			return errOf(c.Invoices.ListByCustomer(context.Background(), 42, &billing.ListCustomerInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "invoiceNumber"}}}))
		}},
		{"ListSummaries on customerId", func(c *billing.Client) error {
			return errOf(c.InvoiceSummaries.List(context.Background(), 42, &billing.ListInvoiceSummariesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "customerId"}}}))
		}},
		{"All on customerId", func(c *billing.Client) error {
			for _, err := range c.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "customerId"}}}) {
				return err
			}
			return errors.New("All yielded nothing")
		}},
		{"Count on customerId", func(c *billing.Client) error {
			return errOf(c.Invoices.Count(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "customerId"}}}))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			invCatchAll(w)
			assertRefused(t, w, tt.call(w.client), "sortExpression")
		})
	}
}

// ---------------------------------------------------------------------------
// Validation before sending
// ---------------------------------------------------------------------------

func TestInvoicesValidationSendsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	amount := decimal.RequireFromString("10.125")
	negative := decimal.RequireFromString("-0.01")
	tests := []struct {
		name  string
		field string
		call  func(c *billing.Client) error
	}{
		{"ListByCustomer customerId 0", "customerId", func(c *billing.Client) error { return errOf(c.Invoices.ListByCustomer(ctx, 0, nil)) }},
		{"ListByCustomer customerId -1", "customerId", func(c *billing.Client) error { return errOf(c.Invoices.ListByCustomer(ctx, -1, nil)) }},
		{"AllByCustomer customerId 0", "customerId", func(c *billing.Client) error {
			for _, err := range c.Invoices.AllByCustomer(ctx, 0, nil) {
				return err
			}
			return errors.New("AllByCustomer yielded nothing")
		}},
		{"CountByCustomer customerId -5", "customerId", func(c *billing.Client) error { return errOf(c.Invoices.CountByCustomer(ctx, -5, nil)) }},
		{"Get invoiceId 0", "invoiceId", func(c *billing.Client) error { return errOf(c.Invoices.Get(ctx, 0, nil)) }},
		{"Get invoiceId -7", "invoiceId", func(c *billing.Client) error {
			return errOf(c.Invoices.Get(ctx, -7, &billing.GetInvoiceParams{GroupCharges: true}))
		}},
		{"ListSummaries customerId 0", "customerId", func(c *billing.Client) error { return errOf(c.InvoiceSummaries.List(ctx, 0, nil)) }},
		{"CountSummaries customerId -1", "customerId", func(c *billing.Client) error { return errOf(c.InvoiceSummaries.Count(ctx, -1, nil)) }},
		{"WriteOff nil params", "WriteOffParams", func(c *billing.Client) error { return errOf(c.Invoices.WriteOff(ctx, nil)) }},
		{"WriteOff invoiceId 0", "invoiceId", func(c *billing.Client) error {
			return errOf(c.Invoices.WriteOff(ctx, &billing.WriteOffParams{Amount: &amount}))
		}},
		{"WriteOff invoiceId -3", "invoiceId", func(c *billing.Client) error {
			return errOf(c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: -3, Amount: &amount}))
		}},
		{"WriteOff nil Amount", "amount", func(c *billing.Client) error {
			return errOf(c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7}))
		}},
		{"WriteOff negative Amount", "amount", func(c *billing.Client) error {
			return errOf(c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7, Amount: &negative}))
		}},
		{"List negative pageNumber", "pageNumber", func(c *billing.Client) error {
			return errOf(c.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageNumber: -1}}))
		}},
		{"List negative pageSize", "pageSize", func(c *billing.Client) error {
			return errOf(c.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: -10}}))
		}},
		{"List unknown sort order", "sortOrder", func(c *billing.Client) error {
			return errOf(c.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "erpId", Order: "Sideways"}}}))
		}},
		{"List invalid Raw filter", "query", func(c *billing.Client) error {
			return errOf(c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{Raw: "customerId"}}))
		}},
		{"List Raw filter with an unescaped bracket", "query", func(c *billing.Client) error {
			return errOf(c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{Raw: "erpId:[x]"}}))
		}},
		{"List empty date range", "query", func(c *billing.Client) error {
			d := invUTC(2024, 3, 1, 0, 0, 0, 0)
			_, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{PostedTimestamp: query.TimeRange{From: d, To: d}}})
			return err
		}},
		{"List text value that is not UTF-8", "query", func(c *billing.Client) error {
			return errOf(c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{ErpID: query.Equals("ab\xffcd")}}))
		}},
		{"ListByCustomer invalid Raw filter", "query", func(c *billing.Client) error {
			return errOf(c.Invoices.ListByCustomer(ctx, 42, &billing.ListCustomerInvoicesParams{Filter: billing.CustomerInvoiceFilter{Raw: ";;"}}))
		}},
		{"ListSummaries invalid Raw filter", "query", func(c *billing.Client) error {
			return errOf(c.InvoiceSummaries.List(ctx, 42, &billing.ListInvoiceSummariesParams{Filter: billing.InvoiceSummaryFilter{Raw: "1bad:x"}}))
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
			t.Parallel()
			w := newWire(t)
			invCatchAll(w)
			assertRefused(t, w, tt.call(w.client), tt.field)
		})
	}
}

// ---------------------------------------------------------------------------
// GET /v1/Customers/{customerId}/Invoices/
// ---------------------------------------------------------------------------

func TestInvoicesListByCustomer(t *testing.T) {
	t.Parallel()
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
			t.Parallel()
			w := newWire(t)
			w.on(http.MethodGet, tt.path, http.StatusOK, "["+invFixture(t, "invoice.json")+"]",
				"X-Count", "1", "X-CurrentPage", strconv.Itoa(invPageOf(tt.params)), "X-PreviousPage", "-1")
			page, err := w.client.Invoices.ListByCustomer(context.Background(), tt.id, tt.params)
			if err != nil {
				t.Fatalf("ListByCustomer: %v", err)
			}
			r := w.last()
			invAssertRead(t, r, tt.path)
			invRequireQuery(t, r, tt.want)
			if d := diff([]billing.Invoice{invWant()}, page.Items); d != "" {
				t.Errorf("items differ from the fixture's:\n%s", d)
			}
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
	t.Parallel()
	tests := []struct {
		name    string
		params  *billing.GetInvoiceParams
		fixture string
		want    url.Values
		wantInv billing.Invoice
	}{
		{"nil params: no query", nil, "invoice.json", url.Values{}, invWant()},
		{"showTrackedItems", &billing.GetInvoiceParams{ShowTrackedItems: true}, "invoice.json", url.Values{"showTrackedItems": {"true"}}, invWant()},
		{"groupCharges", &billing.GetInvoiceParams{GroupCharges: true}, "invoice_grouped.json", url.Values{"groupCharges": {"true"}}, invGroupedWant()},
		{"both flags", &billing.GetInvoiceParams{ShowTrackedItems: true, GroupCharges: true}, "invoice_grouped.json", url.Values{"showTrackedItems": {"true"}, "groupCharges": {"true"}}, invGroupedWant()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.on(http.MethodGet, "/v1/Invoices/7", http.StatusOK, invFixture(t, tt.fixture))
			inv, err := w.client.Invoices.Get(context.Background(), 7, tt.params)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			r := w.last()
			invAssertRead(t, r, "/v1/Invoices/7")
			if len(tt.want) == 0 && r.RawQuery != "" {
				t.Errorf("query = %q, want none", r.RawQuery)
			} else if len(tt.want) > 0 {
				invRequireQuery(t, r, tt.want)
			}
			invCheck(t, "Get", inv, tt.wantInv)
		})
	}
}

func TestInvoicesGetDecodes(t *testing.T) {
	t.Parallel()
	t.Run("charges when not grouped", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodGet, "/v1/Invoices/7", http.StatusOK, invFixture(t, "invoice.json"))
		inv, err := w.client.Invoices.Get(context.Background(), 7, nil)
		if err != nil {
			t.Fatal(err)
		}
		invCheck(t, "Get", inv, invWant())
		// An enum says whether the SDK knows its value, and keeps one it
		// does not know as sent.
		if c := inv.InvoiceCustomer; c == nil || !c.Status.IsKnown() {
			t.Errorf("invoiceCustomer = %+v, want its status Active, known", c)
		}
		if ps := inv.PaymentSchedules; len(ps) < 2 || ps[1].Status.IsKnown() {
			t.Errorf("paymentSchedules = %+v, want the second's status PartiallyPaid, not known", ps)
		}
	})

	t.Run("chargeGroups when grouped", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodGet, "/v1/Invoices/7", http.StatusOK, invFixture(t, "invoice_grouped.json"))
		inv, err := w.client.Invoices.Get(context.Background(), 7, &billing.GetInvoiceParams{GroupCharges: true})
		if err != nil {
			t.Fatal(err)
		}
		invCheck(t, "Get", inv, invGroupedWant())
	})

	t.Run("unknown fields and a missing modifiedTimestamp are accepted", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodGet, "/v1/Invoices/8", http.StatusOK,
			`{"id":8,"uri":null,"invoiceNumber":1,"effectiveTimestamp":"2024-01-01T00:00:00","postedTimestamp":null,"charges":[],"subtotal":0.1,"brandNewField":{"x":[1,2]},"openingArBalance":-0.001}`)
		inv, err := w.client.Invoices.Get(context.Background(), 8, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The unknown member is kept in Extra; the absent and null
		// timestamps are zero.
		want := billing.Invoice{
			ID: 8, InvoiceNumber: 1, EffectiveTimestamp: billing.NewTimestamp(invUTC(2024, 1, 1, 0, 0, 0, 0)),
			Charges: []billing.Charge{}, Subtotal: decimal.RequireFromString("0.1"), OpeningArBalance: decimal.RequireFromString("-0.001"),
			Extra: billing.Extra{"brandNewField": json.RawMessage(`{"x":[1,2]}`)},
		}
		invCheck(t, "Get", inv, want)
	})

	t.Run("a body that is not an invoice is a DecodeError", func(t *testing.T) {
		t.Parallel()
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
	t.Parallel()
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
		want := billing.PageInfo{
			Count: 2, MaxCount: 2, CurrentPage: 0, NextPage: 1, PreviousPage: -1, PageSize: 50, MaxPageIndex: 1,
			SortOrder: query.Ascending, SortExpression: "postedTimestamp",
		}
		if d := diff(want, page.PageInfo); d != "" {
			t.Errorf("PageInfo differs:\n%s", d)
		}
		if page.HasNext() {
			t.Errorf("HasNext() = true on a page that holds all %d", page.Count)
		}
	})

	t.Run("items", func(t *testing.T) {
		d := decimal.RequireFromString
		ts := func(y int, m time.Month, day, h, mi, sec, ns int) billing.Timestamp {
			return billing.NewTimestamp(invUTC(y, m, day, h, mi, sec, ns))
		}
		want := []billing.InvoiceSummary{
			{
				ID: 7, URI: billing.Ptr("https://billing.example.test/v1/Invoices/7"), CustomerID: 42,
				CompanyName: billing.Ptr("Analytical Engines Ltd"), CustomerName: "Ada Lovelace",
				EffectiveTimestamp: ts(2024, 3, 1, 0, 0, 0, 0),
				PostedTimestamp:    ts(2024, 3, 1, 10, 15, 0, 123456700),
				DueDate:            ts(2024, 3, 31, 0, 0, 0, 0),
				// ModifiedTimestamp: 0001-01-01T00:00:00, none.
				InvoiceStatus: "PartiallyWrittenOff", // unknown to the SDK, kept as sent
				InvoiceNumber: "1047", InvoiceAmount: d("118.933"), SumOfCharges: d("110.1249"), TotalPayments: d("0"),
				TotalCreditNotes: d("0"), Writeoffs: d("0"), OutstandingBalance: d("118.933"), Currency: "CAD",
				TaxServiceID: json.RawMessage(`null`), Unsettled: true,
			},
			{
				ID: 8, CustomerID: 42, Reference: billing.Ptr("REF-2"), CustomerParentID: billing.Ptr[int64](40),
				CustomerName:       "Ada Lovelace",
				EffectiveTimestamp: ts(2024, 4, 1, 0, 0, 0, 0),
				PostedTimestamp:    ts(2024, 4, 1, 0, 0, 1, 0),
				DueDate:            ts(2024, 5, 1, 0, 0, 0, 0),
				ModifiedTimestamp:  ts(2024, 4, 2, 0, 0, 0, 1000), // 6 digits, +00:00
				InvoiceStatus:      billing.InvoiceStatusOverdue, InvoiceNumber: "INV-1048",
				InvoiceAmount: d("12345678.9012"), SumOfCharges: d("12345678.9012"), TotalPayments: d("1.005"),
				TotalCreditNotes: d("-2.5"), Writeoffs: d("0.001"), OutstandingBalance: d("12345675.3952"), Currency: "USD",
				TaxServiceID: json.RawMessage(`"TX-9"`),
			},
		}
		if d := diff(want, page.Items); d != "" {
			t.Errorf("items differ:\n%s", d)
		}
		if len(page.Items) > 0 && page.Items[0].InvoiceStatus.IsKnown() {
			t.Errorf("invoiceStatus %q is known, want it unknown to the SDK", page.Items[0].InvoiceStatus)
		}
	})
}

// ---------------------------------------------------------------------------
// POST /v1/invoices/writeoff
// ---------------------------------------------------------------------------

func TestInvoicesWriteOffRequest(t *testing.T) {
	t.Parallel()
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
			t.Parallel()
			w := newWire(t)
			// The answer is the invoice written off: its id is the one sent.
			answer := strings.Replace(invFixture(t, "invoice_grouped.json"), `  "id": 7,`, fmt.Sprintf(`  "id": %d,`, tt.params.InvoiceID), 1)
			w.on(http.MethodPost, "/v1/invoices/writeoff", http.StatusOK, answer)
			inv, err := w.client.Invoices.WriteOff(context.Background(), tt.params)
			if err != nil {
				t.Fatalf("WriteOff: %v", err)
			}
			r := w.last()
			assertWrite(t, r, http.MethodPost, "/v1/invoices/writeoff", tt.want)
			if got := r.Header.Get("Accept"); got != "application/json" {
				t.Errorf("Accept = %q", got)
			}
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
	t.Parallel()
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
		// Settled: nothing outstanding, the balance written off, the
		// first instalment WrittenOff, a crmId.
		invCheck(t, "WriteOff", inv, invGroupedWant())
	})
}

func TestInvoicesWriteOffUndecodableAnswer(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	ctx := context.Background()
	amount := decimal.RequireFromString("10.125")
	list := func(c *billing.Client) error {
		return errOf(c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{ErpID: query.Equals("secret-filter-value")}}))
	}
	byCustomer := func(c *billing.Client) error {
		return errOf(c.Invoices.ListByCustomer(ctx, 404404, &billing.ListCustomerInvoicesParams{ShowTrackedItems: true}))
	}
	get := func(c *billing.Client) error {
		return errOf(c.Invoices.Get(ctx, 7, &billing.GetInvoiceParams{GroupCharges: true}))
	}
	summaries := func(c *billing.Client) error { return errOf(c.InvoiceSummaries.List(ctx, 42, nil)) }
	writeOff := func(c *billing.Client) error {
		return errOf(c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7, Amount: &amount}))
	}
	const html502 = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

	type errCase struct {
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
	}
	// enveloped is a case whose answer is the service's error envelope
	// (errorBody), with one "Api Error" whose value is message.
	enveloped := func(name, method, path string, status int, message string, call func(*billing.Client) error, category error, notInMsgs ...string) errCase {
		return errCase{
			name: name, method: method, path: path, status: status, body: errorBody(status, "Api Error", message),
			call: call, category: category, errorID: 1234, key: "Api Error", value: message, notInMsgs: notInMsgs,
		}
	}
	tests := []errCase{
		enveloped("400 invalid query on List", http.MethodGet, "/v1/Invoices", 400,
			"The query parameter is not valid: unknown field 'foo'", list, billing.ErrBadRequest, "secret-filter-value", "?"),
		enveloped("400 invalid query on ListByCustomer", http.MethodGet, "/v1/Customers/404404/Invoices/", 400,
			"Invalid query", byCustomer, billing.ErrBadRequest, "showTrackedItems"),
		enveloped("404 unknown customer on ListByCustomer", http.MethodGet, "/v1/Customers/404404/Invoices/", 404,
			"Customer 404404 does not exist", byCustomer, billing.ErrNotFound),
		enveloped("404 unknown invoice on Get", http.MethodGet, "/v1/Invoices/7", 404,
			"Invoice 7 not found", get, billing.ErrNotFound, "groupCharges"),
		enveloped("404 unknown customer on ListSummaries", http.MethodGet, "/v1/customers/42/invoiceSummaries", 404,
			"Customer not found", summaries, billing.ErrNotFound),
		enveloped("400 write-off amount differs from the balance", http.MethodPost, "/v1/invoices/writeoff", 400,
			"Amount must equal the outstanding balance of 118.933", writeOff, billing.ErrBadRequest),
		{
			name: "404 write-off without the permission (no key)", method: http.MethodPost, path: "/v1/invoices/writeoff", status: 404,
			body: `{"ErrorId":98765,"HttpStatusCode":404,"Errors":[]}`, call: writeOff, category: billing.ErrNotFound, errorID: 98765,
		},
		enveloped("401 unauthorized", http.MethodGet, "/v1/Invoices", 401,
			"Authorization has been denied for this request.", list, billing.ErrUnauthorized, testKey),
		enveloped("409 conflict on write-off", http.MethodPost, "/v1/invoices/writeoff", 409,
			"Invoice is locked", writeOff, billing.ErrConflict),
		enveloped("500 server error on Get", http.MethodGet, "/v1/Invoices/7", 500,
			"An unexpected error occurred", get, billing.ErrServer),
		enveloped("500 on write-off", http.MethodPost, "/v1/invoices/writeoff", 500,
			"boom", writeOff, billing.ErrServer),
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
			t.Parallel()
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
	t.Parallel()
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

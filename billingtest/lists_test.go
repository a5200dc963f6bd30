package billingtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/ledger"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// Helpers of the list tests are prefixed lt, so that they cannot clash
// with those of the other test files of the package.

var ltNow = time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC)

func ltTime(s string) time.Time {
	layout := "2006-01-02T15:04:05"
	if len(s) == len(time.DateOnly) {
		layout = time.DateOnly
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		panic(err)
	}
	return t
}

// ltMust returns a func that takes an Add method's results, which Go
// only passes on as a whole: ltMust(t)(srv.AddCustomer(c)).
func ltMust(t *testing.T) func(int64, error) int64 {
	return func(id int64, err error) int64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
}

// ltGet sends a GET with the API key; kv are URL parameters as name,
// value pairs, unescaped.
func ltGet(t *testing.T, srv *Server, path string, kv ...string) wireAnswer {
	t.Helper()
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return wtDo(t, srv, http.MethodGet, path, "")
}

// ltIDs decodes a 200 list answer into its ids, checking it is an array.
func ltIDs(t *testing.T, r wireAnswer) []int64 {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, want 200; body %s", r.status, r.body)
	}
	if len(r.body) == 0 || r.body[0] != '[' {
		t.Fatalf("body is not a JSON array: %s", r.body)
	}
	var rows []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(r.body, &rows); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(rows))
	for i, row := range rows {
		ids[i] = row.ID
	}
	return ids
}

// ltFixture is a small account: three customers, seven invoices and the
// items of a subscription product.
type ltFixture struct {
	srv          *Server
	c1, c2, c3   int64
	inv          map[string]int64
	product      int64 // a subscription product with items
	emptyProduct int64 // a known subscription product without items
	item         map[string]int64
}

func (f *ltFixture) ids(labels string) []int64 {
	out := []int64{}
	for _, l := range strings.Fields(labels) {
		id, ok := f.inv[l]
		if !ok {
			id, ok = f.item[l]
		}
		if !ok {
			panic("unknown label " + l)
		}
		out = append(out, id)
	}
	return out
}

func ltSeed(t *testing.T) *ltFixture {
	t.Helper()
	srv := NewServer(WithClock(func() time.Time { return ltNow }))
	t.Cleanup(srv.Close)
	f := &ltFixture{srv: srv, inv: map[string]int64{}, item: map[string]int64{}}

	f.c1 = ltMust(t)(srv.AddCustomer(Customer{
		FirstName: "Ada", LastName: "Lovelace", Reference: "REF-A", Reference1: "alpha", Reference2: "x", Reference3: "y",
		Status: billing.CustomerStatusActive, AccountStatus: billing.CustomerAccountStatusGood,
		ArBalance: wtDec("100.50"), MonthlyRecurringRevenue: wtDec("10"), NetMRR: wtDec("9"), CurrentMrr: wtDec("11"), CurrentNetMrr: wtDec("8"),
		CreatedTimestamp: ltTime("2024-01-01T00:00:00"), ModifiedTimestamp: ltTime("2024-02-01T09:30:00"),
	}))
	f.c2 = ltMust(t)(srv.AddCustomer(Customer{
		FirstName: "Bob", Reference: "ref-b", Status: billing.CustomerStatusHold, AccountStatus: billing.CustomerAccountStatusPoorStanding,
		ParentID: f.c1, ArBalance: wtDec("-5"), MonthlyRecurringRevenue: wtDec("20"),
		CreatedTimestamp: ltTime("2024-03-01T10:00:00"), ModifiedTimestamp: ltTime("2024-03-02T00:00:00"),
	}))
	f.c3 = ltMust(t)(srv.AddCustomer(Customer{
		FirstName: "Cy", Status: billing.CustomerStatusCancelled, AccountStatus: billing.CustomerAccountStatusCollection,
		ParentID: f.c1, Reference1: "9lives",
		CreatedTimestamp: ltTime("2024-04-01T00:00:00"),
	}))

	charge := func(amount string) Charge {
		return Charge{Name: "Line " + amount, Quantity: wtDec("1"), UnitPrice: wtDec(amount), Amount: wtDec(amount)}
	}
	type invSpec struct {
		label, posted, po, erp, crm string
		cust                        int64
		acct                        int64
		opening, closing            string
		build                       func(*Invoice)
	}
	specs := []invSpec{
		{label: "A", cust: f.c1, posted: "2024-01-10T08:00:00", po: "PO-100", erp: "ERP-1", crm: "CRM-x", acct: 7, opening: "0", closing: "10.00", build: func(inv *Invoice) {
			sub := charge("10")
			sub.SubscriptionID, sub.SubscriptionProductID = 555, 556
			tracked := charge("0")
			tracked.Name, tracked.SubscriptionID, tracked.Tracked = "Tracked modem", 555, true
			purchase := charge("5")
			purchase.Name, purchase.PurchaseID = "One-off setup", 77
			inv.Charges = []Charge{sub, tracked, purchase}
			inv.TotalPayments = wtDec("15") // paid
		}},
		{label: "B", cust: f.c1, posted: "2024-02-01T00:00:00", po: "po-200", crm: "CRM-y", opening: "10", closing: "25.5", build: func(inv *Invoice) {
			inv.Charges = []Charge{charge("40")}
			inv.PaymentSchedules = []billing.PaymentSchedule{
				{DueDateTimestamp: billing.NewTimestamp(ltTime("2024-07-01T00:00:00")), Status: "Due", Amount: wtDec("20"), OutstandingBalance: wtDec("20")},
				{DueDateTimestamp: billing.NewTimestamp(ltTime("2024-08-01T00:00:00")), Status: "Due", Amount: wtDec("20"), OutstandingBalance: wtDec("20")},
			}
		}},
		{label: "C", cust: f.c2, posted: "2024-02-29T23:59:59", erp: "erp-3", acct: 9, opening: "-3.25", closing: "0"},
		{label: "D", cust: f.c2, posted: "2024-03-01T00:00:00", po: "1-PO", erp: "ERP-4", crm: "crm-z", opening: "1", closing: "1"},
		{label: "E", cust: f.c3, posted: "2024-05-05T12:00:00", po: "#special", erp: "ERP-5", opening: "1", closing: "1"},
		{label: "F", cust: f.c3, posted: "2024-06-01T00:00:00", po: "Zeta", erp: "ERP-6", opening: "1", closing: "1"},
		{label: "G", cust: f.c1, posted: "2024-04-01T00:00:00", po: "PO-100", erp: "ERP-7", opening: "1", closing: "1", build: func(inv *Invoice) {
			inv.Charges = []Charge{charge("30")} // Net30: due 2024-05-01, overdue on ltNow
		}},
	}
	for i, s := range specs {
		inv := Invoice{
			CustomerID: s.cust, InvoiceNumber: int64(1001 + i), PoNumber: s.po, ErpID: s.erp, CrmID: s.crm, AccountingID: s.acct,
			PostedTimestamp: ltTime(s.posted), OpeningArBalance: wtDec(s.opening), ClosingArBalance: wtDec(s.closing),
		}
		inv.EffectiveTimestamp = inv.PostedTimestamp.Add(time.Hour)
		inv.CreatedTimestamp = inv.PostedTimestamp.Add(-time.Hour)
		if s.build != nil {
			s.build(&inv)
		}
		f.inv[s.label] = ltMust(t)(srv.AddInvoice(inv))
	}

	f.product = 9001
	subID := ltMust(t)(srv.AddSubscription(Subscription{CustomerID: f.c1, PlanID: 70, Products: []SubscriptionProduct{{Name: "Empty"}}}))
	sub, _ := srv.Subscription(subID)
	f.emptyProduct = sub.Products[0].ID
	items := []struct {
		label, name, desc, created string
		ref                        billing.ItemReference
		status                     billing.ItemStatus
	}{
		{"i1", "Router", "Main router", "2024-01-01T00:00:00", billing.ItemReference{Value: "R-1"}, billing.ItemStatusActive},
		{"i2", "modem", "", "2024-02-01T00:00:00", billing.ItemReference{Value: "42", IsNumber: true}, billing.ItemStatusDeleted},
		{"i3", "3G dongle", "spare", "2024-03-01T12:00:00", billing.ItemReference{}, billing.ItemStatusActive},
		{"i4", "", "unnamed", "2024-03-02T00:00:00", billing.ItemReference{Value: "x"}, billing.ItemStatusActive},
		{"i5", "_tmp", "spare router", "2024-04-01T00:00:00", billing.ItemReference{Value: "R-2"}, billing.ItemStatusActive},
	}
	for _, it := range items {
		f.item[it.label] = ltMust(t)(srv.AddSubscriptionProductItem(SubscriptionProductItem{
			SubscriptionProductID: f.product, Name: it.name, Description: it.desc, Reference: it.ref, Status: it.status,
			CreatedDate: ltTime(it.created), ModifiedDate: ltTime(it.created).AddDate(0, 1, 0),
		}))
	}
	return f
}

// ltCase is one filtered list request and the rows it must return, by
// label, in order.
type ltCase struct {
	query string
	want  string
}

func ltRunFilters(t *testing.T, f *ltFixture, path string, cases []ltCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			r := ltGet(t, f.srv, path, "query", c.query)
			got := ltIDs(t, r)
			if want := f.ids(c.want); !slices.Equal(got, want) {
				t.Errorf("query %q: got ids %v, want %v (%s)", c.query, got, want, c.want)
			}
			if n, _ := strconv.Atoi(r.header.Get("X-Count")); n != len(got) {
				t.Errorf("X-Count %s, want %d", r.header.Get("X-Count"), len(got))
			}
		})
	}
}

func TestListInvoicesFilters(t *testing.T) {
	t.Parallel()
	f := ltSeed(t)
	c1, c3 := strconv.FormatInt(f.c1, 10), strconv.FormatInt(f.c3, 10)
	ltRunFilters(t, f, "/v1/Invoices", []ltCase{
		{"", "A B C D E F G"},
		// text: wildcards, exact, [empty], ranges, case-insensitivity
		{"poNumber:PO*", "A B G"},
		{"poNumber:*100", "A G"},
		{"poNumber:*O-*", "A B G"},
		{"poNumber:p*0", "A B G"},
		{"poNumber:po-100", "A G"},
		{"poNumber:[empty]", "C"},
		{"poNumber:a|q", "A B G"},
		{"poNumber:|1", "E"},
		{"poNumber:a%2Cb", ""},
		{"erpId:erp-*", "A C D E F G"},
		{"crmId:[empty]", "C E F G"},
		{"crmId:crm-X", "A"},
		// integers: exact, sets, ranges, nullable [empty]
		{"customerId:" + c1, "A B G"},
		{"customerId:" + c1 + "," + c3, "A B E F G"},
		{"invoiceNumber:1004", "D"},
		{"invoiceNumber:1001|1003", "A B"},
		{"invoiceNumber:1006|", "F G"},
		{"totalInstallments:2", "B"},
		{"accountingId:[empty]", "B D E F G"},
		{"accountingId:7", "A"},
		{"Customer.ParentId:[empty]", "A B G"},
		{"Customer.ParentId:" + c1, "C D E F"},
		// decimals, compared exactly
		{"closingArBalance:10|25.5", "A"},
		{"closingArBalance:10.00|10.01", "A"},
		{"closingArBalance:25.50|", "B"},
		{"openingArBalance:|0", "C"},
		{"Customer.Arbalance:|0", "C D"},
		{"Customer.Arbalance:100.5", "A B G"},
		{"Customer.CurrentMrr:11|", "A B G"},
		{"Customer.CurrentNetMrr:8", "A B G"},
		{"Customer.MonthlyRecurringRevenue:15|25", "C D"},
		{"Customer.NetMRR:[empty]", ""},
		// dates: midnight bounds, lower inclusive, upper exclusive, open ends
		{"postedTimestamp:2024-02-01|2024-03-01", "B C"},
		{"postedTimestamp:2024-03-01", "D"},
		{"postedTimestamp:2024-02-29T23:59:59", "C"},
		{"postedTimestamp:|2024-01-10T08:00:00", ""},
		{"postedTimestamp:|2024-01-10T08:00:01Z", "A"},
		{"postedTimestamp:2024-06-01|", "F"},
		{"effectiveTimestamp:2024-01-10T09:00:00|2024-01-10T09:00:01", "A"},
		{"createdTimestamp:2024-01-31", "B"},
		{"Customer.CreatedTimestamp:2024-03-01", "C D"},
		{"Customer.ModifiedTimestamp:2024-02-01T09:30:00|2024-02-01T09:30:01", "A B G"},
		// enums: single, sets, any case
		{"Customer.Status:Active", "A B G"},
		{"customer.status:hold,CANCELLED", "C D E F"},
		{"Customer.AccountStatus:PoorStanding", "C D"},
		// customer references
		{"Customer.CustomerReference.Reference1:9*", "E F"},
		{"Customer.CustomerReference.Reference1:[empty]", "C D"},
		{"Customer.CustomerReference.Reference2:X", "A B G"},
		{"Customer.CustomerReference.Reference3:y", "A B G"},
		// several conditions, a repeated name, a trailing ';'
		{"Customer.Status:Active;poNumber:PO*;totalInstallments:1", "A G"},
		{"postedTimestamp:2024-01-01|;postedTimestamp:|2024-03-01", "A B C"},
		{"poNumber:[empty];", "C"},
	})
}

func TestListCustomerInvoicesFilters(t *testing.T) {
	t.Parallel()
	f := ltSeed(t)
	c1 := fmt.Sprintf("/v1/Customers/%d/Invoices/", f.c1)
	ltRunFilters(t, f, c1, []ltCase{
		{"", "A B G"},
		{"poNumber:PO-1*", "A G"},
		{"invoiceNumber:1001,1002", "A B"},
		{"postedTimestamp:2024-02-01|", "B G"},
		{"crmId:[empty]", "G"},
		{"erpId:[empty]", "B"},
		{"totalInstallments:1", "A G"},
		{"accountingId:7", "A"},
		{"closingArBalance:|10", "G"},
		{"openingArBalance:10", "B"},
		{"effectiveTimestamp:|2024-02-01T01:00:01", "A B"},
		{"createdTimestamp:2024-03-31", "G"},
		{"poNumber:po*;postedTimestamp:2024-03-01|", "G"},
	})
	ltRunFilters(t, f, fmt.Sprintf("/v1/Customers/%d/Invoices/", f.c2), []ltCase{{"", "C D"}, {"poNumber:[empty]", "C"}})
}

func TestInvoiceSummaryFilters(t *testing.T) {
	t.Parallel()
	f := ltSeed(t)
	a, g := strconv.FormatInt(f.inv["A"], 10), strconv.FormatInt(f.inv["G"], 10)
	ltRunFilters(t, f, fmt.Sprintf("/v1/customers/%d/invoiceSummaries", f.c1), []ltCase{
		{"", "A B G"},
		{"Id:" + a, "A"},
		{"id:" + a + "," + g, "A G"},
		{"customerId:" + strconv.FormatInt(f.c1, 10), "A B G"},
		{"customerId:" + strconv.FormatInt(f.c2, 10), ""},
		{"invoiceNumber:1002", "B"},
		{"reference:ref-*", "A B G"},
		{"reference:[empty]", ""},
		{"invoiceAmount:15", "A"},
		{"invoiceAmount:30|40", "G"},
		{"invoiceAmount:30|", "B G"},
		{"dueDate:2024-07-01", "B"},
		{"dueDate:2024-05-01|2024-07-01", "G"},
		{"invoiceStatus:Overdue", "G"},
		{"invoiceStatus:due,PAID", "A B"},
		{"customer.Status:Active", "A B G"},
		{"Customer.Status:Hold", ""},
		{"effectiveTimestamp:2024-04-01", "G"},
		{"modifiedTimestamp:2024-02-01T00:00:00", "B"},
		{"postedTimestamp:|2024-02-01", "A"},
		{"unsettled:true", "B G"},
		{"unsettled:FALSE", "A"},
		{"unsettled:true;invoiceStatus:Due", "B"},
	})
}

func TestSubscriptionItemFilters(t *testing.T) {
	t.Parallel()
	f := ltSeed(t)
	ltRunFilters(t, f, fmt.Sprintf("/v1/subscriptionProducts/%d/items", f.product), []ltCase{
		{"", "i1 i2 i3 i4 i5"},
		{"name:r*", "i1"},
		{"name:*O*", "i1 i2 i3"},
		{"name:[empty]", "i4"},
		{"name:m|s", "i1 i2"},
		{"description:*router", "i1 i5"},
		{"description:[empty]", "i2"},
		{"reference:42", "i2"},
		{"reference:r-*", "i1 i5"},
		{"reference:[empty]", "i3"},
		{"status:Deleted", "i2"},
		{"status:active", "i1 i3 i4 i5"},
		{"createdTimestamp:2024-02-01|2024-03-01T12:00:00", "i2"},
		{"createdTimestamp:2024-03-01", "i3"},
		{"modifiedTimestamp:2024-05-01|", "i5"},
		{"status:Active;description:spare*", "i3 i5"},
	})
}

func TestListErrors(t *testing.T) {
	t.Parallel()
	f := ltSeed(t)
	invoices := "/v1/Invoices"
	byCustomer := fmt.Sprintf("/v1/Customers/%d/Invoices/", f.c1)
	summaries := fmt.Sprintf("/v1/customers/%d/invoiceSummaries", f.c1)
	items := fmt.Sprintf("/v1/subscriptionProducts/%d/items", f.product)
	read := fmt.Sprintf("/v1/Invoices/%d", f.inv["A"])
	cases := []struct {
		path      string
		params    []string
		fragments []string
	}{
		// unknown names list the valid ones
		{invoices, []string{"query", "foo:1"}, []string{`"foo"`, "createdTimestamp", "Customer.CustomerReference.Reference3"}},
		{byCustomer, []string{"query", "Customer.Status:Active"}, []string{"Customer.Status", "accountingId"}},
		{items, []string{"query", "productId:1"}, []string{"productId", "status"}},
		// malformed expressions
		{invoices, []string{"query", "poNumber"}, []string{"missing ':'"}},
		{invoices, []string{"query", "poNumber:a**b"}, []string{"consecutive wildcards"}},
		{invoices, []string{"query", "poNumber:[x]"}, []string{"invalid query"}},
		{invoices, []string{"query", ";poNumber:a"}, []string{"empty condition"}},
		{invoices, []string{"query", "poNumber:a%zz"}, []string{"invalid escape"}},
		// values of the wrong kind
		{invoices, []string{"query", "customerId:abc"}, []string{"customerId", "not an integer"}},
		{invoices, []string{"query", "customerId:1*"}, []string{"wildcards"}},
		{invoices, []string{"query", "customerId:1,x"}, []string{`"x" is not an integer`}},
		{invoices, []string{"query", "invoiceNumber:1|x"}, []string{"not an integer"}},
		{invoices, []string{"query", "postedTimestamp:2024-13-01|"}, []string{"postedTimestamp", "YYYY-MM-DD"}},
		{invoices, []string{"query", "postedTimestamp:yesterday"}, []string{"yesterday"}},
		{invoices, []string{"query", "postedTimestamp:2024-01-01T10:00|"}, []string{"date-time"}},
		{invoices, []string{"query", "postedTimestamp:2024-01-01,2024-02-01"}, []string{"alternatives"}},
		{invoices, []string{"query", "postedTimestamp:2024*"}, []string{"wildcards"}},
		{invoices, []string{"query", "closingArBalance:abc|"}, []string{"closingArBalance", "decimal"}},
		{invoices, []string{"query", "closingArBalance:1,2"}, []string{"alternatives"}},
		{invoices, []string{"query", "Customer.Status:Gone"}, []string{`"Gone"`, "Active", "Suspended"}},
		{invoices, []string{"query", "Customer.Status:Act*"}, []string{"wildcards"}},
		{invoices, []string{"query", "Customer.Status:a|b"}, []string{"ranges"}},
		{invoices, []string{"query", "poNumber:a,b"}, []string{"%2C"}},
		{summaries, []string{"query", "unsettled:yes"}, []string{"neither true nor false"}},
		{summaries, []string{"query", "unsettled:true,false"}, []string{"alternatives"}},
		{summaries, []string{"query", "unsettled:a|b"}, []string{"ranges"}},
		{summaries, []string{"query", "invoiceStatus:Late"}, []string{"Late", "Overdue"}},
		{summaries, []string{"query", "Id:x"}, []string{"not an integer"}},
		{items, []string{"query", "status:Gone"}, []string{"Deleted"}},
		// sorting
		{invoices, []string{"sortExpression", "customerId"}, []string{"customerId", "poNumber", "Customer.CreatedTimestamp"}},
		{invoices, []string{"sortExpression", "nope"}, []string{`"nope"`}},
		{invoices, []string{"sortExpression", ""}, []string{"sortExpression"}},
		{invoices, []string{"sortExpression", "poNumber", "sortOrder", "Up"}, []string{`"Up"`}},
		{invoices, []string{"sortExpression", "poNumber", "sortOrder", ""}, []string{"sortOrder"}},
		{invoices, []string{"sortOrder", "Ascending"}, []string{"without sortExpression"}},
		{byCustomer, []string{"sortExpression", "Customer.CreatedTimestamp"}, []string{"Customer.CreatedTimestamp"}},
		{summaries, []string{"sortExpression", "invoiceAmount"}, []string{"invoiceAmount", "dueDate"}},
		{items, []string{"sortExpression", "status"}, []string{"status", "name"}},
		// paging
		{invoices, []string{"pageNumber", "-1"}, []string{"pageNumber", "negative"}},
		{invoices, []string{"pageNumber", "abc"}, []string{"pageNumber", "not an integer"}},
		{invoices, []string{"pageNumber", "1.5"}, []string{"pageNumber"}},
		{invoices, []string{"pageNumber", ""}, []string{"pageNumber"}},
		{invoices, []string{"pageNumber", "99999999999"}, []string{"pageNumber"}},
		{summaries, []string{"pageSize", "-5"}, []string{"pageSize", "negative"}},
		{items, []string{"pageSize", "ten"}, []string{"pageSize"}},
		// boolean switches
		{byCustomer, []string{"showTrackedItems", "maybe"}, []string{"showTrackedItems"}},
		{read, []string{"groupCharges", "1"}, []string{"groupCharges"}},
		{read, []string{"showTrackedItems", ""}, []string{"showTrackedItems"}},
	}
	for _, c := range cases {
		t.Run(c.path+"?"+strings.Join(c.params, "="), func(t *testing.T) {
			t.Parallel()
			wtWantError(t, ltGet(t, f.srv, c.path, c.params...), http.StatusBadRequest, errorKeyAPI, c.fragments...)
		})
	}
}

func TestListNotFound(t *testing.T) {
	t.Parallel()
	f := ltSeed(t)
	for _, path := range []string{
		"/v1/Invoices/999999",
		"/v1/Invoices/0",
		"/v1/Customers/999999/Invoices/",
		"/v1/customers/999999/invoiceSummaries",
		"/v1/subscriptionProducts/999999/items",
	} {
		t.Run(path, func(t *testing.T) {
			wtWantError(t, ltGet(t, f.srv, path), http.StatusNotFound, errorKeyAPI)
		})
	}
	// A known subscription product without items is an empty list.
	r := ltGet(t, f.srv, fmt.Sprintf("/v1/subscriptionProducts/%d/items", f.emptyProduct))
	if got := ltIDs(t, r); len(got) != 0 || string(r.body) != "[]" {
		t.Errorf("items of an empty product: %s, want []", r.body)
	}
}

func TestListSorting(t *testing.T) {
	t.Parallel()
	f := ltSeed(t)
	invoices := "/v1/Invoices"
	summaries := fmt.Sprintf("/v1/customers/%d/invoiceSummaries", f.c1)
	items := fmt.Sprintf("/v1/subscriptionProducts/%d/items", f.product)
	cases := []struct {
		path, query, field, order string
		want                      string
	}{
		// null, digits, other characters, letters; ties (A and G) by id
		{invoices, "", "poNumber", "", "C D E A G B F"},
		{invoices, "", "poNumber", "Ascending", "C D E A G B F"},
		{invoices, "", "PONUMBER", "Descending", "F B A G E D C"},
		{invoices, "", "poNumber", "descending", "F B A G E D C"},
		{invoices, "", "postedTimestamp", "", "A B C D G E F"},
		{invoices, "", "postedTimestamp", "Descending", "F E G D C B A"},
		{invoices, "", "erpId", "ASCENDING", "B A C D E F G"},
		{invoices, "", "Customer.CustomerReference.Reference1", "", "C D E F A B G"},
		{invoices, "", "Customer.CreatedTimestamp", "Descending", "E F C D A B G"},
		{invoices, "Customer.Status:Active", "poNumber", "Descending", "B A G"},
		{fmt.Sprintf("/v1/Customers/%d/Invoices/", f.c1), "", "poNumber", "", "A G B"},
		{summaries, "", "dueDate", "Descending", "B G A"},
		{summaries, "", "reference", "Descending", "A B G"},
		{items, "", "name", "", "i4 i3 i5 i2 i1"},
		{items, "", "name", "Descending", "i1 i2 i5 i3 i4"},
		{items, "", "createdTimestamp", "Descending", "i5 i4 i3 i2 i1"},
		{items, "", "reference", "", "i3 i2 i1 i5 i4"},
	}
	for _, c := range cases {
		t.Run(c.path+" "+c.field+" "+c.order, func(t *testing.T) {
			t.Parallel()
			params := []string{"sortExpression", c.field, "query", c.query}
			if c.order != "" {
				params = append(params, "sortOrder", c.order)
			}
			r := ltGet(t, f.srv, c.path, params...)
			if got, want := ltIDs(t, r), f.ids(c.want); !slices.Equal(got, want) {
				t.Errorf("got %v, want %v (%s)", got, want, c.want)
			}
			wantOrder := "Ascending"
			if strings.EqualFold(c.order, "Descending") {
				wantOrder = "Descending"
			}
			if r.header.Get("X-SortOrder") != wantOrder || r.header.Get("X-SortExpression") != c.field {
				t.Errorf("X-SortOrder %q, X-SortExpression %q; want %q, %q", r.header.Get("X-SortOrder"), r.header.Get("X-SortExpression"), wantOrder, c.field)
			}
		})
	}
}

// TestSortedPagesDoNotOverlap reads every page of sorted lists with ties
// and checks that each row appears exactly once, in the order of the
// single-page answer.
func TestSortedPagesDoNotOverlap(t *testing.T) {
	t.Parallel()
	f := ltSeed(t)
	// More rows with equal sort keys, so that ties span page boundaries.
	for i := range 9 {
		ltMust(t)(f.srv.AddInvoice(Invoice{CustomerID: f.c2, PoNumber: []string{"", "PO-100", "po-100"}[i%3], PostedTimestamp: ltTime("2024-04-01T00:00:00")}))
	}
	for _, field := range []string{"poNumber", "postedTimestamp", "crmId"} {
		for _, order := range []string{"Ascending", "Descending"} {
			all := ltIDs(t, ltGet(t, f.srv, "/v1/Invoices", "sortExpression", field, "sortOrder", order))
			if len(all) != 16 {
				t.Fatalf("%d invoices, want 16", len(all))
			}
			for _, size := range []int{1, 2, 3, 5, 16} {
				var got []int64
				seen := map[int64]int{}
				for page := 0; ; page++ {
					r := ltGet(t, f.srv, "/v1/Invoices", "sortExpression", field, "sortOrder", order, "pageSize", strconv.Itoa(size), "pageNumber", strconv.Itoa(page))
					ids := ltIDs(t, r)
					for _, id := range ids {
						seen[id]++
					}
					got = append(got, ids...)
					if r.header.Get("X-NextPage") == "-1" {
						break
					}
				}
				for id, n := range seen {
					if n != 1 {
						t.Errorf("%s %s size %d: id %d on %d pages", field, order, size, id, n)
					}
				}
				if !slices.Equal(got, all) {
					t.Errorf("%s %s size %d: pages give %v, want %v", field, order, size, got, all)
				}
			}
		}
	}
}

func TestPageHeaders(t *testing.T) {
	t.Parallel()
	f := ltSeed(t)
	type headers struct {
		count, max, current, next, prev, size, pages string
		order, expr                                  string
	}
	cases := []struct {
		name   string
		params []string
		rows   int
		want   headers
	}{
		{"first", []string{"pageSize", "3"}, 3, headers{"7", "7", "0", "1", "-1", "3", "3", "Ascending", "id"}},
		{"middle", []string{"pageSize", "3", "pageNumber", "1"}, 3, headers{"7", "7", "1", "2", "0", "3", "3", "Ascending", "id"}},
		{"numbers in white space", []string{"pageSize", " 3", "pageNumber", "1 "}, 3, headers{"7", "7", "1", "2", "0", "3", "3", "Ascending", "id"}},
		{"last", []string{"pageSize", "3", "pageNumber", "2"}, 1, headers{"7", "7", "2", "-1", "1", "3", "3", "Ascending", "id"}},
		{"out of range", []string{"pageSize", "3", "pageNumber", "5"}, 0, headers{"7", "7", "5", "-1", "4", "3", "3", "Ascending", "id"}},
		{"far out of range", []string{"pageNumber", "2147483647"}, 0, headers{"7", "7", "2147483647", "-1", "2147483646", "100", "1", "Ascending", "id"}},
		{"empty", []string{"pageSize", "3", "query", "poNumber:nothing"}, 0, headers{"0", "7", "0", "-1", "-1", "3", "0", "Ascending", "id"}},
		{"empty page 1", []string{"pageSize", "3", "pageNumber", "1", "query", "poNumber:nothing"}, 0, headers{"0", "7", "1", "-1", "0", "3", "0", "Ascending", "id"}},
		{"exact fit", []string{"pageSize", "7"}, 7, headers{"7", "7", "0", "-1", "-1", "7", "1", "Ascending", "id"}},
		{"filtered sorted", []string{"pageSize", "2", "pageNumber", "1", "query", "erpId:ERP*", "sortExpression", "poNumber", "sortOrder", "DESCENDING"}, 2, headers{"6", "7", "1", "2", "0", "2", "3", "Descending", "poNumber"}},
		{"default size", nil, 7, headers{"7", "7", "0", "-1", "-1", "100", "1", "Ascending", "id"}},
		{"size 0", []string{"pageSize", "0"}, 7, headers{"7", "7", "0", "-1", "-1", "100", "1", "Ascending", "id"}},
		{"size above max", []string{"pageSize", "5000"}, 7, headers{"7", "7", "0", "-1", "-1", "1000", "1", "Ascending", "id"}},
		{"sort expression as given", []string{"sortExpression", "POSTEDtimestamp"}, 7, headers{"7", "7", "0", "-1", "-1", "100", "1", "Ascending", "POSTEDtimestamp"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ltGet(t, f.srv, "/v1/Invoices", c.params...)
			if n := len(ltIDs(t, r)); n != c.rows {
				t.Errorf("%d rows, want %d", n, c.rows)
			}
			if c.rows == 0 && string(r.body) != "[]" {
				t.Errorf("empty page body %s, want []", r.body)
			}
			got := headers{
				r.header.Get("X-Count"), r.header.Get("X-MaxCount"), r.header.Get("X-CurrentPage"), r.header.Get("X-NextPage"),
				r.header.Get("X-PreviousPage"), r.header.Get("X-PageSize"), r.header.Get("X-MaxPageIndex"),
				r.header.Get("X-SortOrder"), r.header.Get("X-SortExpression"),
			}
			if got != c.want {
				t.Errorf("headers\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
	// X-MaxCount is the scope of the endpoint: the customer's invoices.
	r := ltGet(t, f.srv, fmt.Sprintf("/v1/Customers/%d/Invoices/", f.c1), "query", "poNumber:PO*", "pageSize", "1")
	if r.header.Get("X-Count") != "3" || r.header.Get("X-MaxCount") != "3" || r.header.Get("X-MaxPageIndex") != "3" {
		t.Errorf("by customer: X-Count %s X-MaxCount %s X-MaxPageIndex %s, want 3 3 3", r.header.Get("X-Count"), r.header.Get("X-MaxCount"), r.header.Get("X-MaxPageIndex"))
	}
	r = ltGet(t, f.srv, fmt.Sprintf("/v1/customers/%d/invoiceSummaries", f.c2), "query", "invoiceNumber:1003")
	if r.header.Get("X-Count") != "1" || r.header.Get("X-MaxCount") != "2" {
		t.Errorf("summaries: X-Count %s X-MaxCount %s, want 1 2", r.header.Get("X-Count"), r.header.Get("X-MaxCount"))
	}
	r = ltGet(t, f.srv, fmt.Sprintf("/v1/subscriptionProducts/%d/items", f.product), "query", "status:Deleted")
	if r.header.Get("X-Count") != "1" || r.header.Get("X-MaxCount") != "5" {
		t.Errorf("items: X-Count %s X-MaxCount %s, want 1 5", r.header.Get("X-Count"), r.header.Get("X-MaxCount"))
	}
}

// ltRaw decodes a JSON value into generic maps, to see which keys are
// present.
func ltRaw(t *testing.T, body []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return v
}

func TestInvoiceCharges(t *testing.T) {
	t.Parallel()
	f := ltSeed(t)
	chargeNames := func(v any) []string {
		var names []string
		for _, c := range v.([]any) {
			names = append(names, c.(map[string]any)["name"].(string))
		}
		return names
	}

	// List-all: charges is [] on every invoice, even those with lines.
	all := ltRaw(t, ltGet(t, f.srv, "/v1/Invoices").body).([]any)
	for _, inv := range all {
		m := inv.(map[string]any)
		if c, ok := m["charges"].([]any); !ok || len(c) != 0 {
			t.Errorf("list-all invoice %v: charges %v, want []", m["id"], m["charges"])
		}
		if _, ok := m["chargeGroups"]; ok {
			t.Errorf("list-all invoice %v has chargeGroups", m["id"])
		}
	}

	// By customer: charges present; tracked items only when asked.
	for _, c := range []struct {
		tracked string
		want    []string
	}{
		{"", []string{"Line 10", "One-off setup"}},
		{"false", []string{"Line 10", "One-off setup"}},
		{"TRUE", []string{"Line 10", "Tracked modem", "One-off setup"}},
	} {
		params := []string{"query", "invoiceNumber:1001"}
		if c.tracked != "" {
			params = append(params, "showTrackedItems", c.tracked)
		}
		list := ltRaw(t, ltGet(t, f.srv, fmt.Sprintf("/v1/Customers/%d/Invoices/", f.c1), params...).body).([]any)
		if len(list) != 1 {
			t.Fatalf("showTrackedItems=%q: %d invoices, want 1", c.tracked, len(list))
		}
		if got := chargeNames(list[0].(map[string]any)["charges"]); !slices.Equal(got, c.want) {
			t.Errorf("showTrackedItems=%q: charges %v, want %v", c.tracked, got, c.want)
		}
	}
	// An invoice without lines still has charges: [].
	list := ltRaw(t, ltGet(t, f.srv, fmt.Sprintf("/v1/Customers/%d/Invoices/", f.c2)).body).([]any)
	for _, inv := range list {
		if c, ok := inv.(map[string]any)["charges"].([]any); !ok || len(c) != 0 {
			t.Errorf("invoice without lines: charges %v, want []", inv.(map[string]any)["charges"])
		}
	}

	// Read: flat by default.
	readPath := fmt.Sprintf("/v1/Invoices/%d", f.inv["A"])
	one := ltRaw(t, ltGet(t, f.srv, readPath).body).(map[string]any)
	if got := chargeNames(one["charges"]); !slices.Equal(got, []string{"Line 10", "One-off setup"}) {
		t.Errorf("read: charges %v", got)
	}
	if _, ok := one["chargeGroups"]; ok {
		t.Error("read without grouping has chargeGroups")
	}
	one = ltRaw(t, ltGet(t, f.srv, readPath, "showTrackedItems", "true").body).(map[string]any)
	if got := chargeNames(one["charges"]); len(got) != 3 {
		t.Errorf("read with tracked items: charges %v, want 3", got)
	}

	// Read with groupCharges: a subscription group and a purchase group,
	// and no charges key.
	for _, tracked := range []string{"false", "true"} {
		one = ltRaw(t, ltGet(t, f.srv, readPath, "groupCharges", "True", "showTrackedItems", tracked).body).(map[string]any)
		if _, ok := one["charges"]; ok {
			t.Errorf("grouped read has charges: %v", one["charges"])
		}
		groups, _ := one["chargeGroups"].([]any)
		if len(groups) != 2 {
			t.Fatalf("chargeGroups %v, want 2 groups", one["chargeGroups"])
		}
		sub, purchase := groups[0].(map[string]any), groups[1].(map[string]any)
		if sub["subscriptionId"] != float64(555) {
			t.Errorf("first group subscriptionId %v, want 555", sub["subscriptionId"])
		}
		wantSub := []string{"Line 10"}
		if tracked == "true" {
			wantSub = []string{"Line 10", "Tracked modem"}
		}
		if got := chargeNames(sub["charges"]); !slices.Equal(got, wantSub) {
			t.Errorf("showTrackedItems=%s: subscription group charges %v, want %v", tracked, got, wantSub)
		}
		if _, ok := purchase["subscriptionId"]; ok {
			t.Errorf("purchase group has subscriptionId %v", purchase["subscriptionId"])
		}
		if got := chargeNames(purchase["charges"]); !slices.Equal(got, []string{"One-off setup"}) {
			t.Errorf("purchase group charges %v", got)
		}
	}
	// An invoice without lines, grouped: chargeGroups is [].
	one = ltRaw(t, ltGet(t, f.srv, fmt.Sprintf("/v1/Invoices/%d", f.inv["C"]), "groupCharges", "true").body).(map[string]any)
	if g, ok := one["chargeGroups"].([]any); !ok || len(g) != 0 {
		t.Errorf("grouped invoice without lines: chargeGroups %v, want []", one["chargeGroups"])
	}
}

// TestSDKIteratesFilteredSortedList walks a filtered, sorted list page by
// page through the SDK, as a user's code would.
func TestSDKIteratesFilteredSortedList(t *testing.T) {
	t.Parallel()
	f := ltSeed(t)
	c := f.srv.Client()
	ctx := context.Background()
	params := &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{PageSize: 2, Sort: query.Sort{Field: "poNumber", Order: query.Descending}},
		Filter:      billing.InvoiceFilter{ErpID: query.StartsWith("erp")},
	}
	var got []int64
	pages := 0
	for page, err := range c.Invoices.Pages(ctx, params) {
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if page.Count != 6 || page.MaxCount != 7 || page.MaxPageIndex != 3 || page.SortOrder != query.Descending || page.SortExpression != "poNumber" {
			t.Errorf("page %d: %+v", page.CurrentPage, page)
		}
		for _, inv := range page.Items {
			got = append(got, inv.ID)
		}
	}
	if want := f.ids("F A G E D C"); !slices.Equal(got, want) || pages != 3 {
		t.Errorf("got %v on %d pages, want %v on 3", got, pages, want)
	}
	n, err := c.Invoices.Count(ctx, params)
	if err != nil || n != 6 {
		t.Errorf("Count = %d, %v; want 6", n, err)
	}

	var summaries []int64
	for s, err := range c.InvoiceSummaries.All(ctx, f.c1, &billing.ListInvoiceSummariesParams{
		ListOptions: billing.ListOptions{PageSize: 1, Sort: query.Sort{Field: "dueDate"}},
		Filter:      billing.InvoiceSummaryFilter{Unsettled: billing.Ptr(true)},
	}) {
		if err != nil {
			t.Fatal(err)
		}
		summaries = append(summaries, s.ID)
	}
	if want := f.ids("G B"); !slices.Equal(summaries, want) {
		t.Errorf("summaries %v, want %v", summaries, want)
	}

	var items []int64
	for it, err := range c.SubscriptionItems.All(ctx, f.product, &billing.ListSubscriptionItemsParams{
		ListOptions: billing.ListOptions{PageSize: 2, Sort: query.Sort{Field: "name", Order: query.Descending}},
		Filter:      billing.SubscriptionProductItemFilter{Status: []billing.ItemStatus{billing.ItemStatusActive}},
	}) {
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it.ID)
	}
	if want := f.ids("i1 i5 i3 i4"); !slices.Equal(items, want) {
		t.Errorf("items %v, want %v", items, want)
	}

	var byCustomer []billing.Invoice
	for inv, err := range c.Invoices.AllByCustomer(ctx, f.c1, &billing.ListCustomerInvoicesParams{
		ListOptions: billing.ListOptions{PageSize: 1},
		Filter:      billing.CustomerInvoiceFilter{PoNumber: query.Equals("po-100")},
	}) {
		if err != nil {
			t.Fatal(err)
		}
		byCustomer = append(byCustomer, inv)
	}
	if len(byCustomer) != 2 || len(byCustomer[0].Charges) != 2 {
		t.Errorf("by customer: %d invoices, first with %d charges; want 2 and 2", len(byCustomer), len(byCustomer[0].Charges))
	}
	inv, err := c.Invoices.Get(ctx, f.inv["A"], &billing.GetInvoiceParams{GroupCharges: true, ShowTrackedItems: true})
	if err != nil || len(inv.ChargeGroups) != 2 || inv.Charges != nil {
		t.Errorf("Get grouped: %v, %d groups, charges %v", err, len(inv.ChargeGroups), inv.Charges)
	}
}

// ltBenchServer builds a fake with 1,000 customers and n invoices
// directly in the store, which is much faster than n AddInvoice calls.
func ltBenchServer(n int) *Server {
	s, err := NewHandler(WithClock(func() time.Time { return ltNow }))
	if err != nil {
		panic(err)
	}
	s.store.invoices.grow(n) // the store an account of n invoices has
	statuses := []billing.CustomerStatus{billing.CustomerStatusActive, billing.CustomerStatusHold, billing.CustomerStatusCancelled, billing.CustomerStatusDraft}
	for i := range 1000 {
		id := int64(i + 1)
		s.store.customers[id] = &Customer{ID: id, FirstName: fmt.Sprintf("First%d", i), Status: statuses[i%len(statuses)],
			AccountStatus: billing.CustomerAccountStatusGood, CreatedTimestamp: ltNow.AddDate(-2, 0, 0), Reference1: fmt.Sprintf("R%04d", i)}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	start := ltTime("2022-01-01T00:00:00")
	for i := range n {
		id := int64(10_000 + i)
		posted := start.Add(time.Duration(rng.Int64N(int64(3 * 365 * 24 * time.Hour))))
		po := []string{"", "PO-", "po-", "1-", "Order "}[rng.IntN(5)] + strconv.Itoa(rng.IntN(100_000))
		inv := &Invoice{
			ID: id, CustomerID: int64(1 + rng.IntN(1000)), InvoiceNumber: id, PoNumber: po, ErpID: "ERP" + strconv.Itoa(i),
			PostedTimestamp: posted, EffectiveTimestamp: posted, CreatedTimestamp: posted, ModifiedTimestamp: posted, Terms: "Net30",
			Charges:          []Charge{{ID: id * 10, Name: "Plan", Quantity: decimal.NewFromInt(1), UnitPrice: decimal.NewFromInt(int64(rng.IntN(500))), Amount: decimal.NewFromInt(int64(rng.IntN(500)))}},
			ClosingArBalance: decimal.New(int64(rng.IntN(100_000)), -2),
		}
		inv.PaymentSchedules = ledger.DefaultSchedule(inv)
		s.store.invoices.Insert(inv)
	}
	return s
}

// BenchmarkListInvoices100k is one filtered, sorted page over 100,000
// invoices, through the handler (without the network): parse, filter,
// sort, render and encode.
func BenchmarkListInvoices100k(b *testing.B) {
	s := ltBenchServer(100_000)
	for _, bc := range []struct{ name, query string }{
		{"filtered+sorted by poNumber", "query=" + url.QueryEscape("Customer.Status:Active,Hold;postedTimestamp:2022-06-01|2024-06-01;poNumber:*1*;closingArBalance:10|") + "&sortExpression=poNumber&sortOrder=Descending&pageNumber=3&pageSize=100"},
		{"sorted by postedTimestamp", "sortExpression=postedTimestamp&pageNumber=500&pageSize=100"},
		{"filtered, id order", "query=" + url.QueryEscape("poNumber:PO*;Customer.CustomerReference.Reference1:R01*") + "&pageNumber=2&pageSize=100"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/v1/Invoices?"+bc.query, nil)
			for b.Loop() {
				w := httptest.NewRecorder()
				s.handleListInvoices(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}

package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"maps"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/internal/contract"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// The contract: openapi.yaml at the module root describes the API as the
// reference gives it. The SDK's requests and the fake's answers are held
// to it here, so that drift between the reference, the fake and the SDK
// fails a test.

// contractDocument is openapi.yaml, loaded once for all tests: it is read
// only after loading.
var contractDocument = sync.OnceValues(func() (*contract.Document, error) {
	return contract.Load("openapi.yaml")
})

// contractTransport wraps next (the transport to a fake) so that every
// request sent through it and every answer that arrives whole is checked
// against openapi.yaml; the test fails at its end with each violation.
//
// What it checks is decided by where it is used, not by filtering: it is
// only ever put in front of a billingtest fake (contractClient), never in
// front of a hostile or scripted test server, and it sees only requests
// the SDK builds, which it sends after its own checks of the caller's
// input, so a test's deliberately bad input is refused before it reaches
// the wire. Faults injected in the fake (InjectFault) still answer with
// the error envelope, which the document allows; a dropped connection or
// a cut-off body is no answer, and is handed on unchecked.
//
// Clients of the fake built with contractClient: the contract tests here,
// leakClient (the leak, iterator-stop and concurrency tests over every
// operation), and the observer, prefetch and write-at-most-once tests.
// The stable-iteration tests keep srv.Client: they read thousands of
// pages of the shapes checked here with every variation of the fake, and
// checking each page again doubled their time.
func contractTransport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	t.Helper()
	doc, err := contractDocument()
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
		list []string
	)
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, v := range list {
			t.Errorf("openapi.yaml does not allow: %s", v)
		}
	})
	return doc.Transport(next, func(v contract.Violation) {
		mu.Lock()
		defer mu.Unlock()
		if s := v.String(); !seen[s] { // once each: a list read page by page repeats its answer's faults
			seen[s] = true
			list = append(list, s)
		}
	})
}

// contractClient is srv.Client(opts...) whose requests and answers are
// checked against openapi.yaml (contractTransport). It sends over a
// connection for a fake from NewServer (its idle connections closed when
// the test ends) and through srv.Transport for one from NewInProcess.
func contractClient(t testing.TB, srv *billingtest.Server, opts ...billing.Option) *billing.Client {
	t.Helper()
	return srv.Client(append([]billing.Option{billing.WithHTTPClient(contractHTTPClient(t, srv))}, opts...)...)
}

// contractHTTPClient is the HTTP client of contractClient.
func contractHTTPClient(t testing.TB, srv *billingtest.Server) *http.Client {
	t.Helper()
	var next http.RoundTripper
	if strings.HasPrefix(srv.URL, "http://") {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		t.Cleanup(tr.CloseIdleConnections)
		next = tr
	} else {
		next = srv.Transport()
	}
	return &http.Client{Transport: contractTransport(t, next)}
}

// Every operation the SDK declares (an Operation in its source, routed as
// Operation.Route) is an operation of openapi.yaml with the SDK method's
// name as its operationId, and the document has no other.
func TestContractDocumentsEveryOperation(t *testing.T) {
	t.Parallel()
	doc, err := contractDocument()
	if err != nil {
		t.Fatal(err)
	}
	sdk := map[string]string{} // route -> SDK name
	for name, op := range declaredOperations(t) {
		if name == "Client.Do" { // the raw escape hatch: any method and path
			continue
		}
		sdk[op.Route()] = name
	}
	if len(sdk) != 12 {
		t.Errorf("the SDK declares %d operations, want the reference's 12: %v", len(sdk), slices.Sorted(maps.Keys(sdk)))
	}
	ids := doc.OperationIDs()
	for _, route := range slices.Sorted(maps.Keys(sdk)) {
		id, ok := ids[route]
		switch {
		case !ok:
			t.Errorf("the SDK's %s (%s) is not in openapi.yaml", sdk[route], route)
		case id != sdk[route]:
			t.Errorf("openapi.yaml's %s has operationId %q, want the SDK method %q", route, id, sdk[route])
		}
	}
	for _, route := range doc.Routes() {
		if _, ok := sdk[route]; !ok {
			t.Errorf("openapi.yaml's %s (%s) is no operation the SDK declares", route, ids[route])
		}
	}
}

// sampleFixture is what the table's operations act on in the sample
// account (billingtest.WithSampleAccount): Ada's invoice 1007 (244 due,
// two charge groups), her draft 800 and card 300, plan 900, product 202's
// items, bulk job 400; lists are read two at a time so that every list
// runs over several pages.
var sampleFixture = leakFixture{
	customer: 100, payer: 100, invoice: 1007, draft: 800, card: 300, job: 400, plan: 900, product: 202, // card 300 is customer 100's
	balance: decimal.NewFromInt(244), pageSize: 2,
}

// contractVariants are the fakes the contract is checked against: the
// sample account as it is, and with the variations of the live service
// the fake can play (timestamps of every precision and zone, unknown
// members, page caps and the other paging headers).
var contractVariants = []struct {
	name string
	opts []billingtest.Option
}{
	{"plain", nil},
	{"all variations", []billingtest.Option{billingtest.WithAllVariations(3)}},
	{"7 digits Z", []billingtest.Option{billingtest.WithTimestampDigits(7, "Z")}},
	{"0 digits +00:00", []billingtest.Option{billingtest.WithTimestampDigits(0, "+00:00")}},
	{"unknown members", []billingtest.Option{billingtest.WithUnknownMembers(), billingtest.WithUnlistedEnumValues()}},
	{"other paging headers", []billingtest.Option{billingtest.WithOtherPagingHeaders(), billingtest.WithPageCap(1, true)}},
}

// Every operation of the table, and every iterator and count of a list,
// sent by the SDK to the fake's sample account, sends requests and gets
// answers that openapi.yaml allows, with each of the fake's variations.
// Errors are not expected either: the fixture names what exists.
func TestContractEveryOperationAgainstTheFake(t *testing.T) {
	t.Parallel()
	for _, variant := range contractVariants {
		for _, op := range apiOperations() {
			if op.call == nil {
				continue
			}
			t.Run(variant.name+"/"+op.name, func(t *testing.T) {
				t.Parallel()
				srv := billingtest.NewServer(append([]billingtest.Option{billingtest.WithSampleAccount()}, variant.opts...)...)
				t.Cleanup(srv.Close)
				contractRunOperation(t, contractClient(t, srv), op)
			})
		}
	}
}

// contractRunOperation runs op's call, iterators and count with c, a
// client of a sample account, acting on sampleFixture.
func contractRunOperation(t *testing.T, c *billing.Client, op apiOperation) {
	t.Helper()
	ctx := context.Background()
	if err := op.call(ctx, c, sampleFixture); err != nil {
		t.Errorf("%s: %v", op.name, err)
	}
	if op.list == nil || len(op.list.missing) > 0 {
		return
	}
	for _, it := range []struct {
		name string
		seq  func(context.Context, *billing.Client, leakFixture, ...billing.IterOption) iter.Seq2[int64, error]
	}{{"All", op.list.all}, {"Pages", op.list.pages}} {
		n := 0
		for _, err := range it.seq(ctx, c, sampleFixture) {
			if err != nil {
				t.Errorf("%s %s: %v", op.name, it.name, err)
				break
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s %s: no items: the sample fixture does not reach this list", op.name, it.name)
		}
	}
	if _, err := op.list.count(ctx, c, sampleFixture); err != nil {
		t.Errorf("%s Count: %v", op.name, err)
	}
}

// The fake's error answers (unknown ids, a refused query, a wrong key, a
// business rule) are answers the document allows: the error envelope
// under a status the operation declares.
func TestContractErrorAnswersOfTheFake(t *testing.T) {
	t.Parallel()
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	t.Cleanup(srv.Close)
	c := contractClient(t, srv)
	wrongKey, err := billing.NewClient("not-the-key", billing.WithBaseURL(srv.URL), billing.WithHTTPClient(contractHTTPClient(t, srv)),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}))
	if err != nil {
		t.Fatal(err)
	}
	contractErrorCalls(t, c, wrongKey)

	// Throttling and a write-off without the permission, on fakes of
	// their own.
	ctx := context.Background()
	throttled := billingtest.NewServer(billingtest.WithSampleAccount(), billingtest.WithPDFRateLimit(1))
	t.Cleanup(throttled.Close)
	tc := contractClient(t, throttled, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}))
	for i := range 2 {
		rc, err := tc.DraftInvoices.PDF(ctx, 800, nil)
		if err == nil {
			_, _ = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if (err == nil) != (i == 0) {
			t.Errorf("PDF %d with a limit of 1 a minute: %v", i+1, err)
		}
	}
	denied := billingtest.NewServer(billingtest.WithSampleAccount(), billingtest.WithWriteOffPermission(false))
	t.Cleanup(denied.Close)
	if _, err := contractClient(t, denied).Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 1007, Amount: billing.Ptr(decimal.NewFromInt(244))}); err == nil {
		t.Error("write-off without the permission: no error")
	}
}

// contractErrorCalls makes calls of c that a sample account refuses, and
// one of wrongKey, a client with a key it does not accept; each must fail.
func contractErrorCalls(t *testing.T, c, wrongKey *billing.Client) {
	t.Helper()
	ctx := context.Background()
	calls := []struct {
		name string
		call func() error
	}{
		{"unknown invoice", func() error { _, err := c.Invoices.Get(ctx, 999999, nil); return err }},
		{"unknown customer's summaries", func() error { _, err := c.InvoiceSummaries.List(ctx, 999999, nil); return err }},
		{"unknown draft", func() error { _, err := c.DraftInvoices.PDF(ctx, 999999, nil); return err }},
		{"write-off of another amount", func() error {
			return errOf(c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 1007, Amount: billing.Ptr(decimal.NewFromInt(1))}))
		}},
		{"unknown bulk job", func() error { _, err := c.Bulk.Process(ctx, 999999); return err }},
		{"wrong key", func() error { _, err := wrongKey.Invoices.List(ctx, nil); return err }},
		{"invalid query", func() error {
			return errOf(c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{Raw: "noSuchField:1"}}))
		}},
		{"tracking code of no category", func() error {
			return errOf(c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: "No Such Category", Code: "X", Name: "X"}))
		}},
		{"wallet agreement without token and baid", func() error {
			var out json.RawMessage
			_, err := c.Do(ctx, &billing.Request{Method: http.MethodPost, Path: "/v1/Paypal", PathTemplate: "/v1/{provider}",
				Body: map[string]any{"customerId": 101, "source": "Manual"}}, &out)
			return err
		}},
		{"bulk job processed twice", func() error {
			// The first may be refused already: the operation table's
			// pass processes job 400 too when it runs first on this fake.
			_, _ = c.Bulk.Process(ctx, 400)
			_, err := c.Bulk.Process(ctx, 400)
			return err
		}},
		{"replacing a card already replaced", func() error {
			p := billing.ReplaceCreditCardParams{ID: 301, CustomerID: 102, CardNumber: "5555555555554444", CVV: "321", ExpirationMonth: 11, ExpirationYear: 29}
			if _, err := c.PaymentMethods.ReplaceCreditCard(ctx, &p); err != nil {
				t.Errorf("the first replace of card 301: %v", err)
				return err
			}
			_, err := c.PaymentMethods.ReplaceCreditCard(ctx, &p)
			return err
		}},
	}
	for _, tc := range calls {
		if err := tc.call(); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// The OpenAPI library is a test dependency: neither the SDK nor the fake
// that users build imports it.
func TestContractStaysOutOfTheSDK(t *testing.T) {
	t.Parallel()
	for _, pkg := range []string{".", "./billingtest", "./query", "./cmd/billing-fake"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.Contains(dep, "kin-openapi") || strings.HasSuffix(dep, "/internal/contract") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}

// Each operation with every parameter, header and body member the SDK can
// send (filters, sorting, flags, suppressed events, optional members),
// against the sample account: the names and shapes the SDK writes are the
// document's. The check of undeclared query names (internal/contract)
// catches a misspelt parameter, which the service would silently ignore.
func TestContractEveryParameter(t *testing.T) {
	t.Parallel()
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	t.Cleanup(srv.Close)
	c := contractClient(t, srv)
	ctx := context.Background()
	quiet := billing.SuppressEvents()
	may := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
	june := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	list := billing.ListOptions{PageSize: 2, PageNumber: 0, Sort: query.Sort{Field: "postedTimestamp", Order: query.Descending}}
	calls := []struct {
		name string
		call func() error
	}{
		{"Invoices.List", func() error {
			_, err := c.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: list, Filter: billing.InvoiceFilter{
				PostedTimestamp: query.TimeRange{From: may, To: june}, CustomerID: query.Ints{100, 101},
			}}, quiet)
			return err
		}},
		{"Invoices.ListByCustomer", func() error {
			_, err := c.Invoices.ListByCustomer(ctx, 100, &billing.ListCustomerInvoicesParams{ListOptions: list, ShowTrackedItems: true,
				Filter: billing.CustomerInvoiceFilter{PostedTimestamp: query.TimeRange{From: may, DateOnly: true}}}, quiet)
			return err
		}},
		{"Invoices.Get", func() error {
			return errOf(c.Invoices.Get(ctx, 1007, &billing.GetInvoiceParams{ShowTrackedItems: true, GroupCharges: true}, quiet))
		}},
		{"InvoiceSummaries.List", func() error {
			_, err := c.InvoiceSummaries.List(ctx, 100, &billing.ListInvoiceSummariesParams{
				ListOptions: billing.ListOptions{PageSize: 2, Sort: query.Sort{Field: "effectiveTimestamp"}},
				Filter:      billing.InvoiceSummaryFilter{InvoiceStatus: []billing.InvoiceStatus{billing.InvoiceStatusDue, billing.InvoiceStatusOverdue}},
			}, quiet)
			return err
		}},
		{"SubscriptionItems.List", func() error {
			_, err := c.SubscriptionItems.List(ctx, 202, &billing.ListSubscriptionItemsParams{
				ListOptions: billing.ListOptions{PageSize: 2, Sort: query.Sort{Field: "name", Order: query.Ascending}},
				Filter:      billing.SubscriptionProductItemFilter{Name: query.StartsWith("User seat")},
			}, quiet)
			return err
		}},
		{"DraftInvoices.PDF", func() error {
			rc, err := c.DraftInvoices.PDF(ctx, 800, &billing.DraftPDFParams{ShowTrackedItems: true}, quiet)
			if err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, rc)
			return errors.Join(err, rc.Close())
		}},
		{"Bulk.PreviewPriceChange with a query", func() error {
			_, err := c.Bulk.PreviewPriceChange(ctx, 900, &billing.BulkPriceChangeParams{PlanProductIDs: []int64{}, SelectAll: true,
				SubscriptionIDs: []int64{210}, Query: billing.SubscriberFilter{CompanyName: query.StartsWith("Analytical")}}, quiet)
			return err
		}},
		{"Bulk.PreviewPriceChange with filterOptions", func() error {
			_, err := c.Bulk.PreviewPriceChange(ctx, 900, &billing.BulkPriceChangeParams{SelectAll: false, SubscriptionIDs: []int64{200},
				FilterOptions: &billing.BulkFilterOptions{
					CustomerCreatedDateRangeStartDate: may.AddDate(-5, 0, 0), CustomerCreatedDateRangeEndDate: june,
					SubscriptionCreatedDateRangeStartDate: may.AddDate(-5, 0, 0), SubscriptionCreatedDateRangeEndDate: june,
					NextBillingDateRangeStartDate: may, NextBillingDateRangeEndDate: june.AddDate(1, 0, 0),
					CustomerStatuses: []billing.CustomerStatus{billing.CustomerStatusActive}, SubscriptionStatuses: []billing.SubscriptionStatus{billing.SubscriptionStatusActive},
					Intervals: []billing.Interval{billing.IntervalMonthly}, ExcludedProducts: []string{"999"},
					Code1: []int64{500}, Code2: []int64{}, Code3: nil, Code4: nil, Code5: nil,
				}}, quiet)
			return err
		}},
		{"Invoices.WriteOff", func() error {
			return errOf(c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 1008, Amount: billing.Ptr(decimal.NewFromInt(450)), Reference: "bad debt"}, quiet))
		}},
		{"PaymentMethods.ReplaceCreditCard", func() error {
			_, err := c.PaymentMethods.ReplaceCreditCard(ctx, &billing.ReplaceCreditCardParams{
				ID: 300, CustomerID: 100, CardNumber: "4111111111111111", CVV: "123", FirstName: "Ada", LastName: "Lovelace",
				ExpirationMonth: 12, ExpirationYear: 30, Address1: "12 St James's Square", Address2: "Floor 2",
				CountryID: billing.Ptr(int64(1)), StateID: billing.Ptr(int64(9)), City: "London", PostalZip: "SW1Y 4JH",
				IsDefault: billing.Ptr(true), PaymentCollectOptions: &billing.PaymentCollectOptions{CollectionAmount: decimal.RequireFromString("1.005")},
			}, quiet)
			return err
		}},
		{"PaymentMethods.CreateWalletAgreement", func() error {
			_, err := c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{Baid: "B-7XK12345", CustomerID: 101,
				Source: billing.PaymentSourceSelfServicePortal, PaymentCollectOptions: &billing.PaymentCollectOptions{CollectionAmount: decimal.NewFromInt(5)}}, quiet)
			return err
		}},
		{"SalesTrackingCodes.Create", func() error {
			_, err := c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "EAST", Name: "East",
				Description: "Eastern region", Email: "east@example.com"}, quiet)
			return err
		}},
		{"Bulk.Process", func() error { _, err := c.Bulk.Process(ctx, 400, quiet); return err }},
	}
	for _, tc := range calls {
		if err := tc.call(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

package billingtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// FuzzHandlers is run with
//
//	go test -run '^$' -fuzz '^FuzzHandlers$' ./billingtest
//
// Its seeds are the f.Add calls below; inputs that failed once are kept
// under testdata/fuzz/FuzzHandlers/.

const fuzzKey = "fuzz-handlers-key"

// fuzzMethods are the methods the target picks from: the API's, the other
// standard ones and a few odd but valid tokens (net/http refuses a method
// that is not a token before any handler runs).
var fuzzMethods = []string{
	http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch,
	http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodConnect,
	"get", "Post", "PROPFIND", "X-BREW",
}

// fuzzAuth are the Authorization headers the target picks from. Those of
// fuzzAuthRight carry the right key; the others are refused before routing.
var fuzzAuth = []string{
	"Basic " + fuzzKey,
	"",
	"Basic wrong-key",
	"Bearer " + fuzzKey,
	"Basic ",
	"basic " + fuzzKey,
	"Basic " + fuzzKey + " extra",
	"Basic\t" + fuzzKey,
}

// fuzzAuthRight are the headers of fuzzAuth the fake accepts: the scheme
// is case-insensitive.
var fuzzAuthRight = map[string]bool{"Basic " + fuzzKey: true, "basic " + fuzzKey: true}

// fuzzClock is the fake's clock: the end of the generated data, so that
// every invoice status occurs, and fixed, so that an input always gets the
// same answer.
var fuzzClock = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

var fuzzFixtures = sync.OnceValues(func() ([]byte, error) { return os.ReadFile("testdata/fixtures.json") })

// fuzzServer is a fresh fake for one input, seeded with the fixtures file
// and a little generated data, with limits no input reaches, so that an
// input's answer never depends on the inputs before it.
func fuzzServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	fixtures, err := fuzzFixtures()
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := NewHandler(append([]Option{
		WithAPIKey(fuzzKey),
		WithClock(func() time.Time { return fuzzClock }),
		WithRateLimit(math.MaxInt32, math.MaxInt32),
		WithPDFRateLimit(math.MaxInt32),
		WithRequestLogLimit(16),
		WithWalletProviders("Paypal", "Venmo"),
	}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	if err := srv.LoadFixtures(bytes.NewReader(fixtures)); err != nil {
		tb.Fatalf("LoadFixtures: %v", err)
	}
	if err := srv.Generate(GenerateOptions{
		Seed: 7, Customers: 3, Invoices: 8, DraftInvoices: 2, CreditCards: 3, Subscriptions: 2, ItemsPerProduct: 1, BulkJobs: 4,
	}); err != nil {
		tb.Fatalf("Generate: %v", err)
	}
	return srv
}

// fuzzShared is the fuzz fake of this process. Building one takes a
// millisecond or two, a dozen times the cost of an answer, so it is kept
// until an input may have changed its data (a write that succeeded); the
// fake's other state (request log, error ids, rate-limit windows that no
// input fills) does not change any answer's status or shape, so every
// input is still answered as by a fresh fake.
var fuzzShared fuzzPool

type fuzzPool struct{ srv *Server }

func (p *fuzzPool) get(tb testing.TB) *Server {
	if p.srv == nil {
		p.srv = fuzzServer(tb)
	}
	return p.srv
}

func (p *fuzzPool) discard() { p.srv = nil }

// fuzzInProcess sends an SDK client's requests to a handler, without a
// listener.
type fuzzInProcess struct{ h http.Handler }

func (p fuzzInProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil {
		r.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// fuzzSDKRequests runs every operation of the SDK, with a variety of
// filters, sorts and pages, against a fuzz fake and returns the requests it
// received: the real paths, queries and bodies. Card bodies come back
// redacted from Requests, so one with a card number is added by hand.
func fuzzSDKRequests(tb testing.TB) []Request {
	tb.Helper()
	srv := fuzzServer(tb, WithRequestLogLimit(1000))
	c, err := billing.NewClient(fuzzKey,
		billing.WithBaseURL("https://billing.example.test"),
		billing.WithHTTPClient(&http.Client{Transport: fuzzInProcess{srv}}),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}),
	)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	dec := decimal.RequireFromString
	_, _ = c.Invoices.List(ctx, nil)
	_, _ = c.Invoices.List(ctx, &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{PageNumber: 1, PageSize: 2, Sort: query.Sort{Field: "poNumber", Order: query.Descending}},
		Filter: billing.InvoiceFilter{
			PoNumber: query.StartsWith("PO-"), CustomerID: query.Ints{100, 101}, ClosingArBalance: query.AtLeast(dec("0.5")),
			PostedTimestamp: query.TimeRange{From: day(2024, 1, 1), To: day(2025, 1, 1), DateOnly: true},
			CustomerStatus:  []billing.CustomerStatus{billing.CustomerStatusActive, billing.CustomerStatusHold},
			CrmID:           query.IsEmpty(), CustomerReference1: query.Contains("a;b:c|d,e*f[g]h&i=j+k#l?m%n"),
		},
	})
	_, _ = c.Invoices.List(ctx, &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{Raw: "erpId:ERP*;Customer.Arbalance:0|100"}})
	_, _ = c.Invoices.ListByCustomer(ctx, 100, &billing.ListCustomerInvoicesParams{
		ShowTrackedItems: true,
		ListOptions:      billing.ListOptions{Sort: query.Sort{Field: "effectiveTimestamp"}},
		Filter:           billing.CustomerInvoiceFilter{InvoiceNumber: query.Ints{1001}, ErpID: query.EndsWith("500")},
	})
	_, _ = c.Invoices.Get(ctx, 500, &billing.GetInvoiceParams{GroupCharges: true, ShowTrackedItems: true})
	_, _ = c.Invoices.Get(ctx, 501, nil)
	unsettled := true
	_, _ = c.InvoiceSummaries.List(ctx, 100, &billing.ListInvoiceSummariesParams{
		ListOptions: billing.ListOptions{PageSize: 1000, Sort: query.Sort{Field: "dueDate", Order: query.Ascending}},
		Filter: billing.InvoiceSummaryFilter{
			InvoiceStatus: []billing.InvoiceStatus{billing.InvoiceStatusDue, billing.InvoiceStatusOverdue},
			Unsettled:     &unsettled, InvoiceAmount: query.DecimalBetween(dec("-1.5"), dec("1e3")),
		},
	})
	if rc, err := c.DraftInvoices.PDF(ctx, 600, &billing.DraftPDFParams{ShowTrackedItems: true}); err == nil {
		_ = rc.Close()
	}
	amount := dec("66.165")
	_, _ = c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 500, Amount: &amount, Reference: "REF-1"})
	yes := true
	country := int64(1)
	_, _ = c.PaymentMethods.ReplaceCreditCard(ctx, &billing.ReplaceCreditCardParams{
		ID: 700, CustomerID: 100, CardNumber: "4111111111111111", CVV: "987", FirstName: "Ada", LastName: "Lovelace",
		ExpirationMonth: 7, ExpirationYear: 29, City: "Toronto", PostalZip: "M5V 2T6", CountryID: &country, IsDefault: &yes,
		PaymentCollectOptions: &billing.PaymentCollectOptions{CollectionAmount: dec("1.00")},
	})
	_, _ = c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{
		Token: "EC-1", CustomerID: 100, Source: billing.PaymentSourceAutomatic,
		PaymentCollectOptions: &billing.PaymentCollectOptions{CollectionAmount: dec("0")},
	})
	_, _ = c.PaymentMethods.CreateWalletAgreement(ctx, "Venmo", &billing.WalletAgreementParams{Baid: "B-1", CustomerID: 101, Source: billing.PaymentSourceImport})
	_, _ = c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{
		Type: "Region", Code: "WEST", Name: "West", Description: "Western region", Email: "west@example.test",
	})
	_, _ = c.SubscriptionItems.List(ctx, 202, &billing.ListSubscriptionItemsParams{
		ListOptions: billing.ListOptions{Sort: query.Sort{Field: "name", Order: query.Descending}},
		Filter:      billing.SubscriptionProductItemFilter{Name: query.Contains("User"), Status: []billing.ItemStatus{billing.ItemStatusActive}},
	})
	_, _ = c.Bulk.PreviewPriceChange(ctx, 900, &billing.BulkPriceChangeParams{
		SelectAll: true, SubscriptionIDs: []int64{210},
		Query: billing.SubscriberFilter{CompanyName: query.StartsWith("Analytical"), ServiceID: query.Ints{100}},
	})
	_, _ = c.Bulk.PreviewPriceChange(ctx, 900, &billing.BulkPriceChangeParams{
		PlanProductIDs: []int64{902},
		FilterOptions: &billing.BulkFilterOptions{
			CustomerCreatedDateRangeStartDate: day(2024, 1, 1),
			CustomerStatuses:                  []billing.CustomerStatus{billing.CustomerStatusActive},
			Intervals:                         []billing.Interval{billing.IntervalMonthly}, ExcludedProducts: []string{"961"},
			Code1: []int64{11, 12},
		},
	})
	_, _ = c.Bulk.Process(ctx, 950)
	_, _ = c.Bulk.Process(ctx, 951)
	return srv.Requests()
}

// fuzzIDs are the odd ids put into every route's id segments.
var fuzzIDs = []string{
	"0", "-1", "1", "01", "+1", "1.5", "1e3", "0x10", "abc", "99999999999999999999", "9223372036854775807",
	"9223372036854775808", "-9223372036854775808", "%2e%2e", "..", ".", "%2F", "1%2F2", "%31%30%30", "%00",
	"%ZZ", "%", "٣", "１", " 1", "1;2", "[1]", "*", "null", "%C0%AE",
}

// fuzzQueries are odd raw query strings.
var fuzzQueries = []string{
	"", "pageNumber=0", "pageNumber=-1", "pageNumber=abc", "pageNumber=", "pageNumber=2147483648",
	"pageSize=0", "pageSize=1000000", "pageSize=99999999999999999999", "pageSize=1&pageSize=2",
	"sortOrder=Descending", "sortOrder=sideways&sortExpression=poNumber", "sortExpression=", "sortExpression=id",
	"sortExpression=POnumber&sortOrder=descending", "query=", "query=%ZZ", "query=(((", "query=poNumber:",
	"query=poNumber:[empty]", "query=poNumber:%5Bempty%5D", "query=customerId:1|", "query=customerId:a|b",
	"query=postedTimestamp:2024-13-01|", "query=Customer.Status:Nope", "query=closingArBalance:1e400|",
	"query=;;;", "query=:x", "query=a.b.c.d:1", "query=poNumber:**", "query=poNumber:a%", "query=poNumber:%FF",
	"showTrackedItems=maybe", "showTrackedItems=", "showTrackedItems=TRUE", "groupCharges=1", "groupCharges=true&groupCharges=false",
	"a=%", "&&&", "=", "query", "%00=%00", "query=" + strings.Repeat("name:x;", 200),
}

// fuzzBodies are odd request bodies.
var fuzzBodies = []string{
	"", " ", "null", "{}", "[]", "0", `"x"`, "{", `{"id":`, `{"id":1}{"id":2}`, `{"id":1} trailing`,
	`{"id":"950"}`, `{"id":950.5}`, `{"id":1e400}`, `{"id":99999999999999999999}`, `{"id":-9223372036854775808}`,
	`{"invoiceId":500,"amount":66.165}`, `{"invoiceId":500,"amount":"66.165"}`, `{"invoiceId":500,"amount":1e2147483647}`,
	`{"invoiceId":500,"amount":-1}`, `{"invoiceId":500,"amount":null}`, `{"invoiceId":500,"amount":{}}`,
	`{"id":700,"customerId":100,"cardNumber":"4111 1111 1111 1111","cvv":"987","expirationMonth":7,"expirationYear":29}`,
	`{"id":700,"cardNumber":4111111111111111,"cvv":987,"expirationMonth":7,"expirationYear":29}`,
	`{"id":700,"cardNumber":"4111111111111111","cvv":"987","expirationMonth":7,"expirationYear":29,"firstName":"` + strings.Repeat("é", 51) + `"}`,
	`{"id":700,"customerId":99999999999999999999,"cardNumber":"x"}`, `{"CARDNUMBER":"4111111111111111","CvV":"1"}`,
	`{"token":"EC-1","customerId":100,"source":"Manual"}`, `{"token":12.5e3,"customerId":100,"source":"manual"}`,
	`{"baid":null,"token":null,"customerId":100,"source":"Manual"}`, `{"token":"x","customerId":100,"source":"Bogus"}`,
	`{"token":"x","customerId":100,"source":"Manual","paymentCollectOptions":{"collectionAmount":-1}}`,
	`{"type":"Sales Tracking Code 1","code":"N","name":"n"}`, `{"type":"Region","code":"NORTH","name":"dup"}`,
	`{"type":"","code":" ","name":" "}`, `{"type":["x"]}`,
	`{"planProductIds":[],"selectAll":true}`, `{"planProductIds":null,"selectAll":null}`, `{"planProductIds":[-1,0],"selectAll":false,"subscriptionIds":[200]}`,
	`{"planProductIds":[],"selectAll":true,"filterOptions":{"code1":"1,x","customerStatuses":"Nope"}}`,
	`{"planProductIds":[],"selectAll":true,"filterOptions":{"nextBillingDateRangeStartDate":"2024-13-01T00:00:00"}}`,
	`{"planProductIds":[],"selectAll":true,"filterOptions":{"excludedProducts":"99999999999999999999"}}`,
	`{"planProductIds":[],"selectAll":true,"filterOptions":{"intervals":"Monthly,Weekly"}}`,
	"\xff\xfe{}", "\ufeff{}", `{"a":"\ud800"}`, strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000),
}

// fuzzRouteTemplates are the fake's routes with "{}" where an id goes, and
// the method of each.
var fuzzRouteTemplates = []struct{ method, path string }{
	{http.MethodGet, "/v1/Invoices"},
	{http.MethodGet, "/v1/Customers/{}/Invoices/"},
	{http.MethodGet, "/v1/Invoices/{}"},
	{http.MethodGet, "/v1/customers/{}/invoiceSummaries"},
	{http.MethodGet, "/v1/draftInvoices/pdf/{}"},
	{http.MethodPost, "/v1/invoices/writeoff"},
	{http.MethodPut, "/v1/paymentMethods/creditCard"},
	{http.MethodPost, "/v1/{}"},
	{http.MethodPost, "/v1/salesTrackingCodes"},
	{http.MethodGet, "/v1/subscriptionProducts/{}/items"},
	{http.MethodPost, "/v1/Subscribers/{}/PreviewBulkPriceChange"},
	{http.MethodPost, "/v1/BulkApi/Process"},
}

func fuzzMethodIndex(m string) byte { return byte(slices.Index(fuzzMethods, m)) }

// fuzzNearPaths are paths near a route: casing, slashes, dot segments,
// escapes, other versions, nothing at all.
var fuzzNearPaths = []string{
	"/", "", "*", "/v1", "/v1/", "/v2/Invoices", "/V1/Invoices", "/v1/invoices", "/v1/INVOICES", "/v1/Invoices/",
	"//v1/Invoices", "/v1//Invoices", "/v1/Invoices//500", "/v1/./Invoices", "/v1/Invoices/../Invoices/500",
	"/v1/Invoices/%2e%2e/Invoices", "/v1/%49nvoices", "/v1/Invoices%2F500", "/v1/Customers/100/Invoices",
	"/v1/Customers/100/Invoices/x", "/v1/Customers/100/Invoices//", "/v1/customers/100/invoicesummaries",
	"/v1/draftInvoices/pdf/", "/v1/draftInvoices/pdf/600/", "/v1/subscriptionProducts/202/items/",
	"/v1/Subscribers/900/PreviewBulkPriceChange/", "/v1/BulkApi/process", "/v1/BulkApi/Process/", "/v1/paymentMethods",
	"/v1/paymentMethods/creditCard/700", "/v1/Paypal/", "/v1/%50aypal", "/v1/Pay%00pal", "/v1/" + strings.Repeat("a", 5000),
	"/v1/salesTrackingCodes?x=1", "/v1/Invoices#frag", "http://billing.example.test/v1/Invoices",
	"http://other.example/v1/Invoices/500", "/\x7f", "/v1/Invoices/\u00e9", "/v1/Invoices/%C3%A9", "/%",
}

func FuzzHandlers(f *testing.F) {
	// The SDK's own requests, each with the right key and without it.
	for _, r := range fuzzSDKRequests(f) {
		body := r.Body
		if bytes.Contains(body, []byte("[REDACTED]")) {
			body = []byte(`{"id":700,"customerId":100,"cardNumber":"4111111111111111","cvv":"987","expirationMonth":7,"expirationYear":29}`)
		}
		f.Add(fuzzMethodIndex(r.Method), byte(0), r.Path, r.Query.Encode(), body)
		f.Add(fuzzMethodIndex(r.Method), byte(1), r.Path, r.Query.Encode(), body)
	}
	// Ids that exist (from the fixtures, and generated drafts and
	// subscription products), ids that do not and ids that cannot be, each
	// in two of the routes that take one.
	srv := fuzzServer(f)
	ids := []string{"100", "101", "500", "501", "600", "202", "900", "910", "Paypal", "Venmo", "Stripe", "Invoices"}
	var generated []int64
	srv.mu.RLock()
	for id := range srv.store.drafts {
		generated = append(generated, id)
	}
	for id := range srv.store.products {
		generated = append(generated, id)
	}
	srv.mu.RUnlock()
	slices.Sort(generated) // a stable order keeps the seeds' numbers stable
	for _, id := range generated {
		ids = append(ids, strconv.FormatInt(id, 10))
	}
	ids = append(ids, fuzzIDs...)
	var withID, lists, writes []int
	for i, rt := range fuzzRouteTemplates {
		if strings.Contains(rt.path, "{}") {
			withID = append(withID, i)
		}
		if rt.method == http.MethodGet && !strings.Contains(rt.path, "pdf") {
			lists = append(lists, i)
		} else {
			writes = append(writes, i)
		}
	}
	add := func(route int, auth byte, id, rawQuery, body string) {
		rt := fuzzRouteTemplates[route]
		f.Add(fuzzMethodIndex(rt.method), auth, strings.ReplaceAll(rt.path, "{}", id), rawQuery, []byte(body))
	}
	for j, id := range ids {
		add(withID[j%len(withID)], 0, id, "", fuzzBodies[j%len(fuzzBodies)])
		add(withID[(j+3)%len(withID)], 0, id, fuzzQueries[j%len(fuzzQueries)], "")
	}
	// Odd queries on the reads, odd bodies on the writes.
	for j, q := range fuzzQueries {
		add(lists[j%len(lists)], 0, ids[j%8], q, "")
		add(lists[(j+2)%len(lists)], 0, ids[j%8], q, "")
	}
	for j, b := range fuzzBodies {
		add(writes[j%len(writes)], 0, ids[j%8], "", b)
		add(writes[(j+3)%len(writes)], 0, ids[j%8], "", b)
	}
	// Every method and every Authorization header, on every route.
	for i := range fuzzRouteTemplates {
		for k := range 3 {
			m := (i*3 + k) % len(fuzzMethods)
			rt := fuzzRouteTemplates[i]
			f.Add(byte(m), byte(m%len(fuzzAuth)), strings.ReplaceAll(rt.path, "{}", "100"), "", []byte("{}"))
		}
	}
	for _, p := range fuzzNearPaths {
		f.Add(fuzzMethodIndex(http.MethodGet), byte(0), p, "", []byte(nil))
		f.Add(fuzzMethodIndex(http.MethodPost), byte(0), p, "pageSize=1", []byte(`{"id":950}`))
	}
	f.Add(fuzzMethodIndex(http.MethodGet), byte(2), "/v1/Invoices", "", []byte(nil))

	f.Fuzz(func(t *testing.T, method, auth byte, path, rawQuery string, body []byte) {
		m := fuzzMethods[int(method)%len(fuzzMethods)]
		authHeader := fuzzAuth[int(auth)%len(fuzzAuth)]
		target := path
		if rawQuery != "" {
			target += "?" + rawQuery
		}
		// What net/http would refuse before calling the handler: a target
		// that is not a request URI, or that holds a space (the request
		// line splits at spaces).
		if strings.ContainsAny(target, " \r\n") {
			return
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return
		}
		req := &http.Request{
			Method:        m,
			URL:           u,
			Proto:         "HTTP/1.1",
			ProtoMajor:    1,
			ProtoMinor:    1,
			Header:        http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}},
			Body:          io.NopCloser(bytes.NewReader(body)),
			ContentLength: int64(len(body)),
			Host:          "billing.example.test",
			RequestURI:    target,
			RemoteAddr:    "192.0.2.1:1234",
		}
		if u.Host != "" {
			req.Host = u.Host
		}
		if authHeader != "" {
			req.Header.Set("Authorization", authHeader)
		}
		srv := fuzzShared.get(t)
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		if rec.Code < 300 && m != http.MethodGet && m != http.MethodHead {
			fuzzShared.discard() // a write may have changed the data
		}

		res := rec.Result()
		got, _ := io.ReadAll(res.Body)
		status := res.StatusCode
		describe := func() string {
			return fmt.Sprintf("%s %q (auth %q, %d-byte body): %d %s\n%.600s", m, target, authHeader, len(body), status, res.Header.Get("Content-Type"), got)
		}
		switch {
		case status >= 500:
			t.Fatalf("server error: %s", describe())
		case status >= 200 && status <= 299:
			if !fuzzAuthRight[authHeader] {
				t.Fatalf("answered without the right API key: %s", describe())
			}
			fuzzCheckSuccessBody(t, res.Header.Get("Content-Type"), got, describe)
			return
		case status < 400:
			t.Fatalf("neither a 2xx nor an error body: %s", describe())
		}
		if !fuzzAuthRight[authHeader] && status != http.StatusUnauthorized && status != http.StatusBadRequest {
			t.Fatalf("a request without the right key got neither 401 nor 400: %s", describe())
		}
		fuzzCheckErrorBody(t, status, res.Header.Get("Content-Type"), got, describe)
		if strings.Contains(string(got), fuzzKey) {
			t.Fatalf("the error body repeats the API key: %s", describe())
		}
		if reqs := srv.Requests(); len(reqs) == 0 || reqs[len(reqs)-1].Status != status || reqs[len(reqs)-1].Header.Get("Authorization") != "" {
			t.Fatalf("the request log does not end with the request, with status %d and without its key: %s", status, describe())
		}
	})
}

// fuzzCheckErrorBody fails unless body is the reference's error body for
// status, as application/json.
func fuzzCheckErrorBody(t *testing.T, status int, contentType string, body []byte, describe func() string) {
	t.Helper()
	if mt, _, err := mime.ParseMediaType(contentType); err != nil || mt != "application/json" {
		t.Fatalf("error answer with Content-Type %q, want application/json: %s", contentType, describe())
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		t.Fatalf("error body is not a JSON object (%v): %s", err, describe())
	}
	for _, k := range []string{"ErrorId", "HttpStatusCode", "Errors"} {
		if _, ok := fields[k]; !ok {
			t.Fatalf("error body has no %s: %s", k, describe())
		}
	}
	if len(fields) != 3 {
		t.Fatalf("error body has fields besides ErrorId, HttpStatusCode and Errors: %s", describe())
	}
	var eb struct {
		ErrorID        int64 `json:"ErrorId"`
		HTTPStatusCode int   `json:"HttpStatusCode"`
		Errors         []map[string]json.RawMessage
	}
	if err := json.Unmarshal(body, &eb); err != nil {
		t.Fatalf("error body does not decode (%v): %s", err, describe())
	}
	if eb.ErrorID != 0 {
		t.Fatalf("ErrorId %d, want 0 as the live service sends: %s", eb.ErrorID, describe())
	}
	if eb.HTTPStatusCode != status {
		t.Fatalf("HttpStatusCode %d differs from the status: %s", eb.HTTPStatusCode, describe())
	}
	if len(eb.Errors) == 0 {
		t.Fatalf("error body lists no error: %s", describe())
	}
	for _, e := range eb.Errors {
		var key, value string
		if len(e) != 2 || json.Unmarshal(e["Key"], &key) != nil || json.Unmarshal(e["Value"], &value) != nil {
			t.Fatalf("error entry %v is not {Key, Value} strings: %s", e, describe())
		}
		if key == "" || value == "" {
			t.Fatalf("error entry with an empty Key or Value: %s", describe())
		}
	}
}

// fuzzCheckSuccessBody fails unless a 2xx answer is JSON, or a PDF for the
// draft-invoice route.
func fuzzCheckSuccessBody(t *testing.T, contentType string, body []byte, describe func() string) {
	t.Helper()
	mt, _, err := mime.ParseMediaType(contentType)
	switch {
	case err != nil:
		t.Fatalf("2xx answer with Content-Type %q: %s", contentType, describe())
	case mt == "application/pdf":
		if !bytes.HasPrefix(body, []byte("%PDF-")) || !bytes.Contains(body, []byte("%%EOF")) {
			t.Fatalf("PDF answer is not a PDF file: %s", describe())
		}
	case mt == "application/json":
		if !json.Valid(body) {
			t.Fatalf("2xx answer is not JSON: %s", describe())
		}
	default:
		t.Fatalf("2xx answer with Content-Type %q: %s", contentType, describe())
	}
}

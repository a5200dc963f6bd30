package billing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
)

// The helpers that tests of several subjects share. A helper that one
// subject's tests use lives in that subject's file.

const (
	testKey     = "test-key-7f3a9c"
	testBaseURL = "https://billing.example.test"
)

// wire is a client whose requests go to an httpmock transport; nothing
// leaves the process.
type wire struct {
	t      *testing.T
	client *billing.Client
	mock   *httpmock.MockTransport

	mu       sync.Mutex
	requests []recorded
}

// recorded is one request as it reached the transport.
type recorded struct {
	Method   string
	Path     string // escaped path, exactly as sent
	RawQuery string
	Query    url.Values
	Header   http.Header
	Body     []byte
}

// newWire builds a client on an httpmock transport with retries off unless
// opts turn them on.
func newWire(t *testing.T, opts ...billing.Option) *wire {
	t.Helper()
	mt := httpmock.NewMockTransport()
	base := []billing.Option{
		billing.WithBaseURL(testBaseURL),
		billing.WithHTTPClient(&http.Client{Transport: mt}),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}),
	}
	c, err := billing.NewClient(testKey, append(base, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return &wire{t: t, client: c, mock: mt}
}

// on registers a responder for method and path (no query: any query
// matches) that records the request and answers with status, body and
// header pairs.
func (w *wire) on(method, path string, status int, body string, header ...string) {
	w.mock.RegisterResponder(method, testBaseURL+path, func(req *http.Request) (*http.Response, error) {
		w.record(req)
		resp := httpmock.NewStringResponse(status, body)
		if body != "" {
			resp.Header.Set("Content-Type", "application/json; charset=utf-8")
		}
		for i := 0; i+1 < len(header); i += 2 {
			resp.Header.Set(header[i], header[i+1])
		}
		resp.Request = req
		return resp, nil
	})
}

// onResponder registers a custom responder that still records requests.
func (w *wire) onResponder(method, path string, r httpmock.Responder) {
	w.mock.RegisterResponder(method, testBaseURL+path, func(req *http.Request) (*http.Response, error) {
		w.record(req)
		return r(req)
	})
}

func (w *wire) record(req *http.Request) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requests = append(w.requests, recorded{
		Method:   req.Method,
		Path:     req.URL.EscapedPath(),
		RawQuery: req.URL.RawQuery,
		Query:    req.URL.Query(),
		Header:   req.Header.Clone(),
		Body:     body,
	})
}

// last returns the only request sent, failing the test if there was not
// exactly one.
func (w *wire) last() recorded {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.requests) != 1 {
		w.t.Fatalf("requests sent: %d, want 1", len(w.requests))
	}
	return w.requests[0]
}

// sent returns how many requests reached the transport.
func (w *wire) sent() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.requests)
}

// assertJSON fails unless got is JSON equal to want. Numbers are compared
// by their text, so 10.50 and 10.5 differ: exact money on the wire.
func assertJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	dg := json.NewDecoder(bytes.NewReader(got))
	dg.UseNumber()
	if err := dg.Decode(&g); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, got)
	}
	dw := json.NewDecoder(bytes.NewReader([]byte(want)))
	dw.UseNumber()
	if err := dw.Decode(&w); err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("body:\n got %s\nwant %s", got, want)
	}
}

// assertCommonHeaders checks what every request carries.
func assertCommonHeaders(t *testing.T, r recorded, withBody bool) {
	t.Helper()
	if got := r.Header.Get("Authorization"); got != "Basic "+testKey {
		t.Errorf("Authorization = %q, want the key exactly as given", got)
	}
	if got := r.Header.Get("Accept"); got == "" {
		t.Errorf("Accept header missing")
	}
	if got := r.Header.Get("User-Agent"); !bytes.Contains([]byte(got), []byte("billing-go/"+billing.Version)) {
		t.Errorf("User-Agent = %q, want it to name the SDK", got)
	}
	ct := r.Header.Get("Content-Type")
	if withBody && ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if !withBody && ct != "" {
		t.Errorf("Content-Type = %q on a request without body", ct)
	}
}

// errorBody is the API's error envelope.
func errorBody(status int, key, value string) string {
	b, _ := json.Marshal(map[string]any{
		"ErrorId":        1234,
		"HttpStatusCode": status,
		"Errors":         []map[string]string{{"Key": key, "Value": value}},
	})
	return string(b)
}

// assertValidation fails unless err is a *billing.ValidationError for
// field, and not an *APIError: nothing was sent.
func assertValidation(t *testing.T, err error, field string) {
	t.Helper()
	var ve *billing.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v (%T), want *billing.ValidationError", err, err)
	}
	if ve.Field != field {
		t.Errorf("ValidationError.Field = %q, want %q (%v)", ve.Field, field, ve)
	}
	var apiErr *billing.APIError
	if errors.As(err, &apiErr) {
		t.Errorf("a validation failure must not be an *APIError")
	}
}

// countAll iterates seq to its end and returns how many items it yielded,
// failing the test at the first error.
func countAll[T any](t *testing.T, seq iter.Seq2[T, error]) int {
	t.Helper()
	n := 0
	for _, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// collect iterates seq to its end and returns the ids of the invoices it
// yielded and the error it ended with, if any.
func collect(t testing.TB, seq iter.Seq2[billing.Invoice, error]) ([]int64, error) {
	t.Helper()
	var ids []int64
	for inv, err := range seq {
		if err != nil {
			return ids, err
		}
		ids = append(ids, inv.ID)
	}
	return ids, nil
}

// ---------------------------------------------------------------------------
// Comparing whole values
// ---------------------------------------------------------------------------

// diff compares a whole expected value with the one a test got: "" when
// they are equal, else cmp.Diff's report (-want +got). Every field
// counts, unexported ones too; nil and empty slices and maps differ. The
// options say what equal means where == does not: decimals by value (1.50
// equals 1.5), and two rules stricter than cmp's own: a time.Time must be
// the same instant in the same location, and a json.RawMessage the same
// JSON document, numbers by their text (as in assertJSON: 10.50 and 10.5
// differ, white space does not count).
func diff(want, got any) string {
	return cmp.Diff(want, got, diffOptions...)
}

var diffOptions = []cmp.Option{
	cmp.Comparer(func(a, b decimal.Decimal) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) && a.Location() == b.Location() }),
	cmp.Comparer(func(a, b json.RawMessage) bool { return sameJSON(a, b) }),
	cmp.Exporter(func(reflect.Type) bool { return true }),
}

// sameJSON reports whether a and b are the same JSON document, numbers
// compared by their text; two empty values are the same, and bytes that
// are not JSON are compared as they are.
func sameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	decode := func(b []byte) (any, error) {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		return v, dec.Decode(&v)
	}
	va, errA := decode(a)
	vb, errB := decode(b)
	if errA != nil || errB != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(va, vb)
}

// ---------------------------------------------------------------------------
// Secrets
// ---------------------------------------------------------------------------

// numberOf matches a number as printed: digits, with decimal parts.
var numberOf = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)*`)

// leaksCVV reports whether out holds cvv as a whole number. A short
// secret turns up inside other numbers (timestamps, durations, ids) by
// chance; only the number itself is a leak.
func leaksCVV(out, cvv string) bool {
	for _, n := range numberOf.FindAllString(out, -1) {
		if n == cvv {
			return true
		}
	}
	return false
}

const (
	// Long and distinctive: no id, amount, timestamp or duration in the
	// output holds the card number by chance, and the CVV is looked for
	// only as a whole number (see leaksCVV), never inside another one.
	secCard = "4111111111111111"
	secCVV  = "8146"
)

// secParams is a replace-card request without pointer fields, so that the
// only addresses in fmt output are those of the test's own pointers.
func secParams() billing.ReplaceCreditCardParams {
	return billing.ReplaceCreditCardParams{
		ID: 1001, CustomerID: 42, CardNumber: secCard, CVV: secCVV,
		FirstName: "Ada", LastName: "Lovelace", ExpirationMonth: 7, ExpirationYear: 29,
		City: "Toronto", PostalZip: "M5V 2T6",
	}
}

// ---------------------------------------------------------------------------
// Clients of in-process test servers, and a guard against hangs
// ---------------------------------------------------------------------------

// fastRetries keeps retry waits short so the tests do not sleep.
var fastRetries = billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Minute}

// newLoopbackClient is a client of the test server at url, with
// fastRetries unless opts say otherwise.
func newLoopbackClient(t *testing.T, url string, opts ...billing.Option) *billing.Client {
	t.Helper()
	c, err := billing.NewClient(testKey, append([]billing.Option{billing.WithBaseURL(url), billing.WithRetryPolicy(fastRetries)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// hostileClient is a client for a test server: one retry, millisecond
// waits, and its own transport, closed when the test ends.
func hostileClient(t *testing.T, url string, opts ...billing.Option) *billing.Client {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	base := []billing.Option{
		billing.WithHTTPClient(&http.Client{Transport: tr}),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second}),
	}
	return newLoopbackClient(t, url, append(base, opts...)...)
}

// readInvoice reads invoice 7.
func readInvoice(c *billing.Client) error {
	_, err := c.Invoices.Get(context.Background(), 7, nil)
	return err
}

// fixedServer answers every request with status, body and header pairs,
// counting the requests.
func fixedServer(t *testing.T, status int, body string, header ...string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// noHang runs call and returns its error; it fails the test if call
// panics or has not returned after 10 s (a hang guard, not a timing
// assertion: the calls it guards return in well under a second).
func noHang(t *testing.T, call func() error) error {
	t.Helper()
	type outcome struct {
		err      error
		panicked any
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o.panicked = p
			}
			done <- o
		}()
		o.err = call()
	}()
	select {
	case o := <-done:
		if o.panicked != nil {
			t.Fatalf("the call panicked: %v", o.panicked)
		}
		return o.err
	case <-time.After(10 * time.Second):
		t.Fatal("the call has not returned after 10s: it hangs")
		return nil
	}
}

// ---------------------------------------------------------------------------
// SDK calls as values, for tests that must hold for every call of a kind
// ---------------------------------------------------------------------------

// hostileOp is one SDK call against a test server, with the path it uses.
type hostileOp struct {
	name  string
	path  string
	write bool
	call  func(ctx context.Context, c *billing.Client) error
}

var (
	opGet      = hostileOp{name: "Get", path: "/v1/Invoices/7", call: func(ctx context.Context, c *billing.Client) error { return errOf(c.Invoices.Get(ctx, 7, nil)) }}
	opList     = hostileOp{name: "List", path: "/v1/Invoices", call: func(ctx context.Context, c *billing.Client) error { return errOf(c.Invoices.List(ctx, nil)) }}
	opWriteOff = hostileOp{name: "WriteOff", path: "/v1/invoices/writeoff", write: true, call: func(ctx context.Context, c *billing.Client) error {
		return errOf(c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7, Amount: billing.Ptr(decimal.NewFromInt(5))}))
	}}
	opPDF = hostileOp{name: "PDF", path: "/v1/draftInvoices/pdf/3", call: func(ctx context.Context, c *billing.Client) error {
		rc, err := c.DraftInvoices.PDF(ctx, 3, nil)
		if err != nil {
			return err
		}
		defer rc.Close()
		_, err = io.Copy(io.Discard, rc)
		return err
	}}
)

// The five writes, each as a hostileOp, for tests that must hold for every
// write.
var (
	opReplaceCard = hostileOp{name: "ReplaceCreditCard", path: "/v1/paymentMethods/creditCard", write: true, call: func(ctx context.Context, c *billing.Client) error {
		p := secParams()
		_, err := c.PaymentMethods.ReplaceCreditCard(ctx, &p)
		return err
	}}
	opWallet = hostileOp{name: "CreateWalletAgreement", path: "/v1/Paypal", write: true, call: func(ctx context.Context, c *billing.Client) error {
		return errOf(c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{Baid: "B-7XK12345", CustomerID: 42, Source: billing.PaymentSourceAutomatic}))
	}}
	opTrackingCode = hostileOp{name: "SalesTrackingCodes.Create", path: "/v1/salesTrackingCodes", write: true, call: func(ctx context.Context, c *billing.Client) error {
		return errOf(c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "SPRING", Name: "Spring"}))
	}}
	opBulkProcess = hostileOp{name: "Bulk.Process", path: "/v1/BulkApi/Process", write: true, call: func(ctx context.Context, c *billing.Client) error { return errOf(c.Bulk.Process(ctx, 910602)) }}
	allWrites     = []hostileOp{opWriteOff, opReplaceCard, opWallet, opTrackingCode, opBulkProcess}
)

// ---------------------------------------------------------------------------
// A fake seeded for every operation, and every operation and iterator as one
// call: the leak, iterator-stop and concurrency tests run them all
// ---------------------------------------------------------------------------

// leakItems is how many items each list holds: four pages of leakPageSize.
const (
	leakItems    = 40
	leakPageSize = 10
)

// leakFixture is what the operations act on: customer and product hold
// the lists (listSeeds), payer the card and wallet the writes act on, so
// that the lists' parents hold only the items seeded for them.
type leakFixture struct {
	customer, payer, invoice, draft, card, job, plan, product int64
	balance                                                   decimal.Decimal
	pageSize                                                  int // of the list rows' iterators; 0 for leakPageSize
}

// reverseProxyTo returns a reverse proxy to the server at fake, for a
// test to change the answers of; its connections are closed when the test
// ends.
func reverseProxyTo(t *testing.T, fake string) *httputil.ReverseProxy {
	t.Helper()
	target, err := url.Parse(fake)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }, Transport: tr}
}

// seeded returns a function that passes on the id a seeding call returns
// and fails the test at once when the call failed, so that a fixture
// reads as the list of its calls.
func seeded(t testing.TB) func(id int64, err error) int64 {
	return func(id int64, err error) int64 {
		t.Helper()
		if err != nil {
			t.Fatalf("seeding the fake: %v", err)
		}
		return id
	}
}

// fakeWithCustomer starts a fake with opts, closed when the test ends,
// holding customer alone; it returns the fake and the customer's id.
func fakeWithCustomer(t testing.TB, customer billingtest.Customer, opts ...billingtest.Option) (*billingtest.Server, int64) {
	t.Helper()
	srv := billingtest.NewServer(opts...)
	t.Cleanup(srv.Close)
	cust, err := srv.AddCustomer(customer)
	if err != nil {
		t.Fatal(err)
	}
	return srv, cust
}

// leakServer starts a fake (closed before verifyNoLeaks checks, which the
// caller registered first) seeded with leakItems of every collection the
// table's list rows read (listSeeds) and one of each thing the writes act
// on.
func leakServer(t *testing.T) (*billingtest.Server, leakFixture) {
	t.Helper()
	srv := billingtest.NewServer()
	t.Cleanup(srv.Close)
	var f leakFixture
	must := seeded(t)
	f.customer = must(srv.AddCustomer(billingtest.Customer{FirstName: "Grace", LastName: "Hopper"}))
	f.payer = must(srv.AddCustomer(billingtest.Customer{FirstName: "Ada", LastName: "Lovelace"}))
	f.draft = must(srv.AddDraftInvoice(billingtest.DraftInvoice{CustomerID: f.customer, Lines: []billingtest.DraftLine{
		{Description: "Plan", Quantity: decimal.NewFromInt(1), Amount: decimal.NewFromInt(99)},
	}}))
	f.card = must(srv.AddCreditCard(billingtest.CreditCard{CustomerID: f.payer, Last4: "0004", CardType: "Visa", ExpirationMonth: 1, ExpirationYear: 27}))
	f.job = must(srv.AddBulkJob(billingtest.BulkJob{Type: "PriceChange", Validated: true}))
	f.plan = 900
	sub := must(srv.AddSubscription(billingtest.Subscription{CustomerID: f.customer, PlanID: f.plan, Name: "Gold", Products: []billingtest.SubscriptionProduct{
		{PlanProductID: 901, ProductID: 902, Name: "Seat", Price: decimal.NewFromInt(10), PlanPrice: decimal.NewFromInt(12)},
	}}))
	s, _ := srv.Subscription(sub)
	f.product = s.Products[0].ID
	for _, seed := range listSeeds() {
		for i := range leakItems {
			id := must(seed.add(srv, f, i, time.Time{}))
			if seed.name == invoiceSeed.name && i == 0 {
				f.invoice = id // the one the writes act on
			}
		}
	}
	inv, _ := srv.Invoice(f.invoice)
	f.balance = inv.OutstandingBalance
	return srv, f
}

// leakClient is a client of the fake that retries once, without waiting
// long; its requests and the fake's answers are held to openapi.yaml.
func leakClient(t testing.TB, srv *billingtest.Server) *billing.Client {
	return contractClient(t, srv, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second}))
}

// endpoint is where a table test's wire answers: every request to method
// and path (as wire.on takes it) gets a 200 with answer.
type endpoint struct{ method, path, answer string }

// wire returns a new wire that answers at.
func (at endpoint) wire(t *testing.T) *wire {
	w := newWire(t)
	w.on(at.method, at.path, http.StatusOK, at.answer)
	return w
}

// paramsCase is a case of a table test of one call: the params, and what
// they must give: for testBodies the JSON body sent, for testRefused the
// field of the *ValidationError that refuses them before sending ("": the
// params are accepted and sent).
type paramsCase[P any] struct {
	name   string
	params P
	want   string
}

// onEachCase sends the params of each case with send, in a parallel
// subtest of its own, to a wire that answers at, and hands check the wire,
// the call's error and the case's want.
func onEachCase[P any](t *testing.T, at endpoint, send func(*billing.Client, P) error, tests []paramsCase[P], check func(t *testing.T, w *wire, err error, want string)) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := at.wire(t)
			check(t, w, send(w.client, tt.params), tt.want)
		})
	}
}

// testBodies checks that the params of each case are sent as a write to
// at carrying the case's JSON body and nothing in its query.
func testBodies[P any](t *testing.T, at endpoint, send func(*billing.Client, P) error, tests []paramsCase[P]) {
	t.Helper()
	onEachCase(t, at, send, tests, func(t *testing.T, w *wire, err error, body string) {
		if err != nil {
			t.Fatalf("%s %s: %v", at.method, at.path, err)
		}
		assertWrite(t, w.last(), at.method, at.path, body)
	})
}

// testRefused checks that the params of each case are refused before
// sending with a *ValidationError naming the case's field, or, for a case
// without one, that the call succeeds with exactly one request.
func testRefused[P any](t *testing.T, at endpoint, send func(*billing.Client, P) error, tests []paramsCase[P]) {
	t.Helper()
	onEachCase(t, at, send, tests, func(t *testing.T, w *wire, err error, field string) {
		if field != "" {
			assertRefused(t, w, err, field)
			return
		}
		if err != nil {
			t.Fatalf("err = %v, want the request accepted", err)
		}
		if n := w.sent(); n != 1 {
			t.Errorf("requests sent = %d, want 1", n)
		}
	})
}

// errOf is the error of a call whose value a test does not need, so that
// a table's call can be one expression: errOf(c.Invoices.Get(ctx, 7, nil)).
func errOf[T any](_ T, err error) error { return err }

package billing_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// The sweep runs every operation of the SDK against the fake, succeeding,
// failing and retried, with debug logging on, prints every value it sees
// with every verb, and checks that the API key, the card numbers and the
// CVVs appear nowhere: not in the output, not in the client's logs, not in
// the fake's logs or request log.

const (
	sweepKey   = "sk_live_SWEEP_9f8e7d"
	sweepCard1 = "4111111111111111"
	sweepCVV1  = "8146"
	sweepCard2 = "5500005555555559"
	sweepCVV2  = "1234"
)

// sweepClock is the fake's clock. Fixed, so that every number in an answer
// (ids, lengths, rate-limit resets) is the same on every run; its digits
// hold neither CVV.
var sweepClock = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// sweepFixture holds the ids of what newSweepEnv seeds.
type sweepFixture struct {
	customer, customer2                                 int64
	invoice, invoice2                                   int64
	balance                                             decimal.Decimal
	draft                                               int64
	card1, card2, deletedCard, replacedCard             int64
	plan, product                                       int64
	job, unvalidatedJob, processedJob                   int64
	existingCodeType                                    billing.TrackingCodeType
	existingCode                                        string
	unknownCustomer, unknownInvoice, unknownDraft       int64
	unknownCard, unknownPlan, unknownProduct, unknownJb int64
}

// sweepEnv is one fake, one client and the logs of both.
type sweepEnv struct {
	srv     *billingtest.Server
	client  *billing.Client
	logger  *slog.Logger
	fx      sweepFixture
	jsonLog *secLockedBuffer
	textLog *secLockedBuffer
	fakeLog *secLockedBuffer
	// attempts are what the client's attempt observer was given.
	attempts *sweepAttempts
}

// sweepAttempts collects the Attempt values of an observer.
type sweepAttempts struct {
	mu   sync.Mutex
	list []billing.Attempt
}

func (s *sweepAttempts) observe(_ context.Context, a billing.Attempt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = append(s.list, a)
}

func (s *sweepAttempts) all() []billing.Attempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.list)
}

// newSweepEnv starts a fake seeded with a customer, invoices, a draft,
// cards, a subscription to a plan with items, bulk jobs and a tracking
// code, and a client with the sweep's key that logs at Debug level to a
// JSON and a text handler. With wrongKey the fake accepts another key, so
// that every request is refused with 401.
func newSweepEnv(t *testing.T, wrongKey, echo bool) *sweepEnv {
	t.Helper()
	env := &sweepEnv{jsonLog: &secLockedBuffer{}, textLog: &secLockedBuffer{}, fakeLog: &secLockedBuffer{}, attempts: &sweepAttempts{}}
	fakeKey := sweepKey
	if wrongKey {
		fakeKey = "sk_live_OTHER_0a0b0c"
	}
	debug := &slog.HandlerOptions{Level: slog.LevelDebug}
	env.srv = billingtest.NewServer(
		billingtest.WithAPIKey(fakeKey),
		billingtest.WithClock(func() time.Time { return sweepClock }),
		billingtest.WithLogger(slog.New(slog.NewJSONHandler(env.fakeLog, debug))),
	)
	t.Cleanup(env.srv.Close)
	env.fx = sweepSeed(t, env.srv)
	env.logger = slog.New(teeHandler{
		slog.NewJSONHandler(env.jsonLog, debug),
		slog.NewTextHandler(env.textLog, debug),
	})
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections) // no keep-alive goroutine outlives the case
	base := env.srv.URL
	if echo {
		base = sweepEchoingProxy(t, env.srv.URL)
	}
	c, err := billing.NewClient(sweepKey,
		billing.WithBaseURL(base),
		billing.WithHTTPClient(&http.Client{Transport: tr}),
		billing.WithLogger(env.logger),
		billing.WithAttemptObserver(env.attempts.observe),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}),
	)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	env.client = c
	return env
}

// sweepEchoingProxy starts a proxy in front of the fake that echoes, in
// headers of every answer, the request's Authorization header, and the
// card number (plain, and grouped by spaces, dashes and dots) and CVV of
// a request body that has them, as a debugging proxy might. It returns
// the proxy's URL.
func sweepEchoingProxy(t *testing.T, fake string) string {
	t.Helper()
	rp := reverseProxyTo(t, fake)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		h := w.Header()
		h.Set("X-Echo-Authorization", r.Header.Get("Authorization"))
		var card struct {
			Number string `json:"cardNumber"`
			CVV    string `json:"cvv"`
		}
		if json.Unmarshal(body, &card) == nil && len(card.Number) == 16 {
			n := card.Number
			grouped := func(sep string) string { return strings.Join([]string{n[:4], n[4:8], n[8:12], n[12:]}, sep) }
			h["X-Echo-Card-Number"] = []string{n, grouped(" "), grouped("-"), grouped(".")}
			h.Set("X-Echo-Cvv", card.CVV)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	return proxy.URL
}

func sweepSeed(t *testing.T, srv *billingtest.Server) sweepFixture {
	t.Helper()
	must := seeded(t)
	d := decimal.RequireFromString
	var fx sweepFixture
	fx.customer = must(srv.AddCustomer(billingtest.Customer{
		FirstName: "Grace", LastName: "Hopper", CompanyName: "Sweep Analytics", PrimaryEmail: "grace@sweep.example",
		Reference: "CUST-S1", Reference1: "ACCT-S1",
	}))
	fx.customer2 = must(srv.AddCustomer(billingtest.Customer{FirstName: "Alan", LastName: "Turing", Reference: "CUST-S2"}))
	fx.plan = 77
	sub := must(srv.AddSubscription(billingtest.Subscription{
		CustomerID: fx.customer, PlanID: fx.plan, Name: "Pro", Description: "Pro plan", Reference: "SUB-S1",
		Products: []billingtest.SubscriptionProduct{{PlanProductID: 78, ProductID: 79, Name: "Seat", Price: d("10"), PlanPrice: d("12.5")}},
	}))
	s, _ := srv.Subscription(sub)
	fx.product = s.Products[0].ID
	for _, name := range []string{"Seat A", "Seat B"} {
		must(srv.AddSubscriptionProductItem(billingtest.SubscriptionProductItem{
			SubscriptionProductID: fx.product, SubscriptionID: sub, CustomerID: fx.customer, ProductID: 79,
			Name: name, Description: "A seat", Reference: billing.ItemReference{Value: "R-" + name[5:]},
		}))
	}
	fx.invoice = must(srv.AddInvoice(billingtest.Invoice{
		CustomerID: fx.customer, PoNumber: "PO-S1",
		Charges: []billingtest.Charge{
			{Name: "Pro", Quantity: d("1"), UnitPrice: d("10"), Amount: d("10"), SubscriptionID: sub, SubscriptionProductID: fx.product},
			{Name: "Setup", Quantity: d("2"), UnitPrice: d("16.25"), Amount: d("32.5"), PurchaseID: 5},
		},
	}))
	fx.invoice2 = must(srv.AddInvoice(billingtest.Invoice{
		CustomerID: fx.customer, PoNumber: "PO-S2",
		Charges: []billingtest.Charge{{Name: "Extra", Quantity: d("1"), UnitPrice: d("20"), Amount: d("20"), PurchaseID: 6}},
	}))
	inv, _ := srv.Invoice(fx.invoice)
	fx.balance = inv.OutstandingBalance
	fx.draft = must(srv.AddDraftInvoice(billingtest.DraftInvoice{
		CustomerID: fx.customer, Lines: []billingtest.DraftLine{{Description: "Widget", Quantity: d("2"), Amount: d("20")}},
	}))
	card := func(customer int64, last4 string, deleted bool, replacedBy int64) int64 {
		return must(srv.AddCreditCard(billingtest.CreditCard{
			CustomerID: customer, Last4: last4, CardType: "Visa", FirstName: "Grace", LastName: "Hopper",
			ExpirationMonth: 1, ExpirationYear: 30, IsDefault: !deleted && replacedBy == 0, Deleted: deleted, ReplacedBy: replacedBy,
		}))
	}
	fx.card1 = card(fx.customer, "4242", false, 0)
	fx.card2 = card(fx.customer2, "4444", false, 0)
	fx.deletedCard = card(fx.customer, "0005", true, 0)
	fx.replacedCard = card(fx.customer2, "0006", false, fx.card2)
	fx.job = must(srv.AddBulkJob(billingtest.BulkJob{Type: "PriceChange", Validated: true}))
	fx.unvalidatedJob = must(srv.AddBulkJob(billingtest.BulkJob{Type: "PriceChange"}))
	fx.processedJob = must(srv.AddBulkJob(billingtest.BulkJob{Type: "PriceChange", Validated: true, Processed: true}))
	fx.existingCodeType, fx.existingCode = billing.TrackingCodeType2, "EXISTING"
	must(srv.AddSalesTrackingCode(billingtest.SalesTrackingCode{Type: fx.existingCodeType, Code: fx.existingCode, Name: "Existing"}))
	fx.unknownCustomer, fx.unknownInvoice, fx.unknownDraft, fx.unknownCard = 60001, 60002, 60003, 60004
	fx.unknownPlan, fx.unknownProduct, fx.unknownJb = 60005, 60006, 60007
	return fx
}

// sweepIn is everything an operation's parameters are made of; a case
// starts from the values that succeed and changes what makes it fail.
type sweepIn struct {
	customer, invoice, draft, card, plan, product, job int64
	amount                                             *decimal.Decimal
	cardNumber, cvv                                    string
	month                                              int
	postalZip                                          string
	provider                                           string
	source                                             billing.PaymentSource
	codeType                                           billing.TrackingCodeType
	code                                               string
	raw                                                string // a filter expression the fake refuses
	sort                                               query.Sort
	pageNumber, pageSize                               int
	queryAndOptions                                    bool // bulk preview: both ways of searching
}

func (fx sweepFixture) in() sweepIn {
	amount := fx.balance
	return sweepIn{
		customer: fx.customer, invoice: fx.invoice, draft: fx.draft, card: fx.card1, plan: fx.plan,
		product: fx.product, job: fx.job, amount: &amount, cardNumber: sweepCard1, cvv: sweepCVV1, month: 7,
		postalZip: "M5V 2T6", provider: "Paypal", source: billing.PaymentSourceManual,
		codeType: billing.TrackingCodeType1, code: "SWEEP", pageSize: 1,
	}
}

// sweepOutcome is what one operation gave: its parameters, its result and
// its error, all to be printed.
type sweepOutcome struct {
	params []any
	result any
	err    error
}

// sweepFail is a way an operation fails: an HTTP status from the fake, or
// 0 for a *billing.ValidationError before anything is sent.
type sweepFail struct {
	name   string
	status int
	change func(fx sweepFixture, in *sweepIn)
}

// sweepOp is one operation of the SDK: how to call it, and how it fails.
// setup, when set, changes the inputs of every case of the operation.
type sweepOp struct {
	name  string
	route billingtest.Route
	write bool
	setup func(fx sweepFixture, in *sweepIn)
	run   func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome
	fails []sweepFail
}

func sweepListOptions(in sweepIn) billing.ListOptions {
	return billing.ListOptions{PageNumber: in.pageNumber, PageSize: in.pageSize, Sort: in.sort}
}

func sweepAll[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

func sweepPages[T any](seq iter.Seq2[*billing.Page[T], error]) ([]*billing.Page[T], error) {
	var out []*billing.Page[T]
	for p, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Failures several operations share.
var (
	sweepBadSort      = sweepFail{"validation", 0, func(_ sweepFixture, in *sweepIn) { in.sort = query.Sort{Field: "bogus"} }}
	sweepBadPage      = sweepFail{"validation", 0, func(_ sweepFixture, in *sweepIn) { in.pageNumber = -1 }}
	sweepRefusedQuery = sweepFail{"400 query", http.StatusBadRequest, func(_ sweepFixture, in *sweepIn) { in.raw = "noSuchFilter:1" }}
	sweepNoCustomer   = sweepFail{"404", http.StatusNotFound, func(fx sweepFixture, in *sweepIn) { in.customer = fx.unknownCustomer }}
	sweepZeroCustomer = sweepFail{"validation id", 0, func(_ sweepFixture, in *sweepIn) { in.customer = 0 }}
	sweepNoProduct    = sweepFail{"404", http.StatusNotFound, func(fx sweepFixture, in *sweepIn) { in.product = fx.unknownProduct }}
	sweepZeroProduct  = sweepFail{"validation id", 0, func(_ sweepFixture, in *sweepIn) { in.product = -1 }}
)

// sweepCardOp is ReplaceCreditCard with one of the two cards.
func sweepCardOp(name, number, cvv string, card, customer func(sweepFixture) int64, refused sweepFail) sweepOp {
	return sweepOp{
		name: name, route: billingtest.RoutePaymentMethodsReplaceCreditCard, write: true,
		setup: func(fx sweepFixture, in *sweepIn) {
			in.card, in.customer, in.cardNumber, in.cvv = card(fx), customer(fx), number, cvv
		},
		run: func(ctx context.Context, c *billing.Client, in sweepIn, opts []billing.RequestOption) sweepOutcome {
			yes := true
			p := &billing.ReplaceCreditCardParams{
				ID: in.card, CustomerID: in.customer, CardNumber: in.cardNumber, CVV: in.cvv, FirstName: "Grace", LastName: "Hopper",
				ExpirationMonth: in.month, ExpirationYear: 29, Address1: "1 Main St", City: "Toronto", PostalZip: in.postalZip,
				IsDefault: &yes, PaymentCollectOptions: &billing.PaymentCollectOptions{CollectionAmount: decimal.RequireFromString("1.5")},
			}
			r, err := c.PaymentMethods.ReplaceCreditCard(ctx, p, opts...)
			return sweepOutcome{[]any{p}, r, err}
		},
		fails: []sweepFail{
			refused,
			{"404", http.StatusNotFound, func(fx sweepFixture, in *sweepIn) { in.card = fx.unknownCard }},
			{"validation month", 0, func(_ sweepFixture, in *sweepIn) { in.month = 13 }},
			{"validation postal code", 0, func(_ sweepFixture, in *sweepIn) { in.postalZip = "M5V 2T6 CANADA" }},
			{"validation no cvv", 0, func(_ sweepFixture, in *sweepIn) { in.cvv = "" }},
		},
	}
}

// sweepCase is one operation in one mode.
type sweepCase struct {
	op     sweepOp
	mode   string // "ok", "retried", "401", or the failure's name
	status int    // the failure's status; 0 for a ValidationError
	change func(fx sweepFixture, in *sweepIn)
}

func sweepCases() []sweepCase {
	var cases []sweepCase
	for _, op := range sweepOps() {
		none := func(sweepFixture, *sweepIn) {}
		cases = append(cases,
			sweepCase{op, "ok", 200, none},
			sweepCase{op, "retried", 200, none},
			sweepCase{op, "401", http.StatusUnauthorized, none},
		)
		for _, f := range op.fails {
			cases = append(cases, sweepCase{op, f.name, f.status, f.change})
		}
	}
	return cases
}

// TestSecretsSweep runs every case against the fake, which echoes nothing
// back, and again behind a proxy that echoes the Authorization header, the
// card number in four groupings and the CVV in headers of every answer.
func TestSecretsSweep(t *testing.T) {
	t.Parallel()
	for _, server := range []string{"fake", "echoing proxy"} {
		for _, tc := range sweepCases() {
			t.Run(server+"/"+tc.op.name+"/"+tc.mode, func(t *testing.T) {
				t.Parallel() // each case has its own fake, client and logs
				runSweepCase(t, tc, server == "echoing proxy")
			})
		}
	}
}

// runSweepCase runs one case of the sweep.
func runSweepCase(t *testing.T, tc sweepCase, echo bool) {
	env := newSweepEnv(t, tc.mode == "401", echo)
	in := env.fx.in()
	if tc.op.setup != nil {
		tc.op.setup(env.fx, &in)
	}
	tc.change(env.fx, &in)
	var faultStatus int
	if tc.mode == "retried" {
		// Reads are retried after a 503; writes only when the server
		// surely did not act, as after a 429.
		faultStatus = http.StatusServiceUnavailable
		if tc.op.write {
			faultStatus = http.StatusTooManyRequests
		}
		if err := env.srv.InjectFault(tc.op.route, billingtest.Fault{Status: faultStatus}); err != nil {
			t.Fatal(err)
		}
	}
	var captured billing.Response
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := tc.op.run(ctx, env.client, in, []billing.RequestOption{billing.CaptureResponse(&captured)})
	env.srv.Close() // waits for the fake's handlers, and so for its log lines
	requests := env.srv.Requests()

	sweepCheckOutcome(t, tc, out, requests)
	if card, ok := out.result.(*billing.CreditCard); ok && card != nil {
		// The fake got the whole number: it keeps the last four.
		if last4 := in.cardNumber[len(in.cardNumber)-4:]; !strings.HasSuffix(card.MaskedCardNumber, "*"+last4) {
			t.Errorf("MaskedCardNumber = %q, want it to end in %s", card.MaskedCardNumber, last4)
		}
	}
	for i, r := range requests {
		// An unauthenticated request is logged without its body.
		if r.Path == "/v1/paymentMethods/creditCard" && (r.Authorized && !bytes.Contains(r.Body, []byte(`"cardNumber":"[REDACTED]"`)) || !r.Authorized && len(r.Body) > 0) {
			t.Errorf("request %d: the fake's request log holds a card body without the redacted number: %q", i, r.Body)
		}
	}

	// Print everything with every verb, and log it as well, the way
	// a careless caller would.
	var printed strings.Builder
	for i, p := range out.params {
		sweepPrint(&printed, fmt.Sprintf("params[%d]", i), p)
	}
	sweepPrint(&printed, "result", out.result)
	sweepPrintError(&printed, out.err)
	sweepPrint(&printed, "client", env.client)
	sweepPrint(&printed, "client value", *env.client)
	for name, svc := range map[string]any{
		"Invoices": env.client.Invoices, "DraftInvoices": env.client.DraftInvoices, "PaymentMethods": env.client.PaymentMethods,
		"SalesTrackingCodes": env.client.SalesTrackingCodes, "InvoiceSummaries": env.client.InvoiceSummaries, "SubscriptionItems": env.client.SubscriptionItems, "Bulk": env.client.Bulk,
	} {
		sweepPrint(&printed, name, svc)
	}
	sweepPrint(&printed, "captured response", captured)
	sweepPrint(&printed, "captured response pointer", &captured)
	env.logger.Debug("sweep outcome", "params", out.params, "result", out.result, "err", out.err,
		"response", captured, "client", env.client)
	env.logger.Warn("sweep error", slog.Any("error", out.err))

	// The attempt observer's values, printed and logged the same way.
	attempts := env.attempts.all()
	var observed strings.Builder
	for i, a := range attempts {
		sweepPrint(&observed, fmt.Sprintf("attempt[%d]", i), a)
		sweepPrintError(&observed, a.Err)
		env.logger.Debug("observed attempt", "attempt", a, "err", a.Err)
	}

	var fakeRequests strings.Builder
	for i, r := range requests {
		sweepPrint(&fakeRequests, fmt.Sprintf("request[%d]", i), r)
		sweepPrint(&fakeRequests, fmt.Sprintf("request[%d] body", i), string(r.Body))
	}

	for what, text := range map[string]string{
		"fmt output of params, results, errors, client and response": printed.String(),
		"fmt output of the observer's attempts":                      observed.String(),
		"the client's JSON log":                                      env.jsonLog.String(),
		"the client's text log":                                      env.textLog.String(),
		"the fake's log":                                             env.fakeLog.String(),
		"the fake's request log (Server.Requests)":                   fakeRequests.String(),
	} {
		for _, leak := range sweepLeaks(text) {
			t.Errorf("%s leaks %s", what, leak)
		}
	}
	sweepCheckLogs(t, tc, env, requests, faultStatus)
	sweepCheckAttempts(t, attempts, requests, observed.String())
}

// sweepCheckAttempts checks that the observer saw one attempt per request
// the fake got, with its status, numbered from 1, and that nothing it was
// given holds a filter's value (the query string).
func sweepCheckAttempts(t *testing.T, attempts []billing.Attempt, requests []billingtest.Request, printed string) {
	t.Helper()
	if len(attempts) != len(requests) {
		t.Fatalf("the observer saw %d attempts for %d requests", len(attempts), len(requests))
	}
	for i, a := range attempts {
		if a.StatusCode != requests[i].Status {
			t.Errorf("attempt %d: status %d, the fake answered %d", i, a.StatusCode, requests[i].Status)
		}
		if a.Number < 1 || a.Operation.Name == "" || a.Operation.Method != requests[i].Method {
			t.Errorf("attempt %d: %+v for %s %s", i, a, requests[i].Method, requests[i].Path)
		}
		if (a.Err == nil) != (a.StatusCode >= 200 && a.StatusCode <= 299) {
			t.Errorf("attempt %d: status %d with error %v", i, a.StatusCode, a.Err)
		}
		for _, v := range requests[i].Query["query"] {
			if strings.Contains(printed, v) {
				t.Errorf("attempt %d: the observer's values hold the filter %q", i, v)
			}
		}
	}
}

// sweepCheckOutcome checks that the case went as its mode says.
func sweepCheckOutcome(t *testing.T, tc sweepCase, out sweepOutcome, requests []billingtest.Request) {
	t.Helper()
	switch {
	case tc.mode == "ok" || tc.mode == "retried":
		if out.err != nil {
			t.Fatalf("err = %v, want success", out.err)
		}
		if out.result == nil || reflect.ValueOf(out.result).Kind() == reflect.Pointer && reflect.ValueOf(out.result).IsNil() {
			t.Fatalf("no result")
		}
		want := 1
		if tc.mode == "retried" {
			want = 2
		}
		if len(requests) < want {
			t.Fatalf("the fake got %d requests, want at least %d", len(requests), want)
		}
	case tc.status == 0:
		var ve *billing.ValidationError
		if !errors.As(out.err, &ve) {
			t.Fatalf("err = %v (%T), want a *billing.ValidationError", out.err, out.err)
		}
		if len(requests) != 0 {
			t.Fatalf("the fake got %d requests for parameters refused before sending", len(requests))
		}
	default:
		var ae *billing.APIError
		if !errors.As(out.err, &ae) {
			t.Fatalf("err = %v (%T), want a *billing.APIError", out.err, out.err)
		}
		if ae.StatusCode != tc.status {
			t.Fatalf("status = %d (%v), want %d", ae.StatusCode, out.err, tc.status)
		}
		if len(requests) == 0 || requests[len(requests)-1].Status != tc.status {
			t.Fatalf("the fake's last answer was not a %d: %d requests", tc.status, len(requests))
		}
	}
}

// sweepVerbs are the verbs every value is printed with.
var sweepVerbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x"}

// sweepPrint prints v, and what it points to, with every verb.
func sweepPrint(w *strings.Builder, name string, v any) {
	values := []any{v}
	if rv := reflect.ValueOf(v); rv.IsValid() && rv.Kind() == reflect.Pointer && !rv.IsNil() {
		values = append(values, rv.Elem().Interface())
	} else if rv.IsValid() && rv.Kind() == reflect.Slice {
		// fmt prints a slice of pointers (pages, say) as addresses.
		for i := range rv.Len() {
			if e := rv.Index(i); e.Kind() == reflect.Pointer && !e.IsNil() {
				values = append(values, e.Elem().Interface())
			}
		}
	}
	for _, x := range values {
		for _, verb := range sweepVerbs {
			fmt.Fprintf(w, "%s %s: "+verb+"\n", name, verb, x)
		}
	}
	fmt.Fprintln(w, name, "Sprint:", fmt.Sprint(v), fmt.Sprintln(v))
}

// sweepPrintError prints err, every error it wraps, and the details of the
// SDK's error types.
func sweepPrintError(w *strings.Builder, err error) {
	for i, e := 0, err; e != nil; i, e = i+1, errors.Unwrap(e) {
		sweepPrint(w, fmt.Sprintf("error[%d]", i), e)
		fmt.Fprintln(w, "Error():", e.Error())
	}
	var (
		ae *billing.APIError
		de *billing.DecodeError
		re *billing.RequestError
		ve *billing.ValidationError
	)
	if errors.As(err, &ae) {
		sweepPrint(w, "APIError", ae)
		sweepPrint(w, "APIError.Errors", ae.Errors)
		sweepPrint(w, "APIError.Body", ae.Body)
		sweepPrint(w, "APIError.Header", ae.Header)
	}
	if errors.As(err, &de) {
		sweepPrint(w, "DecodeError", de)
	}
	if errors.As(err, &re) {
		sweepPrint(w, "RequestError", re)
	}
	if errors.As(err, &ve) {
		sweepPrint(w, "ValidationError", ve)
	}
}

// Text that is not a leak even when it holds a CVV's digits: addresses
// (0x-prefixed, or bare as %x prints them), times, durations.
var sweepNoise = []*regexp.Regexp{
	regexp.MustCompile(`0x[0-9a-fA-F]+`),
	regexp.MustCompile(`\b[0-9a-fA-F]{8,}\b`),
	regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?( ?(Z|[+-]\d{2}:?\d{2}))?( [A-Z]{3})?( m=[+-]\d+\.\d+)?`),
	regexp.MustCompile(`"duration":\d+`),
	regexp.MustCompile(`duration=\S+`),
	regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)\b`),
}

// sweepHexRun finds what %x prints: runs of hex digits.
var sweepHexRun = regexp.MustCompile(`[0-9a-fA-F]{6,}`)

// sweepLeaks lists the secrets text holds: the API key in clear, hex or
// base64 (at any alignment), a card number in clear or hex, a CVV as a
// number of its own (not a part of a longer one), in clear or in a hex run.
func sweepLeaks(text string) []string {
	var leaks []string
	var decoded strings.Builder
	for _, run := range sweepHexRun.FindAllString(text, -1) {
		if len(run)%2 == 1 {
			run = run[:len(run)-1]
		}
		if b, err := hex.DecodeString(run); err == nil {
			decoded.Write(b)
			decoded.WriteByte('\n')
		}
	}
	lower := strings.ToLower(text)
	for _, secret := range []string{sweepKey, sweepCard1, sweepCard2} {
		if strings.Contains(text, secret) {
			leaks = append(leaks, fmt.Sprintf("%q in clear: %s", secret, sweepContext(text, secret)))
		}
		if h := hex.EncodeToString([]byte(secret)); strings.Contains(lower, h) {
			leaks = append(leaks, fmt.Sprintf("%q hex-encoded: %s", secret, sweepContext(lower, h)))
		}
	}
	for _, core := range sweepKeyBase64 {
		if strings.Contains(text, core) {
			leaks = append(leaks, fmt.Sprintf("the API key base64-encoded: %s", sweepContext(text, core)))
		}
	}
	for _, card := range []string{sweepCard1, sweepCard2} {
		// Twelve digits of a card number are more than a mask shows.
		if strings.Contains(text, card[:12]) {
			leaks = append(leaks, fmt.Sprintf("the first 12 digits of %q: %s", card, sweepContext(text, card[:12])))
		}
	}
	for i, t := range []string{text, decoded.String()} {
		where := "in clear"
		if i > 0 {
			where = "hex-encoded"
		}
		for _, cvv := range []string{sweepCVV1, sweepCVV2} {
			for _, at := range sweepCVVAt(t, cvv) {
				leaks = append(leaks, fmt.Sprintf("the CVV %q %s: …%s…", cvv, where, t[max(0, at-60):min(len(t), at+len(cvv)+60)]))
			}
		}
	}
	return leaks
}

// sweepCVVAt returns where text holds cvv as a number of its own (not a
// part of a longer number) that is not inside noise.
func sweepCVVAt(text, cvv string) []int {
	isDigit := func(i int) bool { return i >= 0 && i < len(text) && text[i] >= '0' && text[i] <= '9' }
	var at []int
	for i := 0; ; {
		j := strings.Index(text[i:], cvv)
		if j < 0 {
			return at
		}
		j += i
		i = j + 1
		end := j + len(cvv)
		if isDigit(j-1) || isDigit(end) {
			continue
		}
		lo, hi := max(0, j-80), min(len(text), end+80)
		noise := false
		for _, n := range sweepNoise {
			for _, m := range n.FindAllStringIndex(text[lo:hi], -1) {
				if lo+m[0] <= j && end <= lo+m[1] {
					noise = true
				}
			}
		}
		if !noise {
			at = append(at, j)
		}
	}
}

// sweepKeyBase64 are the base64 forms of the API key, at any alignment.
var sweepKeyBase64 = sweepBase64Cores(sweepKey)

// sweepBase64Cores returns the part of the base64 encoding of s that does
// not depend on the bytes around s, for each of the three alignments and
// both alphabets.
func sweepBase64Cores(s string) []string {
	var cores []string
	for pad := range 3 {
		b := append(bytes.Repeat([]byte{0}, pad), s...)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			e := enc.EncodeToString(b)
			cores = append(cores, e[4:len(e)-4])
		}
	}
	return cores
}

func sweepContext(text, s string) string {
	i := strings.Index(text, s)
	return "…" + text[max(0, i-60):min(len(text), i+len(s)+60)] + "…"
}

// sweepCheckLogs checks that the client logged one line per HTTP attempt,
// in both handlers, each with the method, path, status, attempt and
// duration of that attempt, matching what the fake received.
func sweepCheckLogs(t *testing.T, tc sweepCase, env *sweepEnv, requests []billingtest.Request, faultStatus int) {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(env.jsonLog.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("JSON log line is not JSON: %v\n%s", err, sc.Text())
		}
		if m["msg"] == "billing request" {
			lines = append(lines, m)
		}
	}
	if len(lines) != len(requests) {
		t.Fatalf("%d log lines for %d requests:\n%s", len(lines), len(requests), env.jsonLog.String())
	}
	for i, m := range lines {
		r := requests[i]
		if m["method"] != r.Method || m["path"] != r.Path {
			t.Errorf("line %d: method %v path %v, the fake got %s %s", i, m["method"], m["path"], r.Method, r.Path)
		}
		if s, ok := m["status"].(float64); !ok || int(s) != r.Status {
			t.Errorf("line %d: status %v, the fake answered %d", i, m["status"], r.Status)
		}
		if a, ok := m["attempt"].(float64); !ok || a < 1 {
			t.Errorf("line %d: attempt %v", i, m["attempt"])
		}
		if d, ok := m["duration"].(float64); !ok || d < 0 {
			t.Errorf("line %d: duration %v", i, m["duration"])
		}
		wantLevel := "DEBUG"
		if r.Status >= 400 {
			wantLevel = "WARN"
		}
		if m["level"] != wantLevel {
			t.Errorf("line %d: level %v for a %d", i, m["level"], r.Status)
		}
	}
	if tc.mode == "retried" {
		if len(lines) < 2 {
			t.Fatalf("retried call logged %d lines", len(lines))
		}
		first, second := lines[0], lines[1]
		if first["status"] != float64(faultStatus) || first["attempt"] != float64(1) || first["retry"] != true {
			t.Errorf("first attempt logged as %v, want status %d, attempt 1, retry true", first, faultStatus)
		}
		if second["attempt"] != float64(2) || second["status"] != float64(200) {
			t.Errorf("second attempt logged as %v, want attempt 2 and status 200", second)
		}
	}
	var textLines []string
	for _, l := range strings.Split(env.textLog.String(), "\n") {
		if strings.Contains(l, `msg="billing request"`) {
			textLines = append(textLines, l)
		}
	}
	if len(textLines) != len(lines) {
		t.Errorf("text handler: %d lines, JSON handler: %d", len(textLines), len(lines))
	}
	for i, l := range textLines {
		for _, k := range []string{"method=", "path=", "status=", "attempt=", "duration="} {
			if !strings.Contains(l, " "+k) {
				t.Errorf("text line %d has no %s: %s", i, k, l)
			}
		}
	}
}

// TestSecretsSweepDetector checks the sweep's leak detector on leaks in
// the forms printers produce, and on text that only looks like one.
func TestSecretsSweepDetector(t *testing.T) {
	t.Parallel()
	b64 := func(prefix, s string) string { return base64.StdEncoding.EncodeToString([]byte(prefix + s)) }
	for _, leak := range []string{
		"key " + sweepKey, "Basic " + sweepKey + "\n", fmt.Sprintf("%x", "k="+sweepKey), fmt.Sprintf("%X", sweepKey),
		b64("", sweepKey), b64("a", sweepKey), b64("ab", sweepKey), base64.URLEncoding.EncodeToString([]byte("?" + sweepKey)),
		"card " + sweepCard1, fmt.Sprintf("%x", sweepCard2), sweepCard1[:12] + "****", "CardNumber:" + sweepCard2,
		`"cvv":"8146"`, "CVV:8146 ", "cvv=1234", "[8146]", fmt.Sprintf("%x", "cvv 1234"), fmt.Sprintf("%q", "1234"),
		fmt.Sprintf("%x", []string{"a", "8146"}), "2025-03-04T05:06:07Z cvv=8146", "0xc000123456 1234", "duration=5ms 8146",
	} {
		if len(sweepLeaks(leak)) == 0 {
			t.Errorf("no leak found in %q", leak)
		}
	}
	for _, clean := range []string{
		"************1111", "************5559", "[REDACTED]", "0xc0008146654", "0xf0a1e8146d8", "f0a1e8146d8c",
		"2025-03-04T05:06:07.8146Z", "time=2025-11-21T06:12:34.1234+00:00", "duration=8146µs", `"duration":1234`,
		"8146654", "41234", "99998146", "1.234ms", "m=+0.001234567", "12:34",
	} {
		if leaks := sweepLeaks(clean); len(leaks) != 0 {
			t.Errorf("false leak in %q: %v", clean, leaks)
		}
	}
}

// teeHandler hands each record to every handler (slog.NewMultiHandler
// needs Go 1.26; the module supports 1.25).
type teeHandler []slog.Handler

func (t teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range t {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range t {
		if h.Enabled(ctx, r.Level) {
			errs = append(errs, h.Handle(ctx, r.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (t teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(teeHandler, len(t))
	for i, h := range t {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (t teeHandler) WithGroup(name string) slog.Handler {
	out := make(teeHandler, len(t))
	for i, h := range t {
		out[i] = h.WithGroup(name)
	}
	return out
}

package billingtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/control"
	"github.com/billingapi/billing-go/billingtest/internal/fixture"
)

// ccState reads the state through the control API.
func ccState(t *testing.T, srv *Server) (fixture.Document, []byte) {
	t.Helper()
	r := ccDo(t, srv, http.MethodGet, "/_fake/state", "")
	if r.status != http.StatusOK {
		t.Fatalf("GET /_fake/state: %d %s", r.status, r.body)
	}
	f, _, err := fixture.Decode(r.body)
	if err != nil {
		t.Fatalf("state %s: %v", r.body, err)
	}
	return *f, r.body
}

func ccWant(t *testing.T, what string, r wireAnswer, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, body %s; want %d", what, r.status, r.body, status)
	}
}

func TestControlNeedsTheKey(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	for _, tc := range []struct {
		auth   string
		status int
	}{{"", 401}, {"Basic wrong", 401}, {"Bearer " + srv.APIKey(), 400}} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/_fake/state", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("Authorization %q: %d, want %d", tc.auth, resp.StatusCode, tc.status)
		}
	}
}

func TestControlShowsIDsAndWhatWritesChanged(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	before, _ := ccState(t, srv)
	ids := func(n int, id func(int) int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = id(i)
		}
		return out
	}
	if got := ids(len(before.DraftInvoices), func(i int) int64 { return before.DraftInvoices[i].ID }); !slices.Equal(got, []int64{3}) {
		t.Errorf("draft ids %v, want [3]", got)
	}
	if got := ids(len(before.CreditCards), func(i int) int64 { return before.CreditCards[i].ID }); !slices.Equal(got, []int64{910600}) {
		t.Errorf("card ids %v, want [910600]", got)
	}
	if len(before.Subscriptions) != 1 || before.Subscriptions[0].PlanID != 9 {
		t.Errorf("subscriptions %+v, want one of plan 9", before.Subscriptions)
	}
	if len(before.BulkJobs) != 1 || before.BulkJobs[0].ID != 910602 || before.BulkJobs[0].Processed {
		t.Errorf("bulk jobs %+v, want 910602 not processed", before.BulkJobs)
	}

	writes := []struct{ method, path, body string }{
		{"POST", "/v1/invoices/writeoff", `{"invoiceId":"43","amount":"20"}`},
		{"PUT", "/v1/paymentmethods/creditcard", `{"id":910600,"customerId":7,"cardNumber":"4111111111111111","cvv":"123","expirationMonth":1,"expirationYear":30}`},
		{"POST", "/v1/paypal", `{"token":"EC-1","customerId":7,"source":"Manual"}`},
		{"POST", "/v1/salesTrackingCodes", `{"type":"Sales Tracking Code 1","code":"N","name":"North"}`},
		{"POST", "/v1/BulkApi/Process", `{"id":910602}`},
	}
	for _, w := range writes {
		ccWant(t, w.method+" "+w.path, ccDo(t, srv, w.method, w.path, w.body), http.StatusOK)
	}

	after, _ := ccState(t, srv)
	inv := after.Invoices[slices.IndexFunc(after.Invoices, func(f Invoice) bool { return f.ID == 43 })]
	if inv.TotalWriteoffs.String() != "20" || inv.PaymentSchedules[0].Status != "WrittenOff" {
		t.Errorf("invoice 43 after the write-off: TotalWriteoffs %s, schedule %+v", inv.TotalWriteoffs, inv.PaymentSchedules[0])
	}
	if len(after.CreditCards) != 2 || after.CreditCards[0].ReplacedBy != after.CreditCards[1].ID || after.CreditCards[1].Last4 != "1111" {
		t.Errorf("cards after the replacement: %+v", after.CreditCards)
	}
	if len(after.WalletMethods) != 1 || after.WalletMethods[0].Token != "EC-1" || after.WalletMethods[0].Provider != "Paypal" {
		t.Errorf("wallet methods %+v", after.WalletMethods)
	}
	if len(after.SalesTrackingCodes) != 1 || after.SalesTrackingCodes[0].Code != "N" {
		t.Errorf("codes %+v", after.SalesTrackingCodes)
	}
	if !after.BulkJobs[0].Processed {
		t.Error("job not processed in the state")
	}

	var events []control.Event
	r := ccDo(t, srv, http.MethodGet, "/_fake/events", "")
	if err := json.Unmarshal(r.body, &events); err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, e := range events {
		if !slices.Contains(ops, e.Operation) {
			ops = append(ops, e.Operation)
		}
	}
	if want := []string{"invoice.writeoff", "paymentMethod.replaced", "paymentMethod.created", "salesTrackingCode.created", "bulkJob.processed"}; !slices.Equal(ops, want) {
		t.Errorf("event operations %v, want %v", ops, want)
	}

	var reqs []control.Request
	r = ccDo(t, srv, http.MethodGet, "/_fake/requests", "")
	if err := json.Unmarshal(r.body, &reqs); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != len(writes) {
		t.Errorf("%d requests recorded, want the %d writes only (control calls are not recorded)", len(reqs), len(writes))
	}
	for _, rq := range reqs {
		if strings.Contains(rq.Body, "4111111111111111") || strings.Contains(rq.Body, `"123"`) {
			t.Errorf("recorded body holds the card number or CVV: %s", rq.Body)
		}
	}

	ccWant(t, "DELETE events", ccDo(t, srv, http.MethodDelete, "/_fake/events", ""), http.StatusNoContent)
	ccWant(t, "DELETE requests", ccDo(t, srv, http.MethodDelete, "/_fake/requests/", ""), http.StatusNoContent)
	if len(srv.Events()) != 0 || len(srv.Requests()) != 0 {
		t.Errorf("after clearing: %d events, %d requests", len(srv.Events()), len(srv.Requests()))
	}
}

func TestControlLoadReplaceAndReset(t *testing.T) {
	t.Parallel()
	srv := NewServer(WithClock(func() time.Time { return ccNow }), WithFixtures("testdata/fixtures.json"))
	t.Cleanup(srv.Close)
	_, seed := ccState(t, srv)

	ccWant(t, "POST fixtures", ccDo(t, srv, http.MethodPost, "/_fake/fixtures", `{"bulkJobs":[{"id":5000,"validated":true}]}`), http.StatusNoContent)
	ccWant(t, "process the new job", ccDo(t, srv, http.MethodPost, "/v1/BulkApi/Process", `{"id":5000}`), http.StatusOK)
	r := ccDo(t, srv, http.MethodPost, "/_fake/fixtures", `{"bulkJobs":[{"id":5000}]}`)
	if r.status != http.StatusBadRequest || !strings.Contains(wireError(t, r).Value, "5000") {
		t.Errorf("loading a repeated id: %d %s", r.status, r.body)
	}

	ccWant(t, "reset", ccDo(t, srv, http.MethodPost, "/_FAKE/Reset/", ""), http.StatusNoContent)
	if _, got := ccState(t, srv); !bytes.Equal(got, seed) {
		t.Error("the state after reset is not the seed's")
	}
	if len(srv.Events()) != 0 {
		t.Errorf("%d events after reset", len(srv.Events()))
	}

	ccWant(t, "PUT state", ccDo(t, srv, http.MethodPut, "/_fake/state", `{"customers":[{"id":1,"firstName":"Solo"}],"draftInvoices":[{"id":2,"customerId":1}]}`), http.StatusNoContent)
	f, _ := ccState(t, srv)
	if len(f.Customers) != 1 || len(f.DraftInvoices) != 1 || len(f.Invoices) != 0 || len(f.CreditCards) != 0 {
		t.Errorf("after PUT state: %d customers, %d drafts, %d invoices, %d cards; want 1, 1, 0, 0", len(f.Customers), len(f.DraftInvoices), len(f.Invoices), len(f.CreditCards))
	}
	ccWant(t, "the PDF of the new draft", ccDo(t, srv, http.MethodGet, "/v1/draftInvoices/pdf/2", ""), http.StatusOK)
	_, before := ccState(t, srv)
	r = ccDo(t, srv, http.MethodPut, "/_fake/state", `{"draftInvoices":[{"id":2,"customerId":99}]}`)
	if r.status != http.StatusBadRequest {
		t.Errorf("PUT of a bad document: %d, want 400", r.status)
	}
	if _, after := ccState(t, srv); !bytes.Equal(before, after) {
		t.Error("a refused PUT changed the state")
	}
}

func TestControlFaultsAndRoutes(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	var routes []control.Route
	if err := json.Unmarshal(ccDo(t, srv, http.MethodGet, "/_fake/routes", "").body, &routes); err != nil || len(routes) != len(routeTable) {
		t.Fatalf("routes %+v (%v), want %d", routes, err, len(routeTable))
	}
	ccWant(t, "inject", ccDo(t, srv, http.MethodPost, "/_fake/faults", `{"route":"invoices.writeoff","status":"503","retryAfterSeconds":2,"times":2}`), http.StatusNoContent)
	ccWant(t, "inject by value", ccDo(t, srv, http.MethodPost, "/_fake/faults", `{"route":"GET /v1/Invoices/{invoiceId}","status":500}`), http.StatusNoContent)
	for range 2 {
		r := ccDo(t, srv, http.MethodPost, "/v1/Invoices/WriteOff", `{"invoiceId":43,"amount":20}`)
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "2" {
			t.Errorf("faulted write-off: %d, Retry-After %q", r.status, r.header.Get("Retry-After"))
		}
	}
	ccWant(t, "write-off after the faults", ccDo(t, srv, http.MethodPost, "/v1/invoices/writeoff", `{"invoiceId":43,"amount":20}`), http.StatusOK)
	ccWant(t, "clear", ccDo(t, srv, http.MethodDelete, "/_fake/faults", ""), http.StatusNoContent)
	ccWant(t, "read after clearing", ccDo(t, srv, http.MethodGet, "/v1/invoices/42", ""), http.StatusOK)

	for _, tc := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"POST", "/_fake/faults", `{"route":"Invoices.Delete","status":500}`, 400, "GET /_fake/routes"},
		{"POST", "/_fake/faults", `{"route":"Invoices.List","status":200}`, 400, "not an error status"},
		{"POST", "/_fake/faults", `{"route":"Invoices.List","drop":"sometimes"}`, 400, "drop must be"},
		{"GET", "/_fake/nosuch", "", 404, "no such control endpoint"},
		{"DELETE", "/_fake/state", "", 405, "not allowed"},
	} {
		r := ccDo(t, srv, tc.method, tc.path, tc.body)
		if r.status != tc.status || !strings.Contains(wireError(t, r).Value, tc.want) {
			t.Errorf("%s %s %s: %d %s; want %d containing %q", tc.method, tc.path, tc.body, r.status, r.body, tc.status, tc.want)
		}
	}
}

// TestDumpLoadsBack checks that a dump, generated data and writes
// included, loads into an empty fake as the same state.
func TestDumpLoadsBack(t *testing.T) {
	t.Parallel()
	srv := NewServer(WithClock(func() time.Time { return ccNow }), WithGenerated(GenerateOptions{Seed: 5, Invoices: 300}))
	t.Cleanup(srv.Close)
	if err := srv.LoadFixtures(strings.NewReader(ccFixtures)); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct{ method, path, body string }{
		{"POST", "/v1/invoices/writeoff", `{"invoiceId":43,"amount":20}`},
		{"PUT", "/v1/paymentMethods/creditCard", `{"id":910600,"customerId":7,"cardNumber":"4111111111111111","cvv":"123","expirationMonth":1,"expirationYear":30}`},
		{"POST", "/v1/Paypal", `{"baid":"B-9","customerId":8,"source":"Import"}`},
		{"POST", "/v1/salesTrackingCodes", `{"type":"Sales Tracking Code 2","code":"Z","name":"Zed"}`},
	} {
		ccWant(t, w.path, ccDo(t, srv, w.method, w.path, w.body), http.StatusOK)
	}
	var first bytes.Buffer
	if err := srv.DumpFixtures(&first); err != nil {
		t.Fatal(err)
	}
	other, err := NewHandler(WithClock(func() time.Time { return ccNow.Add(time.Hour) }))
	if err != nil {
		t.Fatal(err)
	}
	if err := other.ReplaceFixtures(bytes.NewReader(first.Bytes())); err != nil {
		t.Fatal(err)
	}
	var second bytes.Buffer
	if err := other.DumpFixtures(&second); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		a, b := first.String(), second.String()
		i := 0
		for i < min(len(a), len(b)) && a[i] == b[i] {
			i++
		}
		t.Fatalf("the dump does not load back; first difference at byte %d: %q vs %q", i, a[max(0, i-200):min(len(a), i+100)], b[max(0, i-200):min(len(b), i+100)])
	}
	inv43, _ := srv.Invoice(43)
	back43, _ := other.Invoice(43)
	if !inv43.TotalWriteoffs.Equal(back43.TotalWriteoffs) || !back43.OutstandingBalance.IsZero() {
		t.Errorf("invoice 43 loaded back: writeoffs %s, outstanding %s", back43.TotalWriteoffs, back43.OutstandingBalance)
	}
}

// TestControlWhileServing resets and replaces the state while clients
// read and write, for the race detector: every answer must be a whole
// answer from one state or the other.
func TestControlWhileServing(t *testing.T) {
	t.Parallel()
	srv := NewServer(WithClock(func() time.Time { return ccNow }), WithFixtures("testdata/fixtures.json"))
	t.Cleanup(srv.Close)
	done := make(chan struct{})
	errs := make(chan string, 64)
	var wg sync.WaitGroup
	for _, path := range []string{"/v1/invoices?pageSize=2", "/v1/customers/100/invoices", "/v1/Invoices/500"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				// Not ccDo: t.Fatal must not be called off the test's goroutine.
				req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
				req.Header.Set("Authorization", "Basic "+srv.APIKey())
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- path + ": " + err.Error()
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || (resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotFound) || !json.Valid(body) {
					errs <- path + ": " + strconv.Itoa(resp.StatusCode) + " " + string(body)
					return
				}
			}
		}()
	}
	for i := range 20 {
		if i%2 == 0 {
			ccWant(t, "reset", ccDo(t, srv, http.MethodPost, "/_fake/reset", ""), http.StatusNoContent)
		} else {
			ccWant(t, "replace", ccDo(t, srv, http.MethodPut, "/_fake/state", `{"customers":[{"id":100}]}`), http.StatusNoContent)
		}
		ccDo(t, srv, http.MethodPost, "/v1/Paypal", `{"token":"t","customerId":100,"source":"Manual"}`)
	}
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// An empty kind reads the same in the whole state as alone: [] (or {} for
// the category names), never null.
func TestControlStateEmptyKinds(t *testing.T) {
	t.Parallel()
	srv := NewServer()
	t.Cleanup(srv.Close)
	_, body := ccState(t, srv)
	var whole map[string]json.RawMessage
	if err := json.Unmarshal(body, &whole); err != nil {
		t.Fatalf("state %s: %v", body, err)
	}
	for _, name := range control.Kinds() {
		alone := ccDo(t, srv, http.MethodGet, "/_fake/state?kind="+name, "")
		ccWant(t, "GET state of "+name, alone, http.StatusOK)
		var one map[string]json.RawMessage
		if err := json.Unmarshal(alone.body, &one); err != nil {
			t.Fatalf("state of %s %s: %v", name, alone.body, err)
		}
		want := "[]"
		if name == "trackingCodeCategoryNames" {
			want = "{}"
		}
		if got := string(whole[name]); got != want {
			t.Errorf("whole state: %s = %s, want %s", name, got, want)
		}
		if got := string(one[name]); got != want {
			t.Errorf("state of %s alone = %s, want %s", name, got, want)
		}
	}
}

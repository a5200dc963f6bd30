package billingtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

// wtNow is the fixed clock of these tests, so that stamped timestamps and
// rate-limit windows are predictable.
var wtNow = time.Date(2024, 3, 15, 10, 0, 30, 0, time.UTC)

func wtServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	opts = append([]Option{WithClock(func() time.Time { return wtNow })}, opts...)
	srv := NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// wireAnswer is an answer as read off the wire.
type wireAnswer struct {
	status int
	header http.Header
	body   []byte
}

// readAnswer sends req through hc and reads the whole answer.
func readAnswer(t *testing.T, hc *http.Client, req *http.Request) wireAnswer {
	t.Helper()
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return wireAnswer{status: resp.StatusCode, header: resp.Header, body: b}
}

// wtDo sends a raw request with the fake's API key; headers come as
// name, value pairs.
func wtDo(t *testing.T, srv *Server, method, path, body string, headers ...string) wireAnswer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Basic "+srv.APIKey())
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return readAnswer(t, http.DefaultClient, req)
}

// wireErrorEntry is the one entry of an error body.
type wireErrorEntry struct{ Key, Value string }

// wireError decodes an error answer's body, failing t unless it has the
// reference's shape exactly (no other fields): ErrorId 0, HttpStatusCode
// the answer's status and one entry with both Key and Value.
func wireError(t *testing.T, r wireAnswer) wireErrorEntry {
	t.Helper()
	var body struct {
		ErrorID        *int64 `json:"ErrorId"`
		HTTPStatusCode *int   `json:"HttpStatusCode"`
		Errors         []struct {
			Key   *string `json:"Key"`
			Value *string `json:"Value"`
		} `json:"Errors"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		t.Fatalf("error body %s: %v", r.body, err)
	}
	if body.ErrorID == nil || *body.ErrorID != 0 {
		t.Errorf("ErrorId missing or not 0 in %s", r.body)
	}
	if body.HTTPStatusCode == nil || *body.HTTPStatusCode != r.status {
		t.Errorf("HttpStatusCode in %s, want %d", r.body, r.status)
	}
	if len(body.Errors) != 1 || body.Errors[0].Key == nil || body.Errors[0].Value == nil {
		t.Fatalf("Errors in %s, want one {Key, Value}", r.body)
	}
	return wireErrorEntry{Key: *body.Errors[0].Key, Value: *body.Errors[0].Value}
}

// wtWantError checks an error answer: status, JSON, the reference's body
// shape (see wireError), the key and each fragment of the message.
func wtWantError(t *testing.T, r wireAnswer, status int, key string, fragments ...string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	got := wireError(t, r)
	if got.Key != key {
		t.Errorf("Key %q, want %q", got.Key, key)
	}
	for _, f := range fragments {
		if !strings.Contains(got.Value, f) {
			t.Errorf("Value %q, want it to contain %q", got.Value, f)
		}
	}
}

func wtWantStatus(t *testing.T, r wireAnswer, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
}

// wtWantRaw checks that the raw answer holds each fragment, for amounts
// that must be bare numbers with all their decimals.
func wtWantRaw(t *testing.T, body []byte, fragments ...string) {
	t.Helper()
	for _, f := range fragments {
		if !bytes.Contains(body, []byte(f)) {
			t.Errorf("answer lacks %s:\n%s", f, body)
		}
	}
}

// wtDec parses an exact decimal literal.
func wtDec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// wtMust unwraps a seeding call; a seed that fails is a bug in the test
// itself, so it panics rather than taking a *testing.T (Go cannot pass a
// two-value call alongside another argument).
func wtMust(id int64, err error) int64 {
	if err != nil {
		panic(err)
	}
	return id
}

func wtCustomer(t *testing.T, srv *Server) int64 {
	t.Helper()
	return wtMust(srv.AddCustomer(Customer{FirstName: "Ada", LastName: "Lovelace", CompanyName: "Analytical Engines"}))
}

// wtInvoice adds an invoice of 7.5 + 2.625 = 10.125, one charge from a
// subscription and one from a purchase, so that the write-off answer has
// two charge groups.
func wtInvoice(t *testing.T, srv *Server, customerID int64) int64 {
	t.Helper()
	return wtMust(srv.AddInvoice(Invoice{
		CustomerID:      customerID,
		PostedTimestamp: wtNow.AddDate(0, 0, -10),
		CrmID:           "crm-7",
		Charges: []Charge{
			{Name: "Pro plan", Quantity: wtDec("1"), UnitPrice: wtDec("7.5"), Amount: wtDec("7.5"), SubscriptionID: 900},
			{Name: "Setup", Quantity: wtDec("1"), UnitPrice: wtDec("2.625"), Amount: wtDec("2.625"), PurchaseID: 901},
		},
	}))
}

func wtEvents(srv *Server, operation string) []Event {
	var out []Event
	for _, e := range srv.Events() {
		if e.Operation == operation {
			out = append(out, e)
		}
	}
	return out
}

func wtWantEvents(t *testing.T, srv *Server, operation string, id int64, kinds ...EventKind) {
	t.Helper()
	got := wtEvents(srv, operation)
	if len(got) != len(kinds) {
		t.Fatalf("%d %s events, want %d: %+v", len(got), operation, len(kinds), got)
	}
	for i, e := range got {
		if e.Kind != kinds[i] || e.EntityID != id || !e.Time.Equal(wtNow) {
			t.Errorf("event %d: %+v, want kind %s entity %d at %s", i, e, kinds[i], id, wtNow)
		}
	}
}

// ---- write-off ----

func TestWriteOffSuccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		amount string // as written in the JSON body
	}{
		{"exact", "10.125"},
		{"trailing zeros are the same value", "10.1250"},
		{"amount as a JSON string", `"10.125"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wtServer(t)
			id := wtInvoice(t, srv, wtCustomer(t, srv))
			r := wtDo(t, srv, "POST", "/v1/invoices/writeoff", fmt.Sprintf(`{"invoiceId":%d,"amount":%s,"reference":"bad debt"}`, id, tt.amount))
			wtWantStatus(t, r, http.StatusOK)
			wtWantRaw(t, r.body, `"outstandingBalance":0,`, `"totalWriteoffs":10.125,`, `"invoiceAmount":10.125,`,
				`"status":"WrittenOff"`, `"chargeGroups":[`, `"crmId":"crm-7"`, `"modifiedTimestamp":"2024-03-15T10:00:30`)

			var got billing.Invoice
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			if got.ID != id || len(got.ChargeGroups) != 2 || got.Charges != nil || got.Unsettled {
				t.Errorf("answer: id %d, %d groups, charges %v, unsettled %v", got.ID, len(got.ChargeGroups), got.Charges, got.Unsettled)
			}

			inv, _ := srv.Invoice(id)
			if !inv.OutstandingBalance.IsZero() || !inv.TotalWriteoffs.Equal(wtDec("10.125")) {
				t.Errorf("stored: outstanding %s, writeoffs %s", inv.OutstandingBalance, inv.TotalWriteoffs)
			}
			if len(inv.PaymentSchedules) != 1 || inv.PaymentSchedules[0].Status != billing.PaymentScheduleStatusWrittenOff || !inv.PaymentSchedules[0].OutstandingBalance.IsZero() {
				t.Errorf("stored schedules: %+v", inv.PaymentSchedules)
			}
			if !inv.ModifiedTimestamp.Time.Equal(wtNow) {
				t.Errorf("modifiedTimestamp %s, want %s", inv.ModifiedTimestamp, wtNow)
			}
			if sum, _ := srv.InvoiceSummary(id); sum.InvoiceStatus != billing.InvoiceStatusWrittenOff || !sum.Writeoffs.Equal(wtDec("10.125")) {
				t.Errorf("summary: %s, writeoffs %s", sum.InvoiceStatus, sum.Writeoffs)
			}
			wtWantEvents(t, srv, "invoice.writeoff", id, EventWebhook, EventCRM, EventAccounting, EventEmail)
		})
	}
}

// Only instalments that still owe something are written off; a paid one
// keeps its status.
func TestWriteOffSeveralSchedules(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	cust := wtCustomer(t, srv)
	due := billing.NewTimestamp(wtNow.AddDate(0, 1, 0))
	id := wtMust(srv.AddInvoice(Invoice{
		CustomerID:    cust,
		Charges:       []Charge{{Name: "Plan", Quantity: wtDec("1"), UnitPrice: wtDec("30"), Amount: wtDec("30")}},
		TotalPayments: wtDec("10"),
		PaymentSchedules: []billing.PaymentSchedule{
			{DueDateTimestamp: due, Status: "Paid", Amount: wtDec("10"), OutstandingBalance: wtDec("0")},
			{DueDateTimestamp: due, Status: billing.PaymentScheduleStatusDue, Amount: wtDec("10"), OutstandingBalance: wtDec("10")},
			{DueDateTimestamp: due, Status: billing.PaymentScheduleStatusDue, Amount: wtDec("10"), OutstandingBalance: wtDec("10")},
		},
	}))
	r := wtDo(t, srv, "POST", "/v1/invoices/writeoff", fmt.Sprintf(`{"invoiceId":%d,"amount":20}`, id))
	wtWantStatus(t, r, http.StatusOK)
	inv, _ := srv.Invoice(id)
	want := []billing.PaymentScheduleStatus{"Paid", billing.PaymentScheduleStatusWrittenOff, billing.PaymentScheduleStatusWrittenOff}
	for i, ps := range inv.PaymentSchedules {
		if ps.Status != want[i] || !ps.OutstandingBalance.IsZero() {
			t.Errorf("schedule %d: %s %s, want %s 0", i, ps.Status, ps.OutstandingBalance, want[i])
		}
	}
	if !inv.TotalWriteoffs.Equal(wtDec("20")) {
		t.Errorf("totalWriteoffs %s, want 20", inv.TotalWriteoffs)
	}
}

func TestWriteOffErrors(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	cust := wtCustomer(t, srv)
	id := wtInvoice(t, srv, cust)
	paid := wtMust(srv.AddInvoice(Invoice{
		CustomerID: cust, TotalPayments: wtDec("5"),
		Charges: []Charge{{Name: "Plan", Quantity: wtDec("1"), UnitPrice: wtDec("5"), Amount: wtDec("5")}},
	}))
	tests := []struct {
		name, body string
		status     int
		contains   string
	}{
		{"empty body", "", 400, "JSON body is required"},
		{"malformed JSON", `{"invoiceId":`, 400, "malformed JSON"},
		{"not an object", `[1,2]`, 400, "malformed JSON"},
		{"invoiceId as a string that is not a number", `{"invoiceId":"inv-1","amount":10.125}`, 400, "invoiceId must be an integer"},
		{"invoiceId not an integer", `{"invoiceId":1.5,"amount":10.125}`, 400, "malformed JSON"},
		{"amount not a number", fmt.Sprintf(`{"invoiceId":%d,"amount":"ten"}`, id), 400, "malformed JSON"},
		{"missing invoiceId", `{"amount":10.125}`, 400, "invoiceId is required"},
		{"zero invoiceId", `{"invoiceId":0,"amount":10.125}`, 400, "invoiceId is required"},
		{"negative invoiceId", `{"invoiceId":-4,"amount":10.125}`, 400, "invoiceId is required"},
		{"missing amount", fmt.Sprintf(`{"invoiceId":%d}`, id), 400, "amount is required"},
		{"null amount", fmt.Sprintf(`{"invoiceId":%d,"amount":null}`, id), 400, "amount is required"},
		{"unknown invoice", `{"invoiceId":987654,"amount":10.125}`, 404, "invoice 987654 does not exist"},
		{"amount rounded", fmt.Sprintf(`{"invoiceId":%d,"amount":10.12}`, id), 400, "outstanding balance 10.125"},
		{"partial amount", fmt.Sprintf(`{"invoiceId":%d,"amount":5}`, id), 400, "partial write-offs are not possible"},
		{"more than the balance", fmt.Sprintf(`{"invoiceId":%d,"amount":10.1251}`, id), 400, "outstanding balance 10.125"},
		{"negative amount", fmt.Sprintf(`{"invoiceId":%d,"amount":-10.125}`, id), 400, "outstanding balance 10.125"},
		{"nothing outstanding", fmt.Sprintf(`{"invoiceId":%d,"amount":0}`, paid), 400, "no outstanding balance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := wtDo(t, srv, "POST", "/v1/invoices/writeoff", tt.body)
			wtWantError(t, r, tt.status, errorKeyAPI, tt.contains)
		})
	}
	inv, _ := srv.Invoice(id)
	if !inv.OutstandingBalance.Equal(wtDec("10.125")) || !inv.TotalWriteoffs.IsZero() {
		t.Errorf("refused write-offs changed the invoice: outstanding %s, writeoffs %s", inv.OutstandingBalance, inv.TotalWriteoffs)
	}
	if ev := srv.Events(); len(ev) != 0 {
		t.Errorf("refused write-offs emitted %+v", ev)
	}
}

// A write-off cannot be repeated: the second finds nothing outstanding
// and changes nothing.
func TestWriteOffTwice(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	id := wtInvoice(t, srv, wtCustomer(t, srv))
	body := fmt.Sprintf(`{"invoiceId":%d,"amount":10.125}`, id)
	wtWantStatus(t, wtDo(t, srv, "POST", "/v1/invoices/writeoff", body), http.StatusOK)
	wtWantError(t, wtDo(t, srv, "POST", "/v1/invoices/writeoff", body), http.StatusBadRequest, errorKeyAPI, "no outstanding balance")
	wtWantError(t, wtDo(t, srv, "POST", "/v1/invoices/writeoff", fmt.Sprintf(`{"invoiceId":%d,"amount":0}`, id)), http.StatusBadRequest, errorKeyAPI, "no outstanding balance")
	inv, _ := srv.Invoice(id)
	if !inv.TotalWriteoffs.Equal(wtDec("10.125")) {
		t.Errorf("totalWriteoffs %s after a refused second write-off, want 10.125", inv.TotalWriteoffs)
	}
	if n := len(wtEvents(srv, "invoice.writeoff")); n != 4 {
		t.Errorf("%d write-off events, want the 4 of the first write-off", n)
	}
}

// Concurrent write-offs of one invoice: exactly one wins.
func TestWriteOffConcurrent(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	id := wtInvoice(t, srv, wtCustomer(t, srv))
	body := fmt.Sprintf(`{"invoiceId":%d,"amount":10.125}`, id)
	c := srv.ts.Client()
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		// Not wtDo: t.Fatal must not be called off the test goroutine.
		wg.Go(func() {
			req, _ := http.NewRequest("POST", srv.URL+"/v1/invoices/writeoff", strings.NewReader(body))
			req.Header.Set("Authorization", "Basic "+srv.APIKey())
			resp, err := c.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		})
	}
	wg.Wait()
	ok := 0
	for _, st := range statuses {
		if st == http.StatusOK {
			ok++
		} else if st != http.StatusBadRequest {
			t.Errorf("status %d", st)
		}
	}
	if inv, _ := srv.Invoice(id); ok != 1 || !inv.TotalWriteoffs.Equal(wtDec("10.125")) {
		t.Errorf("%d write-offs succeeded, totalWriteoffs %s; want 1 and 10.125", ok, inv.TotalWriteoffs)
	}
}

func TestWriteOffPermission(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		status     int
		contains   string
	}{
		{"valid write-off", `{"invoiceId":%d,"amount":10.125}`, 404, "not enabled"},
		{"unknown invoice", `{"invoiceId":987654,"amount":1}`, 404, "not enabled"},
		{"wrong amount", `{"invoiceId":%d,"amount":1}`, 404, "not enabled"},
		{"missing fields", `{}`, 404, "not enabled"},
		{"malformed JSON is 404 too: the permission comes first", `{`, 404, "not enabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := wtServer(t, WithWriteOffPermission(false))
			id := wtInvoice(t, srv, wtCustomer(t, srv))
			body := tt.body
			if strings.Contains(body, "%d") {
				body = fmt.Sprintf(body, id)
			}
			wtWantError(t, wtDo(t, srv, "POST", "/v1/invoices/writeoff", body), tt.status, errorKeyAPI, tt.contains)
			if inv, _ := srv.Invoice(id); !inv.OutstandingBalance.Equal(wtDec("10.125")) {
				t.Errorf("outstanding %s after a refused write-off", inv.OutstandingBalance)
			}
		})
	}
	// The permission on (the default) and explicitly on.
	srv := wtServer(t, WithWriteOffPermission(true))
	id := wtInvoice(t, srv, wtCustomer(t, srv))
	wtWantStatus(t, wtDo(t, srv, "POST", "/v1/invoices/writeoff", fmt.Sprintf(`{"invoiceId":%d,"amount":10.125}`, id)), http.StatusOK)
}

func TestWriteOffSDK(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := wtServer(t)
	c := srv.Client()
	id := wtInvoice(t, srv, wtCustomer(t, srv))

	_, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: id, Amount: billing.Ptr(wtDec("10.12"))})
	var apiErr *billing.APIError
	if !errors.Is(err, billing.ErrBadRequest) || !errors.As(err, &apiErr) || !apiErr.HasKey("Api Error") {
		t.Fatalf("rounded amount: %v, want a 400 Api Error", err)
	}
	inv, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: id, Amount: billing.Ptr(wtDec("10.125"))})
	if err != nil {
		t.Fatal(err)
	}
	if !inv.OutstandingBalance.IsZero() || !inv.TotalWriteoffs.Equal(wtDec("10.125")) || len(inv.ChargeGroups) != 2 {
		t.Errorf("answer: outstanding %s, writeoffs %s, %d groups", inv.OutstandingBalance, inv.TotalWriteoffs, len(inv.ChargeGroups))
	}
	if _, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: id, Amount: billing.Ptr(wtDec("10.125"))}); !errors.Is(err, billing.ErrBadRequest) {
		t.Errorf("second write-off: %v, want ErrBadRequest", err)
	}

	off := wtServer(t, WithWriteOffPermission(false))
	id = wtInvoice(t, off, wtCustomer(t, off))
	if _, err := off.Client().Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: id, Amount: billing.Ptr(wtDec("10.125"))}); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("without the permission: %v, want ErrNotFound", err)
	}
}

// ---- replace credit card ----

const (
	wtCardNumber = "4242424242424242"
	wtCVV        = "987"
)

func wtCard(t *testing.T, srv *Server, cust int64, mod func(*CreditCard)) int64 {
	t.Helper()
	c := CreditCard{CustomerID: cust, Last4: "1111", CardType: "Visa", FirstName: "Ada", LastName: "Lovelace",
		ExpirationMonth: 1, ExpirationYear: 25, City: "London", PostalZip: "N1", IsDefault: true, CountryID: 1, StateID: 2}
	if mod != nil {
		mod(&c)
	}
	return wtMust(srv.AddCreditCard(c))
}

// wtCardBody is a valid replacement body for card id with fields
// overridden; a nil value removes the field.
func wtCardBody(id int64, over map[string]any) string {
	m := map[string]any{
		"id": id, "cardNumber": wtCardNumber, "cvv": wtCVV, "firstName": "Grace", "lastName": "Hopper",
		"expirationMonth": 12, "expirationYear": 29, "address1": "1 Main St", "city": "Arlington", "postalZip": "22201",
		"countryId": 1, "stateId": 47,
	}
	for k, v := range over {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// wtNoSecrets fails if the card number or CVV appear in b.
func wtNoSecrets(t *testing.T, what string, b []byte) {
	t.Helper()
	if bytes.Contains(b, []byte(wtCardNumber)) || bytes.Contains(b, []byte("4242 4242")) || bytes.Contains(b, []byte(`"`+wtCVV+`"`)) {
		t.Errorf("%s holds the card number or CVV: %s", what, b)
	}
}

func TestReplaceCreditCardSuccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		number, wantType string
	}{
		{wtCardNumber, "Visa"},
		{"4242 4242 4242 4242", "Visa"},
		{"4242-4242-4242-4242", "Visa"},
		{"5555555555554444", "MasterCard"},
		{"378282246310005", "AmericanExpress"},
		{"341111111111111", "AmericanExpress"},
		{"6011111111114242", "Discover"},
		{"3530111333304242", "Unknown"},
		{"424242424242", "Visa"},        // 12 digits
		{"4000000000000004242", "Visa"}, // 19 digits
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			t.Parallel()
			srv := wtServer(t)
			cust := wtCustomer(t, srv)
			old := wtCard(t, srv, cust, nil)
			r := wtDo(t, srv, "PUT", "/v1/paymentMethods/creditCard", wtCardBody(old, map[string]any{"cardNumber": tt.number, "customerId": cust}))
			wtWantStatus(t, r, http.StatusOK)
			digits := strings.NewReplacer(" ", "", "-", "").Replace(tt.number)
			last4 := digits[len(digits)-4:]
			wtWantRaw(t, r.body, `"maskedCardNumber":"************`+last4+`"`, `"cardType":"`+tt.wantType+`"`,
				fmt.Sprintf(`"originalPaymentMethodId":%d`, old), `"isDefault":true`, `"modifiedDate":"2024-03-15T10:00:30`)
			if bytes.Contains(r.body, []byte(`"cardNumber"`)) || bytes.Contains(r.body, []byte(`"cvv"`)) {
				t.Errorf("answer carries cardNumber or cvv: %s", r.body)
			}
			wtNoSecrets(t, "answer", r.body)
			if bytes.Contains(r.body, []byte(digits)) {
				t.Errorf("answer holds the card number: %s", r.body)
			}

			var got billing.CreditCard
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			if got.ID == old || got.ID == 0 || got.CustomerID != cust {
				t.Fatalf("answer id %d (old %d), customer %d", got.ID, old, got.CustomerID)
			}
			card, ok := srv.CreditCard(got.ID)
			want := CreditCard{ID: got.ID, CustomerID: cust, Last4: last4, CardType: tt.wantType, FirstName: "Grace", LastName: "Hopper",
				ExpirationMonth: 12, ExpirationYear: 29, Address1: "1 Main St", City: "Arlington", PostalZip: "22201",
				CountryID: 1, StateID: 47, IsDefault: true, OriginalPaymentMethodID: old, ModifiedDate: wtNow}
			if !ok || card != want {
				t.Errorf("stored replacement:\n got %+v\nwant %+v", card, want)
			}
			if prev, _ := srv.CreditCard(old); prev.ReplacedBy != got.ID || prev.IsDefault {
				t.Errorf("old card: ReplacedBy %d, IsDefault %v; want %d, false", prev.ReplacedBy, prev.IsDefault, got.ID)
			}
			wtWantEvents(t, srv, "paymentMethod.replaced", got.ID, EventWebhook, EventEmail)
			for _, req := range srv.Requests() {
				wtNoSecrets(t, "recorded request", req.Body)
				if bytes.Contains(req.Body, []byte(tt.number)) {
					t.Errorf("recorded request holds the card number: %s", req.Body)
				}
			}
		})
	}
}

func TestReplaceCreditCardIsDefault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		oldDefault  bool
		isDefault   any // nil: not sent
		wantDefault bool
	}{
		{"absent keeps old default", true, nil, true},
		{"absent keeps old non-default", false, nil, false},
		{"false overrides", true, false, false},
		{"true overrides", false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wtServer(t)
			cust := wtCustomer(t, srv)
			other := wtCard(t, srv, cust, func(c *CreditCard) { c.IsDefault = !tt.oldDefault })
			old := wtCard(t, srv, cust, func(c *CreditCard) { c.IsDefault = tt.oldDefault })
			r := wtDo(t, srv, "PUT", "/v1/paymentMethods/creditCard", wtCardBody(old, map[string]any{"isDefault": tt.isDefault}))
			wtWantStatus(t, r, http.StatusOK)
			var got billing.CreditCard
			_ = json.Unmarshal(r.body, &got)
			if card, _ := srv.CreditCard(got.ID); card.IsDefault != tt.wantDefault || got.IsDefault != tt.wantDefault {
				t.Errorf("IsDefault stored %v, answered %v; want %v", card.IsDefault, got.IsDefault, tt.wantDefault)
			}
			// One default per customer.
			if o, _ := srv.CreditCard(other); tt.wantDefault && o.IsDefault {
				t.Error("the customer's other card is still the default")
			}
		})
	}
}

func TestReplaceCreditCardErrors(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	cust := wtCustomer(t, srv)
	other := wtCustomer(t, srv)
	card := wtCard(t, srv, cust, nil)
	deleted := wtCard(t, srv, cust, func(c *CreditCard) { c.Deleted = true })
	long := func(n int) string { return strings.Repeat("é", n) } // 2 bytes each: lengths count characters

	tests := []struct {
		name     string
		body     string
		status   int
		contains string
	}{
		{"empty body", "", 400, "JSON body is required"},
		{"malformed JSON", `{"id":` + fmt.Sprint(card) + `,"cardNumber":"` + wtCardNumber, 400, "malformed JSON"},
		{"id as a string that is not a number", wtCardBody(card, map[string]any{"id": "card-" + fmt.Sprint(card)}), 400, "id must be an integer"},
		{"cardNumber as an object", wtCardBody(card, map[string]any{"cardNumber": map[string]any{"n": int64(4242424242424242)}}), 400, "cardNumber must be a string"},
		{"expirationMonth overflows", strings.Replace(wtCardBody(card, nil), `"expirationMonth":12`, `"expirationMonth":4242424242424242424242`, 1), 400, "expirationMonth must be an integer"},
		{"missing id", wtCardBody(card, map[string]any{"id": nil}), 400, "id is required"},
		{"zero id", wtCardBody(0, nil), 400, "id is required"},
		{"firstName 51 characters", wtCardBody(card, map[string]any{"firstName": long(51)}), 400, "firstName is at most 50 characters, got 51"},
		{"lastName 51 characters", wtCardBody(card, map[string]any{"lastName": long(51)}), 400, "lastName is at most 50"},
		{"address1 51 characters", wtCardBody(card, map[string]any{"address1": long(51)}), 400, "address1 is at most 50"},
		{"address2 51 characters", wtCardBody(card, map[string]any{"address2": long(51)}), 400, "address2 is at most 50"},
		{"city 51 characters", wtCardBody(card, map[string]any{"city": long(51)}), 400, "city is at most 50"},
		{"postalZip 11 characters", wtCardBody(card, map[string]any{"postalZip": "12345678901"}), 400, "postalZip is at most 10"},
		{"missing cardNumber", wtCardBody(card, map[string]any{"cardNumber": nil}), 400, "cardNumber is required"},
		{"cardNumber with letters", wtCardBody(card, map[string]any{"cardNumber": "4242abcd42424242"}), 400, "cardNumber must hold digits only"},
		{"cardNumber masked", wtCardBody(card, map[string]any{"cardNumber": "************4242"}), 400, "cardNumber must hold digits only"},
		{"cardNumber 11 digits", wtCardBody(card, map[string]any{"cardNumber": "42424242424"}), 400, "12 to 19 digits, got 11"},
		{"cardNumber 20 digits", wtCardBody(card, map[string]any{"cardNumber": "42424242424242424242"}), 400, "12 to 19 digits, got 20"},
		{"missing cvv", wtCardBody(card, map[string]any{"cvv": nil}), 400, "cvv must be 3 or 4 digits"},
		{"cvv 2 digits", wtCardBody(card, map[string]any{"cvv": "98"}), 400, "cvv must be 3 or 4 digits"},
		{"cvv 5 digits", wtCardBody(card, map[string]any{"cvv": "98765"}), 400, "cvv must be 3 or 4 digits"},
		{"cvv with a letter", wtCardBody(card, map[string]any{"cvv": "98x"}), 400, "cvv must be 3 or 4 digits"},
		{"missing expirationMonth", wtCardBody(card, map[string]any{"expirationMonth": nil}), 400, "expirationMonth must be 1 to 12, got 0"},
		{"expirationMonth 13", wtCardBody(card, map[string]any{"expirationMonth": 13}), 400, "expirationMonth must be 1 to 12, got 13"},
		{"expirationYear -1", wtCardBody(card, map[string]any{"expirationYear": -1}), 400, "expirationYear must be a two-digit year"},
		{"expirationYear 2029", wtCardBody(card, map[string]any{"expirationYear": 2029}), 400, "expirationYear must be a two-digit year"},
		{"negative collection amount", wtCardBody(card, map[string]any{"paymentCollectOptions": map[string]any{"collectionAmount": -1}}), 400, "collectionAmount"},
		{"unknown payment method", wtCardBody(987654, nil), 404, "payment method 987654 does not exist"},
		{"another customer's card", wtCardBody(card, map[string]any{"customerId": other}), 400, "does not belong to customer"},
		{"deleted card", wtCardBody(deleted, nil), 400, "has been deleted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := wtDo(t, srv, "PUT", "/v1/paymentMethods/creditCard", tt.body)
			wtWantError(t, r, tt.status, errorKeyAPI, tt.contains)
			wtNoSecrets(t, "error answer", r.body)
		})
	}
	if c, _ := srv.CreditCard(card); c.ReplacedBy != 0 {
		t.Errorf("a refused replacement replaced the card: %+v", c)
	}
	if n := srv.Counts()["creditCards"]; n != 2 {
		t.Errorf("%d cards after refused replacements, want 2", n)
	}
	if ev := srv.Events(); len(ev) != 0 {
		t.Errorf("refused replacements emitted %+v", ev)
	}
	// Exactly at the limits is fine.
	r := wtDo(t, srv, "PUT", "/v1/paymentMethods/creditCard", wtCardBody(card, map[string]any{
		"firstName": long(50), "lastName": long(50), "address1": long(50), "address2": long(50), "city": long(50),
		"postalZip": "1234567890", "cvv": "9876", "expirationMonth": 1, "expirationYear": 0,
	}))
	wtWantStatus(t, r, http.StatusOK)
}

// A replaced card is retired: it cannot be replaced again, while its
// replacement can.
func TestReplaceCreditCardTwice(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	old := wtCard(t, srv, wtCustomer(t, srv), nil)
	r := wtDo(t, srv, "PUT", "/v1/paymentMethods/creditCard", wtCardBody(old, nil))
	wtWantStatus(t, r, http.StatusOK)
	var first billing.CreditCard
	_ = json.Unmarshal(r.body, &first)

	wtWantError(t, wtDo(t, srv, "PUT", "/v1/paymentMethods/creditCard", wtCardBody(old, nil)),
		http.StatusBadRequest, errorKeyAPI, "the old method cannot be replaced again")
	if c, _ := srv.CreditCard(old); c.ReplacedBy != first.ID {
		t.Errorf("old card ReplacedBy %d, want %d", c.ReplacedBy, first.ID)
	}

	r = wtDo(t, srv, "PUT", "/v1/paymentMethods/creditCard", wtCardBody(first.ID, map[string]any{"cardNumber": "5555555555554444"}))
	wtWantStatus(t, r, http.StatusOK)
	var second billing.CreditCard
	_ = json.Unmarshal(r.body, &second)
	if second.OriginalPaymentMethodID == nil || *second.OriginalPaymentMethodID != first.ID || second.MaskedCardNumber != "************4444" {
		t.Errorf("second replacement: %+v", second)
	}
}

func TestReplaceCreditCardSDK(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := wtServer(t)
	c := srv.Client()
	cust := wtCustomer(t, srv)
	old := wtCard(t, srv, cust, nil)
	params := &billing.ReplaceCreditCardParams{
		ID: old, CustomerID: cust, CardNumber: wtCardNumber, CVV: wtCVV, FirstName: "Grace", LastName: "Hopper",
		ExpirationMonth: 6, ExpirationYear: 30, IsDefault: billing.Ptr(false),
	}
	card, err := c.PaymentMethods.ReplaceCreditCard(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if card.ID == old || card.MaskedCardNumber != "************4242" || card.CardType != "Visa" || card.IsDefault ||
		card.OriginalPaymentMethodID == nil || *card.OriginalPaymentMethodID != old {
		t.Errorf("replacement: %+v", card)
	}
	if _, err := c.PaymentMethods.ReplaceCreditCard(ctx, params); !errors.Is(err, billing.ErrBadRequest) {
		t.Errorf("replacing the old card again: %v, want ErrBadRequest", err)
	} else {
		wtNoSecrets(t, "SDK error", []byte(err.Error()))
	}
	deleted := wtCard(t, srv, cust, func(c *CreditCard) { c.Deleted = true })
	params.ID = deleted
	if _, err := c.PaymentMethods.ReplaceCreditCard(ctx, params); !errors.Is(err, billing.ErrBadRequest) {
		t.Errorf("replacing a deleted card: %v, want ErrBadRequest", err)
	}
}

// ---- wallet billing agreement ----

func TestWalletAgreementSuccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, provider, body string
		wantSource           billing.PaymentSource
		wantToken, wantBaid  string
	}{
		{"token", "Paypal", `{"token":"EC-123","customerId":%d,"source":"Manual"}`, billing.PaymentSourceManual, "EC-123", ""},
		{"baid", "Paypal", `{"baid":"B-77","customerId":%d,"source":"Automatic"}`, billing.PaymentSourceAutomatic, "", "B-77"},
		{"baid as a number, as documented", "Paypal", `{"baid":12345.5,"customerId":%d,"source":"Import"}`, billing.PaymentSourceImport, "", "12345.5"},
		{"both, source in another case", "Paypal", `{"token":"t","baid":"b","customerId":%d,"source":"selfserviceportal","paymentCollectOptions":{"collectionAmount":12.50}}`, billing.PaymentSourceSelfServicePortal, "t", "b"},
		{"configured provider", "Venmo", `{"token":"v","customerId":%d,"source":"MANUAL"}`, billing.PaymentSourceManual, "v", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wtServer(t, WithWalletProviders("Paypal", "Venmo"))
			cust := wtCustomer(t, srv)
			r := wtDo(t, srv, "POST", "/v1/"+tt.provider, fmt.Sprintf(tt.body, cust))
			wtWantStatus(t, r, http.StatusOK)
			wtWantRaw(t, r.body, fmt.Sprintf(`"customerId":%d`, cust), `"firstName":"Ada"`, `"lastName":"Lovelace"`,
				`"isDefault":true`, `"modifiedDate":"2024-03-15T10:00:30`)
			var got billing.WalletPaymentMethod
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			methods := srv.WalletMethods()
			want := WalletMethod{ID: got.ID, CustomerID: cust, Provider: tt.provider, Token: tt.wantToken, Baid: tt.wantBaid,
				Source: tt.wantSource, FirstName: "Ada", LastName: "Lovelace", IsDefault: true, ModifiedDate: wtNow}
			if len(methods) != 1 || methods[0] != want {
				t.Errorf("stored:\n got %+v\nwant %+v", methods, want)
			}
			wtWantEvents(t, srv, "paymentMethod.created", got.ID, EventWebhook, EventCRM)
		})
	}
}

// The new method is the default only when the customer had none.
func TestWalletAgreementDefault(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	withCard := wtCustomer(t, srv)
	wtCard(t, srv, withCard, nil)
	withReplacedDefault := wtCustomer(t, srv)
	wtCard(t, srv, withReplacedDefault, func(c *CreditCard) { c.ReplacedBy = 999 })
	fresh := wtCustomer(t, srv)

	create := func(cust int64) bool {
		t.Helper()
		r := wtDo(t, srv, "POST", "/v1/Paypal", fmt.Sprintf(`{"token":"t","customerId":%d,"source":"Manual"}`, cust))
		wtWantStatus(t, r, http.StatusOK)
		var pm billing.WalletPaymentMethod
		_ = json.Unmarshal(r.body, &pm)
		return pm.IsDefault
	}
	if create(withCard) {
		t.Error("customer with a default card: new wallet method is the default")
	}
	if !create(withReplacedDefault) {
		t.Error("customer whose default card was replaced: new wallet method is not the default")
	}
	if !create(fresh) || create(fresh) {
		t.Error("customer without methods: want the first wallet method default and the second not")
	}
}

func TestWalletAgreementErrors(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	cust := wtCustomer(t, srv)
	tests := []struct {
		name, path, body string
		status           int
		key, contains    string
	}{
		{"provider not configured", "/v1/Stripe", `{"token":"t","customerId":%d,"source":"Manual"}`, 404, errorKeyAPI, "no such endpoint"},
		{"unknown provider", "/v1/Stripe", `{"token":"t","customerId":%d,"source":"Manual"}`, 404, errorKeyAPI, "no such endpoint"},
		{"neither token nor baid", "/v1/Paypal", `{"customerId":%d,"source":"Manual"}`, 400, "agreement", "token or a baid is required"},
		{"empty token and baid", "/v1/Paypal", `{"token":"","baid":" ","customerId":%d,"source":"Manual"}`, 400, "agreement", "token or a baid"},
		{"null token", "/v1/Paypal", `{"token":null,"customerId":%d,"source":"Manual"}`, 400, "agreement", "token or a baid"},
		{"unknown source", "/v1/Paypal", `{"token":"t","customerId":%d,"source":"Bogus"}`, 400, errorKeyAPI, "Manual, Automatic, SelfServicePortal, Import"},
		{"missing source", "/v1/Paypal", `{"token":"t","customerId":%d}`, 400, errorKeyAPI, "Manual, Automatic, SelfServicePortal, Import"},
		{"missing customerId", "/v1/Paypal", `{"token":"t","source":"Manual"}`, 400, errorKeyAPI, "customerId is required"},
		{"unknown customer", "/v1/Paypal", `{"token":"t","customerId":987654,"source":"Manual"}`, 404, errorKeyAPI, "customer 987654 does not exist"},
		{"customerId as a string that is not a number", "/v1/Paypal", `{"token":"t","customerId":"c%d","source":"Manual"}`, 400, errorKeyAPI, "customerId must be an integer"},
		{"token as an object", "/v1/Paypal", `{"token":{},"customerId":%d,"source":"Manual"}`, 400, errorKeyAPI, "malformed JSON"},
		{"malformed JSON", "/v1/Paypal", `{"token":`, 400, errorKeyAPI, "malformed JSON"},
		{"negative collection amount", "/v1/Paypal", `{"token":"t","customerId":%d,"source":"Manual","paymentCollectOptions":{"collectionAmount":-1}}`, 400, errorKeyAPI, "collectionAmount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if strings.Contains(body, "%d") {
				body = fmt.Sprintf(body, cust)
			}
			wtWantError(t, wtDo(t, srv, "POST", tt.path, body), tt.status, tt.key, tt.contains)
		})
	}
	if n := len(srv.WalletMethods()); n != 0 || len(srv.Events()) != 0 {
		t.Errorf("refused agreements stored %d methods and emitted %d events", n, len(srv.Events()))
	}
}

func TestWalletAgreementSDK(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := wtServer(t)
	c := srv.Client()
	cust := wtCustomer(t, srv)
	pm, err := c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{Token: "EC-1", CustomerID: cust, Source: billing.PaymentSourceAutomatic})
	if err != nil {
		t.Fatal(err)
	}
	if pm.ID == 0 || pm.CustomerID != cust || pm.FirstName != "Ada" || !pm.IsDefault || !pm.ModifiedDate.Time.Equal(wtNow) {
		t.Errorf("answer: %+v", pm)
	}
	_, err = c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{Token: "EC-1", CustomerID: cust, Source: "Carrier pigeon"})
	if !errors.Is(err, billing.ErrBadRequest) {
		t.Errorf("bad source: %v, want ErrBadRequest", err)
	}
	_, err = c.PaymentMethods.CreateWalletAgreement(ctx, "Stripe", &billing.WalletAgreementParams{Token: "EC-1", CustomerID: cust, Source: billing.PaymentSourceManual})
	if !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("unknown provider: %v, want ErrNotFound", err)
	}
}

// ---- sales tracking codes ----

func TestCreateTrackingCodeSuccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		raw        []string
		want       billing.SalesTrackingCode
	}{
		{
			"standard type with description and email",
			`{"type":"Sales Tracking Code 1","code":"WEST","name":"West region","description":"Sales west of the river","email":"west@example.com"}`,
			[]string{`"type":"Sales Tracking Code 1"`, `"description":"Sales west of the river"`, `"email":"west@example.com"`},
			billing.SalesTrackingCode{Type: "Sales Tracking Code 1", Code: "WEST", Name: "West region",
				Description: billing.Ptr("Sales west of the river"), Email: billing.Ptr("west@example.com")},
		},
		{
			"custom category name, as sent",
			`{"type":"region","code":"EAST","name":"East"}`,
			[]string{`"type":"region"`, `"description":null`, `"email":null`},
			billing.SalesTrackingCode{Type: "region", Code: "EAST", Name: "East"},
		},
		{
			"type in another case",
			`{"type":"sales tracking code 5","code":"X","name":"X"}`,
			[]string{`"type":"sales tracking code 5"`},
			billing.SalesTrackingCode{Type: "sales tracking code 5", Code: "X", Name: "X"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wtServer(t)
			if err := srv.SetTrackingCodeCategoryName(2, "Region"); err != nil {
				t.Fatal(err)
			}
			r := wtDo(t, srv, "POST", "/v1/salesTrackingCodes", tt.body)
			wtWantStatus(t, r, http.StatusOK)
			wtWantRaw(t, r.body, append(tt.raw, `"status":"Active"`, `"deletable":true`)...)
			var got billing.SalesTrackingCode
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.ID, want.URI, want.Status, want.Deletable = got.ID, got.URI, billing.TrackingCodeStatusActive, true
			codes := srv.SalesTrackingCodes()
			if got.ID == 0 || got.URI == nil || len(codes) != 1 || !wtSameCode(wtSeededAsAnswered(codes[0], got.URI), want) || !wtSameCode(got, want) {
				t.Errorf("answer %+v, stored %+v, want %+v", got, codes, want)
			}
			wtWantEvents(t, srv, "salesTrackingCode.created", got.ID, EventWebhook)
		})
	}
}

// wtSeededAsAnswered is a stored code as the API answers it, with uri.
func wtSeededAsAnswered(c SalesTrackingCode, uri *string) billing.SalesTrackingCode {
	return billing.SalesTrackingCode{ID: c.ID, URI: uri, Type: c.Type, Code: c.Code, Name: c.Name,
		Description: c.Description, Email: c.Email, Status: c.Status, Deletable: c.Deletable}
}

func wtSameCode(a, b billing.SalesTrackingCode) bool {
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	return a.ID == b.ID && str(a.URI) == str(b.URI) && a.Type == b.Type && a.Code == b.Code && a.Name == b.Name &&
		str(a.Description) == str(b.Description) && str(a.Email) == str(b.Email) && a.Status == b.Status && a.Deletable == b.Deletable
}

func TestCreateTrackingCodeErrors(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	if err := srv.SetTrackingCodeCategoryName(2, "Region"); err != nil {
		t.Fatal(err)
	}
	wtMust(srv.AddSalesTrackingCode(SalesTrackingCode{Type: billing.TrackingCodeType1, Code: "WEST", Name: "West"}))
	wtMust(srv.AddSalesTrackingCode(SalesTrackingCode{Type: "Region", Code: "NORTH", Name: "North"}))
	tests := []struct {
		name, body string
		status     int
		contains   string
	}{
		{"missing code", `{"type":"Sales Tracking Code 1","name":"n"}`, 400, "code is required"},
		{"blank code", `{"type":"Sales Tracking Code 1","code":"  ","name":"n"}`, 400, "code is required"},
		{"missing name", `{"type":"Sales Tracking Code 1","code":"c"}`, 400, "name is required"},
		{"missing type", `{"code":"c","name":"n"}`, 400, "valid types: Sales Tracking Code 1, Sales Tracking Code 2, Region, Sales Tracking Code 3, Sales Tracking Code 4, Sales Tracking Code 5"},
		{"unknown type", `{"type":"Sales Tracking Code 6","code":"c","name":"n"}`, 400, `type "Sales Tracking Code 6" is not a sales tracking code type; valid types: Sales Tracking Code 1`},
		{"type as a number", `{"type":1,"code":"c","name":"n"}`, 400, "is not a sales tracking code type"},
		{"malformed JSON", `{"type":"Sales Tracking Code 1",`, 400, "malformed JSON"},
		{"duplicate code", `{"type":"Sales Tracking Code 1","code":"WEST","name":"again"}`, 409, `code "WEST" already exists in category Sales Tracking Code 1`},
		{"duplicate code in another case", `{"type":"sales tracking code 1","code":"west","name":"again"}`, 409, "already exists"},
		{"duplicate through the standard name of a renamed category", `{"type":"Sales Tracking Code 2","code":"NORTH","name":"again"}`, 409, "already exists in category Sales Tracking Code 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wtWantError(t, wtDo(t, srv, "POST", "/v1/salesTrackingCodes", tt.body), tt.status, errorKeyAPI, tt.contains)
		})
	}
	if n := len(srv.SalesTrackingCodes()); n != 2 || len(srv.Events()) != 0 {
		t.Errorf("refused creates: %d codes (want 2), %d events", n, len(srv.Events()))
	}
	// The same code in another category is another code.
	wtWantStatus(t, wtDo(t, srv, "POST", "/v1/salesTrackingCodes", `{"type":"Sales Tracking Code 3","code":"WEST","name":"West 3"}`), http.StatusOK)
}

func TestCreateTrackingCodeSDK(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := wtServer(t)
	c := srv.Client()
	code, err := c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType3, Code: "Q1", Name: "Spring promo"})
	if err != nil {
		t.Fatal(err)
	}
	if code.ID == 0 || code.Status != billing.TrackingCodeStatusActive || !code.Deletable || code.Description != nil {
		t.Errorf("answer: %+v", code)
	}
	_, err = c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType3, Code: "Q1", Name: "again"})
	if !errors.Is(err, billing.ErrConflict) {
		t.Errorf("duplicate: %v, want ErrConflict", err)
	}
	_, err = c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: "Campaign", Code: "Q2", Name: "n"})
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Error(), "Sales Tracking Code 5") {
		t.Errorf("unknown type: %v, want a 400 listing the valid types", err)
	}
}

// ---- bulk job ----

func TestBulkProcess(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	id := wtMust(srv.AddBulkJob(BulkJob{Type: "PriceChange", Validated: true}))
	r := wtDo(t, srv, "POST", "/v1/BulkApi/Process", fmt.Sprintf(`{"id":%d}`, id))
	wtWantStatus(t, r, http.StatusOK)
	if want := fmt.Sprintf(`{"id":%d,"type":"PriceChange","status":"Processing"}`, id); string(r.body) != want {
		t.Errorf("answer %s, want %s", r.body, want)
	}
	if job, _ := srv.BulkJob(id); !job.Processed || !job.Validated || job.Type != "PriceChange" {
		t.Errorf("stored job: %+v", job)
	}
	wtWantEvents(t, srv, "bulkJob.processed", id, EventWebhook, EventEmail)

	// Only once.
	wtWantError(t, wtDo(t, srv, "POST", "/v1/BulkApi/Process", fmt.Sprintf(`{"id":%d}`, id)), http.StatusConflict, errorKeyAPI, "already submitted")
	if n := len(wtEvents(srv, "bulkJob.processed")); n != 2 {
		t.Errorf("%d events after a refused second submission, want 2", n)
	}
}

func TestBulkProcessErrors(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	draft := wtMust(srv.AddBulkJob(BulkJob{Type: "PriceChange"}))
	tests := []struct {
		name, body string
		status     int
		contains   string
	}{
		{"empty body", "", 400, "JSON body is required"},
		{"malformed JSON", `{"id":`, 400, "malformed JSON"},
		{"id as a string that is not a number", fmt.Sprintf(`{"id":"job-%d"}`, draft), 400, "id must be an integer"},
		{"missing id", `{}`, 400, "id is required"},
		{"zero id", `{"id":0}`, 400, "id is required"},
		{"negative id", `{"id":-1}`, 400, "id is required"},
		{"unknown job", `{"id":987654}`, 404, "bulk job 987654 does not exist"},
		{"not validated", fmt.Sprintf(`{"id":%d}`, draft), 409, "is not validated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wtWantError(t, wtDo(t, srv, "POST", "/v1/BulkApi/Process", tt.body), tt.status, errorKeyAPI, tt.contains)
		})
	}
	if job, _ := srv.BulkJob(draft); job.Processed || len(srv.Events()) != 0 {
		t.Errorf("refused submissions changed state: %+v, %d events", job, len(srv.Events()))
	}
}

func TestBulkProcessSDK(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := wtServer(t)
	c := srv.Client()
	id := wtMust(srv.AddBulkJob(BulkJob{Type: "Import", Validated: true}))
	job, err := c.Bulk.Process(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if job.ID != id || string(job.Extra["status"]) != `"Processing"` {
		t.Errorf("answer: %d %s", job.ID, job.Extra)
	}
	if _, err := c.Bulk.Process(ctx, id); !errors.Is(err, billing.ErrConflict) {
		t.Errorf("second submission: %v, want ErrConflict", err)
	}
	if _, err := c.Bulk.Process(ctx, 987654); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("unknown job: %v, want ErrNotFound", err)
	}
}

// ---- events ----

// Only the value True (in any case) suppresses events; any other value
// of the header is ignored.
func TestSuppressEventsHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value      string // "" sends no header
		suppressed bool
	}{
		{"True", true},
		{"true", true},
		{"TRUE", true},
		{"", false},
		{"1", false},
		{"False", false},
		{"false", false},
		{"yes", false},
		{"True, True", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.value), func(t *testing.T) {
			t.Parallel()
			srv := wtServer(t)
			cust := wtCustomer(t, srv)
			inv := wtInvoice(t, srv, cust)
			card := wtCard(t, srv, cust, nil)
			job := wtMust(srv.AddBulkJob(BulkJob{Validated: true}))
			var hdr []string
			if tt.value != "" {
				hdr = []string{"X-SUPPRESS-ALL-EVENTS", tt.value}
			}
			writes := []struct{ method, path, body string }{
				{"POST", "/v1/invoices/writeoff", fmt.Sprintf(`{"invoiceId":%d,"amount":10.125}`, inv)},
				{"PUT", "/v1/paymentMethods/creditCard", wtCardBody(card, nil)},
				{"POST", "/v1/Paypal", fmt.Sprintf(`{"token":"t","customerId":%d,"source":"Manual"}`, cust)},
				{"POST", "/v1/salesTrackingCodes", `{"type":"Sales Tracking Code 1","code":"C","name":"N"}`},
				{"POST", "/v1/BulkApi/Process", fmt.Sprintf(`{"id":%d}`, job)},
			}
			for _, wr := range writes {
				wtWantStatus(t, wtDo(t, srv, wr.method, wr.path, wr.body, hdr...), http.StatusOK)
			}
			want := 4 + 2 + 2 + 1 + 2
			if tt.suppressed {
				want = 0
			}
			if got := srv.Events(); len(got) != want {
				t.Errorf("%d events, want %d: %+v", len(got), want, got)
			}
		})
	}
}

// The SDK's SuppressEvents option reaches the fake.
func TestSuppressEventsSDK(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	_, err := srv.Client().SalesTrackingCodes.Create(context.Background(),
		&billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "S", Name: "S"}, billing.SuppressEvents())
	if err != nil {
		t.Fatal(err)
	}
	if ev := srv.Events(); len(ev) != 0 || len(srv.SalesTrackingCodes()) != 1 {
		t.Errorf("events %+v with SuppressEvents; the code must still be created", ev)
	}
}

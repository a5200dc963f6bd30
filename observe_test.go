package billing_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// seenAttempt is what a test compares of an Attempt: all of it but the
// duration (checked apart) and the error, described by its type and, for
// an *APIError, its status.
type seenAttempt struct {
	Op             string // Operation.Route() after Operation.Name
	Number, Status int
	Err            string
	Retry          bool
	OutcomeUnknown bool
}

func describeAttempt(a billing.Attempt) seenAttempt {
	s := seenAttempt{
		Op: a.Operation.Name + " " + a.Operation.Route(), Number: a.Number, Status: a.StatusCode,
		Retry: a.Retry, OutcomeUnknown: a.OutcomeUnknown,
	}
	var ae *billing.APIError
	switch {
	case errors.As(a.Err, &ae):
		s.Err = fmt.Sprintf("APIError %d", ae.StatusCode)
	case a.Err != nil:
		s.Err = fmt.Sprintf("%T", a.Err)
	}
	return s
}

// TestAttemptObserverSeesEveryAttempt runs a read and a write through
// faults of the fake and checks that the observer saw each attempt, in
// order, with its number, status, error, retry decision and outcome, and
// that the log line of each attempt says the same.
func TestAttemptObserverSeesEveryAttempt(t *testing.T) {
	t.Parallel()
	const (
		get      = "Invoices.Get GET /v1/Invoices/{invoiceId}"
		writeOff = "Invoices.WriteOff POST /v1/invoices/writeoff"
	)
	tests := []struct {
		name   string
		write  bool
		faults []billingtest.Fault
		want   []seenAttempt
	}{
		{
			name: "read: two 503s, then the answer", faults: []billingtest.Fault{{Status: 503, Times: 2}},
			want: []seenAttempt{
				{Op: get, Number: 1, Status: 503, Err: "APIError 503", Retry: true},
				{Op: get, Number: 2, Status: 503, Err: "APIError 503", Retry: true},
				{Op: get, Number: 3, Status: 200},
			},
		},
		{
			name: "read: 503 until the retries run out", faults: []billingtest.Fault{{Status: 503, Times: 3}},
			want: []seenAttempt{
				{Op: get, Number: 1, Status: 503, Err: "APIError 503", Retry: true},
				{Op: get, Number: 2, Status: 503, Err: "APIError 503", Retry: true},
				{Op: get, Number: 3, Status: 503, Err: "APIError 503"},
			},
		},
		{
			name: "read: no answer, then the answer", faults: []billingtest.Fault{{Drop: billingtest.DropBeforeApply}},
			want: []seenAttempt{
				{Op: get, Number: 1, Err: "*billing.RequestError", Retry: true},
				{Op: get, Number: 2, Status: 200},
			},
		},
		{
			name: "read: an answer cut off, then the answer", faults: []billingtest.Fault{{Truncate: true}},
			want: []seenAttempt{
				{Op: get, Number: 1, Status: 200, Err: "*billing.DecodeError", Retry: true},
				{Op: get, Number: 2, Status: 200},
			},
		},
		{
			name: "read: 404", faults: []billingtest.Fault{{Status: 404}},
			want: []seenAttempt{{Op: get, Number: 1, Status: 404, Err: "APIError 404"}},
		},
		{
			name: "write: 429, then the answer", write: true, faults: []billingtest.Fault{{Status: 429}},
			want: []seenAttempt{
				{Op: writeOff, Number: 1, Status: 429, Err: "APIError 429", Retry: true},
				{Op: writeOff, Number: 2, Status: 200},
			},
		},
		{
			name: "write: 503", write: true, faults: []billingtest.Fault{{Status: 503}},
			want: []seenAttempt{{Op: writeOff, Number: 1, Status: 503, Err: "APIError 503", OutcomeUnknown: true}},
		},
		{
			name: "write: applied, then no answer", write: true, faults: []billingtest.Fault{{Drop: billingtest.DropAfterApply}},
			want: []seenAttempt{{Op: writeOff, Number: 1, Err: "*billing.RequestError", OutcomeUnknown: true}},
		},
		{
			name: "write: applied, answer cut off", write: true, faults: []billingtest.Fault{{Truncate: true}},
			want: []seenAttempt{{Op: writeOff, Number: 1, Status: 200, Err: "*billing.DecodeError", OutcomeUnknown: true}},
		},
		{
			name: "write: 400", write: true, faults: []billingtest.Fault{{Status: 400}},
			want: []seenAttempt{{Op: writeOff, Number: 1, Status: 400, Err: "APIError 400"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := billingtest.NewServer(billingtest.WithAPIKey(sweepKey), billingtest.WithClock(func() time.Time { return sweepClock }))
			t.Cleanup(srv.Close)
			fx := sweepSeed(t, srv)
			route := billingtest.RouteInvoicesGet
			if tc.write {
				route = billingtest.RouteInvoicesWriteOff
			}
			for _, f := range tc.faults {
				if err := srv.InjectFault(route, f); err != nil {
					t.Fatal(err)
				}
			}
			var observed sweepAttempts
			var log bytes.Buffer
			c := contractClient(t, srv, billing.WithAttemptObserver(observed.observe),
				billing.WithLogger(slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
			var err error
			if tc.write {
				amount := fx.balance
				_, err = c.Invoices.WriteOff(context.Background(), &billing.WriteOffParams{InvoiceID: fx.invoice, Amount: &amount})
			} else {
				_, err = c.Invoices.Get(context.Background(), fx.invoice, nil)
			}
			last := tc.want[len(tc.want)-1]
			if (err == nil) != (last.Err == "") {
				t.Fatalf("call error %v; the last attempt's should be %q", err, last.Err)
			}
			if errors.Is(err, billing.ErrOutcomeUnknown) != last.OutcomeUnknown {
				t.Errorf("call error %v: ErrOutcomeUnknown %v, the last attempt's OutcomeUnknown %v", err, !last.OutcomeUnknown, last.OutcomeUnknown)
			}

			attempts := observed.all()
			var got []seenAttempt
			for _, a := range attempts {
				got = append(got, describeAttempt(a))
				if a.Duration <= 0 {
					t.Errorf("attempt %d: Duration %v", a.Number, a.Duration)
				}
				if errors.Is(a.Err, billing.ErrOutcomeUnknown) != a.OutcomeUnknown {
					t.Errorf("attempt %d: errors.Is(Err, ErrOutcomeUnknown) = %v, OutcomeUnknown = %v", a.Number, !a.OutcomeUnknown, a.OutcomeUnknown)
				}
				var ae *billing.APIError
				if errors.As(a.Err, &ae) && (ae.StatusCode != a.StatusCode || ae.Method == "" || ae.Path == "") {
					t.Errorf("attempt %d: status %d with %#v", a.Number, a.StatusCode, ae)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("attempts:\n got %+v\nwant %+v", got, tc.want)
			}

			// One mechanism: the log line of each attempt says the same.
			var lines []seenAttempt
			sc := bufio.NewScanner(&log)
			for sc.Scan() {
				var m struct {
					Operation       string
					Attempt, Status int
					Retry           bool
				}
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatal(err)
				}
				lines = append(lines, seenAttempt{Op: m.Operation, Number: m.Attempt, Status: m.Status, Retry: m.Retry})
			}
			if len(lines) != len(got) {
				t.Fatalf("%d log lines for %d attempts:\n%s", len(lines), len(got), log.String())
			}
			for i, l := range lines {
				g := got[i]
				if want := (seenAttempt{Op: attempts[i].Operation.Name, Number: g.Number, Status: g.Status, Retry: g.Retry}); l != want {
					t.Errorf("log line %d: %+v, the observer's attempt %+v", i, l, want)
				}
			}
		})
	}
}

// TestAttemptErrorHoldsNoURL checks that the error of an attempt that got
// no answer does not hold the query string, and does not unwrap to the
// *url.Error whose message does, while errors.Is still sees the cause.
func TestAttemptErrorHoldsNoURL(t *testing.T) {
	t.Parallel()
	srv := billingtest.NewServer(billingtest.WithAPIKey(sweepKey))
	t.Cleanup(srv.Close)
	if err := srv.InjectFault(billingtest.RouteInvoicesList, billingtest.Fault{Delay: time.Minute}); err != nil {
		t.Fatal(err)
	}
	var observed sweepAttempts
	c := contractClient(t, srv, billing.WithAttemptObserver(observed.observe))
	const secret = "PO-PRIVATE-QUARTZ" // no hex digits: %#v prints addresses
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	p := &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{PoNumber: query.Equals(secret)}}
	if _, err := c.Invoices.List(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
	attempts := observed.all()
	if len(attempts) != 1 {
		t.Fatalf("%d attempts, want 1", len(attempts))
	}
	a := attempts[0]
	var re *billing.RequestError
	if !errors.As(a.Err, &re) || re.Path != "/v1/Invoices" || re.Attempts != 1 {
		t.Fatalf("Err = %#v, want a *RequestError of GET /v1/Invoices", a.Err)
	}
	if !errors.Is(a.Err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(%v, context.DeadlineExceeded) = false", a.Err)
	}
	var ue *url.Error
	if errors.As(a.Err, &ue) {
		t.Errorf("Err unwraps to the *url.Error %v", ue)
	}
	for i, e := 0, a.Err; e != nil; i, e = i+1, errors.Unwrap(e) {
		for _, text := range []string{e.Error(), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e)} {
			if strings.Contains(text, "?") || strings.Contains(text, "QUARTZ") {
				t.Errorf("error %d holds the query: %s", i, text)
			}
		}
	}
}

// TestWithAttemptObserver checks the option: nil is refused when the
// client is built, and observers given more than once are all called, in
// the order given.
func TestWithAttemptObserver(t *testing.T) {
	t.Parallel()
	_, err := billing.NewClient(sweepKey, billing.WithBaseURL("https://billing.example.com"), billing.WithAttemptObserver(nil))
	if !errors.Is(err, billing.ErrInvalidParams) || !strings.Contains(err.Error(), "WithAttemptObserver") {
		t.Errorf("WithAttemptObserver(nil): err = %v, want an error naming the option", err)
	}

	srv := billingtest.NewServer(billingtest.WithAPIKey(sweepKey))
	t.Cleanup(srv.Close)
	var calls []string // appended by the observers, on the caller's goroutine
	observer := func(name string) func(context.Context, billing.Attempt) {
		return func(_ context.Context, a billing.Attempt) {
			calls = append(calls, fmt.Sprintf("%s %d", name, a.Number))
		}
	}
	if err := srv.InjectFault(billingtest.RouteInvoicesList, billingtest.Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	c := contractClient(t, srv, billing.WithAttemptObserver(observer("first")), billing.WithAttemptObserver(observer("second")))
	if _, err := c.Invoices.List(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if want := []string{"first 1", "second 1", "first 2", "second 2"}; !reflect.DeepEqual(calls, want) {
		t.Errorf("calls = %q, want %q", calls, want)
	}
}

// TestAttemptObserverUnderPrefetch checks that the observer, called from
// the workers of a prefetching iterator at once, sees every request once,
// each named after List (run with -race: the observer is called
// concurrently).
func TestAttemptObserverUnderPrefetch(t *testing.T) {
	t.Parallel()
	srv, cust := fakeWithCustomer(t, billingtest.Customer{FirstName: "Ada"}, billingtest.WithAPIKey(sweepKey))
	for i := range 40 {
		fee := decimal.NewFromInt(int64(10 + i))
		if _, err := srv.AddInvoice(billingtest.Invoice{CustomerID: cust,
			Charges: []billingtest.Charge{{Name: "Plan", Quantity: decimal.NewFromInt(1), UnitPrice: fee, Amount: fee}}}); err != nil {
			t.Fatal(err)
		}
	}
	var observed sweepAttempts
	c := contractClient(t, srv, billing.WithAttemptObserver(observed.observe))
	n := countAll(t, c.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 3}}, billing.Prefetch(4)))
	if n != 40 {
		t.Fatalf("%d invoices, want 40", n)
	}
	attempts, requests := observed.all(), srv.Requests()
	if len(attempts) != len(requests) || len(requests) != 14 {
		t.Fatalf("%d attempts for %d requests, want 14 of each", len(attempts), len(requests))
	}
	for i, a := range attempts {
		if a.Operation.Name != "Invoices.List" || a.Number != 1 || a.StatusCode != 200 || a.Err != nil {
			t.Errorf("attempt %d: %+v", i, a)
		}
	}
}

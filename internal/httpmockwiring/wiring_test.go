package httpmockwiring_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/query"
	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
)

// None of these tests is parallel: httpmock.Activate changes
// http.DefaultTransport for the whole process (see the package doc).

const testKey = "wiring-key"

// listener is a real server at the client's base URL: any request that
// reaches it went past the mock.
type listener struct {
	*httptest.Server
	hits atomic.Int64
}

func newListener(t *testing.T) *listener {
	t.Helper()
	l := &listener{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":7}`))
	}))
	t.Cleanup(l.Close)
	return l
}

// ownTransport is a transport of the caller's that goes to the network,
// as a caller's client has; never http.DefaultTransport's value, which a
// test may have replaced.
func ownTransport(t *testing.T) *http.Transport {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// requireDefaultUntouched fails a test that starts with a replaced
// http.DefaultTransport: an earlier test leaked its activation, and the
// results would mean nothing.
func requireDefaultUntouched(t *testing.T) {
	t.Helper()
	if _, ok := http.DefaultTransport.(*http.Transport); !ok {
		t.Fatalf("http.DefaultTransport is %T at the start of the test", http.DefaultTransport)
	}
}

// respond registers the answers of the two calls each wiring makes, a
// read and a write, on mt.
func respond(mt *httpmock.MockTransport, base string) {
	mt.RegisterResponder(http.MethodGet, base+"/v1/Invoices/7", httpmock.NewStringResponder(200, `{"id":7}`))
	mt.RegisterResponder(http.MethodPost, base+"/v1/invoices/writeoff", httpmock.NewStringResponder(200, `{"id":7}`))
}

// calls makes a read and a write and checks their answers.
func calls(t *testing.T, c *billing.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inv, err := c.Invoices.Get(ctx, 7, nil)
	if err != nil || inv.ID != 7 {
		t.Fatalf("Invoices.Get = %+v, %v", inv, err)
	}
	amount := decimal.NewFromInt(5)
	inv, err = c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7, Amount: &amount})
	if err != nil || inv.ID != 7 {
		t.Fatalf("Invoices.WriteOff = %+v, %v", inv, err)
	}
}

func newClient(t *testing.T, base string, opts ...billing.Option) *billing.Client {
	t.Helper()
	c, err := billing.NewClient(testKey, append([]billing.Option{
		billing.WithBaseURL(base),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every common way of putting httpmock under a client reaches the mock,
// for reads and for writes (which go through a client of their own that
// follows no redirect), whether the mock is installed before or after
// NewClient; and nothing reaches the listener at the base URL.
func TestEveryWiringReachesTheMock(t *testing.T) {
	activate := func(t *testing.T) *httpmock.MockTransport {
		httpmock.Activate()
		t.Cleanup(httpmock.DeactivateAndReset)
		return httpmock.DefaultTransport
	}
	activateOn := func(t *testing.T, hc *http.Client) *httpmock.MockTransport {
		httpmock.ActivateNonDefault(hc)
		t.Cleanup(httpmock.DeactivateAndReset)
		return httpmock.DefaultTransport
	}
	for _, tt := range []struct {
		name string
		// wire builds the client on base and returns the mock it must reach.
		wire func(t *testing.T, base string) (*billing.Client, *httpmock.MockTransport)
	}{
		{"Activate before NewClient", func(t *testing.T, base string) (*billing.Client, *httpmock.MockTransport) {
			mt := activate(t)
			return newClient(t, base), mt
		}},
		{"Activate after NewClient", func(t *testing.T, base string) (*billing.Client, *httpmock.MockTransport) {
			c := newClient(t, base)
			return c, activate(t)
		}},
		{"ActivateNonDefault before NewClient(WithHTTPClient)", func(t *testing.T, base string) (*billing.Client, *httpmock.MockTransport) {
			hc := &http.Client{Transport: ownTransport(t)}
			mt := activateOn(t, hc)
			return newClient(t, base, billing.WithHTTPClient(hc)), mt
		}},
		{"ActivateNonDefault after NewClient(WithHTTPClient)", func(t *testing.T, base string) (*billing.Client, *httpmock.MockTransport) {
			hc := &http.Client{Transport: ownTransport(t)}
			c := newClient(t, base, billing.WithHTTPClient(hc))
			return c, activateOn(t, hc)
		}},
		{"ActivateNonDefault after NewClient(WithHTTPClient, WithTimeout)", func(t *testing.T, base string) (*billing.Client, *httpmock.MockTransport) {
			hc := &http.Client{Transport: ownTransport(t), Timeout: time.Hour}
			c := newClient(t, base, billing.WithHTTPClient(hc), billing.WithTimeout(time.Minute))
			return c, activateOn(t, hc)
		}},
		{"a MockTransport in WithHTTPClient", func(t *testing.T, base string) (*billing.Client, *httpmock.MockTransport) {
			mt := httpmock.NewMockTransport()
			return newClient(t, base, billing.WithHTTPClient(&http.Client{Transport: mt})), mt
		}},
		{"Activate after NewClient(WithHTTPClient) of a client without Transport", func(t *testing.T, base string) (*billing.Client, *httpmock.MockTransport) {
			c := newClient(t, base, billing.WithHTTPClient(&http.Client{Timeout: time.Minute}))
			return c, activate(t)
		}},
		{"Activate before NewClient(WithHTTPClient(http.DefaultClient))", func(t *testing.T, base string) (*billing.Client, *httpmock.MockTransport) {
			mt := activate(t)
			return newClient(t, base, billing.WithHTTPClient(http.DefaultClient)), mt
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			requireDefaultUntouched(t)
			l := newListener(t)
			c, mt := tt.wire(t, l.URL)
			respond(mt, l.URL)
			calls(t, c)

			wantInfo := map[string]int{
				"GET " + l.URL + "/v1/Invoices/7":         1,
				"POST " + l.URL + "/v1/invoices/writeoff": 1,
			}
			total, info := mt.GetTotalCallCount(), mt.GetCallCountInfo()
			if mt == httpmock.DefaultTransport {
				// The package-level counters are those of the same mock.
				total, info = httpmock.GetTotalCallCount(), httpmock.GetCallCountInfo()
			}
			if total != 2 || !reflect.DeepEqual(info, wantInfo) {
				t.Errorf("mock calls: total %d, %v; want 2, %v", total, info, wantInfo)
			}
			if n := l.hits.Load(); n != 0 {
				t.Errorf("%d requests reached the listener at the base URL", n)
			}
		})
		requireDefaultUntouched(t)
	}
}

// The transport is read at each request in both directions: after
// Deactivate (or DeactivateNonDefault) the same client reaches the
// network again, and reaches the mock once more after a new activation.
func TestDeactivatingGoesBackToTheNetwork(t *testing.T) {
	for _, tt := range []struct {
		name string
		// on and off install and remove the mock for the client's hc (nil
		// for a client without WithHTTPClient).
		on, off func(hc *http.Client)
		opts    func(hc *http.Client) []billing.Option
	}{
		{"Activate", func(*http.Client) { httpmock.Activate() }, func(*http.Client) { httpmock.Deactivate() },
			func(*http.Client) []billing.Option { return nil }},
		{"ActivateNonDefault", httpmock.ActivateNonDefault, httpmock.DeactivateNonDefault,
			func(hc *http.Client) []billing.Option { return []billing.Option{billing.WithHTTPClient(hc)} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			requireDefaultUntouched(t)
			t.Cleanup(httpmock.DeactivateAndReset)
			l := newListener(t)
			hc := &http.Client{Transport: ownTransport(t)}
			c := newClient(t, l.URL, tt.opts(hc)...)
			respond(httpmock.DefaultTransport, l.URL)

			for i, step := range []struct {
				install           func(*http.Client)
				wantMock, wantNet int
			}{
				{tt.on, 2, 0},
				{tt.off, 2, 2},
				{tt.on, 4, 2},
			} {
				step.install(hc)
				calls(t, c)
				if got, net := httpmock.GetTotalCallCount(), int(l.hits.Load()); got != step.wantMock || net != step.wantNet {
					t.Fatalf("step %d: mock %d, network %d calls; want %d, %d", i, got, net, step.wantMock, step.wantNet)
				}
			}
		})
		requireDefaultUntouched(t)
	}
}

// The bundled fake, served in process as httpmock's answer to every
// request without a responder, gives a client wired the httpmock way
// (Activate, no WithHTTPClient) real filtering and writes, with nothing
// reaching the listener at the base URL.
func TestTheFakeAsTheNoResponder(t *testing.T) {
	requireDefaultUntouched(t)
	srv := billingtest.NewInProcess()
	t.Cleanup(srv.Close)
	cust, err := srv.AddCustomer(billingtest.Customer{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range 5 {
		id, err := srv.AddInvoice(billingtest.Invoice{CustomerID: cust, PoNumber: fmt.Sprintf("PO-%d", i),
			PostedTimestamp: time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC),
			Charges:         []billingtest.Charge{{Name: "Seat", Amount: decimal.NewFromInt(int64(10 + i))}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}

	l := newListener(t)
	httpmock.Activate()
	t.Cleanup(httpmock.DeactivateAndReset)
	httpmock.RegisterNoResponder(srv.Transport().RoundTrip)
	c, err := billing.NewClient(srv.APIKey(), billing.WithBaseURL(l.URL))
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	params := &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{PageSize: 2},
		Filter: billing.InvoiceFilter{PoNumber: query.StartsWith("PO-"),
			PostedTimestamp: query.TimeRange{From: time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC), To: time.Date(2025, 1, 5, 0, 0, 0, 0, time.UTC)}},
	}
	var got []int64
	for inv, err := range c.Invoices.All(ctx, params) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, inv.ID)
	}
	if want := ids[1:4]; !reflect.DeepEqual(got, want) {
		t.Errorf("filtered invoices %v, want %v", got, want)
	}
	amount := decimal.NewFromInt(12)
	if _, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: ids[2], Amount: &amount}); err != nil {
		t.Fatal(err)
	}
	if inv, err := c.Invoices.Get(ctx, ids[2], nil); err != nil || !inv.OutstandingBalance.IsZero() {
		t.Errorf("the write-off did not reach the fake: %+v, %v", inv, err)
	}

	served := len(srv.Requests())
	if info, want := httpmock.GetCallCountInfo(), map[string]int{"NO_RESPONDER": served}; served != 4 || !reflect.DeepEqual(info, want) {
		t.Errorf("mock calls %v, the fake served %d; want 4 through the no-responder", info, served)
	}
	if n := l.hits.Load(); n != 0 {
		t.Errorf("%d requests reached the listener at the base URL", n)
	}
}

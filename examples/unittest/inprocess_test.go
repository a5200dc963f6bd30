package unittest

import (
	"errors"
	"net/http"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/jarcoal/httpmock"
)

// The httpmock way with the whole fake behind it, in process (no socket):
// responders pin the answers the test is about, and the fake answers
// everything else with real filters, sorting, paging and state.
func TestHttpmockWithTheFakeBehind(t *testing.T) {
	t.Parallel()
	srv := billingtest.NewInProcess(billingtest.WithSampleAccount())
	t.Cleanup(srv.Close)
	mock := httpmock.NewMockTransport()
	mock.RegisterNoResponder(srv.Transport().RoundTrip)
	mock.RegisterResponder(http.MethodGet, "https://billing.example.com/v1/Invoices/1007",
		httpmock.NewStringResponder(http.StatusNotFound, `{"ErrorId":0,"HttpStatusCode":404,"Errors":[]}`))
	c, err := billing.NewClient(srv.APIKey(),
		billing.WithBaseURL("https://billing.example.com"), // your production URL: nothing reaches it
		billing.WithHTTPClient(&http.Client{Transport: mock}))
	if err != nil {
		t.Fatal(err)
	}

	n, err := c.InvoiceSummaries.Count(t.Context(), 100, nil) // the fake: Ada has 3 invoices
	if err != nil || n != 3 {
		t.Fatalf("Count = %d, %v; want 3", n, err)
	}
	if _, err := c.Invoices.Get(t.Context(), 1007, nil); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("err = %v, want the pinned 404", err)
	}
}

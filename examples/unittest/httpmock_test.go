package unittest

import (
	"errors"
	"net/http"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
)

// newMockedClient is a client whose requests go to mock only: nothing
// reaches the network, and tests that use it can run in parallel.
func newMockedClient(t *testing.T, mock *httpmock.MockTransport) *billing.Client {
	t.Helper()
	c, err := billing.NewClient("test-key",
		billing.WithBaseURL("https://billing.example.com"),
		billing.WithHTTPClient(&http.Client{Transport: mock}),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOneAnswerWithHttpmock(t *testing.T) {
	t.Parallel()
	mock := httpmock.NewMockTransport()
	mock.RegisterResponder(http.MethodGet, "https://billing.example.com/v1/Invoices/42",
		httpmock.NewStringResponder(http.StatusOK, `{"id":42,"invoiceNumber":42,"poNumber":"PO-7"}`))
	c := newMockedClient(t, mock)

	inv, err := c.Invoices.Get(t.Context(), 42, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *inv.PoNumber != "PO-7" || mock.GetTotalCallCount() != 1 {
		t.Errorf("PO %q after %d calls", *inv.PoNumber, mock.GetTotalCallCount())
	}
}

func TestAFaultWithHttpmock(t *testing.T) {
	t.Parallel()
	mock := httpmock.NewMockTransport()
	mock.RegisterResponder(http.MethodPost, "https://billing.example.com/v1/invoices/writeoff",
		httpmock.NewStringResponder(http.StatusBadRequest,
			`{"ErrorId":0,"HttpStatusCode":400,"Errors":[{"Key":"Api Error","Value":"Amount must equal the outstanding balance"}]}`))
	c := newMockedClient(t, mock)

	amount := decimal.RequireFromString("20")
	_, err := c.Invoices.WriteOff(t.Context(), &billing.WriteOffParams{InvoiceID: 42, Amount: &amount})
	var apiErr *billing.APIError
	if !errors.Is(err, billing.ErrBadRequest) || !errors.As(err, &apiErr) || len(apiErr.Errors) != 1 {
		t.Fatalf("err = %v, want a 400 *billing.APIError with its error list", err)
	}
}

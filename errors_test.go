package billing_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/query"
)

// The errors a caller branches on: an *APIError for each status with its
// category, its message and body excerpt, and the errors returned before
// anything is sent.

func TestAPIErrorCategories(t *testing.T) {
	t.Parallel()
	categories := []error{billing.ErrBadRequest, billing.ErrUnauthorized, billing.ErrForbidden, billing.ErrNotFound,
		billing.ErrConflict, billing.ErrRateLimited, billing.ErrServer}
	tests := []struct {
		status int
		want   error
	}{
		{400, billing.ErrBadRequest},
		{401, billing.ErrUnauthorized},
		{403, billing.ErrForbidden},
		{404, billing.ErrNotFound},
		{409, billing.ErrConflict},
		{429, billing.ErrRateLimited},
		{500, billing.ErrServer},
		{502, billing.ErrServer},
		{503, billing.ErrServer},
		{418, nil},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.on("GET", "/v1/Invoices/5", tt.status, errorBody(tt.status, "Api Error", "message"))
			_, err := w.client.Invoices.Get(context.Background(), 5, nil)
			var apiErr *billing.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v (%T), want *billing.APIError", err, err)
			}
			if apiErr.StatusCode != tt.status || apiErr.ErrorID != 1234 || apiErr.Method != "GET" || apiErr.Path != "/v1/Invoices/5" {
				t.Errorf("APIError = %+v", apiErr)
			}
			if len(apiErr.Errors) != 1 || apiErr.Errors[0] != (billing.ErrorDetail{Key: "Api Error", Value: "message"}) {
				t.Errorf("Errors = %+v", apiErr.Errors)
			}
			for _, c := range categories {
				if got := errors.Is(err, c); got != (c == tt.want) {
					t.Errorf("errors.Is(err, %v) = %v", c, got)
				}
			}
		})
	}
}

func TestAPIErrorMessage(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on("GET", "/v1/Invoices", 400, errorBody(400, "Api Error", "Invalid query: nosuchfield"))
	_, err := w.client.Invoices.List(context.Background(), &billing.ListInvoicesParams{
		Filter: billing.InvoiceFilter{ErpID: query.Equals("secret-looking-value")},
	})
	if err == nil {
		t.Fatal("want error")
	}
	msg := err.Error()
	for _, want := range []string{"GET /v1/Invoices", "400 Bad Request", "ErrorId 1234", "Api Error: Invalid query: nosuchfield"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "secret-looking-value") || strings.Contains(msg, "query=") {
		t.Errorf("message %q holds query values", msg)
	}
}

func TestAPIErrorFromHTMLPage(t *testing.T) {
	t.Parallel()
	page := "<html><head><title>502 Bad Gateway</title></head>\n<body>" + strings.Repeat("<p>upstream is down</p>\n", 200) + "</body></html>"
	w := newWire(t)
	w.on("GET", "/v1/Invoices/5", 502, page, "Content-Type", "text/html")
	_, err := w.client.Invoices.Get(context.Background(), 5, nil)
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, billing.ErrServer) {
		t.Fatalf("err = %v", err)
	}
	if len(apiErr.Errors) != 0 || apiErr.ErrorID != 0 {
		t.Errorf("an HTML page decoded as an envelope: %+v", apiErr)
	}
	if !strings.HasPrefix(apiErr.Body, "<html><head><title>502 Bad Gateway</title></head> <body>") {
		t.Errorf("Body = %q", apiErr.Body)
	}
	if len(apiErr.Body) > 512 {
		t.Errorf("Body excerpt is %d bytes, want at most 512", len(apiErr.Body))
	}
	if !strings.Contains(err.Error(), "unexpected body") {
		t.Errorf("message %q does not mention the body", err)
	}
}

// An HTML error page from a proxy is an *APIError with the page's text as
// an excerpt, not a decode error.
func TestHostileHTMLErrorPage(t *testing.T) {
	t.Parallel()
	page := "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n" +
		strings.Repeat("<!-- padding -->\n", 200) + "</body>\n</html>\n"
	for _, op := range []hostileOp{opGet, opList, opWriteOff, opPDF} {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			srv, hits := fixedServer(t, http.StatusBadGateway, page, "Content-Type", "text/html")
			err := noHang(t, func() error { return op.call(context.Background(), hostileClient(t, srv.URL)) })
			var apiErr *billing.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadGateway || !errors.Is(err, billing.ErrServer) {
				t.Fatalf("err = %v (%T), want an *APIError 502", err, err)
			}
			if !strings.Contains(apiErr.Body, "<title>502 Bad Gateway</title>") || len(apiErr.Body) > 512 || strings.Contains(apiErr.Body, "\n") {
				t.Errorf("Body = %q, want a one-line excerpt of the page, at most 512 bytes", apiErr.Body)
			}
			if !strings.Contains(err.Error(), "502 Bad Gateway") {
				t.Errorf("err = %q, want the page's excerpt in the message", err)
			}
			// A gateway's 502 does not say whether the service acted.
			if got := errors.Is(err, billing.ErrOutcomeUnknown); got != op.write {
				t.Errorf("errors.Is(err, ErrOutcomeUnknown) = %v for a 502 to a %s, want %v", got, op.name, op.write)
			}
			want := int32(2) // a read is retried once
			if op.write {
				want = 1
			}
			if n := hits.Load(); n != want {
				t.Errorf("requests = %d, want %d", n, want)
			}
		})
	}
}

func TestAPIErrorWithEmptyBody(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on("GET", "/v1/Invoices/5", 401, "")
	_, err := w.client.Invoices.Get(context.Background(), 5, nil)
	if !errors.Is(err, billing.ErrUnauthorized) {
		t.Fatalf("err = %v", err)
	}
	if got := err.Error(); got != "billing: GET /v1/Invoices/5: 401 Unauthorized" {
		t.Errorf("message = %q", got)
	}
}

func TestValidationErrorMessage(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	_, err := w.client.Invoices.Get(context.Background(), -3, nil)
	assertValidation(t, err, "invoiceId")
	if got := err.Error(); got != "billing: invalid invoiceId: must be a positive id, got -3" {
		t.Errorf("message = %q", got)
	}
}

// Every error the SDK returns before sending anything matches
// ErrInvalidParams, whatever its type.
func TestErrorsBeforeSendingMatchErrInvalidParams(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	ctx := context.Background()
	calls := map[string]func() error{
		"NewClient without a base URL": func() error { _, err := billing.NewClient(testKey); return err },
		"NewClient with an empty key":  func() error { _, err := billing.NewClient("", billing.WithBaseURL(testBaseURL)); return err },
		"a wallet agreement without token or baid": func() error {
			return errOf(w.client.PaymentMethods.CreateWalletAgreement(ctx, billing.WalletProviderPaypal, &billing.WalletAgreementParams{CustomerID: 1, Source: billing.PaymentSourceManual}))
		},
		"a provider that is not one segment": func() error {
			return errOf(w.client.PaymentMethods.CreateWalletAgreement(ctx, "Pay/pal", &billing.WalletAgreementParams{Token: "t", CustomerID: 1, Source: billing.PaymentSourceManual}))
		},
		"a negative id": func() error { _, err := w.client.Invoices.Get(ctx, -1, nil); return err },
		"a bad request option": func() error {
			return errOf(w.client.Invoices.Get(ctx, 1, nil, billing.WithHeader("Authorization", "x")))
		},
		"a bad iterator option": func() error {
			for _, err := range w.client.Invoices.All(ctx, nil, billing.Prefetch(-1)) {
				return err
			}
			return nil
		},
		"a nil iterator option": func() error {
			for _, err := range w.client.Invoices.All(ctx, nil, nil) {
				return err
			}
			return nil
		},
		"a negative page size": func() error {
			return errOf(w.client.Invoices.List(ctx, &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: -1}}))
		},
		"a nil context": func() error {
			//lint:ignore SA1012 the nil context is what is under test
			_, err := w.client.Invoices.Get(nil, 1, nil)
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, billing.ErrInvalidParams) {
			t.Errorf("%s: err = %v, want ErrInvalidParams", name, err)
		}
	}
	if w.sent() != 0 {
		t.Errorf("sent %d requests, want none", w.sent())
	}
}

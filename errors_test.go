package billing_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/query"
)

func TestAPIErrorCategories(t *testing.T) {
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

func TestAPIErrorWithEmptyBody(t *testing.T) {
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
	w := newWire(t)
	_, err := w.client.Invoices.Get(context.Background(), -3, nil)
	assertValidation(t, err, "invoiceId")
	if got := err.Error(); got != "billing: invalid invoiceId: must be a positive id, got -3" {
		t.Errorf("message = %q", got)
	}
}

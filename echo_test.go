package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// A server that echoes secrets into a successful answer: what the call
// returns holds none of them, in any fmt verb, in JSON or in a log line,
// and keeps everything else the server sent.

// escapableKey has the bytes that servers escape: .NET's JSON encoder
// writes "+" as \u002B, a URL has "+", "/" and "=" percent-encoded.
const escapableKey = "sk+live/7f3a9c=="

// echoForms are the ways a server may write escapableKey back.
var echoForms = []string{escapableKey, `sk\u002Blive\/7f3a9c\u003D\u003D`, "sk%2Blive%2F7f3a9c%3D%3D", "sk&#43;live&#x2F;7f3a9c=="}

// answeringServer answers every request with status, body and, where
// location is set, a Location header.
func answeringServer(t *testing.T, status int, body, location string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if location != "" {
			w.Header().Set("Location", location)
		}
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// echoClient is a hostile server's client with escapableKey.
func echoClient(t *testing.T, url string) *billing.Client {
	t.Helper()
	c, err := billing.NewClient(escapableKey, billing.WithBaseURL(url), billing.WithRetryPolicy(fastRetries))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// assertNoEcho fails when out holds the key in any of echoForms, the card
// number in any grouping or the CVV standing alone.
func assertNoEcho(t *testing.T, what, out string) {
	t.Helper()
	for _, form := range append(echoForms, `sk\\u002Blive`) {
		if strings.Contains(out, form) {
			t.Errorf("%s holds the key as %s:\n%s", what, form, out)
		}
	}
	if leaksCard(out) || leaksCVV(out, echoCVV) {
		t.Errorf("%s holds the card number or the CVV:\n%s", what, out)
	}
}

// assertPrintsNoEcho prints v every way a caller may and checks each.
func assertPrintsNoEcho(t *testing.T, v any) {
	t.Helper()
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		assertNoEcho(t, fmt.Sprintf("%s of %T", verb, v), fmt.Sprintf(verb, v))
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal of %T: %v", v, err)
	}
	assertNoEcho(t, fmt.Sprintf("JSON of %T", v), string(b))
	var log strings.Builder
	slog.New(slog.NewJSONHandler(&log, nil)).Info("result", "v", v)
	assertNoEcho(t, fmt.Sprintf("slog of %T", v), log.String())
}

func TestSecretsEchoedIntoAnAnswerAreScrubbed(t *testing.T) {
	t.Parallel()
	redacted := "[REDACTED]"
	t.Run("ReplaceCreditCard", func(t *testing.T) {
		t.Parallel()
		srv := answeringServer(t, http.StatusOK, `{"id":1001,"customerId":42,"maskedCardNumber":"4929 3817 6104 5378","cardType":"Visa",`+
			`"postalZip":"`+echoCVV+`","cardNumber":4929381761045378,"cvv":"`+echoCVV+`",`+
			`"debug":{"cvv":`+echoCVV+`,"attempt":2,"note":"card 4929-3817-6104-5378"}}`, "")
		p := secParams()
		p.CardNumber, p.CVV = echoCard, echoCVV
		got, err := echoClient(t, srv.URL).PaymentMethods.ReplaceCreditCard(context.Background(), &p)
		if err != nil {
			t.Fatal(err)
		}
		want := &billing.CreditCard{ID: 1001, CustomerID: 42, MaskedCardNumber: redacted, CardType: "Visa", PostalZip: &redacted,
			Extra: billing.Extra{"cardNumber": json.RawMessage(`"[REDACTED]"`), "cvv": json.RawMessage(`"[REDACTED]"`),
				"debug": json.RawMessage(`{"attempt":2,"cvv":"[REDACTED]","note":"card [REDACTED]"}`)}}
		if d := diff(want, got); d != "" {
			t.Errorf("card (-want +got):\n%s", d)
		}
		assertPrintsNoEcho(t, got)
	})
	t.Run("Invoices.Get", func(t *testing.T) {
		t.Parallel()
		srv := answeringServer(t, http.StatusOK, `{"id":7,"invoiceAmount":12.50,"notes":"key `+echoForms[0]+`","poNumber":"`+echoForms[1]+`",`+
			`"debug":{"Authorization":"Basic `+echoForms[2]+`","`+echoForms[3]+`":1}}`, "")
		got, err := echoClient(t, srv.URL).Invoices.Get(context.Background(), 7, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := &billing.Invoice{ID: 7, InvoiceAmount: decimal.RequireFromString("12.50"), Notes: billing.Ptr("key " + redacted), PoNumber: &redacted,
			Extra: billing.Extra{"debug": json.RawMessage(`{"Authorization":"Basic [REDACTED]","[REDACTED]":1}`)}}
		if d := diff(want, got); d != "" {
			t.Errorf("invoice (-want +got):\n%s", d)
		}
		assertPrintsNoEcho(t, got)
	})
	t.Run("Invoices.List", func(t *testing.T) {
		t.Parallel()
		srv := answeringServer(t, http.StatusOK, `[{"id":1,"notes":"plain"},{"id":2,"notes":"`+echoForms[2]+`"}]`, "")
		page, err := echoClient(t, srv.URL).Invoices.List(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := diff([]billing.Invoice{{ID: 1, Notes: billing.Ptr("plain")}, {ID: 2, Notes: &redacted}}, page.Items); d != "" {
			t.Errorf("items (-want +got):\n%s", d)
		}
		assertPrintsNoEcho(t, page)
	})
	t.Run("Client.Do", func(t *testing.T) {
		t.Parallel()
		srv := answeringServer(t, http.StatusOK, `{"id":42,"tags":["a","`+echoForms[1]+`"],"echo":{"key":"`+echoForms[0]+`"}}`, "")
		var got any
		if _, err := echoClient(t, srv.URL).Do(context.Background(), &billing.Request{Method: http.MethodGet, Path: "/v1/Customers/42"}, &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"id": float64(42), "tags": []any{"a", redacted}, "echo": map[string]any{"key": redacted}}
		if d := diff(want, got); d != "" {
			t.Errorf("answer (-want +got):\n%s", d)
		}
		assertPrintsNoEcho(t, got)
	})
}

// The key echoed escaped (by .NET's JSON encoder, in a redirect's query)
// reaches neither an error nor a captured response.
func TestEscapedKeyIsScrubbedFromErrorsAndCapturedResponses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		status   int
		body     string
		location string
	}{
		{"401 body escaped as .NET does", http.StatusUnauthorized, `{"message":"Authorization has been denied for ` + echoForms[1] + `"}`, ""},
		{"401 page with entities", http.StatusUnauthorized, `<html>key ` + echoForms[3] + `</html>`, ""},
		{"302 to a URL holding the key", http.StatusFound, `{}`, "/v1/denied?key=" + echoForms[2]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := answeringServer(t, tt.status, tt.body, tt.location)
			var captured billing.Response
			_, err := echoClient(t, srv.URL).Invoices.WriteOff(context.Background(), &billing.WriteOffParams{InvoiceID: 7, Amount: billing.Ptr(decimal.NewFromInt(1))}, billing.CaptureResponse(&captured))
			if err == nil {
				t.Fatal("no error")
			}
			if captured.StatusCode != tt.status {
				t.Fatalf("captured status %d, want %d", captured.StatusCode, tt.status)
			}
			for _, v := range []any{err, captured, &captured} {
				for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
					assertNoEcho(t, fmt.Sprintf("%s of %T", verb, v), fmt.Sprintf(verb, v))
				}
			}
		})
	}
}

// A transport error that quotes the key (a malformed status line echoing
// Authorization) is scrubbed, and its message still leaves out the URL
// and its query string, as every RequestError's does.
func TestRequestErrorEchoingTheKeyHoldsNoQuery(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nbroken %s\r\n\r\n", r.Header.Get("Authorization"))
		_ = buf.Flush()
	}))
	t.Cleanup(srv.Close)
	const private = "PO-PRIVATE-QUARTZ"
	p := &billing.ListInvoicesParams{Filter: billing.InvoiceFilter{PoNumber: query.Equals(private)}}
	_, err := echoClient(t, srv.URL).Invoices.List(context.Background(), p)
	var re *billing.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("err = %T %v, want a *RequestError", err, err)
	}
	for _, verb := range []string{"%v", "%+v", "%s"} {
		out := fmt.Sprintf(verb, err)
		assertNoEcho(t, verb+" of the error", out)
		if strings.Contains(out, private) || strings.Contains(out, "query=") {
			t.Errorf("%s of the error holds the query string: %s", verb, out)
		}
	}
	if !strings.Contains(err.Error(), "[REDACTED]") {
		t.Errorf("err = %v, want the echoed key shown as [REDACTED]", err)
	}
}

package billing_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/jarcoal/httpmock"
)

// draftPDF is a small PDF-like payload, with bytes that are not UTF-8 so
// that any text handling would show.
var draftPDF = append([]byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n"), append(bytes.Repeat([]byte{0x00, 0xff, 0x7f}, 1000), []byte("\n%%EOF\n")...)...)

// draftBody is a response body that records whether it was closed.
type draftBody struct {
	io.Reader
	closed atomic.Bool
}

func (b *draftBody) Close() error { b.closed.Store(true); return nil }

func draftResponse(req *http.Request, status int, contentType string, body io.ReadCloser) *http.Response {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return &http.Response{
		Status: http.StatusText(status), StatusCode: status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: body, ContentLength: -1, Request: req,
	}
}

func TestDraftInvoicesPDFRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		id     int64
		params *billing.DraftPDFParams
		path   string
		want   url.Values
	}{
		{"nil params", 9, nil, "/v1/draftInvoices/pdf/9", url.Values{}},
		{"showTrackedItems false is not sent", 9, &billing.DraftPDFParams{}, "/v1/draftInvoices/pdf/9", url.Values{}},
		{"showTrackedItems", 123456789012, &billing.DraftPDFParams{ShowTrackedItems: true}, "/v1/draftInvoices/pdf/123456789012", url.Values{"showTrackedItems": {"true"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.onResponder(http.MethodGet, tt.path, func(req *http.Request) (*http.Response, error) {
				return draftResponse(req, 200, "application/pdf", io.NopCloser(bytes.NewReader(draftPDF))), nil
			})
			rc, err := w.client.DraftInvoices.PDF(context.Background(), tt.id, tt.params)
			if err != nil {
				t.Fatalf("PDF: %v", err)
			}
			got, err := io.ReadAll(rc)
			if err != nil {
				t.Fatalf("reading the PDF: %v", err)
			}
			if err := rc.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if !bytes.Equal(got, draftPDF) {
				t.Errorf("PDF bytes differ: got %d bytes, want %d", len(got), len(draftPDF))
			}
			r := w.last()
			if r.Method != http.MethodGet || r.Path != tt.path {
				t.Errorf("request = %s %s, want GET %s", r.Method, r.Path, tt.path)
			}
			assertCommonHeaders(t, r, false)
			accept := r.Header.Get("Accept")
			if !strings.Contains(accept, "application/pdf") {
				t.Errorf("Accept = %q, want it to include application/pdf", accept)
			}
			if !strings.Contains(accept, "application/json") {
				t.Errorf("Accept = %q, want it to include application/json for error bodies", accept)
			}
			if len(tt.want) == 0 {
				if r.RawQuery != "" {
					t.Errorf("query = %q, want none", r.RawQuery)
				}
			} else {
				invRequireQuery(t, r, tt.want)
			}
		})
	}
}

func TestDraftInvoicesPDFStreams(t *testing.T) {
	t.Parallel()
	t.Run("returns before the body has arrived and streams it", func(t *testing.T) {
		pr, pw := io.Pipe()
		t.Cleanup(func() { _ = pw.CloseWithError(errors.New("test over")) })
		w := newWire(t)
		w.onResponder(http.MethodGet, "/v1/draftInvoices/pdf/9", func(req *http.Request) (*http.Response, error) {
			return draftResponse(req, 200, "application/pdf", pr), nil
		})

		type result struct {
			rc  io.ReadCloser
			err error
		}
		done := make(chan result, 1)
		go func() {
			rc, err := w.client.DraftInvoices.PDF(context.Background(), 9, nil)
			done <- result{rc, err}
		}()
		var res result
		select {
		case res = <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("PDF did not return before the body was written: it buffers the document")
		}
		if res.err != nil {
			t.Fatalf("PDF: %v", res.err)
		}
		defer res.rc.Close()

		// Write the document in pieces only now, reading each back.
		half := len(draftPDF) / 2
		go func() {
			_, _ = pw.Write(draftPDF[:half])
			_, _ = pw.Write(draftPDF[half:])
			_ = pw.Close()
		}()
		got, err := io.ReadAll(res.rc)
		if err != nil {
			t.Fatalf("reading: %v", err)
		}
		if !bytes.Equal(got, draftPDF) || !bytes.HasPrefix(got, []byte("%PDF-1.4")) {
			t.Errorf("streamed %d bytes, want the %d bytes of the PDF", len(got), len(draftPDF))
		}
	})

	t.Run("closing the stream closes the response body", func(t *testing.T) {
		body := &draftBody{Reader: bytes.NewReader(draftPDF)}
		w := newWire(t)
		w.onResponder(http.MethodGet, "/v1/draftInvoices/pdf/9", func(req *http.Request) (*http.Response, error) {
			return draftResponse(req, 200, "application/pdf", body), nil
		})
		rc, err := w.client.DraftInvoices.PDF(context.Background(), 9, nil)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 8)
		if _, err := io.ReadFull(rc, head); err != nil || string(head) != "%PDF-1.4" {
			t.Fatalf("first bytes %q, %v", head, err)
		}
		if body.closed.Load() {
			t.Error("the body was closed before the caller closed the stream")
		}
		if err := rc.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if !body.closed.Load() {
			t.Error("closing the stream did not close the response body")
		}
	})

	t.Run("a stream cut short is the call's DecodeError", func(t *testing.T) {
		w := newWire(t)
		w.onResponder(http.MethodGet, "/v1/draftInvoices/pdf/9", func(req *http.Request) (*http.Response, error) {
			cut := io.MultiReader(bytes.NewReader(draftPDF[:len(draftPDF)/2]), iotest.ErrReader(io.ErrUnexpectedEOF))
			return draftResponse(req, 200, "application/pdf", io.NopCloser(cut)), nil
		})
		rc, err := w.client.DraftInvoices.PDF(context.Background(), 9, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		got, err := io.ReadAll(rc)
		const want = "billing: GET /v1/draftInvoices/pdf/9: decoding 200 answer: unexpected EOF"
		var de *billing.DecodeError
		if !errors.As(err, &de) || err.Error() != want || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("reading a cut stream: %v, want a *DecodeError %q matching io.ErrUnexpectedEOF", err, want)
		}
		if !bytes.Equal(got, draftPDF[:len(draftPDF)/2]) {
			t.Errorf("got %d bytes before the cut, want %d", len(got), len(draftPDF)/2)
		}
	})

	for _, ct := range []string{"application/pdf", "application/pdf; qs=0.9", "APPLICATION/PDF", "application/octet-stream"} {
		t.Run("accepts Content-Type "+ct, func(t *testing.T) {
			w := newWire(t)
			w.onResponder(http.MethodGet, "/v1/draftInvoices/pdf/9", func(req *http.Request) (*http.Response, error) {
				return draftResponse(req, 200, ct, io.NopCloser(bytes.NewReader(draftPDF))), nil
			})
			rc, err := w.client.DraftInvoices.PDF(context.Background(), 9, nil)
			if err != nil {
				t.Fatalf("PDF: %v", err)
			}
			defer rc.Close()
			got, _ := io.ReadAll(rc)
			if !bytes.Equal(got, draftPDF) {
				t.Errorf("got %d bytes", len(got))
			}
		})
	}
}

func TestDraftInvoicesPDFErrors(t *testing.T) {
	t.Parallel()
	t.Run("200 with an HTML page is an error, not a broken PDF", func(t *testing.T) {
		body := &draftBody{Reader: strings.NewReader("<html><body>Please log in</body></html>")}
		w := newWire(t)
		w.onResponder(http.MethodGet, "/v1/draftInvoices/pdf/9", func(req *http.Request) (*http.Response, error) {
			return draftResponse(req, 200, "text/html; charset=utf-8", body), nil
		})
		rc, err := w.client.DraftInvoices.PDF(context.Background(), 9, nil)
		if err == nil {
			rc.Close()
			t.Fatal("PDF accepted a text/html answer")
		}
		if rc != nil {
			t.Errorf("a stream was returned with the error")
		}
		var de *billing.DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("err = %T %v, want *billing.DecodeError", err, err)
		}
		if de.StatusCode != 200 || de.Method != http.MethodGet || de.Path != "/v1/draftInvoices/pdf/9" {
			t.Errorf("DecodeError = %+v", de)
		}
		if !strings.Contains(err.Error(), "text/html") {
			t.Errorf("Error() = %q, want it to name the content type", err.Error())
		}
		if errors.Is(err, billing.ErrOutcomeUnknown) {
			t.Errorf("a read must not be an unknown outcome")
		}
		if !body.closed.Load() {
			t.Errorf("the rejected body was not closed")
		}
	})

	t.Run("404 unknown draft invoice", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodGet, "/v1/draftInvoices/pdf/404", http.StatusNotFound, errorBody(404, "Api Error", "Draft invoice 404 not found"))
		rc, err := w.client.DraftInvoices.PDF(context.Background(), 404, &billing.DraftPDFParams{ShowTrackedItems: true})
		if rc != nil {
			rc.Close()
			t.Errorf("a stream was returned with the error")
		}
		apiErr := invAPIError(t, err, billing.ErrNotFound)
		if apiErr.StatusCode != 404 || apiErr.ErrorID != 1234 || apiErr.Method != http.MethodGet || apiErr.Path != "/v1/draftInvoices/pdf/404" {
			t.Errorf("APIError = %+v", apiErr)
		}
		if len(apiErr.Errors) != 1 || apiErr.Errors[0].Key != "Api Error" || apiErr.Errors[0].Value != "Draft invoice 404 not found" {
			t.Errorf("Errors = %+v", apiErr.Errors)
		}
		if strings.Contains(err.Error(), "showTrackedItems") {
			t.Errorf("Error() = %q holds the query", err.Error())
		}
	})

	t.Run("429 with Retry-After and retries off", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodGet, "/v1/draftInvoices/pdf/9", http.StatusTooManyRequests,
			errorBody(429, "Api Error", "Too many requests for the draft invoice PDF"), "Retry-After", "30")
		rc, err := w.client.DraftInvoices.PDF(context.Background(), 9, nil)
		if rc != nil {
			rc.Close()
		}
		apiErr := invAPIError(t, err, billing.ErrRateLimited)
		if apiErr.StatusCode != 429 {
			t.Errorf("StatusCode = %d", apiErr.StatusCode)
		}
		if apiErr.RetryAfter != 30*time.Second {
			t.Errorf("RetryAfter = %v, want 30s", apiErr.RetryAfter)
		}
		if errors.Is(err, billing.ErrServer) || errors.Is(err, billing.ErrBadRequest) {
			t.Errorf("a 429 matched another category")
		}
		if n := w.sent(); n != 1 {
			t.Errorf("requests sent: %d, want 1 with retries off", n)
		}
	})

	t.Run("429 from a proxy with an HTML body", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodGet, "/v1/draftInvoices/pdf/9", http.StatusTooManyRequests,
			"<html><body><h1>429 Too Many Requests</h1></body></html>", "Content-Type", "text/html", "Retry-After", "2")
		_, err := w.client.DraftInvoices.PDF(context.Background(), 9, nil)
		apiErr := invAPIError(t, err, billing.ErrRateLimited)
		if len(apiErr.Errors) != 0 || !strings.Contains(apiErr.Body, "429 Too Many Requests") || apiErr.RetryAfter != 2*time.Second {
			t.Errorf("APIError = Errors %+v, Body %q, RetryAfter %v", apiErr.Errors, apiErr.Body, apiErr.RetryAfter)
		}
	})

	t.Run("500 is ErrServer", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodGet, "/v1/draftInvoices/pdf/9", http.StatusInternalServerError, errorBody(500, "Api Error", "PDF rendering failed"))
		_, err := w.client.DraftInvoices.PDF(context.Background(), 9, nil)
		apiErr := invAPIError(t, err, billing.ErrServer)
		if apiErr.Path != "/v1/draftInvoices/pdf/9" || len(apiErr.Errors) != 1 {
			t.Errorf("APIError = %+v", apiErr)
		}
	})

	for _, id := range []int64{0, -9} {
		t.Run("invalid id sends nothing", func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
				w.record(req)
				return httpmock.NewStringResponse(599, ""), nil
			})
			rc, err := w.client.DraftInvoices.PDF(context.Background(), id, nil)
			if rc != nil {
				rc.Close()
				t.Errorf("a stream was returned for id %d", id)
			}
			assertRefused(t, w, err, "Id")
		})
	}
}

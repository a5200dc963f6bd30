package billing

import (
	"context"
	"fmt"
	"io"
	"net/http"

	querystring "github.com/google/go-querystring/query"
)

// DraftInvoicesService reads draft invoices.
type DraftInvoicesService struct{ service }

// DraftPDFParams are the parameters of [DraftInvoicesService.PDF].
type DraftPDFParams struct {
	// ShowTrackedItems includes tracked items scheduled to be purchased on
	// the invoice.
	ShowTrackedItems bool `url:"showTrackedItems,omitempty"`
}

// PDF returns the PDF of a draft invoice, the document that is emailed to
// customers, as a stream: the caller reads it and must close it. Nothing is
// buffered whole. The per-attempt timeout ([WithTimeout]) also bounds
// reading the stream, and the stream fails with [ErrResponseTooLarge]
// past [WithMaxResponseBytes].
//
// It fails with [ErrNotFound] for an unknown draft invoice, and with a
// [*ValidationError] matching [ErrInvalidParams] for an id that is not
// positive, before sending anything. The endpoint is
// throttled by the service; a 429 is retried after the wait the service
// asks for (see [RetryPolicy]). The request accepts application/pdf, and
// application/json for error bodies; an answer with another content type
// (an HTML page from a proxy, say) is an error rather than a broken PDF.
// A read of the stream that fails (an answer cut short, say) names the
// call, as every error of the SDK does, and wraps the cause:
// errors.Is(err, io.ErrUnexpectedEOF) and errors.Is(err,
// ErrResponseTooLarge) see through it.
//
// API: GET /v1/draftInvoices/pdf/{Id}
func (s *DraftInvoicesService) PDF(ctx context.Context, draftInvoiceID int64, params *DraftPDFParams, opts ...RequestOption) (io.ReadCloser, error) {
	id, err := pathID("Id", draftInvoiceID)
	if err != nil {
		return nil, err
	}
	p := orZero(params)
	q, err := querystring.Values(&p)
	if err != nil {
		return nil, err
	}
	cl := &call{
		op:     Operation{Name: "DraftInvoices.PDF", Method: http.MethodGet, PathTemplate: "/v1/draftInvoices/pdf/{Id}"},
		method: http.MethodGet, path: "/v1/draftInvoices/pdf/" + id, query: q, accept: "application/pdf, application/json",
		read: func(resp *http.Response) error {
			return checkContentType(resp, "application/pdf", func(mt string) bool {
				return mt == "application/pdf" || mt == "application/octet-stream"
			})
		},
	}
	resp, err := s.client.do(ctx, cl, opts)
	if err != nil {
		return nil, err
	}
	return &answerStream{ReadCloser: resp.Body, call: cl}, nil
}

// answerStream is an answer handed to the caller as a stream: a read that
// fails says which call it belongs to.
type answerStream struct {
	io.ReadCloser
	call *call
}

func (s *answerStream) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("billing: %s %s: reading the answer: %w", s.call.method, s.call.path, err)
	}
	return n, err
}

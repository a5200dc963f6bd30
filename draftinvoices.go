package billing

import (
	"context"
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
// customers, as a stream: the caller reads it and must close it. Nothing
// is buffered whole, and nothing is changed: the bytes are the server's,
// a UTF-8 byte-order mark included should it send one (the SDK drops one
// only from JSON it decodes). The per-attempt timeout ([WithTimeout])
// also bounds reading the stream, and the stream fails with
// [ErrResponseTooLarge] past [WithMaxResponseBytes].
//
// It fails with [ErrNotFound] for an unknown draft invoice, and with a
// [*ValidationError] matching [ErrInvalidParams] for an id that is not
// positive, before sending anything. The endpoint is
// throttled by the service; a 429 is retried after the wait the service
// asks for (see [RetryPolicy]). The request accepts application/pdf, and
// application/json for error bodies; an answer with another content type
// (an HTML page from a proxy, say) is an error rather than a broken PDF.
// A read of the stream that fails (an answer cut short, the per-attempt
// timeout, a cancelled context) returns a [*DecodeError], as a JSON answer
// that breaks off does: a 2xx answer whose body could not be read, naming
// the call and its status. It wraps the cause, scrubbed of the API key:
// errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, context.Canceled),
// errors.Is(err, context.DeadlineExceeded) and errors.Is(err,
// ErrResponseTooLarge) see through it. Nothing is retried once the stream
// is handed over: the caller may have used the bytes read so far.
//
// API: GET /v1/draftInvoices/pdf/{Id}
func (s *DraftInvoicesService) PDF(ctx context.Context, draftInvoiceID int64, params *DraftPDFParams, opts ...RequestOption) (io.ReadCloser, error) {
	id, err := pathID("Id", draftInvoiceID)
	if err != nil {
		return nil, err
	}
	q, err := querystring.Values(params) // nil params: no query
	if err != nil {
		return nil, err
	}
	cl := &call{
		op:     Operation{Name: "DraftInvoices.PDF", Method: http.MethodGet, PathTemplate: "/v1/draftInvoices/pdf/{Id}"},
		method: http.MethodGet, path: "/v1/draftInvoices/pdf/" + id, query: q, accept: "application/pdf, application/json",
		read: func(resp *http.Response) error {
			// Handed to the caller unread: held to the client's limit as
			// the caller reads it.
			resp.Body = &limitedBody{body: resp.Body, remaining: s.client.cfg.maxResponseBytes}
			return checkContentType(resp, "application/pdf", func(mt string) bool {
				return mt == "application/pdf" || mt == "application/octet-stream"
			})
		},
	}
	resp, err := s.client.do(ctx, cl, opts)
	if err != nil {
		return nil, err
	}
	return &answerStream{ReadCloser: resp.Body, client: s.client, call: cl, status: resp.StatusCode}, nil
}

// answerStream is an answer handed to the caller as a stream: a read that
// fails is the call's *DecodeError, as any 2xx answer that could not be
// read is, so that callers match it like every other failure.
type answerStream struct {
	io.ReadCloser
	client *Client
	call   *call
	status int
}

func (s *answerStream) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = &DecodeError{Method: s.call.method, Path: s.call.path, StatusCode: s.status, Err: s.client.scrubError(s.call, err)}
	}
	return n, err
}

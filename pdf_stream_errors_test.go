package billing_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
)

// A draft PDF whose body fails while the caller reads it is the call's
// *DecodeError, as a JSON answer that breaks off is: the caller matches
// it like every other failure, and errors.Is sees the cause.

// pdfHead is what the server sends of the PDF before it fails.
const pdfHead = "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"

// stallingPDFServer sends pdfHead of a PDF that says it is 4096 bytes
// long (or, chunked, says nothing of its length), then either cuts the
// connection (cut) or sends nothing more until the test ends.
func stallingPDFServer(t *testing.T, cut, chunked bool) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		if !chunked {
			w.Header().Set("Content-Length", "4096")
		}
		_, _ = io.WriteString(w, pdfHead)
		w.(http.Flusher).Flush()
		if cut {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	// Cleanups run last in, first out: the handler is released, then the
	// server closed.
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	return srv
}

func TestDraftPDFStreamFailureIsADecodeError(t *testing.T) {
	t.Parallel()
	// The head is exactly the client's limit: what comes after it decides
	// whether the answer was whole.
	atLimit := billing.WithMaxResponseBytes(int64(len(pdfHead)))
	tests := []struct {
		name    string
		cut     bool
		chunked bool
		opts    []billing.Option
		// cancel, when set, is called once the head has been read.
		cancel bool
		cause  error
	}{
		{name: "connection cut", cut: true, cause: io.ErrUnexpectedEOF},
		{name: "context cancelled", cancel: true, cause: context.Canceled},
		{name: "per-attempt timeout", opts: []billing.Option{billing.WithTimeout(300 * time.Millisecond)}, cause: context.DeadlineExceeded},
		{name: "connection cut at the limit", cut: true, chunked: true, opts: []billing.Option{atLimit}, cause: io.ErrUnexpectedEOF},
		{name: "per-attempt timeout at the limit", chunked: true, opts: []billing.Option{atLimit, billing.WithTimeout(300 * time.Millisecond)}, cause: context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := stallingPDFServer(t, tt.cut, tt.chunked)
			c := newLoopbackClient(t, srv.URL, tt.opts...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rc, err := c.DraftInvoices.PDF(ctx, 9, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			head := make([]byte, len(pdfHead))
			if _, err := io.ReadFull(rc, head); err != nil || string(head) != pdfHead {
				t.Fatalf("head %q, %v", head, err)
			}
			if tt.cancel {
				cancel()
			}
			rest, err := io.ReadAll(rc)
			if len(rest) != 0 {
				t.Errorf("%d bytes after the head, want none", len(rest))
			}
			var de *billing.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("err = %T %v, want a *billing.DecodeError", err, err)
			}
			want := &billing.DecodeError{Method: http.MethodGet, Path: "/v1/draftInvoices/pdf/9", StatusCode: http.StatusOK, Err: de.Err}
			if d := diff(want, de); d != "" {
				t.Errorf("the DecodeError:\n%s", d)
			}
			if !errors.Is(err, tt.cause) {
				t.Errorf("err = %v, want it to match %v", err, tt.cause)
			}
			if errors.Is(err, billing.ErrOutcomeUnknown) {
				t.Errorf("err = %v matches ErrOutcomeUnknown: the PDF is a read", err)
			}
			if !strings.HasPrefix(err.Error(), "billing: GET /v1/draftInvoices/pdf/9: ") {
				t.Errorf("Error() = %q, want it to name the call", err)
			}
			if err := rc.Close(); err != nil {
				t.Errorf("Close after the failure: %v", err)
			}
		})
	}
}

// TestDraftPDFStreamTooLargeIsADecodeError: a PDF longer than the
// client's limit fails as the stream passes it, with the same type.
func TestDraftPDFStreamTooLargeIsADecodeError(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte("%PDF"), 1024) // 4 KiB
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.(http.Flusher).Flush() // chunked: the length is not declared
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	c := newLoopbackClient(t, srv.URL, billing.WithMaxResponseBytes(1024))
	rc, err := c.DraftInvoices.PDF(context.Background(), 9, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	var de *billing.DecodeError
	if !errors.As(err, &de) || !errors.Is(err, billing.ErrResponseTooLarge) || de.StatusCode != http.StatusOK {
		t.Fatalf("err = %v, want a *DecodeError of a 200 matching ErrResponseTooLarge", err)
	}
	if len(got) != 1024 {
		t.Errorf("read %d bytes before the limit, want 1024", len(got))
	}
}

// secretEchoError is a transport's read error that quotes the request's
// Authorization header, as a careless proxy library might.
type secretEchoError struct{ auth string }

func (e *secretEchoError) Error() string { return "stream reset by proxy; request had " + e.auth }

// errStreamReset is what secretEchoError says it is.
var errStreamReset = errors.New("stream reset")

func (e *secretEchoError) Is(target error) bool { return target == errStreamReset }

// TestDraftPDFStreamErrorHoldsNoSecret: a read error whose message holds
// the API key is scrubbed in the DecodeError, and still matches its cause.
func TestDraftPDFStreamErrorHoldsNoSecret(t *testing.T) {
	t.Parallel()
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body := io.MultiReader(strings.NewReader(pdfHead), readerFunc(func([]byte) (int, error) {
			return 0, &secretEchoError{auth: r.Header.Get("Authorization")}
		}))
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/pdf"}},
			Body: io.NopCloser(body), ContentLength: -1, Request: r}, nil
	})}
	c := newLoopbackClient(t, "http://127.0.0.1", billing.WithHTTPClient(hc))
	rc, err := c.DraftInvoices.PDF(context.Background(), 9, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	_, err = io.ReadAll(rc)
	var de *billing.DecodeError
	if !errors.As(err, &de) || !errors.Is(err, errStreamReset) {
		t.Fatalf("err = %v, want a *DecodeError matching its cause", err)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Fatalf("Error() = %q holds the API key", err)
	}
	if !strings.Contains(err.Error(), "stream reset by proxy") {
		t.Errorf("Error() = %q lost the cause's message", err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

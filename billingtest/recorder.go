package billingtest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// chunkingThreshold is how much of an answer net/http's server holds
// before it sends the headers: an answer without Content-Length that the
// handler finishes within it gets one; a longer one, or one flushed
// before the end, goes out chunked.
const chunkingThreshold = 2048

// recorder is the http.ResponseWriter of a request served in process
// (Server.Transport). It keeps what net/http's server would send: the
// header as of WriteHeader, the status, and the body, and takes nothing
// more once the handler has returned, so that the answer owes nothing to
// the handler. A mutex guards it against a handler that hands the writer
// to another goroutine.
type recorder struct {
	mu     sync.Mutex
	method string
	close  bool        // the request asked to close the connection
	header http.Header // the handler's map

	status   int         // 0 until WriteHeader
	sent     http.Header // the header as of WriteHeader
	declared int64       // the Content-Length sent, or -1
	written  int64
	body     bytes.Buffer

	// committed: the headers have gone out (a Flush, more than
	// chunkingThreshold written, or the end); chunked says how.
	committed bool
	chunked   bool

	done     bool // the handler has returned or panicked
	aborted  bool
	panicked any
}

var errWriteAfterHandler = errors.New("billingtest: Write after the handler returned")

func newRecorder(req *http.Request) *recorder {
	return &recorder{method: req.Method, close: req.Close, header: http.Header{}, declared: -1}
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writeHeader(code)
}

func (r *recorder) writeHeader(code int) {
	if r.done || r.status != 0 {
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code)) // as net/http's server
	}
	if code < 200 && code != http.StatusSwitchingProtocols {
		return // informational: the client's transport reads past it
	}
	r.status = code
	r.sent = r.header.Clone()
	if cl := r.sent.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			r.declared = n
		} else {
			r.sent.Del("Content-Length") // net/http's server drops an invalid one
		}
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return 0, errWriteAfterHandler
	}
	if r.status == 0 {
		r.writeHeader(http.StatusOK)
	}
	if !bodyAllowed(r.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if r.declared >= 0 && r.written+int64(len(p)) > r.declared {
		return 0, http.ErrContentLength
	}
	r.written += int64(len(p))
	r.body.Write(p)
	if r.written > chunkingThreshold {
		r.commit(false)
	}
	return len(p), nil
}

// Flush sends the headers, as net/http's server does; the answer is still
// delivered whole, when the handler returns.
func (r *recorder) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	if r.status == 0 {
		r.writeHeader(http.StatusOK)
	}
	r.commit(false)
}

// commit fixes the headers as net/http's server sends them; final says
// the handler has returned.
func (r *recorder) commit(final bool) {
	if r.committed {
		return
	}
	r.committed = true
	h := r.sent
	if r.close {
		h.Set("Connection", "close") // the server closes after answering, and says so
	}
	if _, ok := h["Date"]; !ok {
		h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	_, hasType := h["Content-Type"]
	hasTE := h.Get("Transfer-Encoding") != ""
	if !hasType && !hasTE && bodyAllowed(r.status) && r.body.Len() > 0 {
		h.Set("Content-Type", http.DetectContentType(r.body.Bytes()))
	}
	switch {
	case !bodyAllowed(r.status) || r.status == http.StatusNoContent:
		h.Del("Transfer-Encoding")
	case r.declared >= 0:
	case final && !hasTE && (r.method != http.MethodHead || r.written > 0):
		r.declared = r.written
		h.Set("Content-Length", strconv.FormatInt(r.written, 10))
	case r.method != http.MethodHead:
		r.chunked = true
	}
}

// finish is called when the handler returns.
func (r *recorder) finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == 0 {
		r.writeHeader(http.StatusOK)
	}
	r.commit(true)
	r.done = true
}

// abort is called when the handler panics: what was not sent is lost.
func (r *recorder) abort(v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done, r.aborted, r.panicked = true, true, v
}

// response is the answer as net/http's client reads it off the wire, or
// the error of a connection closed before the headers came.
func (r *recorder) response(ctx context.Context, req *http.Request, askedGzip bool) (*http.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.aborted && !r.committed {
		return nil, &droppedError{panicked: r.panicked}
	}
	h := canonicalHeader(r.sent)
	h.Del("Transfer-Encoding") // the client moves it to TransferEncoding
	closing := headerHasToken(h, "Connection", "close")
	if closing {
		h.Del("Connection") // the client reads it into Close and drops it
	}
	status := strconv.Itoa(r.status) + " " + http.StatusText(r.status)
	if http.StatusText(r.status) == "" {
		status = fmt.Sprintf("%03d status code %d", r.status, r.status)
	}
	resp := &http.Response{
		Status: status, StatusCode: r.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  h,
		Close:   closing,
		Request: req,
		Body:    http.NoBody,
	}
	if !bodyAllowed(r.status) {
		return resp, nil
	}
	resp.ContentLength = r.declared
	if r.chunked {
		resp.ContentLength = -1
		resp.TransferEncoding = []string{"chunked"}
	}
	if req.Method == http.MethodHead {
		return resp, nil
	}
	// A connection closed before the last byte: the body ends early.
	tail := io.EOF
	if (r.aborted && r.chunked) || (r.declared >= 0 && r.written < r.declared) {
		tail = io.ErrUnexpectedEOF
	}
	if resp.ContentLength == 0 && tail == io.EOF {
		return resp, nil
	}
	body := &answerBody{ctx: ctx, r: bytes.NewReader(r.body.Bytes()), tail: tail}
	resp.Body = body
	if askedGzip && strings.EqualFold(h.Get("Content-Encoding"), "gzip") {
		// http.Transport asked for gzip on the caller's behalf, so it
		// decodes the answer and says so.
		h.Del("Content-Encoding")
		h.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
		resp.Body = &gzipBody{body: body}
	}
	return resp, nil
}

// bodyAllowed reports whether an answer of status may have a body.
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for f := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), token) {
				return true
			}
		}
	}
	return false
}

var errReadOnClosedBody = errors.New("http: read on closed response body")

// answerBody is the body of an answer served in process: the bytes the
// handler sent, then tail (io.EOF, or io.ErrUnexpectedEOF for a cut
// answer). Like a body read from a connection, it fails once the
// request's context has ended.
type answerBody struct {
	ctx    context.Context
	r      *bytes.Reader
	tail   error
	closed atomic.Bool
}

func (b *answerBody) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, errReadOnClosedBody
	}
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := b.r.Read(p)
	if err == io.EOF {
		err = b.tail
	}
	return n, err
}

func (b *answerBody) Close() error {
	b.closed.Store(true)
	return nil
}

// gzipBody decodes a gzip answer on the first read, as net/http's
// client does.
type gzipBody struct {
	body io.ReadCloser
	zr   *gzip.Reader
	err  error
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		if g.zr, g.err = gzip.NewReader(g.body); g.err != nil {
			return 0, g.err
		}
	}
	return g.zr.Read(p)
}

func (g *gzipBody) Close() error { return g.body.Close() }

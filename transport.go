package billing

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/billingapi/billing-go/internal/pager"
	"github.com/billingapi/billing-go/internal/throttle"
	"github.com/hashicorp/go-retryablehttp"
)

const (
	// maxErrorBody is how much of an error answer is read: enough for any
	// real error envelope, not enough for a hostile server to exhaust memory.
	maxErrorBody = 1 << 20
	// maxErrorExcerpt is how much of a body that is not the error envelope
	// is kept in APIError.Body (whose doc gives the number).
	maxErrorExcerpt = 512
	// drainLimit is how much of an unread body is discarded so that the
	// connection can be reused; beyond it the connection is closed.
	drainLimit = 64 << 10
)

// call is one API operation in flight, across all its attempts.
type call struct {
	method string
	path   string // escaped path below the base URL, e.g. /v1/Invoices/42
	query  url.Values
	body   any  // encoded with jsonwire: decimals as JSON numbers
	write  bool // not safe to repeat once it may have reached the server
	accept string
	// secrets are scrubbed from anything the server says back, in case it
	// echoes a card number in an error message.
	secrets callSecrets
	// read checks and consumes a 2xx answer, inside the retry loop, so
	// that an answer cut off in transit is retried within the call's one
	// budget of attempts. A read that leaves the body open hands it to the
	// caller (the PDF); on error the body is closed for it.
	read func(*http.Response) error
	// out, for a call without read, is where a 2xx JSON answer is decoded
	// (decodeJSON), inside the retry loop.
	out any
	// answer, when set, checks a decoded out, inside the retry loop, so
	// that an answer that is not what was asked for is a final
	// *DecodeError.
	answer func() error

	// op names the call for observers: the log line, [Attempt] and
	// [OperationFromRequest].
	op Operation

	// claim, for a page of an iteration's pipeline, is the gate each
	// attempt passes (internal/pager): requests on the wire for the whole
	// pipeline.
	claim *pager.Claim
	// held is set when the attempt about to go out did not get past the
	// client's pause: a *ThrottledError when the pause would have ended
	// past the call's deadline, the context's error when the context
	// ended during the wait. The attempt is not sent (heldTransport) and
	// the call ends with it.
	held error

	policy  RetryPolicy
	capture *Response
	attempt attempt
}

// do performs the call: one go-retryablehttp loop, steered by the SDK's
// retry rule (shouldRetry), in which cl.read consumes each 2xx answer, or
// decodeJSON decodes it into cl.out. It returns the 2xx answer or a typed error: *ValidationError for bad
// options, *APIError for a non-2xx answer, *DecodeError for a 2xx answer
// that could not be read, *RequestError when no answer came.
func (c *Client) do(ctx context.Context, cl *call, opts []RequestOption) (*http.Response, error) {
	if ctx == nil {
		return nil, invalid("ctx", "nil context.Context")
	}
	var rc requestConfig
	if len(opts) > 0 {
		var err error
		if rc, err = applyRequestOptions(opts); err != nil {
			return nil, &ValidationError{Field: "RequestOption", Reason: err.Error()}
		}
	}
	cl.policy = c.cfg.retry
	if rc.retry != nil {
		var err error
		if cl.policy, err = rc.retry.resolve(c.cfg.retry); err != nil {
			return nil, &ValidationError{Field: "RequestOption", Reason: "WithRetries: " + err.Error()}
		}
	}
	if cl.claim == nil {
		// A pipeline's requests run at once: the iterator captures the
		// answer of each page as it yields it instead.
		cl.capture = rc.capture
	}
	req, err := c.newRequest(ctx, cl, rc.header)
	if err != nil {
		return nil, err
	}
	resp, err := c.retryClient(cl).Do(req)
	if err != nil {
		return nil, c.callError(cl, err)
	}
	return resp, nil
}

// doInto performs cl, decoding its 2xx answer into a new T that it returns.
// check, when not nil, is cl's answer check (see call.answer), run on the
// decoded value. It is the one place the resource calls that return what
// the service answered do so, so that each states only its request.
func doInto[T any](ctx context.Context, c *Client, cl *call, opts []RequestOption, check func(*T) error) (*T, error) {
	out := new(T)
	cl.out = out
	if check != nil {
		cl.answer = func() error { return check(out) }
	}
	if _, err := c.do(ctx, cl, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// newRequest builds the request of every attempt, with the headers the
// client manages set last so that no request option can replace them.
func (c *Client) newRequest(ctx context.Context, cl *call, extra http.Header) (*retryablehttp.Request, error) {
	var body any
	if cl.body != nil {
		b, err := jsonwire.Marshal(cl.body)
		if err != nil {
			return nil, fmt.Errorf("billing: %s %s: encoding request body: %w: %w", cl.method, cl.path, ErrInvalidParams, err)
		}
		body = b
	}
	// WroteHeaders tells a write that may have reached the server from one
	// that surely did not.
	trace := &httptrace.ClientTrace{
		GetConn:      func(string) { cl.attempt.dialled.Store(true) },
		WroteHeaders: func() { cl.attempt.wroteHeaders.Store(true) },
	}
	// The operation, for observers (OperationFromRequest); never read back.
	ctx = context.WithValue(httptrace.WithClientTrace(ctx, trace), operationKey{}, cl.op)
	// The base URL, the already escaped path and the query.
	u := c.cfg.baseURL.String() + cl.path
	if len(cl.query) > 0 {
		u += "?" + cl.query.Encode()
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, cl.method, u, body)
	if err != nil {
		return nil, fmt.Errorf("billing: %s %s: %w: %w", cl.method, cl.path, ErrInvalidParams, err)
	}
	for k, vs := range extra {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Authorization", *c.cfg.authorization)
	req.Header.Set("Accept", cmp.Or(cl.accept, "application/json"))
	req.Header.Set("User-Agent", c.cfg.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.SetResponseHandler(c.handleResponse(cl))
	return req, nil
}

// retryClient wires the call's retry rule into go-retryablehttp. A client
// per call is a few words of memory and lets the hooks see the call; its
// http.Client is made now from the caller's as it is (httpClient).
// Writes go through a client that never follows a redirect: net/http would
// send the body again, underneath any retry rule.
//
// Before each attempt, after a pipeline's slot (a single call has no
// claim), the attempt waits for the client's pause (see pauseFor); one
// the pause refuses is not sent.
func (c *Client) retryClient(cl *call) *retryablehttp.Client {
	hc := c.cfg.httpClient(cl.write)
	hc.Transport = heldTransport{next: hc.Transport, call: cl}
	return &retryablehttp.Client{
		HTTPClient:   hc,
		Logger:       nil, // the SDK logs through slog, once per attempt
		RetryMax:     cl.policy.MaxRetries,
		RetryWaitMin: cl.policy.MinBackoff,
		RetryWaitMax: cl.policy.MaxBackoff,
		RequestLogHook: func(_ retryablehttp.Logger, req *http.Request, retry int) {
			if cl.claim != nil {
				cl.claim.Acquire(req.Context()) // a pipeline's bound on requests on the wire
			}
			// Then the client's pause, once it has ever been closed: after
			// the slot, so that an attempt that waited for its slot through
			// a pause does not go out inside it.
			if c.cfg.paused.Load() {
				if err := c.cfg.pause.Wait(req.Context(), cl.policy.MaxRetryAfter); err != nil {
					var pastDeadline *throttle.PastDeadlineError
					if errors.As(err, &pastDeadline) {
						err = &ThrottledError{RetryAfter: pastDeadline.Wait}
					}
					cl.held = err
					return // not an attempt: nothing will be sent
				}
			}
			// The attempt starts: its number, its clock, and nothing yet
			// sent or answered.
			a := &cl.attempt
			a.number, a.started, a.handled = retry+1, time.Now(), false
			a.wroteHeaders.Store(false)
			a.dialled.Store(false)
		},
		CheckRetry: c.checkRetry(cl),
		Backoff: func(_, _ time.Duration, retry int, resp *http.Response) time.Duration {
			return cl.waitBefore(retry, resp, c.cfg.now())
		},
		ErrorHandler: func(resp *http.Response, err error, _ int) (*http.Response, error) {
			if err == nil && resp != nil {
				// Retries are spent on a 429 or 5xx: the caller gets its
				// APIError, with status and body, not "giving up".
				defer resp.Body.Close()
				return nil, c.apiError(cl, resp)
			}
			if resp != nil {
				drainAndClose(resp.Body)
			}
			return nil, err
		},
	}
}

// checkRetry is go-retryablehttp's CheckRetry. The library calls it after
// each attempt, and once more after the response handler has read an
// answer that was not retried; the attempt is logged once, when decided.
func (c *Client) checkRetry(cl *call) retryablehttp.CheckRetry {
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if cl.held != nil {
			// Held back by the client's pause, not sent: there is no
			// attempt to decide on, log or observe (callError says why).
			return false, nil
		}
		if resp != nil {
			if !cl.attempt.handled {
				// The answer's headers are the call's own from here on: a
				// transport may hand one map to every call (httpmock's
				// responders do), and the SDK files and scrubs them in
				// place, while other goroutines read theirs.
				resp.Header = resp.Header.Clone()
			}
			// Before anything reads a header by name (see
			// canonicalizeHeader); doing it again changes nothing.
			canonicalizeHeader(resp.Header)
			if !cl.attempt.handled { // once per answer: the first time it is seen
				c.pauseFor(cl, resp)
			}
		}
		now := c.cfg.now()
		retry := cl.shouldRetry(ctx, resp, err, now) && cl.attempt.number <= cl.policy.MaxRetries
		if !retry && err == nil && !cl.attempt.handled {
			return false, nil // the response handler reads the answer next
		}
		if resp != nil && cl.capture != nil {
			*cl.capture = c.response(cl, resp)
		}
		// The attempt's record is built only for someone who takes it:
		// an observer, or a logger enabled at the line's level (a
		// failure, or an answer of 400 or more, is a warning).
		level := slog.LevelDebug
		if err != nil || resp != nil && resp.StatusCode >= 400 {
			level = slog.LevelWarn
		}
		if len(c.cfg.observers) > 0 || c.cfg.logger.Enabled(ctx, level) {
			c.endAttempt(ctx, cl, resp, err, retry, level)
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return false, ctxErr
		}
		return retry, nil
	}
}

// handleResponse is the response handler of every attempt that is not
// retried on its status: a non-2xx answer becomes its *APIError, and a 2xx
// answer is read, within the limit of the client, by cl.read, or decoded
// into cl.out and checked by cl.answer. A body handed to the caller
// unread (no read, no out) is held to the limit as it is read.
func (c *Client) handleResponse(cl *call) retryablehttp.ResponseHandlerFunc {
	return func(resp *http.Response) error {
		cl.attempt.handled = true
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			defer resp.Body.Close() // not drained: apiError read all it will
			return c.apiError(cl, resp)
		}
		limit := c.cfg.maxResponseBytes
		if resp.ContentLength > limit {
			// Refused before reading: the answer says it is too long.
			drainAndClose(resp.Body)
			return c.decodeError(cl, resp, ErrResponseTooLarge)
		}
		var err error
		switch {
		case cl.read != nil:
			err = cl.read(resp)
		case cl.out != nil:
			if err = c.decodeJSON(cl, resp, cl.out); err == nil && cl.answer != nil {
				err = cl.answer()
			}
		default:
			resp.Body = &limitedBody{body: resp.Body, remaining: limit}
		}
		if err != nil {
			drainAndClose(resp.Body)
			return c.decodeError(cl, resp, err)
		}
		return nil
	}
}

// response is the Response of an answer as the caller gets it
// (CaptureResponse, Client.Do, Page.Response), its headers scrubbed
// (scrubHeader).
func (c *Client) response(cl *call, resp *http.Response) Response {
	return Response{StatusCode: resp.StatusCode, Header: c.scrubHeader(cl, resp.Header), RateLimit: parseRateLimit(resp.Header, c.cfg.now())}
}

// scrubHeader scrubs an answer's headers of the call's secrets, in place,
// where the SDK hands them to the caller: APIError.Header, the Response
// of CaptureResponse and of Client.Do, and Page.Response. A proxy or a
// broken server may echo them (Authorization, the card number in any
// grouping, the CVV). Answers the SDK only reads are not scrubbed: their
// headers go nowhere the caller can see, and an error that quotes one is
// scrubbed as every error is (scrubError). Doing it again changes
// nothing. It returns h.
//
// The headers the SDK reads as numbers (numericHeader) keep a number
// equal to the CVV: it is the server's count or wait, which a three- or
// four-digit CVV matches by chance, and scrubbing it would lose a
// Retry-After or a rate limit. The key and the card number, which no such
// header can hold by chance, are scrubbed from every header.
func (c *Client) scrubHeader(cl *call, h http.Header) http.Header {
	for name, vs := range h {
		for i, v := range vs {
			if numericHeader(name) {
				vs[i] = cl.secrets.scrubCard(c.scrubKey(v))
			} else {
				vs[i] = c.scrub(cl, v)
			}
		}
	}
	return h
}

// numericHeader reports the headers whose value the SDK reads as a number:
// Retry-After, the rate limits and the paging headers.
func numericHeader(canonical string) bool {
	switch canonical {
	case "Retry-After", "X-Count", "X-Maxcount", "X-Currentpage", "X-Nextpage", "X-Previouspage", "X-Pagesize", "X-Maxpageindex":
		return true
	}
	return strings.HasPrefix(canonical, "X-Rate-Limit-")
}

// canonicalizeHeader files the names of h under Go's canonical form, as
// net/http's client does when it reads an answer off the wire. An
// in-process transport may hand over a handler's header map as the
// handler wrote it (httptest.ResponseRecorder does, and the fake writes
// X-CurrentPage as the reference spells it), and Header.Get would then
// miss it. Names that fold together keep their values in the order of
// the names as written, sorted, so that the result never depends on map
// order.
func canonicalizeHeader(h http.Header) {
	var odd []string
	for k := range h {
		if http.CanonicalHeaderKey(k) != k {
			odd = append(odd, k)
		}
	}
	slices.Sort(odd)
	for _, k := range odd {
		ck := http.CanonicalHeaderKey(k)
		h[ck] = append(h[ck], h[k]...)
		delete(h, k)
	}
}

// callError types an error that go-retryablehttp handed back: an answer's
// error is already typed; anything else means no answer came.
func (c *Client) callError(cl *call, err error) error {
	var apiErr *APIError
	var decodeErr *DecodeError
	if errors.As(err, &apiErr) || errors.As(err, &decodeErr) {
		return err
	}
	if cl.held != nil {
		// Nothing of the held attempt was sent, and the attempt before it,
		// if any, was retried: surely not applied, even for a write.
		return &RequestError{Method: cl.method, Path: cl.path, Attempts: cl.attempt.number, Err: cl.held}
	}
	return &RequestError{
		Method: cl.method, Path: cl.path, Attempts: cl.attempt.number,
		OutcomeUnknown: cl.write && cl.attempt.reachedServer(), Err: c.scrubError(cl, err),
	}
}

// limitedBody fails a read past the client's limit instead of silently
// stopping, so that a cut-off answer is never taken for a whole one.
type limitedBody struct {
	body      io.ReadCloser
	remaining int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.remaining <= 0 {
		// One more byte tells an answer of exactly the limit from a longer
		// one, and a failed read from its end: an answer cut or stalled
		// right at the limit is not a whole one.
		var probe [1]byte
		n, err := l.body.Read(probe[:])
		if n > 0 {
			return 0, ErrResponseTooLarge
		}
		return 0, err // io.EOF: the whole answer; nil: probe again next time
	}
	if int64(len(p)) > l.remaining {
		p = p[:l.remaining]
	}
	n, err := l.body.Read(p)
	l.remaining -= int64(n)
	return n, err
}

func (l *limitedBody) Close() error { return l.body.Close() }

// readAll reads a whole body whose size is at most limit, into buf when it
// has room (a recycled buffer; nil for none). Its buffer starts at the
// declared length when there is one and otherwise doubles, never past
// limit, so that reading costs at most 1.5 times the limit at its peak
// (the last buffer and the one before), where io.ReadAll's growth would
// cost up to 2.5 times.
func readAll(buf []byte, r io.Reader, declared, limit int64) ([]byte, error) {
	size := int64(4 << 10)
	if declared >= 0 {
		size = declared + 1 // one byte more: EOF arrives without a growth
	}
	if size = min(size, limit); int64(cap(buf)) < size || int64(cap(buf)) > limit {
		buf = make([]byte, 0, size)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if int64(cap(buf)) >= limit {
				// Full at the limit: only EOF may follow, and it needs no
				// room; a byte more is an answer past the limit.
				var probe [1]byte
				n, err := r.Read(probe[:])
				if n > 0 || err == nil {
					return nil, ErrResponseTooLarge
				}
				if err != io.EOF {
					return nil, err
				}
				return buf, nil
			}
			grown := make([]byte, len(buf), min(2*int64(cap(buf)), limit))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// checkContentType refuses a 2xx answer that says it is something other
// than what the call expects (an HTML page from a proxy or a captive
// portal, say): reading it would fail with a less useful message, or
// worse, succeed. An answer without a content type is let through.
func checkContentType(resp *http.Response, want string, accepts func(mediaType string) bool) error {
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return &contentTypeError{want: want, got: ct}
	}
	if !accepts(mt) {
		return &contentTypeError{want: want, got: mt}
	}
	return nil
}

type contentTypeError struct{ want, got string }

func (e *contentTypeError) Error() string {
	return "expected " + e.want + ", got content type " + quoteForError(e.got)
}

// logAttempt writes the attempt's log line at level, from the Attempt
// that observers get (endAttempt); err is the attempt's failure as
// go-retryablehttp saw it, logged as before observers existed.
func (c *Client) logAttempt(ctx context.Context, cl *call, a Attempt, err error, level slog.Level) {
	attrs := []slog.Attr{
		slog.String("operation", a.Operation.Name),
		slog.String("method", cl.method),
		slog.String("path", cl.path),
		slog.Int("attempt", a.Number),
		slog.Duration("duration", a.Duration),
	}
	if a.StatusCode != 0 {
		attrs = append(attrs, slog.Int("status", a.StatusCode))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", c.scrub(cl, innermostMessage(err))))
	}
	if a.Retry {
		attrs = append(attrs, slog.Bool("retry", true))
	}
	c.cfg.logger.LogAttrs(ctx, level, "billing request", attrs...)
}

// apiErrorHead is the *APIError of a non-2xx answer from its status and
// headers alone, without its body.
func (c *Client) apiErrorHead(cl *call, resp *http.Response) *APIError {
	now := c.cfg.now()
	return &APIError{
		StatusCode:     resp.StatusCode,
		Method:         cl.method,
		Path:           cl.path,
		RetryAfter:     requestedWait(resp, now),
		RateLimit:      parseRateLimit(resp.Header, now),
		Header:         c.scrubHeader(cl, resp.Header),
		OutcomeUnknown: cl.write && (resp.StatusCode < 400 || resp.StatusCode > 499),
	}
}

// apiError turns a non-2xx answer into an *APIError, reading at most
// maxErrorBody bytes of it. A write's answer proves that nothing was done
// only when it is a 4xx: a 5xx often comes from a gateway that gave up
// while the service went on working, and a redirect is never followed by
// a write, so after either the write may have been applied.
func (c *Client) apiError(cl *call, resp *http.Response) *APIError {
	e := c.apiErrorHead(cl, resp)
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	body = withoutBOM(body) // the envelope's, or the excerpt's: a mark is not content
	var envelope struct {
		ErrorID        int64         `json:"ErrorId"`
		HTTPStatusCode int           `json:"HttpStatusCode"`
		Errors         []ErrorDetail `json:"Errors"`
	}
	if err := jsonwire.Unmarshal(body, &envelope); err == nil && (envelope.ErrorID != 0 || envelope.HTTPStatusCode != 0 || len(envelope.Errors) > 0) {
		e.ErrorID = envelope.ErrorID
		e.Errors = envelope.Errors
		for i := range e.Errors {
			e.Errors[i].Key = c.scrub(cl, e.Errors[i].Key)
			e.Errors[i].Value = c.scrub(cl, e.Errors[i].Value)
		}
	} else {
		// Scrub before cutting: a secret cut in half by the excerpt would
		// no longer match.
		e.Body = excerpt([]byte(c.scrub(cl, string(body))), maxErrorExcerpt)
	}
	return e
}

// decodeError describes a 2xx answer that could not be read, scrubbed of
// any secret the answer echoed (decoders quote the values they reject).
func (c *Client) decodeError(cl *call, resp *http.Response, err error) *DecodeError {
	return &DecodeError{Method: cl.method, Path: cl.path, StatusCode: resp.StatusCode, Applied: cl.write, Err: c.scrubError(cl, err)}
}

// scrubError returns err, or when its message holds a secret (a server can
// echo anything into a field it gets wrong, or into a malformed status
// line), an error with the secret removed. That error keeps errors.Is
// working but does not unwrap: the original would still print it. Its
// message is the innermost one (innermostMessage), so that, not
// unwrapping, it does not bring back the URL and its query string that
// RequestError leaves out.
func (c *Client) scrubError(cl *call, err error) error {
	msg := err.Error()
	if clean := c.scrub(cl, msg); clean != msg {
		return &scrubbedError{msg: c.scrub(cl, innermostMessage(err)), orig: err}
	}
	return err
}

type scrubbedError struct {
	msg  string
	orig error
}

func (e *scrubbedError) Error() string        { return e.msg }
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.orig, target) }

// scrub removes secrets the server may have echoed back: the API key as
// sent, and the call's card number and CVV (see callSecrets).
func (c *Client) scrub(cl *call, s string) string {
	return cl.secrets.scrub(c.scrubKey(s))
}

// scrubKey removes the API key from s, wherever it appears, as sent or
// escaped (see indexEscaped).
func (c *Client) scrubKey(s string) string {
	if key := c.apiKey(); key != "" && (strings.Contains(s, key) || mayHoldEscapes(s)) {
		s = replaceEscaped(s, key, redacted)
	}
	return s
}

// apiKey is the key as the Authorization header sends it.
func (c *Client) apiKey() string {
	return strings.TrimPrefix(*c.cfg.authorization, "Basic ")
}

// scrubEchoes scrubs a decoded 2xx answer, out, of the secrets a server
// may have echoed into body, as errors are scrubbed (see scrubDecoded):
// the API key, as sent or with the bytes that are not letters or digits
// escaped (as JSON encoders, percent-encoding and HTML escape them), and
// the call's card number in any grouping and CVV where it stands as a
// whole number, from every string, member name and unmodelled member
// (Extra). A modelled number keeps its value even where it equals the
// CVV: it is the server's id or count, matching by chance.
//
// Its callers (decodeJSON, listPage) call it only when the call sent a
// card or body holds the key's longest run of letters and digits
// (clientConfig.keyRun), which no encoder escapes: that one search is
// all that an answer without a secret, the common case, costs, and it is
// written out at each of them to keep a function off every call's path.
func (c *Client) scrubEchoes(cl *call, body []byte, out any) {
	if indexEscapedStart(body, c.apiKey()) < 0 && cl.secrets.card == nil && cl.secrets.cvv == "" {
		return
	}
	scrubDecoded(reflect.ValueOf(out), func(s string) string { return c.scrub(cl, s) })
}

// excerpt returns at most n bytes of b as valid UTF-8, with white space
// runs folded so that an HTML page reads as one line.
func excerpt(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
}

// decodeJSON reads a whole 2xx answer, within the client's limit and
// without a leading byte-order mark (readJSONAnswer), and decodes it into
// out. Reading first keeps the memory of a single resource bounded by the
// limit, whatever the decoder buffers. A body read to its end is closed
// here; on an error the caller drains and closes it (handleResponse).
func (c *Client) decodeJSON(cl *call, resp *http.Response, out any) error {
	_, text, err := readJSONAnswer(resp, nil, c.cfg.maxResponseBytes)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if err := decodeValue(bytes.NewBuffer(text), out); err != nil { // a Buffer: the decoder reads it in place
		return err
	}
	if bytes.Contains(text, []byte(*c.cfg.keyRun)) || cl.secrets.card != nil || cl.secrets.cvv != "" {
		c.scrubEchoes(cl, text, out)
	}
	return nil
}

// sameResource checks that an answer names the resource that was asked
// for by id: a misrouting proxy, a shared cache or a broken server can
// answer with another, and a caller taking it for the one it asked for
// would act on the wrong record.
func sameResource(kind string, asked, got int64) error {
	if got != asked {
		return fmt.Errorf("%w: asked for %s %d, got %s %d", ErrWrongResource, kind, asked, kind, got)
	}
	return nil
}

// brokenBody reports a body that stopped arriving, as opposed to one that
// arrived whole and is wrong (a syntax error, a limit exceeded).
func brokenBody(err error) bool {
	if errors.Is(err, ErrResponseTooLarge) {
		return false
	}
	var netErr net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.As(err, &netErr)
}

func drainAndClose(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainLimit))
	_ = body.Close()
}

// innermostMessage drops the URL (and so the query string) that *url.Error
// puts in its message.
func innermostMessage(err error) string {
	var uerr *url.Error
	if errors.As(err, &uerr) && uerr.Err != nil {
		return uerr.Err.Error()
	}
	return err.Error()
}

// DecodeError is a 2xx answer whose body could not be read or decoded, or
// that is not what was asked for (for another resource: it wraps
// [ErrWrongResource]). A draft PDF whose stream fails while the caller
// reads it is one too (see [DraftInvoicesService.PDF]). For a write, the
// change was applied but its result is unknown, and the error matches
// [ErrOutcomeUnknown].
type DecodeError struct {
	// Method and Path are those of the request; Path has no query string.
	Method, Path string
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Applied is true when the call was a write that the server accepted.
	Applied bool
	// Err is the underlying read or decode error.
	Err error
}

// Error describes the failure.
func (e *DecodeError) Error() string {
	msg := fmt.Sprintf("billing: %s %s: decoding %d answer: %v", e.Method, e.Path, e.StatusCode, e.Err)
	if e.Applied {
		msg += "; the change was applied but its result was not received"
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// Is makes the DecodeError of an applied write match [ErrOutcomeUnknown].
func (e *DecodeError) Is(target error) bool { return target == ErrOutcomeUnknown && e.Applied }

func truncateForError(s string) string {
	const n = 64
	if len(s) > n {
		return excerpt([]byte(s), n) + "…"
	}
	return s
}

func quoteForError(s string) string { return fmt.Sprintf("%q", s) }

package billing

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/hashicorp/go-retryablehttp"
)

const (
	// maxErrorBody is how much of an error answer is read: enough for any
	// real error envelope, not enough for a hostile server to exhaust memory.
	maxErrorBody = 1 << 20
	// maxErrorExcerpt is how much of a body that is not the error envelope
	// is kept in APIError.Body.
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
	secrets []string

	policy         RetryPolicy
	attempt        attempt
	outcomeUnknown bool
}

// send performs the call with retries and returns a 2xx answer whose body
// the caller must close, or an error: *ValidationError for bad options,
// *APIError for a non-2xx answer, *RequestError when no answer came.
func (c *Client) send(ctx context.Context, cl *call, opts []RequestOption) (*http.Response, error) {
	if ctx == nil {
		return nil, invalid("ctx", "nil context.Context")
	}
	rc, err := applyRequestOptions(opts)
	if err != nil {
		return nil, &ValidationError{Field: "RequestOption", Reason: err.Error()}
	}
	cl.policy = c.cfg.retry
	if rc.retry != nil {
		cl.policy = *rc.retry
	}
	if cl.accept == "" {
		cl.accept = "application/json"
	}

	var rawBody any
	if cl.body != nil {
		b, err := jsonwire.Marshal(cl.body)
		if err != nil {
			return nil, fmt.Errorf("billing: %s %s: encoding request body: %w", cl.method, cl.path, err)
		}
		rawBody = b
	}
	trace := &httptrace.ClientTrace{WroteHeaders: func() { cl.attempt.wroteHeaders.Store(true) }}
	req, err := retryablehttp.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), cl.method, c.endpoint(cl.path, cl.query), rawBody)
	if err != nil {
		return nil, fmt.Errorf("billing: %s %s: %w", cl.method, cl.path, err)
	}
	for k, vs := range rc.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Authorization", c.cfg.authorization())
	req.Header.Set("Accept", cl.accept)
	req.Header.Set("User-Agent", c.cfg.userAgent)
	if rawBody != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	resp, err := c.retryClient(cl).Do(req)
	if err != nil {
		return nil, &RequestError{
			Method: cl.method, Path: cl.path, Attempts: cl.attempt.number,
			OutcomeUnknown: cl.outcomeUnknown, Err: c.scrubError(cl, err),
		}
	}
	now := c.cfg.now()
	if rc.capture != nil && !captureSuppressed(ctx) {
		*rc.capture = Response{StatusCode: resp.StatusCode, Header: resp.Header, RateLimit: parseRateLimit(resp.Header, now)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, c.apiError(cl, resp, now)
	}
	resp.Body = &limitedBody{body: resp.Body, remaining: c.cfg.maxResponseBytes}
	return resp, nil
}

// limitedBody fails a read past the client's limit instead of silently
// stopping, so that a cut-off answer is never taken for a whole one.
type limitedBody struct {
	body      io.ReadCloser
	remaining int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.remaining <= 0 {
		// One more byte tells an answer of exactly the limit from a longer one.
		var probe [1]byte
		if n, _ := l.body.Read(probe[:]); n > 0 {
			return 0, ErrResponseTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.remaining {
		p = p[:l.remaining]
	}
	n, err := l.body.Read(p)
	l.remaining -= int64(n)
	return n, err
}

func (l *limitedBody) Close() error { return l.body.Close() }

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

// checkJSONContentType is checkContentType for the JSON endpoints.
func checkJSONContentType(resp *http.Response) error {
	return checkContentType(resp, "application/json", func(mt string) bool {
		return mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json")
	})
}

type contentTypeError struct{ want, got string }

func (e *contentTypeError) Error() string {
	return "expected " + e.want + ", got content type " + quoteForError(e.got)
}

// retryClient wires the call's own retry rules into go-retryablehttp. A
// client per call is a few words of memory and lets the hooks know whether
// the call is a read or a write without going through the context.
func (c *Client) retryClient(cl *call) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:   c.cfg.httpClient,
		Logger:       nil, // the SDK logs through slog, once per attempt
		RetryMax:     cl.policy.MaxRetries,
		RetryWaitMin: cl.policy.MinBackoff,
		RetryWaitMax: cl.policy.MaxBackoff,
		RequestLogHook: func(_ retryablehttp.Logger, req *http.Request, retry int) {
			if p := pacerFrom(req.Context()); p != nil {
				p.wait(req.Context()) // a 429 elsewhere in the pipeline holds this attempt back
			}
			cl.attempt.number = retry + 1
			cl.attempt.start = time.Now()
			cl.attempt.wroteHeaders.Store(false)
		},
		CheckRetry: func(ctx context.Context, resp *http.Response, err error) (bool, error) {
			cl.outcomeUnknown = cl.write && err != nil && cl.attempt.wroteHeaders.Load()
			retry := cl.retryDecision(ctx, resp, err, c.cfg.now()) && cl.attempt.number <= cl.policy.MaxRetries
			c.logAttempt(ctx, cl, resp, err, retry)
			if ctxErr := ctx.Err(); ctxErr != nil {
				return false, ctxErr
			}
			return retry, nil
		},
		Backoff: func(_, _ time.Duration, retry int, resp *http.Response) time.Duration {
			wait := cl.waitBefore(retry, resp, c.cfg.now())
			if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
				if p := pacerFrom(resp.Request.Context()); p != nil {
					p.pauseFor(wait) // throttling slows the whole pipeline, not one worker
				}
			}
			return wait
		},
		ErrorHandler: func(resp *http.Response, err error, _ int) (*http.Response, error) {
			// Retries are spent: hand back the last answer so the caller
			// gets an APIError with its status and body, not "giving up".
			if err == nil && resp != nil {
				return resp, nil
			}
			if resp != nil {
				drainAndClose(resp.Body)
			}
			return nil, err
		},
	}
}

func (c *Client) logAttempt(ctx context.Context, cl *call, resp *http.Response, err error, retry bool) {
	level := slog.LevelDebug
	attrs := []slog.Attr{
		slog.String("method", cl.method),
		slog.String("path", cl.path),
		slog.Int("attempt", cl.attempt.number),
		slog.Duration("duration", time.Since(cl.attempt.start)),
	}
	if err != nil {
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("error", innermostMessage(err)))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
		if resp.StatusCode >= 400 {
			level = slog.LevelWarn
		}
	}
	if retry {
		attrs = append(attrs, slog.Bool("retry", true))
	}
	c.cfg.logger.LogAttrs(ctx, level, "billing request", attrs...)
}

// endpoint joins the base URL, an already escaped path and the query.
func (c *Client) endpoint(path string, query url.Values) string {
	u := c.cfg.baseURL.String() + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	return u
}

// apiError turns a non-2xx answer into an *APIError, reading at most
// maxErrorBody bytes of it.
func (c *Client) apiError(cl *call, resp *http.Response, now time.Time) *APIError {
	e := &APIError{
		StatusCode: resp.StatusCode,
		Method:     cl.method,
		Path:       cl.path,
		RetryAfter: requestedWait(resp, now),
		RateLimit:  parseRateLimit(resp.Header, now),
		Header:     resp.Header,
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
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
// working but does not unwrap: the original would still print it.
func (c *Client) scrubError(cl *call, err error) error {
	msg := err.Error()
	if clean := c.scrub(cl, msg); clean != msg {
		return &scrubbedError{msg: clean, orig: err}
	}
	return err
}

type scrubbedError struct {
	msg  string
	orig error
}

func (e *scrubbedError) Error() string        { return e.msg }
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.orig, target) }

// scrub removes secrets the server may have echoed back.
func (c *Client) scrub(cl *call, s string) string {
	key := strings.TrimPrefix(c.cfg.authorization(), "Basic ")
	if key != "" && strings.Contains(s, key) {
		s = strings.ReplaceAll(s, key, "[REDACTED]")
	}
	for _, secret := range cl.secrets {
		if secret != "" && strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, "[REDACTED]")
		}
	}
	return s
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

// decodeJSON decodes a 2xx answer into out straight from the stream, then
// closes the body.
func (c *Client) decodeJSON(cl *call, resp *http.Response, out any) error {
	defer drainAndClose(resp.Body)
	if err := checkJSONContentType(resp); err != nil {
		return c.decodeError(cl, resp, err)
	}
	if err := decodeValue(resp.Body, out); err != nil {
		return c.decodeError(cl, resp, err)
	}
	return nil
}

// decodeOne decodes exactly one JSON object from r into out: null, a
// second value or trailing bytes are errors, not something to ignore.
func decodeOne(r io.Reader, out any) error {
	br := bufio.NewReader(&numberGuard{r: r})
	if null, err := startsWithNull(br); err != nil {
		return err
	} else if null {
		return errors.New("the answer is null, not the resource")
	}
	dec := json.NewDecoder(br)
	if err := dec.Decode(out); err != nil {
		return err
	}
	return expectEnd(dec)
}

// startsWithNull skips leading white space and reports whether the JSON
// value that follows is the literal null, without consuming it: decoding
// null into a struct would silently leave it empty.
func startsWithNull(br *bufio.Reader) (bool, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return false, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.ReadByte()
			continue
		}
		word, _ := br.Peek(4)
		return string(word) == "null", nil
	}
}

// expectEnd fails unless the decoder has reached the end of its input.
func expectEnd(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("unexpected data after the JSON value")
		}
		return err
	}
	return nil
}

// maxDigitRun bounds a run of digits in an answer. Parsing a decimal is
// superlinear in its length, and once the body has arrived no timeout can
// stop it; real amounts and ids have a few dozen digits at most.
const maxDigitRun = 256

// errNumberTooLong is the error of a body with a longer run of digits.
var errNumberTooLong = fmt.Errorf("a run of more than %d digits: not a number the API sends", maxDigitRun)

// numberGuard passes a body through, failing at the first run of digits
// longer than maxDigitRun, before the decoder can spend time on it.
type numberGuard struct {
	r   io.Reader
	run int
}

func (g *numberGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	for _, c := range p[:n] {
		if c >= '0' && c <= '9' {
			if g.run++; g.run > maxDigitRun {
				return 0, errNumberTooLong
			}
		} else {
			g.run = 0
		}
	}
	return n, err
}

// doJSON sends the call and decodes its answer into out.
func (c *Client) doJSON(ctx context.Context, cl *call, opts []RequestOption, out any) (*http.Response, error) {
	var resp *http.Response
	err := c.sendAndRead(ctx, cl, opts, func(r *http.Response) error {
		resp = r
		return c.decodeJSON(cl, r, out)
	})
	return resp, err
}

// sendAndRead sends the call and reads its answer with read. A read whose
// body breaks off (a cut connection, a truncated answer) is sent again,
// within the retry policy: the answer was lost in transit, and asking
// again is what a read is for. A write is never sent again: it was
// applied, and its DecodeError says the outcome is unknown.
func (c *Client) sendAndRead(ctx context.Context, cl *call, opts []RequestOption, read func(*http.Response) error) error {
	for retry := 0; ; retry++ {
		resp, err := c.send(ctx, cl, opts)
		if err != nil {
			return err
		}
		err = read(resp)
		if err == nil || cl.write || !brokenBody(err) || retry >= cl.policy.MaxRetries || ctx.Err() != nil {
			return err
		}
		c.cfg.logger.LogAttrs(ctx, slog.LevelWarn, "billing request",
			slog.String("method", cl.method), slog.String("path", cl.path),
			slog.String("error", "answer cut off: "+innermostMessage(err)), slog.Bool("retry", true))
		t := time.NewTimer(cl.policy.backoff(retry))
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
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

// DecodeError is a 2xx answer whose body could not be read or decoded. For
// a write, the change was applied but its result is unknown, and the error
// matches [ErrOutcomeUnknown].
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

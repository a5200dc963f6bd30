package billing

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/billingapi/billing-go/internal/jsonwire"
)

// Request is a call to an endpoint the SDK does not wrap (customers,
// subscriptions, payments and the rest of the service), for [Client.Do].
type Request struct {
	// Method is GET, POST, PUT, PATCH or DELETE.
	Method string
	// Path is the path below the base URL, starting with /v1/ and written
	// as the API reference writes it, e.g. "/v1/Customers/42". It must be
	// escaped already: build segments from values with url.PathEscape. A
	// segment that a server could read as "." or ".." is refused (see
	// [Client.Do]).
	Path string
	// PathTemplate, optional, is Path as the API reference writes it, each
	// parameter in braces: "/v1/Customers/{customerId}" for
	// "/v1/Customers/42". It is not sent; it names the call for tracing and
	// metrics (see [Operation]), where the path itself would give one name
	// per customer. It must have Path's segments, each the same as Path's
	// (compared case-insensitively, as the service matches paths) or a
	// parameter: a name of letters, digits and underscores in braces.
	PathTemplate string
	// Query holds the query parameters. A filter goes under "query", e.g.
	// url.Values{"query": {query.Expr{...}.String()}}.
	Query url.Values
	// Body is encoded as JSON, amounts as numbers; nil sends no body.
	Body any
	// Idempotent says that the call is safe to repeat, so that it is
	// retried as a read is although its method is not GET. Without it, a
	// POST, PUT, PATCH or DELETE is a write: it is retried only when the
	// server surely did not act on it, and its error matches
	// [ErrOutcomeUnknown] when it may have been applied.
	Idempotent bool
}

// Do sends req with everything a wrapped operation gets: the client's
// authentication, retries (see Request.Idempotent), typed errors,
// rate-limit capture ([CaptureResponse]), logging and the scrubbing of the
// API key from what the server says back (the SDK cannot know other
// secrets a raw body holds). A 2xx JSON answer is decoded into out, a
// pointer (a *json.RawMessage keeps it as it came, but for a UTF-8
// byte-order mark in front of it, which is not part of the JSON and is
// dropped as from every answer the SDK decodes); with out nil, or a 204,
// the body is discarded. The returned Response holds the answer's status
// and headers; its Page method reads the paging headers of a list.
//
// Before sending anything, a nil req, an out that is not a nil interface
// or a non-nil pointer, a method other than those above or a path outside
// /v1 (or with a query, a fragment, dot segments or unescaped
// characters) is a [*ValidationError] matching [ErrInvalidParams]. Dot
// segments are looked for as the live stack (ASP.NET on IIS) and proxies
// may read the path: escaped once or more (%2e%2e, %252e%252e), with `\`
// (%5C) as a separator, with ";..." path parameters, with trailing dots
// and spaces ("...", ".. "), so that no Path can climb out of /v1.
//
// API: any method and path under /v1
func (c *Client) Do(ctx context.Context, req *Request, out any, opts ...RequestOption) (*Response, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	if v := reflect.ValueOf(out); out != nil && (v.Kind() != reflect.Pointer || v.IsNil()) {
		// Decoding into it could only fail, after the server acted.
		return nil, invalid("out", "must be nil or a non-nil pointer, got %T", out)
	}
	cl := &call{op: Operation{Name: "Client.Do", Method: req.Method, PathTemplate: req.PathTemplate},
		method: req.Method, path: req.Path, query: req.Query, body: req.Body,
		write: req.Method != http.MethodGet && !req.Idempotent}
	cl.read = func(resp *http.Response) error {
		if out == nil || resp.StatusCode == http.StatusNoContent {
			drainAndClose(&limitedBody{body: resp.Body, remaining: c.cfg.maxResponseBytes})
			return nil
		}
		return c.decodeJSON(cl, resp, out)
	}
	resp, err := c.do(ctx, cl, opts)
	if err != nil {
		return nil, err
	}
	r := c.response(cl, resp)
	return &r, nil
}

// Page reads the X-* paging headers of a list answer. An answer without
// them gives -1 for each; a header that cannot be read is an error matching
// [ErrPagination].
func (r *Response) Page() (PageInfo, error) {
	return parsePageInfo(r.Header)
}

func (r *Request) validate() error {
	if r == nil {
		return invalid("Request", "required")
	}
	switch r.Method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return invalid("Method", "must be GET, POST, PUT, PATCH or DELETE, got %s", quoteForError(truncateForError(r.Method)))
	}
	if !strings.HasPrefix(r.Path, "/v1/") {
		return invalid("Path", "must start with /v1/, got %s", quoteForError(truncateForError(r.Path)))
	}
	u, err := url.Parse(r.Path)
	if err != nil || u.Scheme != "" || u.Host != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.EscapedPath() != r.Path {
		return invalid("Path", "must be an escaped path with no query or fragment (put parameters in Query, escape segments with url.PathEscape), got %s", quoteForError(truncateForError(r.Path)))
	}
	for _, seg := range serverSegments(r.Path) {
		if seg == "" {
			return invalid("Path", "must not have empty or dot segments, as a server may read them, got %s", quoteForError(truncateForError(r.Path)))
		}
		if !utf8.ValidString(seg) || strings.ContainsFunc(seg, unicode.IsControl) {
			return invalid("Path", "must not hold invalid UTF-8 or control characters, got %s", quoteForError(truncateForError(r.Path)))
		}
	}
	if r.PathTemplate != "" && !templateOf(r.PathTemplate, r.Path) {
		return invalid("PathTemplate", "must be Path with some segments written as {name}, got %s for %s",
			quoteForError(truncateForError(r.PathTemplate)), quoteForError(truncateForError(r.Path)))
	}
	return nil
}

// templateOf reports whether tmpl is a template of path: the same
// segments, each equal to path's but for case, or a parameter {name}. The
// first, v1, is never a parameter.
func templateOf(tmpl, path string) bool {
	ts, ps := strings.Split(tmpl, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) || !strings.HasPrefix(tmpl, "/v1/") {
		return false
	}
	for i, t := range ts {
		if i > 1 && len(t) > 2 && t[0] == '{' && t[len(t)-1] == '}' {
			if !paramName.MatchString(t[1 : len(t)-1]) {
				return false
			}
			continue
		}
		if strings.ContainsAny(t, "{}") || !strings.EqualFold(t, ps[i]) {
			return false
		}
	}
	return true
}

// paramName is the name of a parameter in a path template.
var paramName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// maxUnescapes bounds how often serverSegments decodes a segment: each
// round undoes one layer of escaping, and a segment that still decodes
// after this many is refused.
const maxUnescapes = 4

// serverSegments returns the segments of an escaped path below its root
// as the most lenient server on the way may read them, for the dot-segment
// check: a path is refused if any reading of it could climb out of /v1.
// Each segment is
//
//   - decoded again and again while it decodes (%2e%2e, and %252e%252e for
//     a proxy that decodes once more), up to maxUnescapes times;
//   - split at '\' as well as '/' (IIS and ASP.NET treat both as
//     separators, so ..%5C climbs a level);
//   - cut at ';' (path parameters: a Java or .NET stack reads "..;x" as
//     "..");
//   - stripped of trailing dots and spaces (Windows drops them from file
//     names, so "..." and ".. " are "..").
//
// A segment that is empty after this is empty, ".", ".." or one of their
// disguises; so is one escaped too deeply to read. Only the check sees
// these readings: the path is sent as the caller wrote it.
func serverSegments(escaped string) []string {
	var segs []string
	for _, raw := range strings.Split(strings.TrimSuffix(escaped, "/"), "/")[1:] {
		seg, settled := raw, false
		for range maxUnescapes {
			next := unescapeLeniently(seg)
			if settled = next == seg; settled {
				break
			}
			seg = next
		}
		if !settled {
			segs = append(segs, "") // escaped more deeply than any reading we check
			continue
		}
		for _, part := range strings.Split(strings.ReplaceAll(seg, `\`, "/"), "/") {
			part, _, _ = strings.Cut(part, ";")
			segs = append(segs, strings.TrimRight(part, ". "))
		}
	}
	return segs
}

// unescapeLeniently decodes every %XX escape of s and leaves a % that
// starts none as it is, as lenient servers read a path: one bad escape in
// a segment must not keep the others, a disguised "..", from being read.
func unescapeLeniently(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := []byte(s)
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if v, n := jsonwire.HexValue(b[i+1:], 2); b[i] == '%' && n == 2 {
			out = append(out, byte(v))
			i += 2
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

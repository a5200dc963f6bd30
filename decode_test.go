package billing_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

// Tests against servers that are broken or hostile: endless bodies, bodies
// that trickle, answers that are not what they claim, redirects elsewhere.
// Every call runs under noHang, which fails the test on a panic or if the
// call has not returned after 10 s.

// noHang runs call and returns its error; it fails the test if call
// panics or has not returned after 10 s (a hang guard, not a timing
// assertion: the calls below return in well under a second).
func noHang(t *testing.T, call func() error) error {
	t.Helper()
	type outcome struct {
		err      error
		panicked any
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o.panicked = p
			}
			done <- o
		}()
		o.err = call()
	}()
	select {
	case o := <-done:
		if o.panicked != nil {
			t.Fatalf("the call panicked: %v", o.panicked)
		}
		return o.err
	case <-time.After(10 * time.Second):
		t.Fatal("the call has not returned after 10s: it hangs")
		return nil
	}
}

// hostileClient is a client for a test server: one retry, millisecond
// waits, and its own transport, closed when the test ends.
func hostileClient(t *testing.T, url string, opts ...billing.Option) *billing.Client {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	base := []billing.Option{
		billing.WithHTTPClient(&http.Client{Transport: tr}),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second}),
	}
	return newLoopbackClient(t, url, append(base, opts...)...)
}

// countingTransport counts, per answer, the body bytes the client read.
type countingTransport struct {
	base http.RoundTripper

	mu    sync.Mutex
	reads []*atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if resp != nil {
		n := new(atomic.Int64)
		c.mu.Lock()
		c.reads = append(c.reads, n)
		c.mu.Unlock()
		resp.Body = &countingBody{ReadCloser: resp.Body, n: n}
	}
	return resp, err
}

// most returns the largest number of bytes read from one answer, and how
// many answers there were.
func (c *countingTransport) most() (int64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var m int64
	for _, n := range c.reads {
		m = max(m, n.Load())
	}
	return m, len(c.reads)
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// endless is an endless body of a repeated byte, counting what was taken.
type endless struct {
	b     byte
	limit int64 // stop after this many bytes
	taken atomic.Int64
}

func (e *endless) Read(p []byte) (int, error) {
	left := e.limit - e.taken.Load()
	if left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	for i := range p {
		p[i] = e.b
	}
	e.taken.Add(int64(len(p)))
	return len(p), nil
}

// hostileOp is one SDK call against a test server, with the path it uses.
type hostileOp struct {
	name  string
	path  string
	write bool
	call  func(ctx context.Context, c *billing.Client) error
}

var (
	opGet = hostileOp{name: "Get", path: "/v1/Invoices/7", call: func(ctx context.Context, c *billing.Client) error {
		_, err := c.Invoices.Get(ctx, 7, nil)
		return err
	}}
	opList = hostileOp{name: "List", path: "/v1/Invoices", call: func(ctx context.Context, c *billing.Client) error {
		_, err := c.Invoices.List(ctx, nil)
		return err
	}}
	opWriteOff = hostileOp{name: "WriteOff", path: "/v1/invoices/writeoff", write: true, call: func(ctx context.Context, c *billing.Client) error {
		_, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7, Amount: billing.Ptr(decimal.NewFromInt(5))})
		return err
	}}
	opPDF = hostileOp{name: "PDF", path: "/v1/draftInvoices/pdf/3", call: func(ctx context.Context, c *billing.Client) error {
		rc, err := c.DraftInvoices.PDF(ctx, 3, nil)
		if err != nil {
			return err
		}
		defer rc.Close()
		_, err = io.Copy(io.Discard, rc)
		return err
	}}
)

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout())
}

// An error body is read to at most 1 MiB, however long the server makes it:
// the APIError still comes back, with an excerpt, and memory stays bounded.
func TestHostileErrorBodyIsReadToOneMiB(t *testing.T) {
	const served = 256 << 20 // what the server would send if it were read whole
	for _, status := range []int{http.StatusBadRequest, http.StatusBadGateway} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			var written atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(status)
				body := &endless{b: 'x', limit: served}
				n, _ := io.Copy(w, body) // ends when the client hangs up
				written.Add(n)
			}))
			defer srv.Close()
			ct := &countingTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
			defer ct.base.(*http.Transport).CloseIdleConnections()
			c := hostileClient(t, srv.URL, billing.WithHTTPClient(&http.Client{Transport: ct}))

			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := noHang(t, func() error { return opGet.call(context.Background(), c) })
			runtime.ReadMemStats(&after)

			var apiErr *billing.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
				t.Fatalf("err = %v (%T), want an *APIError with status %d", err, err, status)
			}
			if !strings.HasPrefix(apiErr.Body, "xxxx") || len(apiErr.Body) > 512 {
				t.Errorf("Body excerpt has %d bytes (%.20q...), want a non-empty excerpt of at most 512", len(apiErr.Body), apiErr.Body)
			}
			most, answers := ct.most()
			if most > 1<<20 {
				t.Errorf("the client read %d bytes of one error body, want at most 1 MiB", most)
			}
			if most == 0 {
				t.Errorf("no body bytes were counted: the counting transport was not used")
			}
			if status == http.StatusBadGateway && answers != 2 {
				t.Errorf("answers = %d, want 2 (a 502 is retried once)", answers)
			}
			srv.Close() // waits for the handlers: written is final
			if w := written.Load(); w >= served/4 {
				t.Errorf("the server got %d of its %d bytes out: the client kept reading", w, served)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("the call allocated %d MiB for a 1 MiB bound", grew>>20)
			}
		})
	}
}

// A successful answer longer than WithMaxResponseBytes fails with
// ErrResponseTooLarge after reading no more than the limit; it is not
// retried, and a write that ran into it says its outcome is unknown.
func TestHostileBodyBeyondMaxResponseBytes(t *testing.T) {
	const limit = 64 << 10
	tests := []struct {
		op          hostileOp
		contentType string
		prefix      string
	}{
		{opGet, "application/json", `{"id":7,"notes":"`},
		{opList, "application/json", `[{"id":7,"notes":"`},
		{opWriteOff, "application/json", `{"id":7,"notes":"`},
		{opPDF, "application/pdf", "%PDF-1.4\n"},
	}
	for _, tt := range tests {
		t.Run(tt.op.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.Header().Set("Content-Type", tt.contentType)
				_, _ = io.WriteString(w, tt.prefix)
				_, _ = io.Copy(w, &endless{b: 'a', limit: 64 << 20})
			}))
			defer srv.Close()
			ct := &countingTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
			defer ct.base.(*http.Transport).CloseIdleConnections()
			c := hostileClient(t, srv.URL, billing.WithHTTPClient(&http.Client{Transport: ct}), billing.WithMaxResponseBytes(limit))

			err := noHang(t, func() error { return tt.op.call(context.Background(), c) })
			if !errors.Is(err, billing.ErrResponseTooLarge) {
				t.Fatalf("err = %v, want ErrResponseTooLarge", err)
			}
			if got := errors.Is(err, billing.ErrOutcomeUnknown); got != tt.op.write {
				t.Errorf("ErrOutcomeUnknown = %v, want %v: %v", got, tt.op.write, err)
			}
			if most, _ := ct.most(); most > limit+16 {
				t.Errorf("the client read %d bytes, want at most the limit (%d) and a probe", most, limit)
			}
			if n := hits.Load(); n != 1 {
				t.Errorf("requests = %d, want 1: a body over the limit is not fetched again", n)
			}
		})
	}
}

// A server that sends a byte every 100 ms is cut off by WithTimeout,
// whether it trickles the headers or the body, for reads, writes and the
// PDF stream.
func TestHostileTrickleIsCutOffByTheTimeout(t *testing.T) {
	// trickle writes a byte every 100 ms until a write fails, the client
	// goes away (done) or the test ends (stop).
	trickle := func(w io.Writer, flush func(), done, stop <-chan struct{}) {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-stop:
				return
			case <-tick.C:
				if _, err := w.Write([]byte("x")); err != nil {
					return
				}
				flush()
			}
		}
	}
	bodyServer := func(contentType, prefix string) func(stop <-chan struct{}) *httptest.Server {
		return func(stop <-chan struct{}) *httptest.Server {
			return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", contentType)
				w.WriteHeader(http.StatusOK)
				_, _ = io.WriteString(w, prefix)
				flush := w.(http.Flusher).Flush
				flush()
				trickle(w, flush, r.Context().Done(), stop)
			}))
		}
	}
	headerServer := func(stop <-chan struct{}) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nX-Slow: ")
			_ = buf.Flush()
			trickle(buf, func() { _ = buf.Flush() }, nil, stop)
		}))
	}
	tests := []struct {
		name string
		op   hostileOp
		srv  func(stop <-chan struct{}) *httptest.Server
	}{
		{"Get, body", opGet, bodyServer("application/json", `{"id":7,"notes":"`)},
		{"Get, headers", opGet, headerServer},
		{"List, body", opList, bodyServer("application/json", `[{"id":7},{"id":8,"notes":"`)},
		{"WriteOff, body", opWriteOff, bodyServer("application/json", `{"id":7,"notes":"`)},
		{"WriteOff, headers", opWriteOff, headerServer},
		{"PDF stream", opPDF, bodyServer("application/pdf", "%PDF-1.4\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stop := make(chan struct{})
			srv := tt.srv(stop)
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(stop) }) // runs before srv.Close: hijacked trickles end too
			c := hostileClient(t, srv.URL, billing.WithTimeout(500*time.Millisecond))
			err := noHang(t, func() error { return tt.op.call(context.Background(), c) })
			if err == nil {
				t.Fatal("a trickling server gave no error")
			}
			if !isTimeout(err) {
				t.Errorf("err = %v (%T), want a timeout (context.DeadlineExceeded or a net.Error that is a Timeout)", err, err)
			}
			if got := errors.Is(err, billing.ErrOutcomeUnknown); got != tt.op.write {
				t.Errorf("ErrOutcomeUnknown = %v, want %v: %v", got, tt.op.write, err)
			}
		})
	}
}

// fixedServer answers every request with status, body and header pairs,
// counting the requests.
func fixedServer(t *testing.T, status int, body string, header ...string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// Answers that claim success but are not what the endpoint returns give a
// *DecodeError naming the call, never a panic, a hang or a half-filled
// value; a write that got such an answer says its outcome is unknown.
func TestHostileMalformedAnswers(t *testing.T) {
	nested := func(open, close string, depth int) string {
		return strings.Repeat(open, depth) + strings.Repeat(close, depth)
	}
	const jsonCT = "application/json; charset=utf-8"
	tests := []struct {
		name        string
		status      int
		contentType string
		// object is the answer for Get and WriteOff, array for List.
		object, array string
		// contains is a part of the error message, if it must say something.
		contains string
	}{
		{name: "HTML page with 200", status: 200, contentType: "text/html; charset=utf-8",
			object: "<html><body>Please log in</body></html>", array: "<html><body>Please log in</body></html>", contains: "application/json"},
		{name: "invalid JSON", status: 200, contentType: jsonCT,
			object: `{"id":7,"invoiceNumber":}`, array: `[{"id":7},}`},
		{name: "JSON cut short", status: 200, contentType: jsonCT,
			object: `{"id":7,"invoiceNumber":12`, array: `[{"id":7},{"id":8`},
		{name: "a second value after the JSON", status: 200, contentType: jsonCT,
			object: `{"id":7}{"ErrorId":9,"Errors":[{"Key":"Api Error","Value":"failed"}]}`, array: `[{"id":7}]{"ErrorId":9}`},
		{name: "garbage after the JSON", status: 200, contentType: jsonCT,
			object: `{"id":7} <html>oops</html>`, array: `[{"id":7}] <html>oops</html>`},
		{name: "string for the id", status: 200, contentType: jsonCT,
			object: `{"id":"7"}`, array: `[{"id":"7"}]`, contains: "id"},
		{name: "string for an amount", status: 200, contentType: jsonCT,
			object: `{"id":7,"subtotal":"abc"}`, array: `[{"id":7,"subtotal":"abc"}]`, contains: "abc"},
		{name: "1e400 for the id", status: 200, contentType: jsonCT,
			object: `{"id":1e400}`, array: `[{"id":1e400}]`},
		{name: "an exponent no decimal holds", status: 200, contentType: jsonCT,
			object: `{"id":7,"subtotal":1e2147483648}`, array: `[{"id":7,"subtotal":1e2147483648}]`},
		{name: "array for an object, object for an array", status: 200, contentType: jsonCT,
			object: `[{"id":7}]`, array: `{"id":7}`},
		{name: "deeply nested JSON", status: 200, contentType: jsonCT,
			object: `{"id":7,"taxes":` + nested("[", "]", 100_000) + `}`, array: `[{"id":7,"invoiceRevisions":` + nested(`{"a":`, "}", 100_000) + `}]`},
		{name: "200 with an empty body", status: 200, contentType: jsonCT, object: "", array: ""},
		{name: "204 No Content", status: 204, object: "", array: ""},
	}
	for _, tt := range tests {
		for _, op := range []hostileOp{opGet, opList, opWriteOff} {
			t.Run(tt.name+"/"+op.name, func(t *testing.T) {
				body := tt.object
				if op.path == opList.path {
					body = tt.array
				}
				var header []string
				if tt.contentType != "" {
					header = []string{"Content-Type", tt.contentType}
				}
				srv, hits := fixedServer(t, tt.status, body, header...)
				err := noHang(t, func() error { return op.call(context.Background(), hostileClient(t, srv.URL)) })
				var de *billing.DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("err = %v (%T), want a *billing.DecodeError", err, err)
				}
				if de.Path != op.path || de.StatusCode != tt.status {
					t.Errorf("DecodeError names %s %d, want %s %d", de.Path, de.StatusCode, op.path, tt.status)
				}
				if !strings.Contains(err.Error(), op.path) || (tt.contains != "" && !strings.Contains(err.Error(), tt.contains)) {
					t.Errorf("err = %q, want it to name %s and mention %q", err, op.path, tt.contains)
				}
				if got := errors.Is(err, billing.ErrOutcomeUnknown); got != op.write {
					t.Errorf("ErrOutcomeUnknown = %v, want %v: %v", got, op.write, err)
				}
				// A read may be asked once more when the body looks cut
				// off; a write is never sent twice.
				if n := hits.Load(); n < 1 || n > 2 || (op.write && n != 1) {
					t.Errorf("requests = %d", n)
				}
			})
		}
	}
}

// A PDF request answered with something that is not a PDF is an error, not
// a stream of HTML.
func TestHostilePDFWrongContentType(t *testing.T) {
	srv, _ := fixedServer(t, 200, "<html>captive portal</html>", "Content-Type", "text/html")
	err := noHang(t, func() error { return opPDF.call(context.Background(), hostileClient(t, srv.URL)) })
	var de *billing.DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "application/pdf") {
		t.Fatalf("err = %v, want a DecodeError that mentions application/pdf", err)
	}
}

// Numbers far beyond any amount: an exponent the decimal type holds decodes
// exactly (no float rounding, no panic); a number with 200,000 digits is
// refused rather than decoded at a cost the timeout does not bound.
func TestHostileHugeNumbers(t *testing.T) {
	t.Run("1e400 amount", func(t *testing.T) {
		srv, _ := fixedServer(t, 200, `{"id":7,"subtotal":1e400,"outstandingBalance":-1e400}`, "Content-Type", "application/json")
		var inv *billing.Invoice
		err := noHang(t, func() (err error) {
			inv, err = hostileClient(t, srv.URL).Invoices.Get(context.Background(), 7, nil)
			return err
		})
		var de *billing.DecodeError
		switch {
		case errors.As(err, &de):
			// Refusing it is a clear answer too.
		case err != nil:
			t.Fatalf("err = %v (%T), want success or a *billing.DecodeError", err, err)
		case !inv.Subtotal.Equal(decimal.New(1, 400)) || !inv.OutstandingBalance.Equal(decimal.New(-1, 400)):
			t.Errorf("subtotal = %s, outstanding = %s: not exactly 1e400 and -1e400", inv.Subtotal, inv.OutstandingBalance)
		}
	})
	t.Run("200,000 digits", func(t *testing.T) {
		// 200 kB, far under the default 64 MiB limit; but shopspring/decimal
		// parses digits in time quadratic in their number (about 60 ms for
		// 2e5 digits, 1.5 s for 1e6, 5 s for 2e6, 85 s for 8e6, without
		// -race), and the per-attempt timeout cannot stop a decode in
		// progress: the body has arrived. Such a number must be refused (or
		// the call must end with its timeout), not accepted after seconds
		// or minutes of CPU. (Kept small so that the test stays cheap while
		// the bug is there; the size does not change what it shows.)
		srv, _ := fixedServer(t, 200, `{"id":7,"subtotal":`+strings.Repeat("9", 200_000)+`}`, "Content-Type", "application/json")
		c := hostileClient(t, srv.URL, billing.WithTimeout(250*time.Millisecond))
		err := noHang(t, func() error { return opGet.call(context.Background(), c) })
		if err == nil {
			t.Errorf("a 200,000-digit amount was accepted: decoding such numbers costs CPU quadratic in their length, which WithTimeout does not bound, so a hostile server can hold a call for minutes within the default response limit")
		}
	})
}

// An HTML error page from a proxy is an *APIError with the page's text as
// an excerpt, not a decode error.
func TestHostileHTMLErrorPage(t *testing.T) {
	page := "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n" +
		strings.Repeat("<!-- padding -->\n", 200) + "</body>\n</html>\n"
	for _, op := range []hostileOp{opGet, opList, opWriteOff, opPDF} {
		t.Run(op.name, func(t *testing.T) {
			srv, hits := fixedServer(t, http.StatusBadGateway, page, "Content-Type", "text/html")
			err := noHang(t, func() error { return op.call(context.Background(), hostileClient(t, srv.URL)) })
			var apiErr *billing.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadGateway || !errors.Is(err, billing.ErrServer) {
				t.Fatalf("err = %v (%T), want an *APIError 502", err, err)
			}
			if !strings.Contains(apiErr.Body, "<title>502 Bad Gateway</title>") || len(apiErr.Body) > 512 || strings.Contains(apiErr.Body, "\n") {
				t.Errorf("Body = %q, want a one-line excerpt of the page, at most 512 bytes", apiErr.Body)
			}
			if !strings.Contains(err.Error(), "502 Bad Gateway") {
				t.Errorf("err = %q, want the page's excerpt in the message", err)
			}
			// A gateway's 502 does not say whether the service acted.
			if got := errors.Is(err, billing.ErrOutcomeUnknown); got != op.write {
				t.Errorf("errors.Is(err, ErrOutcomeUnknown) = %v for a 502 to a %s, want %v", got, op.name, op.write)
			}
			want := int32(2) // a read is retried once
			if op.write {
				want = 1
			}
			if n := hits.Load(); n != want {
				t.Errorf("requests = %d, want %d", n, want)
			}
		})
	}
}

// A redirect to another host is refused before anything is sent there, so
// the other host never sees the API key (or a write's body); a redirect
// within the API's host is followed.
func TestHostileRedirects(t *testing.T) {
	type seen struct {
		hits atomic.Int32
		auth atomic.Value // the last Authorization header received
	}
	record := func(s *seen, r *http.Request) {
		s.hits.Add(1)
		s.auth.Store(r.Header.Get("Authorization"))
	}
	var other seen
	otherSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record(&other, r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":666}`)
	}))
	defer otherSrv.Close()

	tests := []struct {
		name string
		op   hostileOp
		// to is where the API's path redirects, given the API server's URL.
		to     func(api string) string
		status int
	}{
		{"another port", opGet, func(string) string { return otherSrv.URL + "/v1/Invoices/7" }, http.StatusFound},
		{"another host name, same port", opGet, func(api string) string {
			return strings.Replace(api, "127.0.0.1", "localhost", 1) + "/v1/Invoices/8"
		}, http.StatusFound},
		{"same host first, then another", opGet, func(api string) string { return api + "/hop" }, http.StatusMovedPermanently},
		{"a write, 307 to another host", opWriteOff, func(string) string { return otherSrv.URL + "/v1/invoices/writeoff" }, http.StatusTemporaryRedirect},
		{"a write, 308 to another host", opWriteOff, func(string) string { return otherSrv.URL + "/v1/invoices/writeoff" }, http.StatusPermanentRedirect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other.hits.Store(0)
			var api seen
			var apiURL string
			apiSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				record(&api, r)
				if r.URL.Path == "/hop" {
					http.Redirect(w, r, otherSrv.URL+"/v1/Invoices/7", http.StatusFound)
					return
				}
				if r.URL.Path != tt.op.path {
					// Reached under another host name: the redirect was followed.
					w.Header().Set("Content-Type", "application/json")
					_, _ = io.WriteString(w, `{"id":8}`)
					return
				}
				http.Redirect(w, r, tt.to(apiURL), tt.status)
			}))
			defer apiSrv.Close()
			apiURL = apiSrv.URL

			err := noHang(t, func() error { return tt.op.call(context.Background(), hostileClient(t, apiURL)) })
			if err == nil {
				t.Fatal("a redirect to another host was followed")
			}
			if !strings.Contains(err.Error(), "redirect") {
				t.Errorf("err = %q, want it to say a redirect was refused", err)
			}
			if n := other.hits.Load(); n != 0 {
				t.Errorf("the other host received %d requests (Authorization %q)", n, other.auth.Load())
			}
			wantAPI := int32(1)
			if tt.name == "same host first, then another" {
				wantAPI = 2
			}
			if n := api.hits.Load(); n != wantAPI {
				t.Errorf("the API server received %d requests, want %d: a refused redirect is not retried", n, wantAPI)
			}
		})
	}

	t.Run("same host is followed", func(t *testing.T) {
		var api seen
		apiSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			record(&api, r)
			if r.URL.Path == "/v1/Invoices/7" {
				http.Redirect(w, r, "/v1/invoices/7/", http.StatusFound) // IIS: any case, a trailing slash
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":7}`)
		}))
		defer apiSrv.Close()
		var inv *billing.Invoice
		err := noHang(t, func() (err error) {
			inv, err = hostileClient(t, apiSrv.URL).Invoices.Get(context.Background(), 7, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if inv.ID != 7 || api.hits.Load() != 2 {
			t.Errorf("id = %d after %d requests, want 7 after 2", inv.ID, api.hits.Load())
		}
		if got, _ := api.auth.Load().(string); got != "Basic "+testKey {
			t.Errorf("the redirected request carried Authorization %q, want the key: same host", got)
		}
	})
}

// A server that closes the connection in the middle of its headers: a read
// is retried and then fails with a *RequestError; a write is not retried
// and says its outcome is unknown.
func TestHostileConnectionClosedMidHeaders(t *testing.T) {
	for _, op := range []hostileOp{opGet, opList, opWriteOff, opPDF} {
		t.Run(op.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				_, _ = io.Copy(io.Discard, r.Body)
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					return
				}
				_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: applic")
				_ = buf.Flush()
				_ = conn.Close()
			}))
			defer srv.Close()
			err := noHang(t, func() error { return op.call(context.Background(), hostileClient(t, srv.URL)) })
			var reqErr *billing.RequestError
			if !errors.As(err, &reqErr) {
				t.Fatalf("err = %v (%T), want a *billing.RequestError", err, err)
			}
			want := int32(2)
			if op.write {
				want = 1
			}
			if n := hits.Load(); n != want || reqErr.Attempts != int(want) {
				t.Errorf("requests = %d, Attempts = %d, want %d", n, reqErr.Attempts, want)
			}
			if got := errors.Is(err, billing.ErrOutcomeUnknown); got != op.write {
				t.Errorf("ErrOutcomeUnknown = %v, want %v: %v", got, op.write, err)
			}
		})
	}
}

// TestHostilePageOfEmptyObjects: a page of more items than it may hold
// (more than asked for, more than its X-PageSize, or past the SDK's bound
// when neither is given) is refused with ErrPagination while it is being
// decoded. Three bytes ({},) per item would otherwise decode into
// hundreds, so a hostile 64 MiB answer would take gigabytes.
func TestHostilePageOfEmptyObjects(t *testing.T) {
	t.Parallel()
	page := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("{},", n), ",") + "]" }
	const jsonCT = "application/json; charset=utf-8"
	tests := []struct {
		name     string
		body     string
		header   []string
		pageSize int
		wantErr  bool
	}{
		{"as many as asked", page(10), nil, 10, false},
		{"more than asked", page(11), nil, 10, true},
		{"as many as X-PageSize", page(50), []string{"X-PageSize", "50"}, 0, false},
		{"more than X-PageSize", page(51), []string{"X-PageSize", "50"}, 0, true},
		{"the bound, no size given", page(100_000), nil, 0, false},
		{"past the bound, no size given", page(100_001), nil, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := fixedServer(t, 200, tt.body, append([]string{"Content-Type", jsonCT}, tt.header...)...)
			var p *billing.Page[billing.Invoice]
			err := noHang(t, func() (err error) {
				p, err = hostileClient(t, srv.URL).Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: tt.pageSize}})
				return err
			})
			if !tt.wantErr {
				if err != nil || len(p.Items) != strings.Count(tt.body, "{}") {
					t.Fatalf("err = %v, want the page", err)
				}
				return
			}
			var de *billing.DecodeError
			if !errors.Is(err, billing.ErrPagination) || !errors.As(err, &de) {
				t.Fatalf("err = %v, want a *billing.DecodeError matching ErrPagination", err)
			}
		})
	}
}

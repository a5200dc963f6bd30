package billing_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/billingapi/billing-go"
)

// The five writes, each as a hostileOp, for tests that must hold for every
// write.
var (
	opReplaceCard = hostileOp{name: "ReplaceCreditCard", path: "/v1/paymentMethods/creditCard", write: true, call: func(ctx context.Context, c *billing.Client) error {
		p := secParams()
		_, err := c.PaymentMethods.ReplaceCreditCard(ctx, &p)
		return err
	}}
	opWallet = hostileOp{name: "CreateWalletAgreement", path: "/v1/Paypal", write: true, call: func(ctx context.Context, c *billing.Client) error {
		_, err := c.PaymentMethods.CreateWalletAgreement(ctx, "Paypal", &billing.WalletAgreementParams{Baid: "B-7XK12345", CustomerID: 42, Source: billing.PaymentSourceAutomatic})
		return err
	}}
	opTrackingCode = hostileOp{name: "SalesTrackingCodes.Create", path: "/v1/salesTrackingCodes", write: true, call: func(ctx context.Context, c *billing.Client) error {
		_, err := c.SalesTrackingCodes.Create(ctx, &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "SPRING", Name: "Spring"})
		return err
	}}
	opBulkProcess = hostileOp{name: "Bulk.Process", path: "/v1/BulkApi/Process", write: true, call: func(ctx context.Context, c *billing.Client) error {
		_, err := c.Bulk.Process(ctx, 910602)
		return err
	}}
	allWrites = []hostileOp{opWriteOff, opReplaceCard, opWallet, opTrackingCode, opBulkProcess}
)

// A write never follows a redirect, same host or not: net/http would send
// its body again (307, 308) or turn it into a GET (301, 302, 303), under
// the SDK's retry rule. The caller learns the outcome is unknown. A read
// still follows a same-host redirect.
func TestWritesNeverFollowRedirects(t *testing.T) {
	t.Parallel()
	statuses := []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect}
	for _, op := range append(allWrites, opGet) {
		for _, status := range statuses {
			t.Run(fmt.Sprintf("%s/%d", op.name, status), func(t *testing.T) {
				t.Parallel()
				var applied, moved atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/v1/moved" {
						moved.Add(1)
						w.Header().Set("Content-Type", "application/json")
						_, _ = io.WriteString(w, `{"id":7}`)
						return
					}
					applied.Add(1) // the server acts, then redirects
					http.Redirect(w, r, "/v1/moved", status)
				}))
				t.Cleanup(srv.Close)
				err := noHang(t, func() error { return op.call(context.Background(), hostileClient(t, srv.URL)) })
				if !op.write {
					if err != nil || moved.Load() != 1 {
						t.Fatalf("a read does not follow a same-host %d: err = %v, moved = %d", status, err, moved.Load())
					}
					return
				}
				if a, m := applied.Load(), moved.Load(); a != 1 || m != 0 {
					t.Fatalf("the write reached the server %d times and the redirect target %d times, want 1 and 0", a, m)
				}
				var apiErr *billing.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != status || !errors.Is(err, billing.ErrOutcomeUnknown) {
					t.Fatalf("err = %v (%T), want an *APIError %d matching ErrOutcomeUnknown", err, err, status)
				}
				if msg := err.Error(); !strings.Contains(msg, "redirect not followed") || !strings.Contains(msg, "may have been applied") {
					t.Errorf("err = %q, want it to say the redirect was not followed and the write may have been applied", msg)
				}
			})
		}
	}
}

// step is one scripted answer of budgetServer.
type step string

const (
	step503 step = "503"
	stepCut step = "cut" // a 200 whose body breaks off
	stepOK  step = "ok"
)

// budgetServer answers the n-th request with script[n] (the last step
// repeats) and counts the requests.
func budgetServer(t *testing.T, body string, script ...step) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(hits.Add(1)) - 1
		s := script[min(n, len(script)-1)]
		w.Header().Set("Content-Type", "application/json")
		switch s {
		case step503:
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, errorBody(503, "Api Error", "busy"))
		case stepCut:
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = io.WriteString(w, body[:len(body)/2])
			// Flushed first: a connection cut before any answer is retried
			// by net/http itself, which is not what this step is about.
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // cuts the connection mid-body
		case stepOK:
			_, _ = io.WriteString(w, body)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// A call makes at most MaxRetries+1 attempts, whatever mixture of failed
// answers and cut-off bodies it meets: the re-read of a cut-off answer is
// one of those attempts.
func TestOneRetryBudgetPerCall(t *testing.T) {
	t.Parallel()
	policy := billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}
	tests := []struct {
		name     string
		op       hostileOp
		body     string
		script   []step
		wantHits int32
		wantErr  bool
	}{
		{"get: 503, 503, cut", opGet, `{"id":7,"invoiceNumber":7}`, []step{step503, step503, stepCut}, 3, true},
		{"list: 503, 503, cut", opList, `[{"id":7},{"id":8}]`, []step{step503, step503, stepCut}, 3, true},
		{"get: cut, cut, cut", opGet, `{"id":7,"invoiceNumber":7}`, []step{stepCut}, 3, true},
		{"list: cut, 503, cut", opList, `[{"id":7},{"id":8}]`, []step{stepCut, step503, stepCut}, 3, true},
		{"list: cut, 503, ok", opList, `[{"id":7},{"id":8}]`, []step{stepCut, step503, stepOK}, 3, false},
		{"get: cut, ok", opGet, `{"id":7,"invoiceNumber":7}`, []step{stepCut, stepOK}, 2, false},
		{"write: cut is never re-sent", opWriteOff, `{"id":7,"invoiceNumber":7}`, []step{stepCut, stepOK}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, hits := budgetServer(t, tt.body, tt.script...)
			err := noHang(t, func() error {
				return tt.op.call(context.Background(), hostileClient(t, srv.URL, billing.WithRetryPolicy(policy)))
			})
			if got := hits.Load(); got != tt.wantHits {
				t.Errorf("the server received %d requests, want %d", got, tt.wantHits)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tt.wantErr)
			}
			if tt.op.write && !errors.Is(err, billing.ErrOutcomeUnknown) {
				t.Errorf("err = %v, want ErrOutcomeUnknown for a write whose answer was cut off", err)
			}
		})
	}
}

// headerPagedServer serves total invoices in pages of size, and lets bad change
// the headers of one page.
func headerPagedServer(t *testing.T, total, size int, bad func(page int, h http.Header)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("pageNumber"))
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("X-Count", strconv.Itoa(total))
		h.Set("X-PageSize", strconv.Itoa(size))
		h.Set("X-CurrentPage", strconv.Itoa(page))
		h.Set("X-MaxPageIndex", strconv.Itoa((total-1)/size))
		next := page + 1
		if next*size >= total {
			next = -1
		}
		h.Set("X-NextPage", strconv.Itoa(next))
		bad(page, h)
		var b strings.Builder
		b.WriteByte('[')
		for i := page * size; i < min((page+1)*size, total); i++ {
			if i > page*size {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d}`, i+1)
		}
		b.WriteByte(']')
		_, _ = io.WriteString(w, b.String())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A paging header that cannot be read ends the iteration with an error
// that names it, sequential or prefetched; it never ends it early in
// silence. A missing header keeps the documented fallback.
func TestUnreadablePagingHeaderIsAnError(t *testing.T) {
	t.Parallel()
	const total, size, badPage = 2000, 100, 5
	tests := []struct {
		name    string
		mangle  func(h http.Header)
		wantMsg string // "" for no error
	}{
		{"X-NextPage not an integer", func(h http.Header) { h.Set("X-NextPage", "six") }, `X-NextPage: "six"`},
		{"X-NextPage a decimal", func(h http.Header) { h.Set("X-NextPage", "6.0") }, `X-NextPage: "6.0"`},
		{"X-Count twice, disagreeing", func(h http.Header) { h.Add("X-Count", "600") }, `X-Count sent twice, as "2000" and "600"`},
		{"X-MaxPageIndex below -1", func(h http.Header) { h.Set("X-MaxPageIndex", "-7") }, `X-MaxPageIndex: "-7"`},
		{"X-CurrentPage overflowing", func(h http.Header) { h.Set("X-CurrentPage", "99999999999999999999") }, `X-CurrentPage: "99999999999999999999"`},
		{"X-Count twice, agreeing", func(h http.Header) { h.Add("X-Count", "2000") }, ""},
		{"X-NextPage missing", func(h http.Header) { h.Del("X-NextPage") }, ""},
	}
	for _, tt := range tests {
		for _, prefetch := range []int{0, 4} {
			t.Run(fmt.Sprintf("%s/prefetch %d", tt.name, prefetch), func(t *testing.T) {
				t.Parallel()
				srv := headerPagedServer(t, total, size, func(page int, h http.Header) {
					if page == badPage {
						tt.mangle(h)
					}
				})
				c := hostileClient(t, srv.URL)
				var n int
				var last error
				for _, err := range c.Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: size}}, billing.Prefetch(prefetch)) {
					if err != nil {
						last = err
						break
					}
					n++
				}
				if tt.wantMsg == "" {
					if last != nil || n != total {
						t.Fatalf("got %d items, err %v; want all %d", n, last, total)
					}
					return
				}
				if !errors.Is(last, billing.ErrPagination) || !strings.Contains(last.Error(), tt.wantMsg) {
					t.Fatalf("got %d items then err %v; want ErrPagination naming %s", n, last, tt.wantMsg)
				}
				if n != badPage*size {
					t.Errorf("got %d items before the error, want the %d of the pages before it", n, badPage*size)
				}
			})
		}
	}
}

// A wait the server asks for that is too long to represent saturates: it
// is beyond the policy's cap, so the call is not retried, instead of being
// read as no wait and retried at once.
func TestServerRequestedWaitsSaturate(t *testing.T) {
	t.Parallel()
	huge := []string{"9223372036854775808", "1e300", "1e400", "Inf", "18446744073709551616.5"}
	for _, v := range huge {
		for _, hdr := range []string{"Retry-After", "X-Rate-Limit-Reset-Minute"} {
			t.Run(hdr+"="+v, func(t *testing.T) {
				t.Parallel()
				var hits atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					hits.Add(1)
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set(hdr, v)
					w.Header().Set("X-Rate-Limit-Remaining-Minute", "0")
					w.WriteHeader(http.StatusTooManyRequests)
					_, _ = io.WriteString(w, errorBody(429, "Api Error", "slow down"))
				}))
				t.Cleanup(srv.Close)
				c := hostileClient(t, srv.URL, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: time.Minute}))
				err := noHang(t, func() error { return opGet.call(context.Background(), c) })
				var apiErr *billing.APIError
				if !errors.As(err, &apiErr) || !errors.Is(err, billing.ErrRateLimited) {
					t.Fatalf("err = %v, want the 429's *APIError", err)
				}
				if n := hits.Load(); n != 1 {
					t.Errorf("requests = %d, want 1: a wait beyond the cap ends the retries", n)
				}
				if apiErr.RetryAfter < 24*time.Hour*365 {
					t.Errorf("RetryAfter = %s, want it saturated, not wrapped round", apiErr.RetryAfter)
				}
			})
		}
	}
}

// echoCard is a card number long and distinctive enough not to turn up by
// chance; echoCVV likewise, and the test looks for it only as a whole
// number.
const (
	echoCard = "4929381761045378"
	echoCVV  = "8146"
)

// leaksCard reports whether s holds the card's digits in order, with any
// separators between them.
func leaksCard(s string) bool {
	var digits strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			digits.WriteRune(r)
		} else if !strings.ContainsRune(" -.", r) {
			digits.WriteByte('|')
		}
	}
	return strings.Contains(digits.String(), echoCard)
}

// A card number the server echoes back is scrubbed whatever its grouping,
// from the error, every fmt verb of it and the log; the CVV is scrubbed
// where it stands as a number, and other numbers that contain its digits
// are left alone.
func TestEchoedCardNumberIsScrubbedInAnyFormat(t *testing.T) {
	t.Parallel()
	grouped := "4929 3817 6104 5378"
	echoes := []struct{ name, sent, echo string }{
		{"spaces", echoCard, grouped},
		{"dashes", echoCard, "4929-3817-6104-5378"},
		{"dots", echoCard, "4929.3817.6104.5378"},
		{"mixed", echoCard, "4929 - 3817 - 6104 - 5378"},
		{"plain digits for a spaced number", grouped, echoCard},
		{"grouped differently", grouped, "49293 81761 045378"},
	}
	for _, e := range echoes {
		for _, where := range []string{"envelope", "html", "header"} {
			t.Run(e.name+"/"+where, func(t *testing.T) {
				t.Parallel()
				msg := fmt.Sprintf("card %s with cvv %s refused for invoice 1%s2 of %s.50", e.echo, echoCVV, echoCVV, echoCVV)
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					switch where {
					case "envelope":
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusBadRequest)
						_, _ = io.WriteString(w, errorBody(400, "cardNumber "+e.echo, msg))
					case "html":
						w.Header().Set("Content-Type", "text/html")
						w.WriteHeader(http.StatusBadGateway)
						_, _ = io.WriteString(w, "<html><body>"+msg+"</body></html>")
					case "header":
						w.Header().Set("X-Debug", msg)
						w.WriteHeader(http.StatusConflict)
					}
				}))
				t.Cleanup(srv.Close)
				var logs bytes.Buffer
				c := hostileClient(t, srv.URL, billing.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
				p := secParams()
				p.CardNumber, p.CVV = e.sent, echoCVV
				_, err := c.PaymentMethods.ReplaceCreditCard(context.Background(), &p)
				var apiErr *billing.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("err = %v, want an *APIError", err)
				}
				outs := map[string]string{"log": logs.String()}
				for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
					outs["err "+verb] = fmt.Sprintf(verb, err)
					outs["*APIError "+verb] = fmt.Sprintf(verb, apiErr)
					outs["APIError "+verb] = fmt.Sprintf(verb, *apiErr)
				}
				for what, out := range outs {
					if leaksCard(out) {
						t.Errorf("%s leaks the card number:\n%s", what, out)
					}
					if leaksCVV(out, echoCVV) {
						t.Errorf("%s leaks the CVV:\n%s", what, out)
					}
				}
				// Other numbers stay, even where they contain the CVV's digits.
				if where != "header" && !strings.Contains(err.Error(), "1"+echoCVV+"2") || where != "header" && !strings.Contains(err.Error(), echoCVV+".50") {
					t.Errorf("numbers that merely contain the CVV were scrubbed: %v", err)
				}
			})
		}
	}
}

// heapAfterGC is the live heap.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// sampledBody samples the live heap while the SDK reads a body, every
// step bytes, and keeps the peak.
type sampledBody struct {
	io.ReadCloser
	read, next, step int64
	peak             *uint64
}

func (b *sampledBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.read += int64(n); b.read >= b.next {
		b.next += b.step
		*b.peak = max(*b.peak, heapAfterGC())
	}
	return n, err
}

type sampledTransport struct {
	base http.RoundTripper
	step int64
	peak uint64
}

func (s *sampledTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(r)
	if resp != nil {
		resp.Body = &sampledBody{ReadCloser: resp.Body, next: s.step, step: s.step, peak: &s.peak}
	}
	return resp, err
}

// Reading one resource, or one page, holds little more than the client's
// response limit however long the answer is: a 200 MB answer against a
// 16 MiB limit. Live heap is sampled as the body is read (after a GC), and
// the bytes allocated are counted; both are deterministic enough to bound.
// Not parallel: it measures the process's heap.
func TestMemoryStaysNearTheResponseLimit(t *testing.T) {
	const limit = 16 << 20
	for _, tt := range []struct {
		op     hostileOp
		prefix string
	}{
		{opGet, `{"id":7,"notes":"`},
		{opList, `[{"id":7,"notes":"`},
	} {
		for _, declared := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/Content-Length %v", tt.op.name, declared), func(t *testing.T) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					if declared {
						w.Header().Set("Content-Length", strconv.Itoa(200e6))
					}
					_, _ = io.WriteString(w, tt.prefix)
					_, _ = io.Copy(w, &endless{b: 'a', limit: 200e6 - int64(len(tt.prefix))})
				}))
				defer srv.Close()
				tr := &sampledTransport{base: http.DefaultTransport.(*http.Transport).Clone(), step: 1 << 20}
				defer tr.base.(*http.Transport).CloseIdleConnections()
				c := hostileClient(t, srv.URL, billing.WithHTTPClient(&http.Client{Transport: tr}), billing.WithMaxResponseBytes(limit),
					billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}))

				base := heapAfterGC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				err := tt.op.call(context.Background(), c)
				runtime.ReadMemStats(&after)
				if !errors.Is(err, billing.ErrResponseTooLarge) {
					t.Fatalf("err = %v, want ErrResponseTooLarge", err)
				}
				held := int64(max(tr.peak, base) - base)
				allocated := after.TotalAlloc - before.TotalAlloc
				t.Logf("live heap at most %.1f MiB over the base, %.1f MiB allocated in all (limit %d MiB)", float64(held)/(1<<20), float64(allocated)/(1<<20), limit>>20)
				if held > limit*3/2 {
					t.Errorf("held %d bytes while reading, want at most 1.5x the limit (%d)", held, limit*3/2)
				}
				// Doubling up to the limit allocates twice the limit in all.
				if allocated > limit*21/10 {
					t.Errorf("allocated %d bytes, want at most 2.1x the limit (%d)", allocated, limit*21/10)
				}
				if declared && allocated > limit/10 {
					t.Errorf("allocated %d bytes for an answer that declared its length beyond the limit, want it refused unread", allocated)
				}
			})
		}
	}
}

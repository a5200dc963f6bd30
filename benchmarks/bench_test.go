package benchmarks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/internal/procstat"
	"github.com/billingapi/billing-go/query"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/shopspring/decimal"
)

// noThrottle keeps the fakes' per-key rate limits out of the way of
// benchmarks that send many requests a minute.
var noThrottle = billingtest.WithRateLimit(1_000_000_000, 1_000_000_000)

var (
	bodiesOnce sync.Once
	bodiesVal  bodies
	bodiesErr  error
)

// answerBodies returns the pre-encoded answers of benchmarks (a) and (b),
// built from a generated fake of 2,000 invoices over 10 customers (so that
// one customer has at least 100 invoices).
func answerBodies(tb testing.TB) bodies {
	tb.Helper()
	bodiesOnce.Do(func() { bodiesVal, bodiesErr = buildBodies() })
	if bodiesErr != nil {
		tb.Fatal(bodiesErr)
	}
	return bodiesVal
}

// pageHeaders are the nine X-* paging headers of page 0 of n items of
// size n, as the fake would send them, with the content headers.
func pageHeaders(n, maxCount, bodyLen int) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(bodyLen))
	h.Set("X-Count", strconv.Itoa(n))
	h.Set("X-MaxCount", strconv.Itoa(maxCount))
	h.Set("X-CurrentPage", "0")
	h.Set("X-NextPage", "-1")
	h.Set("X-PreviousPage", "-1")
	h.Set("X-PageSize", strconv.Itoa(n))
	h.Set("X-MaxPageIndex", "1")
	h.Set("X-SortOrder", "Ascending")
	h.Set("X-SortExpression", "id")
	return h
}

var (
	bigOnce sync.Once
	bigFake *billingtest.Server
	bigErr  error
)

// bigServer returns the fake of 100,000 generated invoices that benchmarks
// (c) and (d) share, generated once per process (about a second). It does
// not listen: callers mount its Handler.
func bigServer(tb testing.TB) *billingtest.Server {
	tb.Helper()
	bigOnce.Do(func() {
		bigFake, bigErr = billingtest.NewHandler(billingtest.WithGenerated(billingtest.GenerateOptions{Seed: seed, Invoices: bigTotal}), noThrottle)
		if bigErr == nil {
			bigErr = warmFake(bigFake)
		}
	})
	if bigErr != nil {
		tb.Fatal(bigErr)
	}
	return bigFake
}

// warmFake asks the fake once for every page of GET /v1/Invoices, so
// that its page buffers and indexes are built before anything is timed:
// otherwise whichever benchmark iterates first would pay for them.
func warmFake(fake *billingtest.Server) error {
	for n := 0; n*billingtest.MaxPageSize < bigTotal; n++ {
		req := httptest.NewRequest(http.MethodGet, "/v1/Invoices?pageNumber="+strconv.Itoa(n)+"&pageSize="+strconv.Itoa(billingtest.MaxPageSize), nil)
		req.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
		rec := httptest.NewRecorder()
		fake.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			return fmt.Errorf("warming the fake: page %d answered %d", n, rec.Code)
		}
	}
	return nil
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// BenchmarkListCall is (a): one list call returning 100 invoices with
// their charges, over loopback from an in-process httptest server that
// answers a fixed, pre-encoded body with the nine X-* paging headers. SDK
// is Invoices.ListByCustomer with the default retry policy; Floor is the
// hand-written net/http + encoding/json call of floor_test.go, decoding
// into structs of the same shape, exact decimals and parsed timestamps
// (exactInvoice: the resource types' own UnmarshalJSON is the SDK's
// decoder). Both use the same *http.Client
// (one Transport, the SDK's default per-attempt timeout), and both pay the
// server's per-request work, which is the same for both.
func BenchmarkListCall(b *testing.B) {
	bd := answerBodies(b)
	ts, hc := listServer(b, bd)
	ctx := context.Background()

	b.Run("SDK", func(b *testing.B) {
		c, err := billing.NewClient(billingtest.DefaultAPIKey, billing.WithBaseURL(ts.URL), billing.WithHTTPClient(hc))
		if err != nil {
			b.Fatal(err)
		}
		params := &billing.ListCustomerInvoicesParams{ListOptions: billing.ListOptions{PageSize: listItems}}
		b.ReportAllocs()
		for b.Loop() {
			p, err := c.Invoices.ListByCustomer(ctx, bd.listCustomer, params)
			if err != nil {
				b.Fatal(err)
			}
			if len(p.Items) != listItems || p.Count != listItems {
				b.Fatalf("%d items, X-Count %d", len(p.Items), p.Count)
			}
		}
	})
	b.Run("Floor", func(b *testing.B) {
		f := newFloorClient(ts.URL, hc)
		b.ReportAllocs()
		for b.Loop() {
			p, err := f.listByCustomer(ctx, bd.listCustomer, 0, listItems)
			if err != nil {
				b.Fatal(err)
			}
			if p.Items.Len() != listItems || p.Count != listItems {
				b.Fatalf("%d items, X-Count %d", p.Items.Len(), p.Count)
			}
		}
	})
}

// listServer starts the fixed-answer server of benchmark (a) and returns
// it with the *http.Client both contenders share.
func listServer(tb testing.TB, bd bodies) (*httptest.Server, *http.Client) {
	tb.Helper()
	hdr := pageHeaders(listItems, 2000, len(bd.list))
	prefix := "/v1/Customers/" + strconv.FormatInt(bd.listCustomer, 10) + "/Invoices/"
	auth := "Basic " + billingtest.DefaultAPIKey
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != prefix || r.Header.Get("Authorization") != auth {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		h := w.Header()
		for k, v := range hdr {
			h[k] = v
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(bd.list)
	}))
	tb.Cleanup(ts.Close)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tb.Cleanup(tr.CloseIdleConnections)
	return ts, &http.Client{Transport: tr, Timeout: billing.DefaultTimeout}
}

// newFloorClient is the hand-written client, sending the SDK's headers.
func newFloorClient(baseURL string, hc *http.Client) *floorClient {
	return &floorClient{
		hc:        hc,
		baseURL:   baseURL,
		auth:      "Basic " + billingtest.DefaultAPIKey,
		userAgent: "billing-go/" + billing.Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")",
		item:      exactInvoice(),
	}
}

// BenchmarkDecodePage is (b): decoding one page of 1,000 full invoices
// with their charges (about 3.7 MB of JSON). SDK goes through the SDK's
// real path, Invoices.List, with an in-memory RoundTripper that answers
// the bytes and the paging headers, so it measures the streaming decoder
// with exact decimals and parsed timestamps; building the request is a few
// microseconds against tens of milliseconds of decoding. FloatFloor is
// encoding/json into the float64/string shadow structs of floor_test.go,
// Map is encoding/json into []map[string]any. TokenPass and TokenPassLax
// read every token with the engine's tokenizer and build nothing (see
// tokenPass).
func BenchmarkDecodePage(b *testing.B) {
	bd := answerBodies(b)
	body := bd.page
	ctx := context.Background()

	b.Run("SDK", func(b *testing.B) {
		c := memoryClient(b, body, pageHeaders(decodeItems, 2000, len(body)))
		params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: decodeItems}}
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			p, err := c.Invoices.List(ctx, params)
			if err != nil {
				b.Fatal(err)
			}
			if len(p.Items) != decodeItems {
				b.Fatalf("%d items", len(p.Items))
			}
		}
	})
	b.Run("Before", func(b *testing.B) {
		item := exactInvoice()
		decodeContender(b, body, func(r io.Reader) (reflect.Value, error) { return decodeItemsBefore(item, r) })
	})
	b.Run("FloatFloor", func(b *testing.B) { decodeContender(b, body, decodeJSON(floatInvoice())) })
	for _, pass := range []struct {
		name string
		opts []jsontext.Options
	}{{"TokenPass", nil}, {"TokenPassLax", laxTokenizer}} {
		b.Run(pass.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if n := tokenPass(b, body, pass.opts...); n == 0 {
					b.Fatal("no tokens")
				}
			}
		})
	}
	b.Run("Map", func(b *testing.B) { decodeContender(b, body, decodeJSON(reflect.TypeFor[map[string]any]())) })
}

// decodeContender is a contender of BenchmarkDecodePage that decodes the
// page into a slice of items: it decodes body afresh each iteration and
// fails unless it got decodeItems items.
func decodeContender(b *testing.B, body []byte, decode func(io.Reader) (reflect.Value, error)) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		items, err := decode(bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		if items.Len() != decodeItems {
			b.Fatalf("%d items", items.Len())
		}
	}
}

// decodeJSON is a decoder of a page with encoding/json into a slice of
// item; the types of the floors are built at run time (see shadowOf).
func decodeJSON(item reflect.Type) func(io.Reader) (reflect.Value, error) {
	return func(r io.Reader) (reflect.Value, error) {
		items := reflect.New(reflect.SliceOf(item))
		err := json.NewDecoder(r).Decode(items.Interface())
		return items.Elem(), err
	}
}

// tokenPass reads every token of body with the engine's tokenizer,
// validating it and building nothing. It returns the number of tokens.
//
// With its default options (TokenPass) the tokenizer checks the syntax,
// that strings are valid UTF-8 and that no object repeats a name, which
// takes a set of the names of every object: a third of its instructions
// on DecodePage's page. With laxTokenizer (TokenPassLax), the options the
// SDK decodes with, it checks the syntax only (encoding/json allows
// repeated names, and the SDK checks UTF-8 where it keeps a string): the
// floor of any decoder that reads through this tokenizer as the SDK does.
func tokenPass(tb testing.TB, body []byte, opts ...jsontext.Options) int {
	dec := jsontext.NewDecoder(bytes.NewReader(body), opts...)
	n := 0
	for {
		_, err := dec.ReadToken()
		if err == io.EOF {
			return n
		}
		if err != nil {
			tb.Fatal(err)
		}
		n++
	}
}

// laxTokenizer are the tokenizer options the SDK decodes with
// (internal/jsonwire's decoderOptions).
var laxTokenizer = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// memoryClient is an SDK client whose transport answers every request
// with body and hdr from memory.
func memoryClient(tb testing.TB, body []byte, hdr http.Header) *billing.Client {
	tb.Helper()
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode:    http.StatusOK,
			Status:        "200 OK",
			Proto:         "HTTP/1.1",
			ProtoMajor:    1,
			ProtoMinor:    1,
			Header:        hdr.Clone(),
			Body:          io.NopCloser(bytes.NewReader(body)),
			ContentLength: int64(len(body)),
			Request:       r,
		}, nil
	})
	c, err := billing.NewClient(billingtest.DefaultAPIKey, billing.WithBaseURL("http://127.0.0.1"), billing.WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// requestLatency is the simulated service time of benchmark (c).
const requestLatency = 20 * time.Millisecond

// BenchmarkIterate100k is (c): iterating all 100,000 invoices of the fake
// (GET /v1/Invoices) through an httptest server that sleeps 20 ms before
// the fake answers each request, in pages of 1,000 (the maximum: 100
// requests) and of 100 (the fake's default page size: 1,000 requests).
// Sequential reads one page at a time; Prefetch8 uses billing.Prefetch(8).
// The client is the SDK's default (its pooled transport). Every iteration
// takes more than a second, so each sub-benchmark runs it once per -count
// at the default -benchtime.
func BenchmarkIterate100k(b *testing.B) {
	url, conns := latencyServer(b, bigServer(b).Handler(), requestLatency)
	for _, size := range []int{billingtest.MaxPageSize, billingtest.DefaultPageSize} {
		b.Run("Pages"+strconv.Itoa(size), func(b *testing.B) {
			iterateModes(b, url, conns, size, []iterateMode{
				{"Sequential", func() []billing.IterOption { return nil }},
				{"Prefetch8", func() []billing.IterOption { return []billing.IterOption{billing.Prefetch(8)} }},
			})
		})
	}
}

// iterateMode is a sub-benchmark of iterateModes: the request options of
// one iteration, made afresh for each (a stable iteration needs a new
// cursor).
type iterateMode struct {
	name string
	opts func() []billing.IterOption
}

// iterateModes runs one sub-benchmark per mode, each an iteration of all
// bigTotal invoices from url. Besides the time, each reports invoices/s;
// cpu-s/op, the CPU time the whole process (client, in-process server and
// GC) spent per iteration, so that on a machine of c cores no iteration can
// take less than cpu-s/op ÷ c; and conns/op, the connections the server
// accepted per iteration (a new client starts with none).
func iterateModes(b *testing.B, url string, conns *atomic.Int64, pageSize int, modes []iterateMode) {
	for _, mode := range modes {
		b.Run(mode.name, func(b *testing.B) {
			c := fakeClient(b, url)
			b.ReportAllocs()
			runtime.GC() // the setup's garbage is not the iteration's cost
			conns0 := conns.Load()
			cpu0, cpuOK := procstat.Self()
			busy0, busyOK := procstat.Busy()
			for b.Loop() {
				n := 0
				params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: pageSize}}
				for _, err := range c.Invoices.All(context.Background(), params, mode.opts()...) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != bigTotal {
					b.Fatalf("%d invoices, want %d", n, bigTotal)
				}
			}
			cpu1, _ := procstat.Self()
			busy1, _ := procstat.Busy()
			b.ReportMetric(float64(b.N)*bigTotal/b.Elapsed().Seconds(), "invoices/s")
			b.ReportMetric(float64(conns.Load()-conns0)/float64(b.N), "conns/op")
			if cpuOK {
				cpu := (cpu1 - cpu0).Seconds()
				b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
				// How close the iteration comes to the least time the
				// process's CPU use allows on this machine's cores: 100 is
				// the CPU floor, cpu-s/op ÷ GOMAXPROCS.
				cores := float64(runtime.GOMAXPROCS(0))
				wall := b.Elapsed().Seconds()
				b.ReportMetric(100*cpu/cores/wall, "%cpu-floor")
				if busyOK {
					// The same against the CPU the rest of a shared machine
					// left: cores × wall less what other processes used.
					others := max(0, (busy1-busy0).Seconds()-cpu)
					b.ReportMetric(100*cpu/max(cores*wall-others, cpu), "%cpu-avail")
				}
			}
		})
	}
}

// allParams lists every invoice in pages of the maximum size.
func allParams() *billing.ListInvoicesParams {
	return &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: billingtest.MaxPageSize}}
}

// latencyServer serves h over loopback, sleeping d before each request,
// and returns its URL and a count of the connections it has accepted.
func latencyServer(tb testing.TB, h http.Handler, d time.Duration) (string, *atomic.Int64) {
	tb.Helper()
	conns := new(atomic.Int64)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d > 0 {
			time.Sleep(d)
		}
		h.ServeHTTP(w, r)
	}))
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	ts.Start()
	tb.Cleanup(ts.Close)
	return ts.URL, conns
}

// fakeClient is an SDK client of the fake at url with the SDK's default
// transport and retry policy.
func fakeClient(tb testing.TB, url string) *billing.Client {
	tb.Helper()
	c, err := billing.NewClient(billingtest.DefaultAPIKey, billing.WithBaseURL(url))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkFakeFilteredSortedPage is (d): the fake answering one
// filtered, sorted page (100 invoices, a middle page) of GET /v1/Invoices
// over its 100,000 invoices: posted in a 15-month window, by active
// customers, with a closing AR balance of at least 100, newest first. The
// request goes straight to the fake's Handler with an
// httptest.ResponseRecorder, so the figure is the fake's own work
// (parsing, filtering, sorting, rendering and encoding the page), without
// a network or a client.
func BenchmarkFakeFilteredSortedPage(b *testing.B) {
	srv := bigServer(b)
	uri, count := filteredPageURI(b, srv)
	auth := "Basic " + srv.APIKey()
	h := srv.Handler()
	want := httptest.NewRecorder()
	h.ServeHTTP(want, authorized(httptest.NewRequest(http.MethodGet, uri, nil), auth))
	// Bare is a handler that sends the same bytes and headers: the rate
	// the fake is held against. FakeFirst adds a condition every match
	// meets, new on every request, so that the fake cannot answer from
	// the matches it remembers: the cost of a filter's first page.
	bare := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		maps.Copy(w.Header(), want.Header())
		w.WriteHeader(http.StatusOK)
		w.Write(want.Body.Bytes())
	})
	fresh := 0
	for _, c := range []struct {
		name string
		h    http.Handler
		uri  func() string
	}{
		{"Fake", h, func() string { return uri }},
		{"FakeFirst", h, func() string {
			fresh++
			return withCondition(b, uri, "openingArBalance:-"+strconv.Itoa(1_000_000_000+fresh)+"|")
		}},
		{"Bare", bare, func() string { return uri }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(want.Body.Len()))
			for b.Loop() {
				rec := httptest.NewRecorder()
				c.h.ServeHTTP(rec, authorized(httptest.NewRequest(http.MethodGet, c.uri(), nil), auth))
				if rec.Code != http.StatusOK || rec.Body.Len() != want.Body.Len() {
					b.Fatalf("status %d, %d bytes; want 200, %d", rec.Code, rec.Body.Len(), want.Body.Len())
				}
			}
			b.ReportMetric(float64(count), "matching")
		})
	}
}

// withCondition is uri with cond added to its query parameter's filter.
func withCondition(tb testing.TB, uri, cond string) string {
	u, err := url.Parse(uri)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("query", q.Get("query")+";"+cond)
	u.RawQuery = q.Encode()
	return u.RequestURI()
}

func authorized(r *http.Request, auth string) *http.Request {
	r.Header.Set("Authorization", auth)
	return r
}

// filteredParams is benchmark (d)'s query.
func filteredParams(page int) *billing.ListInvoicesParams {
	return &billing.ListInvoicesParams{
		ListOptions: billing.ListOptions{
			PageNumber: page,
			PageSize:   100,
			Sort:       query.Sort{Field: "postedTimestamp", Order: query.Descending},
		},
		Filter: billing.InvoiceFilter{
			PostedTimestamp: query.TimeRange{
				From: time.Date(2024, time.July, 1, 0, 0, 0, 0, time.UTC),
				To:   time.Date(2025, time.October, 1, 0, 0, 0, 0, time.UTC),
			},
			CustomerStatus:   []billing.CustomerStatus{billing.CustomerStatusActive},
			ClosingArBalance: query.AtLeast(decimal.NewFromInt(100)),
		},
	}
}

// filteredPageURI returns the request URI of the middle page of
// benchmark (d)'s query, as the SDK builds it, and the number of matching
// invoices. It asks the fake for page 0 first, through the SDK, to learn
// the count.
func filteredPageURI(tb testing.TB, srv *billingtest.Server) (string, int) {
	tb.Helper()
	var last string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		last = r.URL.RequestURI()
		if r.Body == nil {
			r = r.Clone(r.Context())
			r.Body = http.NoBody // a client's GET has none; handlers expect one
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, r)
		return rec.Result(), nil
	})
	c, err := billing.NewClient(srv.APIKey(), billing.WithBaseURL("http://127.0.0.1"), billing.WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		tb.Fatal(err)
	}
	first, err := c.Invoices.List(context.Background(), filteredParams(0))
	if err != nil {
		tb.Fatal(err)
	}
	if first.Count < 1000 {
		tb.Fatalf("the filter matches only %d invoices", first.Count)
	}
	mid := (first.Count / 100) / 2
	p, err := c.Invoices.List(context.Background(), filteredParams(mid))
	if err != nil {
		tb.Fatal(err)
	}
	if len(p.Items) != 100 || p.CurrentPage != mid {
		tb.Fatalf("page %d: %d items", p.CurrentPage, len(p.Items))
	}
	return last, first.Count
}

// BenchmarkIterate100kReplay is a diagnostic for (c): the same iteration
// and the same 20 ms per request, but the server replays the fake's
// answers, recorded once, from memory. The fake's own work (rendering and
// encoding 1,000 invoices per page, about 12 ms of CPU) no longer competes with
// the client for the machine's cores, so the figures show how the SDK
// alone scales with Prefetch(8).
func BenchmarkIterate100kReplay(b *testing.B) {
	url, conns := latencyServer(b, replayHandler(recordedPages(b), bigTotal/billingtest.MaxPageSize), requestLatency)
	iterateModes(b, url, conns, billingtest.MaxPageSize, []iterateMode{
		{"Sequential", func() []billing.IterOption { return nil }},
		{"Prefetch8", func() []billing.IterOption { return []billing.IterOption{billing.Prefetch(8)} }},
	})
}

// recording is a fake's answers to GET /v1/Invoices in pages of
// MaxPageSize, in page order.
type recording struct {
	bodies  [][]byte
	headers []http.Header
}

var (
	recordOnce sync.Once
	recorded   *recording
	recordErr  error
)

// recordedPages is every page of the big fake, recorded once per process.
func recordedPages(tb testing.TB) *recording {
	tb.Helper()
	srv := bigServer(tb)
	recordOnce.Do(func() { recorded, recordErr = record(srv, bigTotal) })
	if recordErr != nil {
		tb.Fatal(recordErr)
	}
	return recorded
}

// record asks srv for the first total invoices in pages of MaxPageSize,
// two pages at a time.
func record(srv *billingtest.Server, total int) (*recording, error) {
	pages := (total + billingtest.MaxPageSize - 1) / billingtest.MaxPageSize
	rec := &recording{bodies: make([][]byte, pages), headers: make([]http.Header, pages)}
	errs := make([]error, pages)
	var wg sync.WaitGroup
	work := make(chan int)
	for range 2 {
		wg.Go(func() {
			for n := range work {
				req := httptest.NewRequest(http.MethodGet, "/v1/Invoices?pageNumber="+strconv.Itoa(n)+"&pageSize="+strconv.Itoa(billingtest.MaxPageSize), nil)
				req.Header.Set("Authorization", "Basic "+srv.APIKey())
				w := httptest.NewRecorder()
				srv.Handler().ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					errs[n] = fmt.Errorf("page %d: status %d: %s", n, w.Code, w.Body)
					continue
				}
				rec.bodies[n], rec.headers[n] = w.Body.Bytes(), w.Header()
			}
		})
	}
	for n := range pages {
		work <- n
	}
	close(work)
	wg.Wait()
	return rec, errors.Join(errs...)
}

// replayHandler answers GET /v1/Invoices?pageNumber=n&pageSize=MaxPageSize
// for a list of pages pages: with the recorded page n when the recording
// has it as is; when the recording is shorter, with its page n modulo its
// length, under the paging headers the fake would send for page n of
// pages full pages (consecutive pages still hold different invoices).
// Anything else is a 400, so that a request the recording does not cover
// cannot pass unnoticed.
func replayHandler(rec *recording, pages int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		n, err := strconv.Atoi(q.Get("pageNumber"))
		if r.URL.Path != "/v1/Invoices" || err != nil || n < 0 || n >= pages ||
			q.Get("pageSize") != strconv.Itoa(billingtest.MaxPageSize) || len(q) != 2 {
			http.Error(w, "not in the recording: "+r.URL.String(), http.StatusBadRequest)
			return
		}
		i := n % len(rec.bodies)
		h := w.Header()
		for k, v := range rec.headers[i] {
			h[http.CanonicalHeaderKey(k)] = v // so that h.Set below replaces, not adds
		}
		if pages != len(rec.bodies) {
			next := -1
			if n+1 < pages {
				next = n + 1
			}
			itoa := strconv.Itoa
			h.Set("X-Count", itoa(pages*billingtest.MaxPageSize))
			h.Set("X-MaxCount", itoa(pages*billingtest.MaxPageSize))
			h.Set("X-CurrentPage", itoa(n))
			h.Set("X-NextPage", itoa(next))
			h.Set("X-PreviousPage", itoa(n-1))
			h.Set("X-MaxPageIndex", itoa(pages))
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(rec.bodies[i])
	})
}

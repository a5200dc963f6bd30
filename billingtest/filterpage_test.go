package billingtest_test

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/billingapi/billing-go/billingtest"
)

// filteredQuery is the filtered, sorted list the SDK's benchmark (d) asks
// for: a year and a quarter of posted invoices of active customers with a
// closing balance of at least 100, newest first, 100 a page.
const filteredQuery = "/v1/Invoices?pageSize=100&sortExpression=postedTimestamp&sortOrder=Descending"

var filteredFilter = url.QueryEscape("postedTimestamp:2024-07-01|2025-10-01;Customer.Status:Active;closingArBalance:100|")

// recorded is an answer as the fake gave it.
type recorded struct {
	header http.Header
	body   []byte
}

// middlePage returns the path of the middle page of the filtered query
// and the fake's answer to it.
func middlePage(tb testing.TB, srv *billingtest.Server) (string, recorded) {
	tb.Helper()
	do := func(path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "http://fake"+path, nil)
		r.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			tb.Fatalf("GET %s: status %d: %s", path, w.Code, w.Body)
		}
		return w
	}
	first := do(filteredQuery + "&query=" + filteredFilter)
	count, err := strconv.Atoi(first.Header().Get("X-Count"))
	if err != nil || count < 1000 {
		tb.Fatalf("X-Count %q: the filter should match at least 1,000 invoices", first.Header().Get("X-Count"))
	}
	path := filteredQuery + "&pageNumber=" + strconv.Itoa(count/100/2) + "&query=" + filteredFilter
	w := do(path)
	return path, recorded{header: w.Header().Clone(), body: w.Body.Bytes()}
}

// BenchmarkFilteredPage compares the fake answering the middle page of
// the filtered, sorted query (Fake) with a handler that writes the same
// recorded headers and body (Bare), over 10k invoices and, with
// -fake.big, 100k and 1M (which takes a minute and over a gigabyte to
// generate). Their ratio is the fake's cost of finding the page;
// FakeFirst is the fake answering a filter it has not seen before:
//
//	go test ./billingtest -run '^$' -bench FilteredPage -fake.big
//
// On a shared machine, count instructions instead of time: one P and no
// collector make the count the same run to run, and two runs 40 pages
// apart give the cost of a page (allocations: add -test.benchmem).
//
//	go test -c -o /tmp/bt.test ./billingtest
//	GOMAXPROCS=1 GOGC=off valgrind --tool=callgrind /tmp/bt.test \
//		-test.run '^$' -test.bench 'FilteredPage/100k/Fake$' -test.benchtime 5x -fake.big
//	(the same with -test.benchtime 45x; subtract, divide by 40)
func BenchmarkFilteredPage(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}} {
		n := size.n
		b.Run(size.name, func(b *testing.B) {
			var srv *billingtest.Server
			if n <= 10_000 {
				srv = genServer(b, n)
			} else {
				srv = bigServer(b, n)
			}
			path, want := middlePage(b, srv)
			bare := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				maps.Copy(w.Header(), want.header)
				w.WriteHeader(http.StatusOK)
				w.Write(want.body)
			})
			// FakeFirst asks for the page with a filter the fake has not
			// seen (one more condition that every match meets, different
			// each time): the cost of a first page, which counts the
			// matches of the key range.
			i := 0
			first := func() string {
				i++
				return path + url.QueryEscape(";closingArBalance:-"+strconv.Itoa(i)+"|")
			}
			for _, c := range []struct {
				name string
				h    http.Handler
				path func() string
			}{
				{"Fake", srv, func() string { return path }},
				{"FakeFirst", srv, first},
				{"Bare", bare, func() string { return path }},
			} {
				b.Run(c.name, func(b *testing.B) {
					b.SetBytes(int64(len(want.body)))
					for b.Loop() {
						r := httptest.NewRequest(http.MethodGet, "http://fake"+c.path(), nil)
						r.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
						w := &discard{header: http.Header{}}
						c.h.ServeHTTP(w, r)
						if w.status != http.StatusOK || w.n != len(want.body) {
							b.Fatalf("status %d, %d bytes; want 200, %d", w.status, w.n, len(want.body))
						}
					}
				})
			}
		})
	}
}

// genServer is a fake with n generated invoices, without the rate limits
// and request log that would measure themselves; bigServer is the same
// behind the -fake.big flag.
func genServer(tb testing.TB, n int) *billingtest.Server {
	tb.Helper()
	srv, err := billingtest.NewHandler(
		billingtest.WithGenerated(billingtest.GenerateOptions{Seed: 1, Invoices: n}),
		billingtest.WithRateLimit(1_000_000_000, 1_000_000_000),
		billingtest.WithRequestLogLimit(1),
	)
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

package billing_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/billingapi/billing-go"
)

// Paging headers a hostile or broken server sends: a header that cannot be
// read ends an iteration with an error, never early in silence.

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

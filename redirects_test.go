package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/billingapi/billing-go"
)

// Redirects: a read follows one within the API's host; a redirect to
// another host is refused before anything reaches it; a write follows
// none; a loop is final.

func TestRedirectToAnotherHostIsRefused(t *testing.T) {
	t.Parallel()
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization") + "|reached")
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer srv.Close()
	err := readInvoice(newLoopbackClient(t, srv.URL))
	if err == nil {
		t.Fatal("want an error for a cross-host redirect")
	}
	if v := leaked.Load(); v != nil {
		t.Errorf("the other host was reached: %v", v)
	}
}

// A redirect to another host is refused before anything is sent there, so
// the other host never sees the API key (or a write's body); a redirect
// within the API's host is followed.
func TestHostileRedirects(t *testing.T) {
	t.Parallel()
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

// A same-host redirect loop is final: the attempt that meets it stops
// after 10 redirects, and the call is not retried as if the network had
// failed, so a read with MaxRetries 2 sends 10 requests, not 30.
func TestRedirectLoopIsFinal(t *testing.T) {
	t.Parallel()
	doGet := hostileOp{name: "Client.Do", call: func(ctx context.Context, c *billing.Client) error {
		var out json.RawMessage
		_, err := c.Do(ctx, &billing.Request{Method: http.MethodGet, Path: "/v1/Customers/42"}, &out)
		return err
	}}
	loops := []struct {
		name string
		next func(path string) string
	}{
		{"to itself", func(path string) string { return path }},
		{"between two places", func(path string) string {
			if strings.HasSuffix(path, "/") {
				return strings.TrimSuffix(path, "/")
			}
			return path + "/"
		}},
	}
	for _, op := range []hostileOp{opGet, opList, opPDF, doGet} {
		for _, loop := range loops {
			t.Run(op.name+"/"+loop.name, func(t *testing.T) {
				t.Parallel()
				var requests atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					requests.Add(1)
					http.Redirect(w, r, loop.next(r.URL.Path), http.StatusFound)
				}))
				t.Cleanup(srv.Close)
				c := hostileClient(t, srv.URL, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}))
				err := noHang(t, func() error { return op.call(context.Background(), c) })
				var reqErr *billing.RequestError
				if !errors.As(err, &reqErr) || reqErr.Attempts != 1 || !strings.Contains(err.Error(), "redirect loop") {
					t.Errorf("err = %v (%T), want a *RequestError after 1 attempt that says it met a redirect loop", err, err)
				}
				if errors.Is(err, billing.ErrOutcomeUnknown) {
					t.Errorf("a read's error matches ErrOutcomeUnknown: %v", err)
				}
				if n := requests.Load(); n != 10 {
					t.Errorf("the server received %d requests, want 10: the first and 9 redirects followed, and no retry", n)
				}
			})
		}
	}
}

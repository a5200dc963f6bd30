package billing_test

import (
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
)

// WithHTTPClient keeps the caller's client and reads it at each call,
// never a copy: what the caller changes after NewClient applies to the
// next call, and the SDK changes nothing of it. (Tests that replace
// http.DefaultTransport, which no parallel test may do, are in
// internal/httpmockwiring.)

// newClientOn builds a client on hc with retries off.
func newClientOn(t *testing.T, hc *http.Client, opts ...billing.Option) *billing.Client {
	t.Helper()
	c, err := billing.NewClient(testKey, append([]billing.Option{
		billing.WithBaseURL(testBaseURL),
		billing.WithHTTPClient(hc),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mockReadAndWrite is a mock answering Invoices.Get(7) and a write-off.
func mockReadAndWrite() *httpmock.MockTransport {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, testBaseURL+"/v1/Invoices/7", httpmock.NewStringResponder(200, `{"id":7}`))
	mt.RegisterResponder(http.MethodPost, testBaseURL+"/v1/invoices/writeoff", httpmock.NewStringResponder(200, `{"id":7}`))
	return mt
}

func readAndWrite(t *testing.T, c *billing.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if inv, err := c.Invoices.Get(ctx, 7, nil); err != nil || inv.ID != 7 {
		t.Fatalf("Get = %+v, %v", inv, err)
	}
	amount := decimal.NewFromInt(1)
	if inv, err := c.Invoices.WriteOff(ctx, &billing.WriteOffParams{InvoiceID: 7, Amount: &amount}); err != nil || inv.ID != 7 {
		t.Fatalf("WriteOff = %+v, %v", inv, err)
	}
}

// A transport put in the caller's client after NewClient takes the next
// reads and writes, and the one before it none of them; back again, it
// takes them again.
func TestWithHTTPClientTransportIsReadAtEachRequest(t *testing.T) {
	t.Parallel()
	first, second := mockReadAndWrite(), mockReadAndWrite()
	hc := &http.Client{Transport: first}
	c := newClientOn(t, hc)
	for i, step := range []struct {
		use                *httpmock.MockTransport
		wantFirst, wantSec int
	}{
		{first, 2, 0},
		{second, 2, 2},
		{first, 4, 2},
	} {
		hc.Transport = step.use
		readAndWrite(t, c)
		if f, s := first.GetTotalCallCount(), second.GetTotalCallCount(); f != step.wantFirst || s != step.wantSec {
			t.Errorf("step %d: calls %d and %d, want %d and %d", i, f, s, step.wantFirst, step.wantSec)
		}
	}
}

// The caller's Jar, CheckRedirect and Timeout, set after NewClient, apply
// to the next call; and the SDK changes none of the client's fields.
func TestWithHTTPClientSettingsAreReadAtEachCall(t *testing.T) {
	t.Parallel()
	// hangGuard bounds a subtest's calls; the errors must be the client's.
	hangGuard := func(t *testing.T) context.Context {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		t.Cleanup(cancel)
		return ctx
	}

	t.Run("Jar", func(t *testing.T) {
		t.Parallel()
		ctx := hangGuard(t)
		mt := httpmock.NewMockTransport()
		var cookies []string
		mt.RegisterResponder(http.MethodGet, testBaseURL+"/v1/Invoices/1", func(req *http.Request) (*http.Response, error) {
			cookies = append(cookies, req.Header.Get("Cookie"))
			resp := httpmock.NewStringResponse(200, `{"id":1}`)
			resp.Header.Set("Set-Cookie", "session=abc; Path=/")
			return resp, nil
		})
		hc := &http.Client{Transport: mt}
		c := newClientOn(t, hc)
		jar, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		// The first answer's cookie is lost (no jar yet); the second's
		// is kept in the jar set after the first call, and sent by the third.
		for range 3 {
			if _, err := c.Invoices.Get(ctx, 1, nil); err != nil {
				t.Fatal(err)
			}
			hc.Jar = jar
		}
		if want := []string{"", "", "session=abc"}; !slices.Equal(cookies, want) {
			t.Errorf("Cookie headers %q, want %q", cookies, want)
		}
	})

	t.Run("CheckRedirect", func(t *testing.T) {
		t.Parallel()
		ctx := hangGuard(t)
		mt := httpmock.NewMockTransport()
		mt.RegisterResponder(http.MethodGet, testBaseURL+"/v1/Invoices/1", func(req *http.Request) (*http.Response, error) {
			resp := httpmock.NewStringResponse(http.StatusFound, "")
			resp.Header.Set("Location", testBaseURL+"/v1/Invoices/1/again")
			return resp, nil
		})
		mt.RegisterResponder(http.MethodGet, testBaseURL+"/v1/Invoices/1/again", httpmock.NewStringResponder(200, `{"id":1}`))
		hc := &http.Client{Transport: mt}
		c := newClientOn(t, hc)
		if _, err := c.Invoices.Get(ctx, 1, nil); err != nil {
			t.Fatalf("before: %v", err)
		}
		errRefused := errors.New("the caller refuses redirects")
		hc.CheckRedirect = func(*http.Request, []*http.Request) error { return errRefused }
		if _, err := c.Invoices.Get(ctx, 1, nil); !errors.Is(err, errRefused) {
			t.Errorf("after: %v, want the caller's refusal", err)
		}
	})

	t.Run("Timeout", func(t *testing.T) {
		t.Parallel()
		ctx := hangGuard(t)
		mt := httpmock.NewMockTransport()
		mt.RegisterResponder(http.MethodGet, testBaseURL+"/v1/Invoices/1", func(req *http.Request) (*http.Response, error) {
			<-req.Context().Done() // answers only when the client gives up
			return nil, req.Context().Err()
		})
		hc := &http.Client{Transport: mt}
		c := newClientOn(t, hc)
		hc.Timeout = 20 * time.Millisecond // after NewClient
		if _, err := c.Invoices.Get(ctx, 1, nil); !isTimeout(err) || ctx.Err() != nil {
			t.Errorf("err = %v, want the caller's timeout", err)
		}
	})

	t.Run("unchanged", func(t *testing.T) {
		t.Parallel()
		mt := mockReadAndWrite()
		hc := &http.Client{Transport: mt, Timeout: time.Hour}
		c := newClientOn(t, hc, billing.WithTimeout(time.Minute))
		readAndWrite(t, c)
		if hc.Transport != mt || hc.CheckRedirect != nil || hc.Jar != nil || hc.Timeout != time.Hour {
			t.Errorf("the caller's client was changed: %+v", hc)
		}
	})
}

// A mock with no responder for a request is a mistake in the test, not a
// passing network failure: the call fails on its first attempt, with
// httpmock's message, instead of retrying through its backoff.
func TestAMockWithNoResponderFailsAtOnce(t *testing.T) {
	t.Parallel()
	var attempts int
	c, err := billing.NewClient(testKey,
		billing.WithBaseURL(testBaseURL),
		billing.WithHTTPClient(&http.Client{Transport: httpmock.NewMockTransport()}),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 3, MinBackoff: time.Hour, MaxBackoff: time.Hour}),
		billing.WithAttemptObserver(func(context.Context, billing.Attempt) { attempts++ }),
	)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Invoices.Get(context.Background(), 7, nil)
	var reqErr *billing.RequestError
	if !errors.As(err, &reqErr) || !strings.Contains(err.Error(), "no responder found") {
		t.Fatalf("err = %v, want a *RequestError saying httpmock has no responder", err)
	}
	if attempts != 1 {
		t.Errorf("%d attempts, want 1", attempts)
	}
}

// A responder that hands every call the same header map (httpmock's
// JSON responders do) is shared safely by calls running at once: the
// SDK files and scrubs the headers of its own copy. Run with -race.
func TestAResponderSharingItsHeaderMapServesConcurrentCalls(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	shared := http.Header{"Content-Type": {"application/json"}, "x-count": {"1"}, "X-Echo": {"Basic " + testKey}}
	mt.RegisterRegexpResponder(http.MethodGet, regexp.MustCompile(`/v1/Invoices`), func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: shared, Body: io.NopCloser(strings.NewReader(`[{"id":1}]`))}, nil
	})
	c := newClientOn(t, &http.Client{Transport: mt})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				var captured billing.Response
				page, err := c.Invoices.List(context.Background(), nil, billing.CaptureResponse(&captured))
				if err != nil || len(page.Items) != 1 || page.Count != 1 || captured.Header.Get("X-Echo") != "Basic [REDACTED]" {
					t.Errorf("List = %+v, %v; captured %v", page, err, captured.Header)
					return
				}
			}
		})
	}
	wg.Wait()
	if want := (http.Header{"Content-Type": {"application/json"}, "x-count": {"1"}, "X-Echo": {"Basic " + testKey}}); !maps.EqualFunc(shared, want, slices.Equal) {
		t.Errorf("the responder's header map became %v, want it untouched", shared)
	}
}

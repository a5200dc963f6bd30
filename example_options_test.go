package billing_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"sync/atomic"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/shopspring/decimal"
)

// Prefetch(n) makes an iterator fetch up to n pages ahead at once, which
// pays off when paging through many invoices. Items still come in order,
// exactly as without it.
func ExamplePrefetch() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount()) // nine invoices
	defer srv.Close()
	c := srv.Client()

	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 2}}
	var ids []int64
	total := decimal.Zero
	for inv, err := range c.Invoices.All(context.Background(), params, billing.Prefetch(4)) {
		if err != nil {
			log.Fatal(err) // the iteration stops after an error
		}
		ids = append(ids, inv.ID)
		total = total.Add(inv.InvoiceAmount)
	}
	fmt.Println(ids)
	fmt.Println("total", total, "in", len(srv.Requests()), "requests")
	// Output:
	// [1000 1001 1002 1003 1004 1005 1006 1007 1008]
	// total 2258 in 5 requests
}

// CaptureResponse keeps the HTTP answer of a call, successful or not: its
// status, headers and the rate-limit headers, decoded. Here the fake
// allows 60 requests a minute.
func ExampleCaptureResponse() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount(), billingtest.WithRateLimit(60, 10_000))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	var resp billing.Response
	if _, err := c.Invoices.Get(ctx, 1005, nil, billing.CaptureResponse(&resp)); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))
	fmt.Println("this minute:", resp.RateLimit.Minute.Remaining, "of", resp.RateLimit.Minute.Limit, "left")

	_, err := c.Invoices.Get(ctx, 4242, nil, billing.CaptureResponse(&resp))
	fmt.Println(errors.Is(err, billing.ErrNotFound), resp.StatusCode, "this minute:", resp.RateLimit.Minute.Remaining, "left")
	// Output:
	// 200 application/json; charset=utf-8
	// this minute: 59 of 60 left
	// true 404 this minute: 58 left
}

// correlatingTransport is an http.RoundTripper that counts requests and
// gives each one a correlation id, then sends it with next.
type correlatingTransport struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (t *correlatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	n := t.n.Add(1)
	req = req.Clone(req.Context()) // a RoundTripper must not change the caller's request
	req.Header.Set("X-Correlation-Id", fmt.Sprintf("invoice-sync-%d", n))
	return t.next.RoundTrip(req)
}

// WithHTTPClient sends the SDK's requests through your own http.Client:
// here one whose transport counts requests and adds a correlation header.
// The SDK keeps its own authentication, retries and errors on top.
func ExampleWithHTTPClient() {
	srv := billingtest.NewServer(billingtest.WithSampleAccount())
	defer srv.Close()

	transport := &correlatingTransport{next: http.DefaultTransport}
	c, err := billing.NewClient(srv.APIKey(),
		billing.WithBaseURL(srv.URL),
		billing.WithHTTPClient(&http.Client{Transport: transport, Timeout: 30 * time.Second}),
	)
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range []int64{1005, 1005} {
		if _, err := c.Invoices.Get(context.Background(), id, nil); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("requests sent:", transport.n.Load())
	for _, r := range srv.Requests() {
		fmt.Println(r.Method, r.Path, r.Header.Get("X-Correlation-Id"))
	}
	// Output:
	// requests sent: 2
	// GET /v1/Invoices/1005 invoice-sync-1
	// GET /v1/Invoices/1005 invoice-sync-2
}

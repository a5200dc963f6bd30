package billing_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/query"
)

// Client.Do calls an endpoint the SDK does not wrap, here the service's
// customer list, with the client's authentication, retries, typed errors
// and logging. The answer decodes into the caller's own type, and the
// response's Page reads the paging headers.
func ExampleClient_Do() {
	// A stand-in for the live service's GET /v1/Customers.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header()["X-Count"] = []string{"3"}
		w.Header()["X-NextPage"] = []string{"1"}
		_, _ = io.WriteString(w, `[{"id":7,"lastName":"Lovelace"},{"id":9,"lastName":"Lovell"}]`)
	}))
	defer srv.Close()

	c, err := billing.NewClient("billingtest-key", billing.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	type customer struct {
		ID       int64  `json:"id"`
		LastName string `json:"lastName"`
	}
	var page []customer
	resp, err := c.Do(context.Background(), &billing.Request{
		Method: "GET",
		Path:   "/v1/Customers",
		Query: url.Values{
			"pageSize": {"2"},
			"query":    {query.Expr{query.CondStartsWith("lastName", "Lov")}.String()},
		},
	}, &page)
	if err != nil {
		log.Fatal(err)
	}
	info, err := resp.Page()
	if err != nil {
		log.Fatal(err)
	}
	for _, cu := range page {
		fmt.Println(cu.ID, cu.LastName)
	}
	fmt.Printf("%d of %d, next page %d\n", len(page), info.Count, info.NextPage)
	// Output:
	// 7 Lovelace
	// 9 Lovell
	// 2 of 3, next page 1
}

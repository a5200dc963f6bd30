package billingtest_test

import (
	"context"
	"fmt"
	"net/http"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// An application's call to an endpoint the SDK does not wrap, through
// Client.Do, tested on the fake: the route is added, fails once with an
// injected 503 that the client retries, and is logged like any other.
func ExampleServer_HandleFunc() {
	srv := billingtest.NewServer()
	defer srv.Close()
	route, err := srv.HandleFunc(http.MethodGet, "/v1/Customers/{customerId}/Payments", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `[{"customerId":%q,"amount":9.99}]`, r.PathValue("customerId"))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := srv.InjectFault(route, billingtest.Fault{Status: http.StatusServiceUnavailable}); err != nil {
		fmt.Println(err)
		return
	}

	var payments []struct {
		CustomerID string  `json:"customerId"`
		Amount     float64 `json:"amount"`
	}
	_, err = srv.Client().Do(context.Background(), &billing.Request{Method: http.MethodGet, Path: "/v1/customers/42/payments"}, &payments)
	fmt.Println(payments, err)
	for _, r := range srv.Requests() {
		fmt.Println(r.Method, r.Path, r.Status)
	}
	// Output:
	// [{42 9.99}] <nil>
	// GET /v1/customers/42/payments 503
	// GET /v1/customers/42/payments 200
}

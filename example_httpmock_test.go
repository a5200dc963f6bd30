package billing_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	billing "github.com/billingapi/billing-go"
	"github.com/jarcoal/httpmock"
)

// httpmock.Activate mocks every client built on the default transport,
// this one included, whether it is called before or after NewClient: the
// client looks at http.DefaultTransport when each request goes out. No
// request reaches the network.
func ExampleNewClient_httpmock() {
	httpmock.Activate()
	defer httpmock.DeactivateAndReset()
	httpmock.RegisterResponder(http.MethodGet, "https://billing.example.com/v1/Invoices/42",
		httpmock.NewStringResponder(200, `{"id":42,"poNumber":"PO-7"}`))

	c, err := billing.NewClient("my-api-key", billing.WithBaseURL("https://billing.example.com"))
	if err != nil {
		log.Fatal(err)
	}
	inv, err := c.Invoices.Get(context.Background(), 42, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("invoice", inv.ID, *inv.PoNumber)
	fmt.Println("mocked calls:", httpmock.GetCallCountInfo()["GET https://billing.example.com/v1/Invoices/42"])
	// Output:
	// invoice 42 PO-7
	// mocked calls: 1
}

// The client keeps the http.Client given to WithHTTPClient and reads its
// Transport when each request goes out, so httpmock.ActivateNonDefault on
// it works after NewClient too, for reads and writes alike.
func ExampleWithHTTPClient_httpmock() {
	hc := &http.Client{}
	c, err := billing.NewClient("my-api-key", billing.WithBaseURL("https://billing.example.com"), billing.WithHTTPClient(hc))
	if err != nil {
		log.Fatal(err)
	}

	httpmock.ActivateNonDefault(hc) // after NewClient
	defer httpmock.DeactivateAndReset()
	httpmock.RegisterResponder(http.MethodGet, "https://billing.example.com/v1/Invoices/42",
		httpmock.NewStringResponder(200, `{"id":42}`))

	inv, err := c.Invoices.Get(context.Background(), 42, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("invoice", inv.ID, "mocked calls:", httpmock.GetCallCountInfo()["GET https://billing.example.com/v1/Invoices/42"])
	// Output: invoice 42 mocked calls: 1
}

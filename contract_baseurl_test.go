package billing_test

import (
	"cmp"
	"net/http"
	"os"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// Every operation of the table, every list's iterators and count, and the
// error answers, sent to the service at BILLING_CONTRACT_BASE_URL: a
// billing-fake seeded with the sample account (-fixtures
// billingtest/sampleaccount.json), or a validating proxy such as Prism in
// front of one, as CI runs it (.ci/contract.sh). Requests and answers are
// held to openapi.yaml here too. The key is BILLING_CONTRACT_API_KEY, the
// fake's default key when unset. Without BILLING_CONTRACT_BASE_URL there
// is no service to call: TestContractEveryOperationAgainstTheFake runs
// the same operations against the in-process fake.
func TestContractEveryOperationAtBaseURL(t *testing.T) {
	t.Parallel()
	base := os.Getenv("BILLING_CONTRACT_BASE_URL")
	if base == "" {
		t.Skip("BILLING_CONTRACT_BASE_URL is not set (CI sets it to Prism in front of billing-fake)")
	}
	key := cmp.Or(os.Getenv("BILLING_CONTRACT_API_KEY"), billingtest.DefaultAPIKey)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	client := func(key string) *billing.Client {
		c, err := billing.NewClient(key, billing.WithBaseURL(base),
			billing.WithHTTPClient(&http.Client{Transport: contractTransport(t, tr)}),
			billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := client(key)
	for _, op := range apiOperations() {
		if op.call != nil {
			t.Run(op.name, func(t *testing.T) { contractRunOperation(t, c, op) })
		}
	}
	contractErrorCalls(t, c, client("not-the-key"))
}

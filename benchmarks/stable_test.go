package benchmarks

import (
	"context"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// BenchmarkStable100k iterates all 100,000 invoices of the shared fake in
// stable mode (billing.Stable: keyed on postedTimestamp, pages of 1,000),
// through the same 20 ms latency server as BenchmarkIterate100k:
// StableSequential one request at a time, StablePrefetch8 with
// billing.Prefetch(8), which splits the key range into windows read
// concurrently. The sub-benchmarks alternate within each -count round, so
// that their ratio compares like with like.
func BenchmarkStable100k(b *testing.B) {
	url, _ := latencyServer(b, bigServer(b).Handler(), requestLatency)
	for _, bc := range []struct {
		name     string
		prefetch int
	}{
		{"StableSequential", 0},
		{"StablePrefetch8", 8},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := fakeClient(b, url)
			for b.Loop() {
				var cur billing.Cursor
				opts := []billing.RequestOption{billing.Stable(&cur)}
				if bc.prefetch > 0 {
					opts = append(opts, billing.Prefetch(bc.prefetch))
				}
				params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: billingtest.MaxPageSize}}
				n := 0
				for _, err := range c.Invoices.All(context.Background(), params, opts...) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != bigTotal {
					b.Fatalf("%d invoices, want %d", n, bigTotal)
				}
			}
			b.ReportMetric(float64(b.N)*bigTotal/b.Elapsed().Seconds(), "invoices/s")
		})
	}
}

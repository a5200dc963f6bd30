package benchmarks

import (
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// BenchmarkStable100k iterates all 100,000 invoices of the shared fake in
// stable mode (billing.Stable: keyed on postedTimestamp, pages of 1,000),
// through the same 20 ms latency server as BenchmarkIterate100k, with the
// same metrics: StableSequential one request at a time, StablePrefetch8
// with billing.Prefetch(8), which splits the key range into windows read
// concurrently. Each iteration starts from a new cursor.
func BenchmarkStable100k(b *testing.B) {
	url, conns := latencyServer(b, bigServer(b).Handler(), requestLatency)
	stable := func(extra ...billing.IterOption) func() []billing.IterOption {
		return func() []billing.IterOption {
			return append([]billing.IterOption{billing.Stable(new(billing.Cursor))}, extra...)
		}
	}
	iterateModes(b, url, conns, billingtest.MaxPageSize, []iterateMode{
		{"StableSequential", stable()},
		{"StablePrefetch8", stable(billing.Prefetch(8))},
	})
}

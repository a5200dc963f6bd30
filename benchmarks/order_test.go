package benchmarks

import (
	"context"
	"slices"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// TestPrefetchYieldsSameItemsInSameOrder is the correctness half of target
// (c): iterating with Prefetch(8) yields exactly the ids a sequential
// iteration yields, in the same order, and as many as X-Count says. It
// uses a small fake (5,000 invoices, pages of 100, no latency) so that it
// runs in every `go test`.
func TestPrefetchYieldsSameItemsInSameOrder(t *testing.T) {
	t.Parallel()
	const total, size = 5000, 100
	srv := billingtest.NewServer(billingtest.WithGenerated(billingtest.GenerateOptions{Seed: seed, Invoices: total}))
	t.Cleanup(srv.Close)
	c := srv.Client()
	ctx := context.Background()
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: size}}

	count, err := c.Invoices.Count(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if count != total {
		t.Fatalf("X-Count = %d, want %d", count, total)
	}

	ids := func(opts ...billing.IterOption) []int64 {
		t.Helper()
		var out []int64
		for inv, err := range c.Invoices.All(ctx, params, opts...) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, inv.ID)
		}
		return out
	}
	seq := ids()
	pre := ids(billing.Prefetch(8))

	if len(seq) != count {
		t.Errorf("sequential yielded %d invoices, X-Count is %d", len(seq), count)
	}
	if len(pre) != count {
		t.Errorf("Prefetch(8) yielded %d invoices, X-Count is %d", len(pre), count)
	}
	if !slices.IsSorted(seq) || len(slices.Compact(slices.Clone(seq))) != len(seq) {
		t.Errorf("sequential ids are not strictly ascending: the fake's default order is by id")
	}
	if i := firstDiff(seq, pre); i >= 0 {
		t.Fatalf("Prefetch(8) differs from sequential at item %d of %d/%d", i, len(seq), len(pre))
	}
}

// firstDiff is the index of the first difference between a and b, or -1
// when they are equal.
func firstDiff(a, b []int64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

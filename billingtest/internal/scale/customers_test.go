package scale

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/shopspring/decimal"
)

// cacheCustomer is a customer whose values fit a customerBlock, or, with
// a long company name, do not.
func cacheCustomer(id int64, company string) *seed.Customer {
	at := time.Date(2024, 3, 1, 2, 0, 0, 123456700, time.UTC)
	return &seed.Customer{ID: id, FirstName: "Ada", LastName: "Lovelace", CompanyName: company,
		PrimaryEmail: "ada@example.com", Reference: "C-7", Status: "Active", AccountStatus: "Good",
		MonthlyRecurringRevenue: decimal.New(123456, -2), CreatedTimestamp: at, ModifiedTimestamp: at.Add(time.Hour)}
}

// snapshotOf is what the list of all invoices writes of enc.
func snapshotOf(enc encodedCustomer) string {
	return string(enc.appendReference(enc.appendSnapshot(nil)))
}

// TestCustomerCacheServesTheCustomerAsked checks that each get answers
// the encoding of the customer it is given, in a block or spilled, across
// changes of the customer between the two and from one slot to another.
func TestCustomerCacheServesTheCustomerAsked(t *testing.T) {
	t.Parallel()
	short := cacheCustomer(7, "Analytical Engines")
	long := cacheCustomer(7, strings.Repeat("Difference Engines ", 30))
	other := cacheCustomer(8, "Jacquard Looms")
	var c customerCache
	s7, s8 := c.slot(7), c.slot(8)
	if again := c.slot(7); again != s7 || s7 == s8 {
		t.Fatalf("slots 7, 8, 7 again: %d, %d, %d; want the first and last equal, the second different", s7, s8, again)
	}
	for _, step := range []struct {
		slot int32
		cust *seed.Customer
	}{
		{s7, short}, {s7, short}, // filled, then served as filled
		{s8, other},
		{s7, long}, {s7, long}, // spilled: too long for a block
		{s7, short}, // back in the block
		{s7, nil},   // an invoice without a customer
		{s8, other},
	} {
		if got, want := snapshotOf(c.get(step.slot, step.cust)), snapshotOf(encodeCustomer(nil, step.cust)); got != want {
			t.Errorf("get(%d, customer %v):\n got %s\nwant %s", step.slot, step.cust != nil, got, want)
		}
	}
	if n := len(encodeCustomer(nil, long).values); n <= blockValues {
		t.Errorf("the long customer's values take %d bytes, which fit a block of %d: the spill is not tested", n, blockValues)
	}
}

// TestCustomerCacheConcurrentFill checks, under the race detector, that
// readers may fill and read the same entries at once, as the fake's
// readers do under its read lock.
func TestCustomerCacheConcurrentFill(t *testing.T) {
	t.Parallel()
	var c customerCache
	custs := make([]*seed.Customer, 3*customerChunkLen/2) // two chunks
	for i := range custs {
		custs[i] = cacheCustomer(int64(i+1), strings.Repeat("x", i%400)) // some spill
		c.slot(custs[i].ID)
	}
	want := make([]string, len(custs))
	for i, cust := range custs {
		want[i] = snapshotOf(encodeCustomer(nil, cust))
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i, cust := range custs {
				if got := snapshotOf(c.get(int32(i), cust)); got != want[i] {
					t.Errorf("customer %d: got %s, want %s", cust.ID, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}

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

// TestCustomerCacheServesTheFakesCustomer checks that each get answers
// the encoding of the customer the fake holds, in a block or spilled,
// looking it up once a version: within a version no customer changes, and
// every change comes with a new one.
func TestCustomerCacheServesTheFakesCustomer(t *testing.T) {
	t.Parallel()
	short := cacheCustomer(7, "Analytical Engines")
	long := cacheCustomer(7, strings.Repeat("Difference Engines ", 30))
	other := cacheCustomer(8, "Jacquard Looms")
	if n := len(encodeCustomer(nil, long).values); n <= blockValues {
		t.Fatalf("the long customer's values take %d bytes, which fit a block of %d: the spill is not tested", n, blockValues)
	}
	held := map[int64]*seed.Customer{8: other}
	lookups := 0
	lookup := func(id int64) *seed.Customer {
		lookups++
		return held[id]
	}
	var c customerCache
	s7, s8 := c.slot(7), c.slot(8)
	if again := c.slot(7); again != s7 || s7 == s8 {
		t.Fatalf("slots 7, 8, 7 again: %d, %d, %d; want the first and last equal, the second different", s7, s8, again)
	}
	for _, step := range []struct {
		name    string
		version uint64
		slot    int32
		id      int64
		now     *seed.Customer // customer id's, set before the step
		lookups int            // lookups the step makes
	}{
		{"first listing, at version 0", 0, s7, 7, short, 1},
		{"listed again", 0, s7, 7, short, 0},
		{"another customer", 0, s8, 8, other, 1},
		{"a new version, the customer unchanged", 1, s7, 7, short, 1},
		{"listed again at it", 1, s7, 7, short, 0},
		{"changed: spilled, too long for a block", 2, s7, 7, long, 1},
		{"spilled, listed again", 2, s7, 7, long, 0},
		{"changed back into the block", 3, s7, 7, short, 1},
		{"deleted", 4, s7, 7, nil, 1},
		{"still deleted: looked up again", 4, s7, 7, nil, 1},
		{"added back", 5, s7, 7, short, 1},
		{"the other, three versions later", 5, s8, 8, other, 1},
	} {
		if step.now == nil {
			delete(held, step.id)
		} else {
			held[step.id] = step.now
		}
		before := lookups
		got := c.get(step.slot, step.id, step.version, lookup)
		if got, want := snapshotOf(got), snapshotOf(encodeCustomer(nil, step.now)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", step.name, got, want)
		}
		if n := lookups - before; n != step.lookups {
			t.Errorf("%s: %d lookups, want %d", step.name, n, step.lookups)
		}
	}
}

// TestCustomerCacheConcurrentFill checks, under the race detector, that
// readers may fill and read the same entries at once, as the fake's
// readers do under its read lock, at one version and then at the next.
func TestCustomerCacheConcurrentFill(t *testing.T) {
	t.Parallel()
	var c customerCache
	custs := make([]*seed.Customer, 3*customerChunkLen/2) // two chunks
	for i := range custs {
		custs[i] = cacheCustomer(int64(i), strings.Repeat("x", i%400)) // some spill
		c.slot(custs[i].ID)
	}
	want := make([]string, len(custs))
	for i, cust := range custs {
		want[i] = snapshotOf(encodeCustomer(nil, cust))
	}
	lookup := func(id int64) *seed.Customer { return custs[id] }
	for version := range uint64(2) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for i, cust := range custs {
					if got := snapshotOf(c.get(int32(i), cust.ID, version, lookup)); got != want[i] {
						t.Errorf("version %d, customer %d: got %s, want %s", version, cust.ID, got, want[i])
					}
				}
			})
		}
		wg.Wait()
	}
}

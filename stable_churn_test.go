package billing_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// busyModes are the ways a stable iteration is run on a busy account:
// kill, when not 0, stops the run after that many invoices and resumes it
// once from the cursor's text in a new Cursor. (Killed again and again, a
// run chases a second that gains rows faster than a page of 5 reads it.)
var busyModes = []struct {
	name           string
	prefetch, kill int
}{
	{"sequential", 0, 0},
	{"Prefetch(2)", 2, 0},
	{"Prefetch(8)", 8, 0},
	{"killed and resumed", 0, 30},
	{"killed and resumed, Prefetch(2)", 2, 30},
}

// runBusy reads the fake's invoices with stable iteration in mode m, and
// returns every invoice yielded, in order, and the error that ended the
// run.
func runBusy(t *testing.T, c *billing.Client, frozenCustomer bool, prefetch, kill int) ([]billing.Invoice, error) {
	t.Helper()
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 4}, Filter: filterFor(frozenCustomer)}
	var got []billing.Invoice
	var cur billing.Cursor
	for {
		opts := []billing.IterOption{billing.Stable(&cur)}
		if prefetch > 0 {
			opts = append(opts, billing.Prefetch(prefetch))
		}
		stopped := false
		for inv, err := range c.Invoices.All(context.Background(), params, opts...) {
			if err != nil {
				return got, err
			}
			got = append(got, inv)
			if kill > 0 && len(got) == kill {
				stopped = true
				break
			}
		}
		if !stopped {
			return got, nil
		}
		text, err := cur.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		cur = billing.Cursor{}
		if err := cur.UnmarshalText(text); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStableExactlyOnceOnABusyAccount runs every iteration mode on every
// service the reference allows, against the fake as a busy account: a
// row inserted, deleted, re-keyed and modified before every list answer,
// aimed at the second being read, with X-Count kept or not. Every invoice
// the account never changed is yielded exactly once, none twice at one
// key, seconds in ascending order; and the run takes at most three times
// the requests of the same run on the quiet account.
func TestStableExactlyOnceOnABusyAccount(t *testing.T) {
	t.Parallel()
	for _, v := range variations {
		for _, keep := range []bool{false, true} {
			for _, m := range busyModes {
				t.Run(fmt.Sprintf("%s, count kept %v, %s", v.name, keep, m.name), func(t *testing.T) {
					t.Parallel()
					quiet, _, _ := variedFake(t, v.frozen, v.opts...)
					if _, err := runBusy(t, quiet.Client(), v.frozen, m.prefetch, m.kill); err != nil {
						t.Fatalf("quiet account: %v", err)
					}
					churn := billingtest.WithChurn(billingtest.Churn{Seed: 25, Inserts: 1, Deletes: 1, Rekeys: 1, Modifies: 1, KeepCount: keep, Aim: true})
					srv, _, ids := variedFake(t, v.frozen, append(slices.Clone(v.opts), churn)...)
					got, err := runBusy(t, srv.Client(), v.frozen, m.prefetch, m.kill)
					if err != nil {
						t.Fatalf("after %d invoices: %v", len(got), err)
					}
					changed := map[int64]bool{}
					for _, ch := range srv.ChurnLog() {
						changed[ch.ID] = true
					}
					type atKey struct {
						id  int64
						key time.Time
					}
					seen := map[atKey]bool{}
					var unchanged []int64
					for i, inv := range got {
						k := atKey{inv.ID, inv.PostedTimestamp.Time}
						if seen[k] {
							t.Fatalf("invoice %d yielded twice at %v", inv.ID, k.key)
						}
						seen[k] = true
						if i > 0 && inv.PostedTimestamp.Unix() < got[i-1].PostedTimestamp.Unix() {
							t.Fatalf("invoice %d at %v comes after %v", inv.ID, inv.PostedTimestamp, got[i-1].PostedTimestamp)
						}
						if !changed[inv.ID] {
							unchanged = append(unchanged, inv.ID)
						}
					}
					var protected []int64
					for _, id := range ids {
						if !changed[id] {
							protected = append(protected, id)
						}
					}
					checkExactlyOnce(t, unchanged, protected)
					if n, most := len(srv.Requests()), 3*len(quiet.Requests()); n > most {
						t.Errorf("%d requests on the busy account, want at most %d (3 × the quiet run's)", n, most)
					}
				})
			}
		}
	}
}

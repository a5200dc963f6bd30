package pager

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// denseList is spread items, one every 1.3 s, then a second that holds
// dense items at one instant, then a few spread items after it.
func denseList(spread, dense int) []time.Time {
	keys := keysEvery(spread, 1300*time.Millisecond)
	at := baseKey.Add(time.Duration(spread)*1300*time.Millisecond + 2*time.Second).Truncate(time.Second)
	for range dense {
		keys = append(keys, at.Add(250*time.Millisecond))
	}
	for i := range 3 {
		keys = append(keys, at.Add(time.Duration(i+2)*time.Second))
	}
	return keys
}

// TestStableRequestsForADenseSecond counts the requests of a stable
// iteration over a second that holds more items than the server's largest
// page, behind spread items: the pages needed plus a small constant per
// dense second (asking for the whole second, then its parts on the split
// field). The counts are exact: the fake answers the same requests the
// same way, and the windows of Prefetch send the same requests whatever
// their order.
func TestStableRequestsForADenseSecond(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		svc           service
		spread, dense int
		w             int
		// want per mode: sequential, Prefetch(2), Prefetch(8).
		want [3]int
	}{
		// The bounds: 8 and 12 for 2,500, 18 and 27 for 10,000.
		{"2,500 at one instant behind 200, silent cap", service{pageCap: 1000}, 200, 2500, 1000, [3]int{7, 10, 10}},
		{"2,500 at one instant behind 200, honest cap", service{pageCap: 1000, honestCap: true}, 200, 2500, 1000, [3]int{7, 10, 10}},
		{"10,000 at one instant behind 200", service{pageCap: 1000}, 200, 10000, 1000, [3]int{16, 22, 22}},
		// Pages of 100 place 7 windows, most of them inside the dense
		// second, whose starts cost a request each.
		{"2,500 at one instant behind 200, pages of 100", service{pageCap: 1000}, 200, 2500, 100, [3]int{9, 20, 20}},
		{"2,500, a server that honours any page", service{}, 200, 2500, 1000, [3]int{3, 6, 6}},
		{"no dense second", service{pageCap: 1000}, 3000, 0, 1000, [3]int{4, 8, 8}},
	}
	for _, tt := range tests {
		for m, prefetch := range []int{0, 2, 8} {
			runInBubble(t, fmt.Sprintf("%s, prefetch %d", tt.name, prefetch), func(t *testing.T) {
				f := newFakeSource(tt.svc, denseList(tt.spread, tt.dense))
				initial := f.snapshot()
				got, err := runStable(t.Context(), f.source(), &Cursor{}, tt.w, prefetch, nil)
				checkStable(t, f, initial, got, err, false)
				if n := f.calledTimes(); n != tt.want[m] {
					t.Errorf("%d requests, want %d", n, tt.want[m])
				}
			})
		}
	}
}

// denseMonths is months of denseList: each a month after the one before,
// so that a run meets one dense second after another, as on an account
// with a billing run a month.
func denseMonths(months, spread, dense int) []time.Time {
	var keys []time.Time
	for m := range months {
		for _, k := range denseList(spread, dense) {
			keys = append(keys, k.AddDate(0, m, 0))
		}
	}
	return keys
}

// TestStableRequestsForDenseSecondsInARow: once the server has capped the
// answer for a whole second, every later dense second of the run is
// counted with a one-item request and split on the items the page before
// brought, instead of being asked whole again only to be cut off: as many
// requests, but one that brings 1 item where it brought 1,000, per dense
// second. The windows of Prefetch share what the run learnt.
func TestStableRequestsForDenseSecondsInARow(t *testing.T) {
	t.Parallel()
	for m, prefetch := range []int{0, 2, 8} {
		runInBubble(t, fmt.Sprintf("prefetch %d", prefetch), func(t *testing.T) {
			f := newFakeSource(service{pageCap: 1000}, denseMonths(4, 200, 2500))
			initial := f.snapshot()
			got, err := runStable(t.Context(), f.source(), &Cursor{}, 1000, prefetch, nil)
			checkStable(t, f, initial, got, err, false)
			var whole, counts int
			for _, c := range f.requests() {
				if len(c.Parts) > 0 || c.Lower.IsZero() || c.Upper.Sub(c.Lower) != time.Second {
					continue
				}
				switch {
				case c.Size == 1:
					counts++
				case c.Size > 1000:
					whole++
				}
			}
			// Before: 25, 34 and 34 requests, 4 of them asking a
			// second whole.
			want := [3]int{25, 34, 34}[m]
			n := f.calledTimes()
			switch {
			case n != want || whole+counts != 4:
				t.Errorf("%d requests, %d asking a second whole and %d counting one; want %d, and 4 of both", n, whole, counts, want)
			case prefetch == 0 && whole != 1:
				t.Errorf("%d seconds asked whole, want 1: the first", whole)
			}
			// With Prefetch, windows read their dense seconds at the
			// same time, so how many of them the first cap reaches
			// depends on the order they run in: only the sum is
			// fixed.
		})
	}
}

// TestStableRequestsUnderChange: with items inserted, deleted and moved
// inside the dense second before every answer (keeping its count or not),
// a run still reads every item that stayed exactly once, in at most three
// times the requests of the quiet run; and a run killed half-way and
// resumed from its cursor does too.
func TestStableRequestsUnderChange(t *testing.T) {
	t.Parallel()
	const quiet = 10 // 2,500 behind 200, with Prefetch (TestStableRequestsForADenseSecond)
	changes := []struct {
		name   string
		change func(f *fakeSource, dense time.Time, call int)
	}{
		{"a deletion and an insertion, the count kept", func(f *fakeSource, dense time.Time, call int) {
			f.remove(int64(200 + call*7))
			f.add(dense.Add(time.Duration(call) * time.Millisecond))
		}},
		{"an insertion", func(f *fakeSource, dense time.Time, call int) {
			f.add(dense.Add(time.Duration(call) * time.Millisecond))
		}},
		{"a move within the second and out of it", func(f *fakeSource, dense time.Time, call int) {
			f.move(int64(300+call*5), dense.Add(time.Duration(call)*time.Millisecond))
			f.move(int64(301+call*5), dense.Add(-time.Duration(call)*time.Second))
		}},
	}
	for _, ch := range changes {
		for _, prefetch := range []int{0, 2, 8} {
			for _, kill := range []int{0, 1300} {
				runInBubble(t, fmt.Sprintf("%s, prefetch %d, killed after %d", ch.name, prefetch, kill), func(t *testing.T) {
					keys := denseList(200, 2500)
					dense := keys[200]
					f := newFakeSource(service{pageCap: 1000}, keys)
					initial := f.snapshot()
					f.mutate = func(call int, f *fakeSource) { ch.change(f, dense, call) }
					cur := &Cursor{}
					var body func(p *Page[item]) bool
					if kill > 0 {
						seen := 0
						body = func(p *Page[item]) bool {
							for i := range p.Items {
								if seen++; seen == kill {
									p.Cursor.Reached(i + 1)
									return false
								}
							}
							return true
						}
					}
					got, err := runStable(t.Context(), f.source(), cur, 1000, prefetch, body)
					if err == nil && kill > 0 {
						var rest []item
						rest, err = runStable(t.Context(), f.source(), cur, 1000, prefetch, nil)
						got = append(got, rest...)
					}
					checkStable(t, f, initial, got, err, false)
					if n, most := f.calledTimes(), 3*quiet+4; n > most {
						t.Errorf("%d requests, want at most %d", n, most)
					}
				})
			}
		}
	}
}

// TestStableSecondThatNoSplitCloses: a second of more items than a page
// that no split field can cut ends the run with ErrPagination naming the
// second and its size, after the items read; a second field splits what
// one value of the first holds.
func TestStableSecondThatNoSplitCloses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		splits int
		vals   func(id int64) (int64, int64)
		group  int // the items the error says cannot be split; 0: no error
	}{
		{"no split field", 0, nil, 40},
		{"one value of the only field", 1, func(id int64) (int64, int64) { return 500, id }, 40},
		{"one value of the first, the second splits", 2, func(id int64) (int64, int64) { return 500, id }, 0},
		{"one value of both", 2, func(id int64) (int64, int64) { return 500, 7 }, 40},
		{"all but one at one value", 1, func(id int64) (int64, int64) { return max(0, id%40-38) * 100, id }, 39},
		{"values at a precision of their own", 1, func(id int64) (int64, int64) { return id * 3, id }, 0},
	}
	for _, tt := range tests {
		for _, prefetch := range []int{0, 3} {
			runInBubble(t, fmt.Sprintf("%s, prefetch %d", tt.name, prefetch), func(t *testing.T) {
				f := newFakeSource(service{pageCap: 10}, denseList(5, 40))
				f.splits, f.vals = tt.splits, tt.vals
				initial := f.snapshot()
				got, err := runStable(t.Context(), f.source(), &Cursor{}, 10, prefetch, nil)
				if tt.group == 0 {
					checkStable(t, f, initial, got, err, false)
					return
				}
				if !errors.Is(err, ErrPagination) {
					t.Fatalf("after %d items: %v, want ErrPagination", len(got), err)
				}
				second := initial[5].Key.Format(keyLayout)
				if msg := err.Error(); !strings.Contains(msg, second) || !strings.Contains(msg, fmt.Sprintf(" %d ", tt.group)) {
					t.Fatalf("the error does not name second %s and its group of %d: %v", second, tt.group, err)
				}
				checkStable(t, f, nil, got, nil, false)
			})
		}
	}
}

// TestStableKeepsAnOpenSecond: under a modification-time key, a second
// read whole while the service's clock is still in it (its Date) is not
// left behind: what it receives later in the run is read before anything
// after it, and what it receives after the run's end is read by a run
// resumed from the cursor; each change comes at its new key, none twice
// at the same key.
func TestStableKeepsAnOpenSecond(t *testing.T) {
	t.Parallel()
	for _, prefetch := range []int{0, 2, 8} {
		for _, step := range []time.Duration{0, 10 * time.Millisecond} {
			runInBubble(t, fmt.Sprintf("prefetch %d, clock step %v", prefetch, step), func(t *testing.T) {
				keys := keysEvery(30, 100*time.Millisecond) // 3 s
				now := keys[len(keys)-1].Add(time.Millisecond)
				f := newFakeSource(service{pageCap: 5}, keys)
				f.clock = func() time.Time { return now }
				initial := f.snapshot()
				changed := map[int64]time.Time{}
				f.mutate = func(call int, f *fakeSource) {
					now = now.Add(step)
					if call%3 == 0 && call < 40 {
						id := int64(call/3) % 30
						f.move(id+1, now)
						changed[id+1] = now
					}
				}
				cur := &Cursor{}
				got, err := runStable(t.Context(), f.source(), cur, 4, prefetch, nil)
				if err != nil {
					t.Fatal(err)
				}
				// Changes after the run, in the second the clock is in.
				f.mu.Lock()
				f.mutate = nil
				for id := int64(1); id <= 3; id++ {
					now = now.Add(step)
					f.move(id, now)
					changed[id] = now
				}
				f.mu.Unlock()
				rest, err := runStable(t.Context(), f.source(), cur, 4, prefetch, nil)
				got = append(got, rest...)
				checkStable(t, f, initial, got, err, false)
				last := map[int64]time.Time{}
				for _, it := range got {
					last[it.ID] = it.Key
				}
				for id, at := range changed {
					if !last[id].Equal(at) {
						t.Errorf("item %d changed to %s, last yielded at %s", id, at.Format("05.000"), last[id].Format("05.000"))
					}
				}
			})
		}
	}
}

// TestStableReKeyedBackIsNotYieldedTwice: an item of the frontier's second
// moved to another key and back comes at most once at each.
func TestStableReKeyedBackIsNotYieldedTwice(t *testing.T) {
	t.Parallel()
	for _, prefetch := range []int{0, 3} {
		runInBubble(t, fmt.Sprintf("prefetch %d", prefetch), func(t *testing.T) {
			keys := tiedKeys([]int{2, 12, 3}, false)
			f := newFakeSource(service{pageCap: 4}, keys)
			initial := f.snapshot()
			a, b := keys[3], keys[3].Add(500*time.Millisecond)
			f.mutate = func(call int, f *fakeSource) {
				switch call % 2 {
				case 0:
					f.move(4, b)
				case 1:
					f.move(4, a)
				}
			}
			got, err := runStable(t.Context(), f.source(), &Cursor{}, 4, prefetch, nil)
			checkStable(t, f, initial, got, err, false) // fails on an item twice at one key
		})
	}
}

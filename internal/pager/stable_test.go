package pager

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// stableServices are the services stable iteration must read every item
// of exactly once, whatever the order of equal keys and the page cap.
var stableServices = []struct {
	name string
	svc  service
}{
	{name: "ties by id", svc: service{}},
	{name: "ties by descending id", svc: service{ties: tieByIDDescending}},
	{name: "ties by insertion", svc: service{ties: tieByInsertion}},
	{name: "ties shuffled on every request", svc: service{ties: tieShuffled}},
	{name: "silent cap of 5", svc: service{pageCap: 5}},
	{name: "honest cap of 5", svc: service{pageCap: 5, honestCap: true}},
	{name: "other paging headers", svc: service{headers: headersOther}},
	{name: "all at once", svc: service{ties: tieShuffled, pageCap: 5, headers: headersOther}},
}

// stableLists are the lists stable iteration reads: keys spread, several
// in a second, and seconds with more items than a page, at one instant or
// at many.
var stableLists = []struct {
	name string
	keys []time.Time
}{
	{"empty", nil},
	{"one a second", keysEvery(45, time.Second+7*time.Millisecond)},
	{"several a second", keysEvery(60, 300*time.Millisecond)},
	{"ties larger than a page", tiedKeys([]int{3, 30, 1, 25, 4}, true)},
	{"seconds larger than a page", tiedKeys([]int{3, 30, 1, 25, 4}, false)},
}

// runStable reads src from cur with pages of w and prefetch through body
// (nil: read it all), and returns the items yielded and the error that
// ended it. body gets each page and says whether to go on; it must move
// the cursor itself (Reached).
func runStable(ctx context.Context, src Source[item], cur *Cursor, w, prefetch int, body func(p *Page[item]) bool) ([]item, error) {
	var got []item
	for p, err := range Stable(ctx, src, cur, w, prefetch) {
		if err != nil {
			return got, err
		}
		if p.Cursor != cur {
			return got, fmt.Errorf("a page's cursor is %p, not the iteration's %p", p.Cursor, cur)
		}
		if body == nil {
			got = append(got, p.Items...)
			continue
		}
		n := len(got)
		goOn := body(p)
		got = append(got, p.Items...)
		if !goOn {
			return got[:n+reachedOf(p.Cursor)], nil
		}
	}
	return got, nil
}

// reachedOf is how far the consumer said it got on the page being yielded.
func reachedOf(c *Cursor) int { return c.upto }

// checkStable checks a stable run over f against the guarantees of the
// root package's Stable: every item that was in the list from the start
// to the end with the same key yielded exactly once (or the run ended in
// ErrPagination, where allowed), no item yielded twice at the same key,
// seconds in ascending order, and only items and keys that were in the
// list.
func checkStable(t *testing.T, f *fakeSource, initial []item, got []item, err error, mayGiveUp bool) {
	t.Helper()
	switch {
	case err == nil:
	case mayGiveUp && errors.Is(err, ErrPagination):
		t.Logf("gave up after %d items: %v", len(got), err)
	default:
		t.Fatalf("after %d items: %v", len(got), err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	seen := map[item]bool{}
	count := map[int64]int{}
	for i, it := range got {
		if seen[it] {
			t.Fatalf("item %v yielded twice at the same key", it)
		}
		seen[it] = true
		count[it.ID]++
		if !f.history[it] {
			t.Fatalf("item %v was never in the list", it)
		}
		if i > 0 && it.Key.Unix() < got[i-1].Key.Unix() {
			t.Fatalf("item %d, %v, comes after %v: seconds out of order", i, it, got[i-1])
		}
	}
	if err != nil {
		return
	}
	for _, it := range initial {
		if !f.touched[it.ID] && count[it.ID] != 1 {
			t.Fatalf("item %v, in the list throughout, yielded %d times (%d items yielded)", it, count[it.ID], len(got))
		}
	}
}

func TestStableYieldsEveryItemOnce(t *testing.T) {
	t.Parallel()
	for _, sv := range stableServices {
		for _, l := range stableLists {
			for _, w := range []int{4, 7} {
				runInBubble(t, fmt.Sprintf("%s, %s, pages of %d", sv.name, l.name, w), func(t *testing.T) {
					for _, prefetch := range prefetches {
						f := newFakeSource(sv.svc, l.keys)
						initial := f.snapshot()
						cur := &Cursor{}
						got, err := runStable(t.Context(), f.source(), cur, w, prefetch, nil)
						checkStable(t, f, initial, got, err, false)
						if err != nil {
							continue
						}
						if left := f.inFlight.Load(); left != 0 {
							t.Fatalf("prefetch %d: %d requests still running after the loop", prefetch, left)
						}
						if most := f.maxOnWire.Load(); most > int64(max(prefetch, 1)) {
							t.Fatalf("prefetch %d: %d requests on the wire at once", prefetch, most)
						}
						// The cursor at the end resumes with nothing.
						more, err := runStable(t.Context(), f.source(), &Cursor{State: cloneState(cur.State)}, w, prefetch, nil)
						if err != nil || len(more) != 0 {
							t.Fatalf("prefetch %d: resumed at the end: %v, %v; want nothing", prefetch, more, err)
						}
					}
				})
			}
		}
	}
}

// mutator changes the list between requests, at random (seeded), up to
// limit changes: it inserts items, deletes some of victims and moves
// others to new keys. apart keeps every change away from the seconds of
// the list, where a service that shuffles equal keys could hide an item
// of a group larger than a page that also changes (which the root
// package's Stable godoc allows).
type mutator struct {
	rng     *rand.Rand
	victims []int64
	limit   int
	apart   bool
	fresh   int // the next second apart
}

func (m *mutator) mutate(call int, f *fakeSource) {
	if m.limit == 0 || m.rng.IntN(2) == 0 {
		return
	}
	m.limit--
	switch m.rng.IntN(3) {
	case 0:
		f.add(m.key(f))
	case 1:
		if id, ok := m.victim(f); ok {
			f.remove(id)
		}
	case 2:
		if id, ok := m.victim(f); ok {
			f.move(id, m.key(f))
		}
	}
}

// key is a key for an inserted or moved item: anywhere in or around the
// list, or at an existing item's exact key; or, apart, a second of its
// own before or after the list.
func (m *mutator) key(f *fakeSource) time.Time {
	if m.apart {
		m.fresh++
		sec := time.Duration(m.fresh) * time.Second
		if m.fresh%2 == 0 {
			return baseKey.Add(-sec)
		}
		return baseKey.Add(time.Hour + sec)
	}
	if len(f.items) > 0 && m.rng.IntN(3) == 0 {
		return f.items[m.rng.IntN(len(f.items))].Key
	}
	return baseKey.Add(time.Duration(m.rng.Int64N(int64(70*time.Second))) - 2*time.Second)
}

// victim picks a victim still in the list.
func (m *mutator) victim(f *fakeSource) (int64, bool) {
	var present []int64
	for _, id := range m.victims {
		if slices.ContainsFunc(f.items, func(it item) bool { return it.ID == id }) {
			present = append(present, id)
		}
	}
	if len(present) == 0 {
		return 0, false
	}
	return present[m.rng.IntN(len(present))], true
}

// victimsOf are every third item, or, apart, every third of those in a
// second of at most two items.
func victimsOf(items []item, apart bool) []int64 {
	perSec := map[int64]int{}
	for _, it := range items {
		perSec[it.Key.Unix()]++
	}
	var out []int64
	for i, it := range items {
		if i%3 == 0 && (!apart || perSec[it.Key.Unix()] <= 2) {
			out = append(out, it.ID)
		}
	}
	return out
}

// TestStableYieldsEveryItemOnceWhileTheListChanges: items inserted,
// deleted and moved between requests; every item that stays in the list
// with its key is yielded exactly once.
func TestStableYieldsEveryItemOnceWhileTheListChanges(t *testing.T) {
	t.Parallel()
	for _, sv := range stableServices {
		for _, l := range stableLists[1:] {
			for _, w := range []int{4, 7} {
				for _, prefetch := range prefetches {
					runInBubble(t, fmt.Sprintf("%s, %s, pages of %d, prefetch %d", sv.name, l.name, w, prefetch), func(t *testing.T) {
						for seed := range uint64(4) {
							f := newFakeSource(sv.svc, l.keys)
							initial := f.snapshot()
							apart := sv.svc.ties == tieShuffled
							m := &mutator{rng: rand.New(rand.NewPCG(seed, uint64(w))), victims: victimsOf(initial, apart), limit: 40, apart: apart}
							f.mutate = m.mutate
							got, err := runStable(t.Context(), f.source(), &Cursor{}, w, prefetch, nil)
							checkStable(t, f, initial, got, err, false)
							if left := f.inFlight.Load(); left != 0 {
								t.Fatalf("%d requests still running after the loop", left)
							}
						}
					})
				}
			}
		}
	}
}

// TestStableResumesFromACursor: a run that stops at any item, and one
// resumed from its cursor's State, yield every item exactly once between
// them; a consumer that stops on an item has taken it (it called Reached
// past it), one that stops before it has not.
func TestStableResumesFromACursor(t *testing.T) {
	t.Parallel()
	stops := []struct {
		name string
		// took says the consumer took the item it stopped on; pageLoop
		// that it reads whole pages and never calls Reached; earlier that
		// the cursor is saved as the SDK's earlier versions did, with the
		// ids delivered in its second but not their keys.
		took, pageLoop, earlier bool
	}{
		{"stopping on an item", true, false, false},
		{"stopping before an item", false, false, false},
		{"a loop of pages", false, true, false},
		{"a cursor of the earlier format", true, false, true},
	}
	for _, sv := range stableServices {
		for _, l := range stableLists[1:] {
			for _, stop := range stops {
				for _, prefetch := range prefetches {
					runInBubble(t, fmt.Sprintf("%s, %s, %s, prefetch %d", sv.name, l.name, stop.name, prefetch), func(t *testing.T) {
						const w = 4
						for _, at := range stopsIn(len(l.keys)) {
							f := newFakeSource(sv.svc, l.keys)
							initial := f.snapshot()
							cur := &Cursor{}
							n := 0
							first, err := runStable(t.Context(), f.source(), cur, w, prefetch, func(p *Page[item]) bool {
								for i := range p.Items {
									if stop.pageLoop {
										n++
										continue
									}
									if n == at {
										if stop.took {
											p.Cursor.Reached(i + 1)
										} else {
											p.Cursor.Reached(i)
										}
										return false
									}
									p.Cursor.Reached(i + 1)
									n++
								}
								return !stop.pageLoop || n <= at
							})
							if err != nil {
								checkStable(t, f, initial, first, err, false)
								continue
							}
							saved := cloneState(cur.State)
							if stop.earlier {
								for i := range saved.Keys {
									saved.Keys[i] = AnyKey
								}
							}
							rest, err := runStable(t.Context(), f.source(), &Cursor{State: saved}, w, prefetch, nil)
							checkStable(t, f, initial, append(first, rest...), err, false)
						}
					})
				}
			}
		}
	}
}

// stopsIn are the items a run of n items stops at: each of the first two
// pages', then every seventh (7 is prime to the page size, so that every
// place on a page comes), and the last.
func stopsIn(n int) []int {
	var out []int
	for at := 0; at < n; at++ {
		if at < 8 || at%7 == 0 || at == n-1 {
			out = append(out, at)
		}
	}
	return out
}

// TestStableRefusesABrokenServer: a server that ignores the key range or
// the sort, or that keeps an item of a group of equal keys larger than a
// page out of every page, ends the iteration with ErrPagination, without
// yielding an item twice.
func TestStableRefusesABrokenServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		svc  service
		keys []time.Time
	}{
		{"ignores the key range", service{ignoreRange: true}, keysEvery(40, time.Second)},
		{"ignores the key range, ties", service{ignoreRange: true}, tiedKeys([]int{3, 30, 1, 25, 4}, true)},
		{"ignores the sort", service{unsorted: true}, keysEvery(40, time.Second)},
		{"ignores the sort, several a second", service{unsorted: true}, keysEvery(40, 300*time.Millisecond)},
	}
	for _, tt := range tests {
		for _, w := range []int{4, 7} {
			for _, prefetch := range prefetches {
				runInBubble(t, fmt.Sprintf("%s, pages of %d, prefetch %d", tt.name, w, prefetch), func(t *testing.T) {
					f := newFakeSource(tt.svc, tt.keys)
					got, err := runStable(t.Context(), f.source(), &Cursor{}, w, prefetch, nil)
					if !errors.Is(err, ErrPagination) {
						t.Fatalf("after %d items: %v, want ErrPagination", len(got), err)
					}
					checkStable(t, f, nil, got, nil, false)
					if left := f.inFlight.Load(); left != 0 {
						t.Fatalf("%d requests still running after the loop", left)
					}
				})
			}
		}
	}
}

// TestStableReadsWhatAServerMovesAmongEqualKeys: a service that puts an
// item of a group of equal keys where the page asked for is not (as a
// paging query without a tie-breaker may) cannot hide it from an answer
// that holds the whole group, or a whole part of it: it is read, once.
func TestStableReadsWhatAServerMovesAmongEqualKeys(t *testing.T) {
	t.Parallel()
	for _, svc := range []service{{hide: 20}, {hide: 20, ties: tieShuffled}, {hide: 20, pageCap: 5}, {hide: 20, pageCap: 5, honestCap: true}} {
		for _, w := range []int{4, 7} {
			for _, prefetch := range prefetches {
				runInBubble(t, fmt.Sprintf("%+v, pages of %d, prefetch %d", svc, w, prefetch), func(t *testing.T) {
					f := newFakeSource(svc, tiedKeys([]int{3, 30, 4}, true))
					initial := f.snapshot()
					got, err := runStable(t.Context(), f.source(), &Cursor{}, w, prefetch, nil)
					checkStable(t, f, initial, got, err, false)
				})
			}
		}
	}
}

// TestStableGroupThatKeepsChanging: a group of equal keys larger than a
// page changes on every request, for ever: two of its items take turns in
// it (its X-Count stays), or one goes and comes back (its X-Count changes
// every time). The iteration ends, in ErrPagination or having yielded
// every item that stayed, except that where the service also reorders
// the group one of it may be missed (as the root package's Stable godoc
// allows in this one case); never an item twice at the same key.
func TestStableGroupThatKeepsChanging(t *testing.T) {
	t.Parallel()
	const guard = 3000 // requests: past it, the iteration is stuck
	changes := []struct {
		name   string
		change func(f *fakeSource, group time.Time, x, y int64)
	}{
		{"two items take turns", func(f *fakeSource, group time.Time, x, y int64) {
			if f.calls%2 == 0 {
				x, y = y, x
			}
			f.remove(x)
			f.items = append(f.items, item{ID: y, Key: group})
		}},
		{"one item goes and comes back", func(f *fakeSource, group time.Time, x, _ int64) {
			if f.calls%2 == 0 {
				f.remove(x)
				return
			}
			f.items = append(f.items, item{ID: x, Key: group})
		}},
	}
	for _, ch := range changes {
		for _, ties := range []tieOrder{tieByID, tieByIDDescending, tieShuffled} {
			for _, w := range []int{4, 7} {
				for _, prefetch := range prefetches {
					runInBubble(t, fmt.Sprintf("%s, ties %d, pages of %d, prefetch %d", ch.name, ties, w, prefetch), func(t *testing.T) {
						keys := tiedKeys([]int{3, 30, 4}, true)
						f := newFakeSource(service{ties: ties}, keys)
						initial := f.snapshot()
						group := keys[3]
						x := f.add(group)
						y := x + 1
						f.history[item{ID: y, Key: group}] = true
						f.nextID++
						f.mutate = func(call int, f *fakeSource) {
							if call > guard {
								f.failFrom = call + 1
								return
							}
							ch.change(f, group, x, y)
						}
						got, err := runStable(t.Context(), f.source(), &Cursor{}, w, prefetch, nil)
						if errors.Is(err, errFailing) {
							t.Fatalf("%d requests, %d items, and still reading: the iteration does not end", f.calledTimes(), len(got))
						}
						checkStable(t, f, nil, got, err, true)
						if err != nil {
							return
						}
						var lost []item
						for _, it := range initial {
							if !slices.Contains(got, it) {
								lost = append(lost, it)
							}
						}
						if len(lost) > 0 {
							t.Fatalf("lost %v without an error", lost)
						}
					})
				}
			}
		}
	}
}

// TestStableWithinTheCallersFilter: a source whose own filter leaves
// nothing in a key range answers ErrEmptyRange; the iteration reads what
// the filter leaves, and nothing when it leaves nothing.
func TestStableWithinTheCallersFilter(t *testing.T) {
	t.Parallel()
	keys := keysEvery(40, 700*time.Millisecond)
	tests := []struct {
		name  string
		upper time.Time
	}{
		{"before every item", baseKey.Add(-time.Hour)},
		{"at the first item's second", baseKey},
		{"midway", baseKey.Add(13 * time.Second)},
		{"after every item", baseKey.Add(time.Hour)},
	}
	for _, tt := range tests {
		for _, prefetch := range prefetches {
			runInBubble(t, fmt.Sprintf("%s, prefetch %d", tt.name, prefetch), func(t *testing.T) {
				f := newFakeSource(service{}, keys)
				f.filterUpper = tt.upper
				want := []int64{}
				for _, it := range f.snapshot() {
					if it.Key.Before(tt.upper) {
						want = append(want, it.ID)
					}
				}
				got, err := runStable(t.Context(), f.source(), &Cursor{}, 4, prefetch, nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, ids(got)); d != "" {
					t.Fatalf("items:\n%s", d)
				}
			})
		}
	}
}

// TestStableEndsOnAnError: a done context, a failed request or a loop
// that breaks ends the iteration with no request left running.
func TestStableEndsOnAnError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// cancelAt cancels the context, breakAt breaks the loop, while
		// the page of that number is yielded (-1: never); failFrom makes
		// the requests from that number on fail (0: none).
		cancelAt, breakAt, failFrom int
		want                        error
	}{
		{"cancelled on the first page", 0, -1, 0, context.Canceled},
		{"cancelled later", 3, -1, 0, context.Canceled},
		{"break on the first page", -1, 0, 0, nil},
		{"break later", -1, 5, 0, nil},
		{"the first request fails", -1, -1, 1, errFailing},
		{"the second request fails", -1, -1, 2, errFailing},
		{"a later request fails", -1, -1, 9, errFailing},
	}
	for _, tt := range tests {
		for _, prefetch := range prefetches {
			runInBubble(t, fmt.Sprintf("%s, prefetch %d", tt.name, prefetch), func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				f := newFakeSource(service{}, keysEvery(200, 700*time.Millisecond))
				f.failFrom = tt.failFrom
				pages := 0
				got, err := runStable(ctx, f.source(), &Cursor{}, 4, prefetch, func(p *Page[item]) bool {
					pages++
					switch pages - 1 {
					case tt.cancelAt:
						cancel()
					case tt.breakAt:
						return false
					}
					return true
				})
				if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
					t.Fatalf("error %v, want %v", err, tt.want)
				}
				if left := f.inFlight.Load(); left != 0 {
					t.Fatalf("%d requests still running after the loop ended", left)
				}
				checkStable(t, f, nil, got, nil, false)
			})
		}
	}
}

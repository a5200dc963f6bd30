package pager

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWindowPlanPlacesWindows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		total int
		want  []int // the pages the windows start at
	}{
		{"nothing", 0, []int{0}},
		{"one page", 10, []int{0}},
		{"two pages", 11, []int{0, 1}},
		{"three pages", 25, []int{0, 1, 2}},
		{"four pages", 40, []int{0, 1, 2, 3}},
		{"ten pages", 100, []int{0, 1, 5, 7, 8, 9}},
		{"25 pages", 250, []int{0, 1, 5, 9, 13, 17, 21, 22, 23, 24}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &windowPlan[item]{s: &stable[item]{w: 10}}
			speculated := map[int]*windowStart[item]{}
			for _, q := range []int{0, 1, 5, 9} {
				ws := &windowStart[item]{q: q, done: make(chan struct{})}
				speculated[q] = ws
				p.starts = append(p.starts, ws)
			}
			p.place(tt.total)
			var got []int
			for _, ws := range p.starts {
				got = append(got, ws.q)
				if s := speculated[ws.q]; s != nil && s != ws {
					t.Errorf("the start at page %d was asked for again", ws.q)
				}
				if ws.done == nil {
					t.Errorf("the start at page %d cannot be waited for", ws.q)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("window starts:\n%s", d)
			}
		})
	}
}

// TestWindowPlanBoundsWindows: a long list gets at most maxWindows
// windows (and the tail's), of equal size but the first and the last.
func TestWindowPlanBoundsWindows(t *testing.T) {
	t.Parallel()
	for _, total := range []int{1_000_000, 163_847, 40_960} {
		t.Run(fmt.Sprint(total), func(t *testing.T) {
			t.Parallel()
			p := &windowPlan[item]{s: &stable[item]{w: 10}}
			p.place(total)
			pages := (total + 9) / 10
			size := max(windowPages, (pages+maxWindows-1)/maxWindows)
			qs := make([]int, len(p.starts))
			for i, ws := range p.starts {
				qs[i] = ws.q
			}
			if len(qs) > maxWindows+tailWindows {
				t.Fatalf("%d windows", len(qs))
			}
			tail := len(qs) - tailWindows
			if d := cmp.Diff([]int{pages - 3, pages - 2, pages - 1}, qs[tail:]); d != "" {
				t.Fatalf("the last windows:\n%s", d)
			}
			for i := 2; i < tail; i++ {
				if qs[i]-qs[i-1] != size {
					t.Fatalf("window %d starts at page %d, %d after the one before; want %d", i, qs[i], qs[i]-qs[i-1], size)
				}
			}
			if qs[0] != 0 || qs[1] != 1 || qs[tail]-qs[tail-1] > size {
				t.Fatalf("windows start at %v...%v", qs[:3], qs[tail-1:])
			}
		})
	}
}

func TestLeadForCutsPageZeroToTheFirstWindow(t *testing.T) {
	t.Parallel()
	sec := func(s int64) time.Time { return baseKey.Add(time.Duration(s)*time.Second + time.Millisecond) }
	page := func(count int, secs ...int64) *Page[item] {
		p := &Page[item]{Info: Info{Count: count, CurrentPage: 0, NextPage: -1, PageSize: 5, MaxPageIndex: -1, NextHeader: true, RequestedSize: 5}}
		for i, s := range secs {
			p.Items = append(p.Items, item{ID: int64(i + 1), Key: sec(s)})
		}
		return p
	}
	type lead struct {
		IDs      []int64
		Complete bool
	}
	tests := []struct {
		name string
		page *Page[item]
		from int64 // seconds after baseKey
		end  int64 // 0: open
		want *lead
	}{
		{"no page 0: not the first window", nil, 0, 0, nil},
		{"the whole list", page(5, 0, 0, 1, 2, 3), 0, 0, &lead{[]int64{1, 2, 3, 4, 5}, true}},
		{"more after it", page(9, 0, 0, 1, 2, 3), 0, 0, &lead{[]int64{1, 2, 3, 4, 5}, false}},
		{"cut at the window's end", page(9, 0, 0, 1, 2, 3), 0, 2, &lead{[]int64{1, 2, 3}, true}},
		{"cut before the window's start", page(9, 0, 0, 1, 2, 3), 1, 0, &lead{[]int64{3, 4, 5}, false}},
		{"all before the window, more after", page(9, 0, 0, 1), 2, 0, nil},
		{"all before the window, nothing after", page(3, 0, 0, 1), 2, 0, &lead{[]int64{}, true}},
		{"all past the window's end", page(9, 3, 3, 4), 0, 2, &lead{[]int64{}, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeSource(service{}, nil)
			s := &stable[item]{src: f.source(), w: 5}
			var end time.Time
			if tt.end != 0 {
				end = sec(tt.end).Truncate(time.Second)
			}
			l := s.leadFor(&windowStart[item]{page: tt.page}, baseKey.Unix()+tt.from, end)
			var got *lead
			if l != nil {
				got = &lead{ids(l.page.Items), l.complete}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("lead page:\n%s", d)
			}
		})
	}
}

// TestStableWindowsKeepNRequestsOnTheWire: with Prefetch(n), windows are
// read n requests at a time, one of them the head's, whatever the
// windows ahead wait for.
func TestStableWindowsKeepNRequestsOnTheWire(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3, 8} {
		runInBubble(t, fmt.Sprint("prefetch ", n), func(t *testing.T) {
			f := newFakeSource(service{}, keysEvery(300, 700*time.Millisecond))
			release := make(chan struct{})
			f.block = func(ctx context.Context, r Request) error {
				if r.Size == 4 && !r.Upper.IsZero() { // a window's page
					select {
					case <-release:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				return nil
			}
			initial := f.snapshot()
			type run struct {
				got []item
				err error
			}
			done := make(chan run)
			go func() {
				got, err := runStable(t.Context(), f.source(), &Cursor{}, 4, n, nil)
				done <- run{got, err}
			}()
			synctest.Wait()
			if got := f.onWire.Load(); got != int64(n) {
				t.Errorf("%d requests on the wire while the windows wait, want %d", got, n)
			}
			close(release)
			r := <-done
			checkStable(t, f, initial, r.got, r.err, false)
			if d := cmp.Diff(ids(initial), ids(r.got)); d != "" {
				t.Fatalf("items:\n%s", d)
			}
		})
	}
}

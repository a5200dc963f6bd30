package billing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Stable iteration with Prefetch(n): the key range still to read is split
// into windows of whole seconds holding about the same number of items,
// found with X-Count of one-item requests; up to n windows are read at once,
// each as a sequential stable iteration of its own range, and their pages
// are yielded in key order. A second never spans two windows, so each keeps
// every guarantee of the sequential iteration; the last window is open, so
// that items added at the end are read as sequentially.
//
// Only the window being yielded (the head) is read at the pace of the
// loop; the others read ahead into a shared allowance of 4n pages, so that
// n windows keep a request each in flight while the head is yielded. A
// window that has used the allowance waits until pages before it are
// yielded, or until it becomes the head.

// windowMsg is one page of a window, with the cursor positions of its
// items, or the window's error. ahead says the page holds one of the
// allowance's places.
type windowMsg[T any] struct {
	page  *Page[T]
	marks []cursorMark
	err   error
	ahead bool
}

// windowsPerWorker is how many windows each concurrent reader gets at
// most: more windows balance uneven ones better, at the cost of a few
// more requests. The probes that place them bound them too.
const windowsPerWorker = 3

// pagesAheadPerWorker is the allowance of pages read ahead per concurrent
// window.
const pagesAheadPerWorker = 4

// window is one window being read: its pages, and head, closed when the
// loop starts yielding them.
type window[T any] struct {
	pages chan windowMsg[T]
	head  chan struct{}
}

func (s *stableState[T]) windows(ctx context.Context, n int, capture *Response, yield func(*Page[T], error) bool) {
	ctx, cancel := context.WithCancel(context.WithValue(withPacer(ctx, &pacer{}), captureKey{}, true))
	defer cancel()
	bounds, err := s.split(ctx, n)
	if err != nil {
		if !errors.Is(err, errEmptyKeyRange) {
			yield(nil, err)
		}
		return
	}
	if len(bounds) == 0 {
		s.sequential(ctx, time.Time{}, yield)
		return
	}
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	ahead := make(chan struct{}, pagesAheadPerWorker*n)
	// Window i reads [bounds[i-1], bounds[i]); window 0 from the cursor,
	// the last one open-ended.
	wins := make([]window[T], len(bounds)+1)
	start := func(i int) {
		win := window[T]{pages: make(chan windowMsg[T], cap(ahead)+1), head: make(chan struct{})}
		wins[i] = win
		w := &stableState[T]{run: s.run, cur: &Cursor{}, w: s.w, fetch: s.fetch, keyOf: s.keyOf}
		if i == 0 {
			w.cur.st = s.cur.st
			w.cur.st.IDs = append([]int64(nil), s.cur.st.IDs...)
		} else {
			w.cur.st = cursorState{Started: true, Sec: bounds[i-1].Unix()}
		}
		var end time.Time
		if i < len(bounds) {
			end = bounds[i]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(win.pages)
			send := func(m windowMsg[T]) bool {
				// A place in the allowance, unless this is the head.
				select {
				case <-win.head:
				default:
					select {
					case ahead <- struct{}{}:
						m.ahead = true
					case <-win.head:
					case <-ctx.Done():
						return false
					}
				}
				select {
				case win.pages <- m:
					return true
				case <-ctx.Done():
					return false
				}
			}
			w.sequential(ctx, end, func(p *Page[T], err error) bool {
				if err != nil {
					return send(windowMsg[T]{err: err})
				}
				p.cursor = nil
				return send(windowMsg[T]{page: p, marks: append([]cursorMark(nil), w.cur.pending...)})
			})
		}()
	}
	next := 0
	for ; next < len(wins) && next < n; next++ {
		start(next)
	}
	for i := range wins {
		close(wins[i].head)
		for m := range wins[i].pages {
			if m.ahead {
				<-ahead
			}
			if m.err != nil {
				yield(nil, m.err)
				return
			}
			if capture != nil {
				*capture = m.page.Response
			}
			s.cur.pending, s.cur.upto, s.cur.applied = m.marks, len(m.marks), 0
			m.page.cursor = s.cur
			if !yield(m.page, nil) {
				s.cur.settle()
				s.cur.pending, s.cur.upto, s.cur.applied = nil, 0, 0
				return
			}
			s.cur.finishPage()
		}
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return
		}
		if next < len(wins) {
			start(next)
			next++
		}
	}
}

// split returns the boundaries between windows: whole seconds, ascending,
// after the cursor; none when the range is too small to be worth it.
func (s *stableState[T]) split(ctx context.Context, n int) ([]time.Time, error) {
	st := s.cur.st
	lower := time.Time{}
	if st.Started {
		lower = time.Unix(st.Sec, 0).UTC()
	}
	probe := func(ctx context.Context, upper time.Time, desc bool) (*Page[T], error) {
		return s.fetch(ctx, &stableReq{run: s.run, lower: lower, upper: upper, desc: desc}, 0, 1)
	}
	// The first and the last item, at once: the key range to split.
	var first, last *Page[T]
	var lastErr error
	var wg sync.WaitGroup
	wg.Go(func() { last, lastErr = probe(ctx, time.Time{}, true) })
	first, err := probe(ctx, time.Time{}, false)
	wg.Wait()
	if err = cmp.Or(err, lastErr); err != nil {
		return nil, err
	}
	if s.keyOf == nil {
		if s.keyOf, err = keyReader[T](s.run.key.entity); err != nil {
			return nil, err
		}
	}
	total := first.Count
	if total < 2*s.w || len(first.Items) == 0 || len(last.Items) == 0 {
		return nil, nil
	}
	lo, hi := s.keyOf(&first.Items[0]).Unix(), s.keyOf(&last.Items[0]).Unix()+1
	windows := min(n*windowsPerWorker, total/s.w)
	if hi-lo < 2 || windows < 2 {
		return nil, nil
	}
	// Probe counts at evenly spaced seconds, concurrently: two rounds of
	// n requests, as each round costs a round trip before any item is
	// read.
	probes := int(min(int64(2*n), hi-lo-1))
	at := make([]int64, probes)
	cum := make([]int, probes)
	errs := make([]error, probes)
	sem := make(chan struct{}, n)
	for j := range probes {
		at[j] = lo + (hi-lo)*int64(j+1)/int64(probes+1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			p, err := probe(ctx, time.Unix(at[j], 0).UTC(), false)
			if err == nil && p.Count < 0 {
				err = fmt.Errorf("%w: no X-Count to split the key range by", ErrPagination)
			}
			if err == nil {
				cum[j] = p.Count
			}
			errs[j] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// A boundary where the running count first reaches each share.
	var bounds []time.Time
	share := 1
	for j := range probes {
		if cum[j] >= total*share/windows {
			if len(bounds) == 0 || bounds[len(bounds)-1].Unix() < at[j] {
				bounds = append(bounds, time.Unix(at[j], 0).UTC())
			}
			for share < windows && cum[j] >= total*share/windows {
				share++
			}
		}
	}
	return bounds, nil
}

package pager

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// windowMsg is one page of a window, with the cursor positions of its
// items, or the window's error.
type windowMsg[T any] struct {
	page  *Page[T]
	marks []mark
	err   error
}

// windowPages is the size of a window, in pages: small enough that the
// windows read ahead of the one being yielded fit in the allowance, large
// enough that placing them (a one-item request per window) costs a
// fraction of the requests that read them.
const windowPages = 4

// tailWindows is how many one-page windows end the range.
const tailWindows = 3

// maxWindows bounds the windows of one iteration, and so the requests
// that place them: past it, windows grow.
const maxWindows = 4096

// pagesAheadPerWorker is the allowance of pages read ahead per request
// of the pipeline.
const pagesAheadPerWorker = 8

// firstRequests is how many requests go out before any answer: page 0
// and the start of page 1, whose small answer brings X-Count, which
// places the other windows. Sending more starts at once (pages 5, 9, ...)
// saved 2.5% of the time of 100,000 invoices but cost requests on every
// list shorter than them.
const firstRequests = 2

// windows is the stable iteration through a pipeline of n requests: the
// windows are its tasks, 2n at once, with 8n pages held ahead.
func (s *stable[T]) windows(ctx context.Context, n int, yield func(*Page[T], error) bool) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup // the requests that place the windows
	defer func() {
		cancel()
		wg.Wait()
	}()
	g := NewGate(n)
	from := minKeySec
	if s.cur.State.Started {
		from = s.cur.State.Sec
	}
	plan := &windowPlan[T]{s: s, ctx: ctx, gate: g, wg: &wg, lower: from}
	plan.speculate(min(n, firstRequests))
	// The first one-item start brings X-Count, which places the rest; it
	// is small, so it is not held up by page 0's body.
	second := plan.starts[1]
	select {
	case <-second.done:
	case <-ctx.Done():
		yield(nil, ctx.Err())
		return
	}
	switch {
	case errors.Is(second.err, ErrEmptyRange):
		return
	case second.err != nil:
		yield(nil, second.err)
		return
	}
	plan.place(second.total)
	// The consumer moves s.cur while windows start: the first reads a copy.
	atCursor := s.cur.State
	atCursor.IDs, atCursor.Keys = slices.Clone(atCursor.IDs), slices.Clone(atCursor.Keys)
	// Window i reads from the end of window i-1 (the first from the
	// cursor) to the start of window i+1, the last one open-ended; a
	// window whose end is not past its start is empty, and no task. They
	// start in order, as soon as their end is known.
	// placeAhead is how many windows past the one being started have their
	// start asked for: enough that a window's end is known by the time a
	// task is free for it, few enough that those requests do not take the
	// slots the windows' pages wait for.
	i, first, placeAhead := 0, true, max(2, n/4)
	pl := Start(ctx, g, Config{Tasks: 2 * n, Ahead: pagesAheadPerWorker * n}, func(ctx context.Context) (Task[windowMsg[T]], bool) {
		for ; i < len(plan.starts); i++ {
			plan.findUpTo(i + 1 + placeAhead)
			var end time.Time
			if i+1 < len(plan.starts) {
				b := plan.starts[i+1]
				select {
				case <-b.done:
				case <-ctx.Done():
					return nil, false
				}
				if b.err != nil {
					i = len(plan.starts) // this window ends the iteration
					return func(_ context.Context, _ *Claim, emit func(windowMsg[T]) bool) { emit(windowMsg[T]{err: b.err}) }, true
				}
				// A start past the end leaves this window open: it is the
				// last one with items.
				if !b.past {
					if b.sec <= from {
						continue // no second of its own: empty
					}
					end = time.Unix(b.sec, 0).UTC()
				}
			}
			w := &stable[T]{src: s.src, cur: &Cursor{}, w: s.w, capped: s.capped}
			if first {
				w.cur.State = atCursor
			} else {
				w.cur.State = State{Started: true, Sec: from}
			}
			lower, start := from, plan.starts[i]
			i, first, from = i+1, false, end.Unix()
			if end.IsZero() {
				i = len(plan.starts)
			}
			// The window's task: once its start is known, a sequential
			// stable iteration of its range, its pages emitted with their
			// cursor positions.
			return func(ctx context.Context, c *Claim, emit func(windowMsg[T]) bool) {
				w.claim = c
				select {
				case <-start.done:
				case <-ctx.Done():
					return
				}
				if start.err != nil {
					emit(windowMsg[T]{err: start.err})
					return
				}
				w.sequential(ctx, end, w.leadFor(start, lower, end), func(p *Page[T], err error) bool {
					if err != nil {
						return emit(windowMsg[T]{err: err})
					}
					p.Cursor = nil
					return emit(windowMsg[T]{page: p, marks: slices.Clone(w.cur.pending)})
				})
			}, true
		}
		return nil, false
	})
	defer pl.Stop()
	for {
		m, ok := pl.Next()
		if !ok {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
			}
			return
		}
		if m.err != nil {
			yield(nil, m.err)
			return
		}
		s.cur.pending, s.cur.upto, s.cur.applied = m.marks, len(m.marks), 0
		m.page.Cursor = s.cur
		if !yield(m.page, nil) {
			s.cur.endPage(false)
			return
		}
		s.cur.endPage(true)
	}
}

// leadPage is a page that stands for the answer to a window's first
// request (see sequential): complete reports that it holds every item of
// the window.
type leadPage[T any] struct {
	page     *Page[T]
	complete bool
}

// leadFor makes the first window's first page, from second from to end
// (zero: open), out of page 0, which holds the first items from the
// cursor's second on. Its items past the window's end are dropped: the
// page then holds every item of the window. It returns nil for the other
// windows, and when page 0 tells nothing of the window.
func (s *stable[T]) leadFor(ws *windowStart[T], from int64, end time.Time) *leadPage[T] {
	if ws.page == nil {
		return nil
	}
	p := *ws.page
	items := p.Items
	lo, hi := 0, len(items)
	for lo < hi && s.src.Key(&items[lo]).Unix() < from {
		lo++
	}
	if !end.IsZero() {
		for hi > lo && !s.src.Key(&items[hi-1]).Before(end) {
			hi--
		}
	}
	p.Items = items[lo:hi:hi]
	// A page that announces nothing after it, or reaches past the
	// window's end, holds every item of the window; its length says
	// nothing, as the server may cap it.
	complete := !ws.page.Info.moreAfter(0, len(items)) || hi < len(items)
	if lo == hi && !complete {
		return nil
	}
	return &leadPage[T]{page: &p, complete: complete}
}

// windowStart is where a window starts, found by a request for the item
// at page q's start, among the items of the key range from the cursor's
// second in key order (pages of the iteration's size), that runs while
// earlier windows are read; for q = 0, the whole page, which is the first
// window's first page.
type windowStart[T any] struct {
	q       int
	started bool
	done    chan struct{} // closed when the fields below are set
	sec     int64         // the second of the item at the page's start
	past    bool          // no item there: the end has been reached
	page    *Page[T]      // page 0
	total   int           // X-Count
	err     error
}

// windowPlan places the windows: it asks for the first page and the
// starts of the next windows at once, and for the others' once the first
// start has told the number of items. The requests pass the gate like the
// windows' pages (as the head's for the first page, so that the head
// window always finds a slot; else sharing the others'), and run in wg.
type windowPlan[T any] struct {
	s      *stable[T]
	ctx    context.Context
	gate   *Gate
	wg     *sync.WaitGroup
	lower  int64 // the iteration's first second
	starts []*windowStart[T]
	next   int // starts[:next] have been looked at by findUpTo
}

// find starts the request for ws.
func (p *windowPlan[T]) find(ws *windowStart[T]) {
	ws.started = true
	s := p.s
	req := Request{Page: ws.q * s.w, Size: 1} // the item at the page's start
	if ws.q == 0 {
		req.Page, req.Size = 0, s.w
	}
	if p.lower != minKeySec {
		req.Lower = time.Unix(p.lower, 0).UTC()
	}
	req.Claim = p.gate.Claim(ws.q == 0)
	p.wg.Go(func() {
		defer close(ws.done)
		defer req.Claim.Done()
		page, err := s.src.Fetch(p.ctx, req)
		if err != nil {
			ws.err = err
			return
		}
		ws.total = page.Info.Count
		if ws.q == 0 {
			ws.page = page
			return
		}
		if len(page.Items) == 0 {
			ws.past = true
			return
		}
		ws.sec = s.src.Key(&page.Items[0]).Unix()
	})
}

// speculate asks for page 0 and for the starts of the windows at pages
// 1, 5, 9, and so on, n requests in all (n >= 2), before any has told how
// many items there are. A list too short for them finds some past its
// end.
func (p *windowPlan[T]) speculate(n int) {
	for k := range n {
		q := 0
		if k > 0 {
			q = 1 + (k-1)*windowPages
		}
		ws := &windowStart[T]{q: q, done: make(chan struct{})}
		p.starts = append(p.starts, ws)
		p.find(ws)
	}
}

// place fixes the windows once the number of items is known: about
// windowPages pages each, the first and the last tailWindows one page,
// the starts already asked for at the same pages kept.
func (p *windowPlan[T]) place(total int) {
	made := make(map[int]*windowStart[T], len(p.starts))
	for _, ws := range p.starts {
		made[ws.q] = ws
	}
	w := p.s.w
	pages := (total + w - 1) / w
	size := max(windowPages, (pages+maxWindows-1)/maxWindows)
	qs := []int{0}
	for q := 1; q < pages-tailWindows; q += size {
		qs = append(qs, q)
	}
	for q := max(pages-tailWindows, qs[len(qs)-1]+1); q < pages; q++ {
		qs = append(qs, q)
	}
	p.starts = p.starts[:0]
	for _, q := range qs {
		ws := made[q]
		if ws == nil {
			ws = &windowStart[T]{q: q, done: make(chan struct{})}
		}
		p.starts = append(p.starts, ws)
	}
}

// findUpTo asks for the starts of starts[:i+1] not yet asked for.
func (p *windowPlan[T]) findUpTo(i int) {
	for ; p.next <= i && p.next < len(p.starts); p.next++ {
		if ws := p.starts[p.next]; !ws.started {
			p.find(ws)
		}
	}
}

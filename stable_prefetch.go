package billing

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Stable iteration with Prefetch(n): the key range still to read is split
// into windows of whole seconds, of about windowPages pages each (the
// first and the last tailWindows one page), placed by one-item requests
// for the item at each window's end position (see split). Each window is
// read as a sequential stable iteration of its own range, and their pages
// are yielded in key order. A second never spans two windows, so each
// keeps every guarantee of the sequential iteration; the last window is
// open, so that items added at the end are read as sequentially.
//
// Up to 2n windows are read at once, with at most n requests on the wire
// (see requestSlots): a window decoding its last page has no request out,
// and another one's can go. One of the n is kept for the window being
// yielded (the head), whose pages the loop waits for. Only the head is
// read at the pace of the loop; the others read ahead into a shared
// allowance of 8n pages. A window that has used the allowance waits until
// pages before it are yielded, or until it becomes the head.

// windowMsg is one page of a window, with the cursor positions of its
// items, or the window's error. ahead says the page holds one of the
// allowance's places.
type windowMsg[T any] struct {
	page  *Page[T]
	marks []cursorMark
	err   error
	ahead bool
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

// pagesAheadPerWorker is the allowance of pages read ahead per concurrent
// window.
const pagesAheadPerWorker = 8

// window is one window being read: its pages, and head, closed when the
// loop starts yielding them.
type window[T any] struct {
	pages chan windowMsg[T]
	head  chan struct{}
}

func (s *stableState[T]) windows(ctx context.Context, n int, capture *Response, yield func(*Page[T], error) bool) {
	ctx, cancel := context.WithCancel(context.WithValue(withPacer(ctx, &pacer{}), captureKey{}, true))
	defer cancel()
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	slots, others, decoders := make(requestSlots, n), make(requestSlots, n-1), newDecoders()
	bounds, err := s.split(ctx, slots, &wg)
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
	ahead := make(chan struct{}, pagesAheadPerWorker*n)
	// Window i reads from the end of window i-1 (the first from the
	// cursor) to bounds[i], the last one open-ended; a window whose end is
	// not past its start is empty. They start in order, as soon
	// as their end is known and fewer than 2n are reading: a window read
	// to its end waits for its turn without a reader.
	wins := make([]window[T], len(bounds)+1)
	for i := range wins {
		wins[i] = window[T]{pages: make(chan windowMsg[T], 2*windowPages+2), head: make(chan struct{})}
	}
	// read reads window i up to end (zero: open), from the cursor when it
	// is the first window with items, else from second from.
	read := func(i int, atCursor bool, from int64, end time.Time) {
		win := wins[i]
		defer close(win.pages)
		w := &stableState[T]{run: s.run, cur: &Cursor{}, w: s.w, fetch: s.fetch, keyOf: s.keyOf}
		if atCursor {
			w.cur.st = s.cur.st
			w.cur.st.IDs = append([]int64(nil), s.cur.st.IDs...)
		} else {
			w.cur.st = cursorState{Started: true, Sec: from}
		}
		sl := &slot{slots: slots, others: others, head: win.head, decoders: decoders}
		defer sl.done()
		ctx := withSlot(ctx, sl)
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
	}
	readers := make(chan struct{}, 2*n)
	wg.Go(func() {
		// from is where the next window starts: the cursor's second until
		// a window has been started.
		from, atCursor := minKeySec, true
		if s.cur.st.Started {
			from = s.cur.st.Sec
		}
		i := 0
		defer func() {
			for ; i < len(wins); i++ {
				close(wins[i].pages) // never read: the loop sees them end
			}
		}()
		for ; i < len(wins); i++ {
			var end time.Time
			if i < len(bounds) {
				b := bounds[i]
				select {
				case <-b.done:
				case <-ctx.Done():
					return
				}
				if b.err != nil {
					wins[i].pages <- windowMsg[T]{err: b.err} // buffered: never blocks
					close(wins[i].pages)
					i++
					return
				}
				if b.sec <= from {
					close(wins[i].pages) // no second of its own: empty
					continue
				}
				end = time.Unix(b.sec, 0).UTC()
			}
			select {
			case readers <- struct{}{}:
			case <-ctx.Done():
				return
			}
			win, first, start := i, atCursor, from // the loop moves on
			wg.Go(func() {
				defer func() { <-readers }()
				read(win, first, start, end)
			})
			from, atCursor = end.Unix(), false
		}
	})
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
	}
}

// windowEnd is the end of a window: the key second of the item at a
// position, found by a one-item request that runs while earlier windows
// are read.
type windowEnd struct {
	done chan struct{} // closed when sec or err is set
	sec  int64         // 0 when the position is past the end
	err  error
}

// split plans the windows: one one-item request per window end reads the
// key of the item at that position (page p of size 1 is the item at
// position p in key order), so that windows hold about windowPages pages
// each, the first one page. The first of them, made here, also gives the
// number of items (X-Count). Those requests run in the background, in wg, taking
// slots like any other; a window starts once its end is known. Items
// that move meanwhile only unbalance the windows: each still reads its
// key range stably. No ends means the range is too small to split.
func (s *stableState[T]) split(ctx context.Context, slots requestSlots, wg *sync.WaitGroup) ([]*windowEnd, error) {
	st := s.cur.st
	lower := time.Time{}
	if st.Started {
		lower = time.Unix(st.Sec, 0).UTC()
	}
	probe := func(pos int) (*Page[T], error) {
		sl := &slot{slots: slots}
		defer sl.done()
		return s.fetch(withSlot(ctx, sl), &stableReq{run: s.run, lower: lower}, pos, 1)
	}
	// The end of the first window comes with the number of items: the
	// first window can start at once.
	first, err := probe(s.w)
	if err != nil {
		return nil, err
	}
	if s.keyOf == nil {
		if s.keyOf, err = keyReader[T](s.run.key.entity); err != nil {
			return nil, err
		}
	}
	total := first.Count
	if total < 2*s.w || len(first.Items) == 0 {
		return nil, nil
	}
	ends := []*windowEnd{{done: make(chan struct{}), sec: s.keyOf(&first.Items[0]).Unix()}}
	close(ends[0].done)
	size := max(windowPages*s.w, (total+maxWindows-1)/maxWindows)
	// The last windows are one page each too: when the loop reaches them
	// the others are done, and a long last window would be read alone,
	// one request at a time.
	tail := total - tailWindows*s.w
	for pos := s.w + size; pos < total; pos += size {
		if pos > tail {
			pos = tail + (pos-tail)/s.w*s.w
			size = s.w
		}
		e := &windowEnd{done: make(chan struct{})}
		ends = append(ends, e)
		wg.Go(func() {
			defer close(e.done)
			p, err := probe(pos)
			switch {
			case err != nil:
				e.err = err
			case len(p.Items) > 0:
				e.sec = s.keyOf(&p.Items[0]).Unix()
			}
		})
	}
	return ends, nil
}

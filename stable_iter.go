package billing

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"
)

// stableFetch reads one page of a keyed request: the key range of req,
// page n of the given size.
type stableFetch[T any] func(ctx context.Context, req *stableReq, n, size int) (*Page[T], error)

// stablePages is the stable iteration (see Stable): pages of items not
// delivered before, with the cursor moved along.
func stablePages[T any](ctx context.Context, cfg *stableConfig, prefetch int, capture *Response, size int, fetch stableFetch[T]) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		if ctx == nil {
			yield(nil, invalid("ctx", "nil context.Context"))
			return
		}
		if size == 1 {
			yield(nil, invalid("pageSize", "stable iteration needs pages of at least 2 items"))
			return
		}
		w := size
		if w <= 0 {
			w = stableDefaultPageSize
		}
		s := &stableState[T]{run: &stableRun{cfg: cfg}, cur: cfg.cur, w: w, fetch: fetch}
		s.cur.settle()
		s.cur.pending, s.cur.upto, s.cur.applied = nil, 0, 0
		if prefetch >= 2 {
			s.windows(ctx, prefetch, capture, yield)
			return
		}
		s.sequential(ctx, time.Time{}, nil, yield)
	}
}

// stableState is one stable iteration in progress.
type stableState[T any] struct {
	run   *stableRun
	cur   *Cursor
	w     int
	fetch stableFetch[T]
	keyOf func(*T) time.Time
}

// sequential pages through the key range up to end (zero: open), one
// request at a time. It returns false when the iteration must stop. A
// lead, when given, stands for the answer to the first request.
func (s *stableState[T]) sequential(ctx context.Context, end time.Time, lead *leadPage[T], yield func(*Page[T], error) bool) bool {
	stalls := 0
	for {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return false
		}
		st := s.cur.st
		req := &stableReq{run: s.run, upper: end}
		inside := st.Started && len(st.IDs) >= s.w
		n, l := 0, s.w
		switch {
		case inside:
			req.lower = time.Unix(st.Sec, 0).UTC()
			next := req.lower.Add(time.Second)
			if end.IsZero() || next.Before(end) {
				req.upper = next
			}
			n, l = stableWindow(st.Pos, s.w)
		case st.Started:
			req.lower = time.Unix(st.Sec, 0).UTC()
		}
		var p *Page[T]
		var err error
		full := false
		if lead != nil && !inside {
			p, full = lead.page, lead.full
		} else {
			p, err = s.fetch(ctx, req, n, l)
			full = err == nil && len(p.Items) >= l && p.HasNext()
		}
		lead = nil
		if errors.Is(err, errEmptyKeyRange) {
			return true
		}
		if err != nil {
			yield(nil, err)
			return false
		}
		if p.PageSize > 0 && p.PageSize < l {
			// The server caps pages below what was asked: page numbers
			// mean other positions. Go on with its size.
			s.w = max(p.PageSize, 2)
			if stalls++; stalls > 3 {
				yield(nil, fmt.Errorf("%w: the server keeps cutting the page size", ErrPagination))
				return false
			}
			continue
		}
		if s.keyOf == nil {
			if s.keyOf, err = keyReader[T](s.run.key.entity); err != nil {
				yield(nil, err)
				return false
			}
		}
		out, marks, lastPos, err := s.scan(p, st, req, inside, n*l)
		if errors.Is(err, errLostPlace) {
			// The second changed under the window: read it from its start.
			s.cur.st.Pos = 0
			if stalls++; stalls > 3 {
				yield(nil, fmt.Errorf("%w: cannot find the items already delivered inside second %d", ErrPagination, st.Sec))
				return false
			}
			continue
		}
		if err != nil {
			yield(nil, err)
			return false
		}
		if len(out) > 0 {
			page := *p
			page.Items = out
			page.cursor = s.cur
			s.cur.pending, s.cur.upto, s.cur.applied = marks, len(marks), 0
			if !yield(&page, nil) {
				s.cur.settle()
				s.cur.pending, s.cur.upto, s.cur.applied = nil, 0, 0
				return false
			}
			s.cur.finishPage()
		}
		before := st.Pos
		if len(p.Items) > 0 && lastPos.sec == s.cur.st.Sec && s.cur.st.Started {
			s.cur.st.Pos = lastPos.pos
		}
		switch {
		case inside && !full:
			// The second is done: go on after it.
			s.cur.st.Sec, s.cur.st.IDs, s.cur.st.Pos = st.Sec+1, nil, 0
			stalls = 0
		case !full:
			return true
		case len(out) > 0 || s.cur.st.Pos > before:
			stalls = 0
		default:
			if stalls++; stalls > 3 {
				yield(nil, fmt.Errorf("%w: a full page brought nothing new at key second %d", ErrPagination, st.Sec))
				return false
			}
		}
	}
}

// errLostPlace is a page inside one second that holds none of the items
// already delivered: it cannot prove that it follows them.
var errLostPlace = errors.New("billing: lost place inside a second")

// scan picks the items of a page not delivered before and where the
// cursor stands after each. st is the cursor before the page; start the
// position of the page's first item inside the second (inside only). The
// items picked are moved to the front of p.Items, whose order past them
// is then undefined: a page of 1,000 invoices is not copied.
func (s *stableState[T]) scan(p *Page[T], st cursorState, req *stableReq, inside bool, start int) ([]T, []cursorMark, cursorMark, error) {
	seen := make(map[int64]bool, len(st.IDs))
	for _, id := range st.IDs {
		seen[id] = true
	}
	curSec, started := st.Sec, st.Started
	out := p.Items[:0]
	marks := make([]cursorMark, 0, len(p.Items))
	var last cursorMark
	runSec, runPos, overlap := int64(0), 0, false
	for i := range p.Items {
		it := &p.Items[i]
		k := s.keyOf(it)
		id, err := idOf(it)
		if err != nil {
			return nil, nil, last, err
		}
		if k.IsZero() {
			return nil, nil, last, fmt.Errorf("%w: item %d has no %s, which the range filter excludes", ErrPagination, id, s.run.key.name)
		}
		sec := k.Unix()
		switch {
		case !req.lower.IsZero() && sec < req.lower.Unix(), !req.upper.IsZero() && !k.Before(req.upper):
			return nil, nil, last, fmt.Errorf("%w: item %d is outside the key range asked for; the server ignored the filter", ErrPagination, id)
		case i > 0 && sec < runSec:
			return nil, nil, last, fmt.Errorf("%w: items are not in ascending %s order", ErrPagination, s.run.key.name)
		}
		if sec != runSec || i == 0 {
			runSec, runPos = sec, 0
		}
		runPos++
		pos := runPos
		if inside {
			pos = start + i + 1
		}
		last = cursorMark{sec: sec, id: id, pos: pos}
		if !started || sec > curSec {
			started, curSec = true, sec
			clear(seen)
		}
		if seen[id] {
			overlap = true
			continue
		}
		seen[id] = true
		out = append(out, *it)
		marks = append(marks, last)
	}
	if inside && start > 0 && !overlap {
		return nil, nil, last, errLostPlace
	}
	return out, marks, last, nil
}

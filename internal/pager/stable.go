package pager

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"time"
)

// Stable iterates over the pages of src by key, from cur on, in pages of
// size w (at least 2): only items not delivered before, with cur moved
// along item by item (Cursor.Reached) and past each page the consumer took
// whole. With prefetch >= 2, windows of the key range are read through a
// pipeline. See the package documentation.
func Stable[T any](ctx context.Context, src Source[T], cur *Cursor, w, prefetch int) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		s := &stable[T]{src: src, cur: cur, w: w}
		cur.endPage(false)
		if prefetch >= 2 {
			s.windows(ctx, prefetch, yield)
			return
		}
		s.sequential(ctx, time.Time{}, nil, yield)
	}
}

// keyLayout is a key second in messages.
const keyLayout = "2006-01-02T15:04:05"

// minKeySec is the first second a key can have.
var minKeySec = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

// stable is one stable iteration in progress, or one window of it.
type stable[T any] struct {
	src Source[T]
	cur *Cursor
	w   int
	// claim, inside a pipeline, is the window's hold on its gate.
	claim *Claim
	// inside says the iteration pages by number inside the frontier's
	// second, which holds more items than a page; leaving says that items
	// already delivered leave that second as it is read, so that paging
	// from its start finds the next ones.
	inside, leaving bool
	// forward says a page of this pass proved nothing (it started at the
	// frontier's key or past it): the pass then reads on to the second's
	// end, to be proven by count.
	forward bool
	pass    passProof
}

// maxFruitlessPasses is how many passes in a row over one second may end
// without proving that every item of it was read, and without showing
// anything new, before the iteration gives up with ErrPagination.
const maxFruitlessPasses = 3

// sequential pages through the key range up to end (zero: open), one
// request at a time. It returns false when the iteration must stop. A
// lead, when given, stands for the answer to the first request.
// Each page carries the frontier only as far as it proves (see the
// package documentation); a second with more items than half a page is
// read by page number inside it, in passes when a group of equal keys is
// larger than a page.
func (s *stable[T]) sequential(ctx context.Context, end time.Time, lead *leadPage[T], yield func(*Page[T], error) bool) bool {
	stalls := 0
	for {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return false
		}
		st := &s.cur.State
		req := Request{Upper: end, Claim: s.claim}
		if st.Started {
			req.Lower = time.Unix(st.Sec, 0).UTC()
		}
		inside := s.inside && st.Started
		n, l := 0, s.w
		if inside {
			if next := req.Lower.Add(time.Second); end.IsZero() || next.Before(end) {
				req.Upper = next
			}
			n, l = stableWindow(st.Pos, s.w)
			if s.forward {
				n, l = st.Pos/s.w, s.w
			}
		}
		var p *Page[T]
		var err error
		more := false
		if lead != nil && !inside {
			p, more = lead.page, lead.full
		} else {
			req.Page, req.Size = n, l
			if p, err = s.src.Fetch(ctx, req); err == nil {
				more = p.Info.moreAfter(n*l, len(p.Items))
			}
		}
		lead = nil
		if errors.Is(err, ErrEmptyRange) {
			return true
		}
		if err != nil {
			yield(nil, err)
			return false
		}
		if p.Info.PageSize > 0 && p.Info.PageSize < l {
			// The server caps pages below what was asked: page numbers
			// mean other positions. Go on with its size.
			s.w = max(p.Info.PageSize, 2)
			if stalls++; stalls > 3 {
				yield(nil, fmt.Errorf("%w: the server keeps cutting the page size", ErrPagination))
				return false
			}
			continue
		}
		if len(p.Items) < l && more {
			// Shorter than asked, with more announced after it: the
			// server caps pages without saying so. Page 0 still holds the
			// first items; other page numbers may mean other positions
			// under the cap, so such a page is asked for again in its size.
			if len(p.Items) < 2 {
				yield(nil, fmt.Errorf("%w: a page of %d items where %d were asked for and X-Count announces more", ErrPagination, len(p.Items), l))
				return false
			}
			s.w = len(p.Items)
			if n > 0 {
				if stalls++; stalls > 3 {
					yield(nil, fmt.Errorf("%w: the server keeps cutting the page size", ErrPagination))
					return false
				}
				continue
			}
		}
		if !inside && len(p.Items) == 0 && !more {
			return true
		}
		sec, before := st.Sec, st.frontier()
		if inside {
			notePass(&s.pass, s.src, sec, p, n == 0)
		}
		sc, err := s.scan(p, *st, req, n*l, n > 0, !more, inside)
		if err != nil {
			yield(nil, err)
			return false
		}
		proven := inside && !sc.progress && !more && s.pass.proven()
		if proven {
			// Every item of the second was seen while it held the same
			// items: it is done, whatever the order of equal keys.
			sc.progress, sc.end, sc.pos = true, keyAt{sec + 1, 0}, 0
		}
		if sc.progress && len(sc.marks) > 0 {
			// The last item's position carries the whole page's proof:
			// the items after it on the page were delivered before.
			last := &sc.marks[len(sc.marks)-1]
			last.frontier, last.pos = sc.end, sc.pos
		}
		if len(sc.out) > 0 {
			page := *p
			page.Items = sc.out
			page.Cursor = s.cur
			s.cur.pending, s.cur.upto, s.cur.applied = sc.marks, len(sc.marks), 0
			if !yield(&page, nil) {
				s.cur.endPage(false)
				return false
			}
			s.cur.endPage(true)
		}
		st = &s.cur.State
		if sc.progress {
			st.advance(sc.end)
		}
		st.Pos = sc.pos
		advanced := before.less(st.frontier()) || !st.Started
		if st.Sec != sec {
			// A new second: whatever was learnt of the last one is moot.
			s.inside, s.leaving, s.forward, s.pass = false, false, false, passProof{}
		}
		switch {
		case inside && st.Sec != sec:
			stalls = 0
		case inside && !more:
			// The end of the second, without a proof that it was all
			// read: read it again from its start.
			if s.pass.endPass(len(sc.out) > 0) {
				yield(nil, fmt.Errorf("%w: cannot prove that every item with %s in second %s was read: %d passes in a row over it neither saw all of its X-Count of %d nor anything new (the order of items with equal keys changes between requests, or the second keeps changing)",
					ErrPagination, s.src.KeyName, time.Unix(sec, 0).UTC().Format(keyLayout), maxFruitlessPasses, p.Info.Count))
				return false
			}
			st.Pos, s.forward = 0, false
		case inside && sc.overshoot && s.pass.shrank && !s.forward:
			// The page starts past the frontier and the second shrank:
			// items before the page left it, as delivered items do when
			// the loop changes their key. Such a second is best followed
			// from its start.
			s.inside, s.leaving, st.Pos = false, true, 0
		case inside:
			// A page at the frontier's key, or past it while the second
			// held the same number of items: no page can carry the
			// frontier across the items at its key. Read on to the end
			// of the second, which proves the pass by its count.
			s.forward = s.forward || !sc.progress
		case !more:
			return true
		case advanced:
			stalls = 0
			if st.Pos*2 >= s.w && !s.leaving {
				// The items of the frontier's second already read fill
				// half a page: go on by page number inside it.
				s.inside = true
			}
		case len(sc.out) > 0:
			stalls = 0
		default:
			// A page from the second's start brought nothing new: the
			// second holds more than a page before the frontier.
			s.inside, s.leaving = true, false
			if stalls++; stalls > 3 {
				yield(nil, fmt.Errorf("%w: a full page brought nothing new at key second %d", ErrPagination, sec))
				return false
			}
		}
	}
}

// passProof is what the pages read inside one second have shown, to prove
// that every item of the second was seen whatever the order of its equal
// keys (see sequential): either one pass, from the second's start to its
// end, during which its X-Count stayed the same, showed that many
// distinct items; or all passes since the count last changed did,
// together (which a server that orders equal keys at random needs).
type passProof struct {
	sec   int64
	count int
	// seen are the ids shown since the count last changed; pass those of
	// the current pass, which stayed at the count if passOK.
	seen, pass map[int64]struct{}
	passOK     bool
	// grew says the current pass showed an item the earlier passes at
	// the same count had not; shrank that the count fell from one page
	// to the next.
	grew, shrank bool
	fruitless    int
	least        int // the lowest count of the second so far
}

// notePass adds the ids of page p, read inside second sec, to pp; start
// says p is the first page of a pass.
func notePass[T any](pp *passProof, src Source[T], sec int64, p *Page[T], start bool) {
	count := p.Info.Count
	changed := pp.seen == nil || pp.sec != sec || pp.count != count
	pp.shrank = pp.seen != nil && pp.sec == sec && count < pp.count
	if same := pp.seen != nil && pp.sec == sec; !same || count < pp.least {
		pp.least, pp.grew = count, pp.grew || same // a second that drains is progress
	}
	if changed {
		pp.sec, pp.count, pp.seen = sec, count, make(map[int64]struct{}, len(p.Items))
		pp.passOK = false
	}
	if start {
		pp.pass, pp.passOK = make(map[int64]struct{}, len(p.Items)), true
	}
	for i := range p.Items {
		id := src.ID(&p.Items[i])
		if _, ok := pp.seen[id]; !ok {
			pp.seen[id] = struct{}{}
			pp.grew = pp.grew || !changed
		}
		if pp.pass != nil {
			pp.pass[id] = struct{}{}
		}
	}
	if len(pp.seen) > pp.count {
		// The second changed at the same count: what earlier passes saw
		// no longer adds up. Keep the current pass's.
		pp.seen = maps.Clone(pp.pass)
	}
}

// proven reports whether every item of the second has been seen.
func (pp *passProof) proven() bool {
	return pp.count >= 0 && (pp.passOK && len(pp.pass) == pp.count || len(pp.seen) == pp.count)
}

// endPass closes a pass that ended without proof, delivered says it
// yielded something; it reports whether to give up.
func (pp *passProof) endPass(delivered bool) bool {
	if pp.grew || delivered {
		pp.fruitless = 0
	} else {
		pp.fruitless++
	}
	pp.grew = false
	return pp.fruitless >= maxFruitlessPasses
}

// scanned is what scan found on a page.
type scanned[T any] struct {
	out   []T
	marks []mark
	// progress says the page carries the frontier on, to end.
	progress bool
	end      keyAt
	// overshoot says a page inside a second starts past the frontier.
	overshoot bool
	// pos is the position hint after the page.
	pos int
}

// scan picks the items of a page not delivered before, and works out what
// the page proves (see sequential). st is the cursor before the page;
// start is the position of the page's first item in the range asked for,
// paged says it is not page 0 (which starts at the range's start), final
// that nothing is announced after it, inside that the range is one
// second. The items picked are moved to the front of p.Items, whose order
// past them is then undefined: a page of 1,000 invoices is not copied.
func (s *stable[T]) scan(p *Page[T], st State, req Request, start int, paged, final, inside bool) (scanned[T], error) {
	var sc scanned[T]
	items := p.Items
	from := st.frontier()
	if len(items) == 0 {
		// Inside a second: an empty page 0 finds the second empty; an
		// empty page further on proves nothing.
		if !paged {
			sc.progress, sc.end = true, keyAt{st.Sec + 1, 0}
		}
		return sc, nil
	}
	first := keyOfTime(s.src.Key(&items[0]))
	sc.progress = !st.Started || !paged || first.less(from)
	sc.overshoot = inside && !sc.progress && from.less(first)
	seen := make(map[int64]keyAt, len(st.IDs))
	for i, id := range st.IDs {
		seen[id] = keyAt{st.Sec, st.Keys[i]}
	}
	sc.out = items[:0]
	sc.marks = make([]mark, 0, len(items))
	var prev keyAt
	inLast := 0 // items at the last item's second
	for i := range items {
		it := &items[i]
		t := s.src.Key(it)
		id := s.src.ID(it)
		if t.IsZero() {
			return sc, fmt.Errorf("%w: item %d has no %s, which the range filter excludes", ErrPagination, id, s.src.KeyName)
		}
		k := keyOfTime(t)
		switch {
		case !req.Lower.IsZero() && t.Before(req.Lower), !req.Upper.IsZero() && !t.Before(req.Upper):
			return sc, fmt.Errorf("%w: item %d is outside the key range asked for; the server ignored the filter", ErrPagination, id)
		case i > 0 && k.less(prev):
			return sc, fmt.Errorf("%w: items are not in ascending %s order", ErrPagination, s.src.KeyName)
		}
		if i == 0 || k.sec != prev.sec {
			inLast = 0
		}
		inLast++
		prev = k
		if st.Started && k.less(from) {
			continue // before the frontier: delivered already
		}
		if e, ok := seen[id]; ok && e.sec == k.sec && (e.ns == AnyKey || e.ns == k.ns) {
			continue // delivered at this key already
		}
		seen[id] = k
		f := from
		if sc.progress && (!st.Started || from.less(k)) {
			f = k
		}
		sc.out = append(sc.out, *it)
		sc.marks = append(sc.marks, mark{id: id, key: k, frontier: f, pos: st.Pos})
	}
	last := prev
	switch {
	case !sc.progress:
		sc.pos = start + len(items)
	case final && inside:
		sc.end, sc.pos = keyAt{st.Sec + 1, 0}, 0
	default:
		sc.end = last
		if st.Started && last.less(from) {
			sc.end = from
		}
		sc.pos = inLast
		if inside {
			sc.pos = start + len(items)
		}
	}
	return sc, nil
}

// stableWindow picks, for paging inside one second, a page size up to w
// and a page number whose page holds position pos, where the next unread
// item is thought to be, as many positions after it as possible and, when
// it can, the two before it: a page that starts before the items at the
// frontier's key proves what follows it (see sequential), while one that
// starts at pos only delivers.
func stableWindow(pos, w int) (n, size int) {
	for back := min(pos, 2); back >= 0; back-- {
		best, anchor := 0, pos-back
		for l := w; l >= 2; l-- {
			k := anchor / l
			if gain := k*l + l - pos; gain > best {
				best, n, size = gain, k, l
			}
		}
		if best > 0 {
			return n, size
		}
	}
	return pos / w, w
}

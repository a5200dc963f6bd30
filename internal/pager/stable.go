package pager

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"
)

// Stable iterates over the pages of src by key, from cur on, in pages of
// size w (at least 2): only items not delivered before, with cur moved
// along item by item (Cursor.Reached) and past each page the consumer took
// whole. With prefetch >= 2, windows of the key range are read through a
// pipeline. See the package documentation.
func Stable[T any](ctx context.Context, src Source[T], cur *Cursor, w, prefetch int) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		s := &stable[T]{src: src, cur: cur, w: w, capped: new(atomic.Int64)}
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

// secTime is the start of Unix second sec.
func secTime(sec int64) time.Time { return time.Unix(sec, 0).UTC() }

// stable is one stable iteration in progress, or one window of it.
type stable[T any] struct {
	src Source[T]
	cur *Cursor
	w   int
	// claim, inside a pipeline, is the window's hold on its gate.
	claim *Claim
	// open says the frontier's second was read whole while it could still
	// receive writes (its answers' Date was in it): the iteration reads on
	// from the next second, and reads it again before leaving it.
	open bool
	// capped is the length of the last answer for one second that the
	// server cut short of the size asked, shared by every window of the
	// run (0: none yet). A second larger than that is counted and split
	// straight away (see readSecond): asking for all of it again would
	// bring that many items only to split it anyway.
	capped *atomic.Int64
}

// maxDensePage bounds the page size asked for one whole second, so that a
// server that honours any size does not send more than the client's
// response limit holds: a larger second is read in parts.
const maxDensePage = 10000

// sequential pages through the key range up to end (zero: open), one
// request at a time, always page 0 of the range from the frontier's
// second. It returns false when the iteration must stop. A lead, when
// given, stands for the answer to the first request. See the package
// documentation for what each answer proves.
func (s *stable[T]) sequential(ctx context.Context, end time.Time, lead *leadPage[T], yield func(*Page[T], error) bool) bool {
	for {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return false
		}
		st := &s.cur.State
		req := Request{Upper: end, Size: s.w, Claim: s.claim}
		if st.Started {
			req.Lower = secTime(st.Sec)
		}
		probe := s.open
		if probe {
			req.Lower = secTime(st.Sec + 1)
			if !end.IsZero() && !req.Lower.Before(end) {
				return true // the open second ends the range
			}
		}
		var p *Page[T]
		var complete bool
		if lead != nil {
			p, complete, lead = lead.page, lead.complete, nil
		} else {
			var err error
			p, err = s.src.Fetch(ctx, req)
			if errors.Is(err, ErrEmptyRange) {
				return true
			}
			if err != nil {
				yield(nil, err)
				return false
			}
			complete = !p.Info.moreAfter(0, len(p.Items))
		}
		if err := s.check(p, req); err != nil {
			yield(nil, err)
			return false
		}
		if probe {
			s.open = false
			if len(p.Items) == 0 && complete {
				// Nothing after the open second: the run ends in it, and
				// a run resumed from the cursor reads it again.
				return true
			}
			if d := p.Info.Date; d.IsZero() || d.Unix() > st.Sec {
				// The open second is over: what it received after it was
				// read is read now, before anything after it.
				if _, ok := s.readSecond(ctx, st.Sec, end, s.w, nil, yield); !ok {
					return false
				}
			}
			st = &s.cur.State
			st.advance(keyAt{st.Sec + 1, 0})
		}
		if len(p.Items) == 0 {
			if complete {
				return true
			}
			yield(nil, fmt.Errorf("%w: an empty first page of %s from %s while more items are announced", ErrPagination, s.src.KeyName, req.Lower.Format(keyLayout)))
			return false
		}
		first, last := s.sec(&p.Items[0]), s.sec(&p.Items[len(p.Items)-1])
		if st.Started {
			first = st.Sec
		}
		tail, bound := s.tail(p, last)
		var samples [][]decimal.Decimal
		if !complete && (last == first || 2*tail > len(p.Items)) {
			samples = s.samples(p.Items[len(p.Items)-tail:])
		}
		if !s.deliver(p, yield) {
			return false
		}
		st = &s.cur.State
		if complete {
			return true
		}
		if last > first {
			// Page 0 of the range holds every item before the second of
			// its last item.
			st.advance(keyAt{last, 0})
			if 2*tail <= len(p.Items) {
				continue
			}
			// Most of the page is that second: read it whole rather than
			// page over the same items again.
		}
		over, ok := s.readSecond(ctx, last, end, bound, samples, yield)
		if !ok {
			return false
		}
		st = &s.cur.State
		if over {
			st.advance(keyAt{last + 1, 0})
		} else {
			s.open = true
		}
	}
}

// sec is the key second of an item.
func (s *stable[T]) sec(it *T) int64 { return s.src.Key(it).Unix() }

// tail counts the items of page p in second last, and bounds the items of
// that second (from what the answer counted after the items before it),
// for the page size that asks for all of it at once.
func (s *stable[T]) tail(p *Page[T], last int64) (tail, bound int) {
	for i := len(p.Items) - 1; i >= 0 && s.sec(&p.Items[i]) == last; i-- {
		tail++
	}
	bound = s.w
	if c := p.Info.Count; c >= 0 {
		bound = max(bound, c-(len(p.Items)-tail))
	}
	return tail, min(bound, max(s.w, maxDensePage))
}

// fetchChecked fetches req and checks the answer (check); the source's
// error, ErrEmptyRange among them, comes back as it is.
func (s *stable[T]) fetchChecked(ctx context.Context, req Request) (*Page[T], error) {
	p, err := s.src.Fetch(ctx, req)
	if err == nil {
		err = s.check(p, req)
	}
	return p, err
}

// check refuses an answer that does not keep to what was asked: an item
// without a key, outside the key range or a part asked for, or out of
// ascending key order by second.
func (s *stable[T]) check(p *Page[T], req Request) error {
	var prev int64
	for i := range p.Items {
		it := &p.Items[i]
		t := s.src.Key(it)
		id := s.src.ID(it)
		switch {
		case t.IsZero():
			return fmt.Errorf("%w: item %d has no %s, which the range filter excludes", ErrPagination, id, s.src.KeyName)
		case !req.Lower.IsZero() && t.Before(req.Lower), !req.Upper.IsZero() && !t.Before(req.Upper):
			return fmt.Errorf("%w: item %d is outside the key range asked for; the server ignored the filter", ErrPagination, id)
		case i > 0 && t.Unix() < prev:
			return fmt.Errorf("%w: items are not in ascending %s order", ErrPagination, s.src.KeyName)
		}
		prev = t.Unix()
		for _, r := range req.Parts {
			if sp := s.src.Splits[r.Split]; !r.contains(sp.Value(it)) {
				return fmt.Errorf("%w: item %d is outside the %s range asked for; the server ignored the filter", ErrPagination, id, sp.Name)
			}
		}
	}
	return nil
}

// deliver yields the items of p not delivered before (by the frontier,
// or by their id at the same key), each moving the cursor to its own
// second: the answer proves every item before it read. The items kept are
// moved to the front of p.Items, whose order past them is then undefined:
// a page of 1,000 invoices is not copied.
func (s *stable[T]) deliver(p *Page[T], yield func(*Page[T], error) bool) bool {
	st := &s.cur.State
	from := st.frontier()
	done := st.delivered()
	items := p.Items
	out := items[:0]
	var marks []mark
	for i := range items {
		k := keyOfTime(s.src.Key(&items[i]))
		id := s.src.ID(&items[i])
		if st.Started && k.less(from) {
			continue // before the frontier: delivered already
		}
		if _, ok := done[idKey{id, k.sec, AnyKey}]; ok && st.Started && k.sec == st.Sec {
			continue // delivered in this second by a cursor of the earlier format
		}
		if _, ok := done[idKey{id, k.sec, k.ns}]; ok {
			continue // twice in one answer
		}
		done[idKey{id, k.sec, k.ns}] = struct{}{}
		if marks == nil {
			marks = make([]mark, 0, len(items)-i)
		}
		marks = append(marks, mark{id: id, key: k, frontier: keyAt{k.sec, 0}})
		out = append(out, items[i])
	}
	if len(out) == 0 {
		return true
	}
	page := *p
	page.Items = out
	page.Cursor = s.cur
	s.cur.pending, s.cur.upto, s.cur.applied = marks, len(marks), 0
	if !yield(&page, nil) {
		s.cur.endPage(false)
		return false
	}
	s.cur.endPage(true)
	return true
}

// part is a part of one second's items: its range on each split field
// tried so far, the last on the field being split. single says the last
// range holds one value, as far as the samples show: it is split on the
// next field.
type part struct {
	ranges []Range
	single bool
}

// readSecond reads every item of second sec, which holds more items than
// a page (see the package documentation): first all of it in one page of
// size (the items the last answer counted from it on), then, where the
// answer is capped, in parts of a split field's domain, each read whole in
// one answer. It reports whether every answer came after the second was
// over (by its Date), and false in ok when the iteration must stop.
//
// samples, when given, are the split fields' values of the items of the
// second that the page before brought. Once the server has capped a
// second's answer in this run, a second bound to be larger is first
// counted with a one-item request and, past that cap, split on the
// samples at once: the capped answer would only have been thrown away.
// Samples only place the cuts; the parts tile the domain whatever they
// are, and each is proven by its own answer.
func (s *stable[T]) readSecond(ctx context.Context, sec int64, end time.Time, size int, samples [][]decimal.Decimal, yield func(*Page[T], error) bool) (over, ok bool) {
	lo, hi := secTime(sec), secTime(sec+1)
	if !end.IsZero() && end.Before(hi) {
		hi = end
	}
	size = max(size, s.w)
	todo := []part{{}}
	over = true
	// asked bounds the parts asked for: four per page of the most items
	// any answer counted in the second, and a few more.
	asked, most := 0, 0
	regrown := 0 // times the page size grew to what a part counts
	if capped := s.capAt(); capped > 0 && size > capped && len(samples) > 0 && len(samples[0]) > 0 {
		req := Request{Lower: lo, Upper: hi, Size: 1, Claim: s.claim}
		p, err := s.fetchChecked(ctx, req)
		if err != nil {
			yield(nil, err)
			return false, false
		}
		if d := p.Info.Date; !d.IsZero() && d.Unix() <= sec {
			over = false
		}
		switch n := p.Info.Count; {
		case !p.Info.moreAfter(0, len(p.Items)):
			todo = nil // one item, or none: read whole
		case n > capped:
			most = n
			todo, err = s.split(part{}, samples, capped, n, sec)
			slices.Reverse(todo) // the lowest part is read first
			if asked = len(todo); err != nil {
				yield(nil, err)
				return false, false
			}
		case n > 1:
			size = n
		}
		if !s.deliver(p, yield) {
			return false, false
		}
	}
	for len(todo) > 0 {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return false, false
		}
		pt := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		req := Request{Lower: lo, Upper: hi, Size: size, Parts: pt.ranges, Claim: s.claim}
		p, err := s.fetchChecked(ctx, req)
		if errors.Is(err, ErrEmptyRange) {
			continue // the caller's own filter leaves this part empty
		}
		if err != nil {
			yield(nil, err)
			return false, false
		}
		if d := p.Info.Date; !d.IsZero() && d.Unix() <= sec {
			over = false
		}
		var more []part
		switch {
		case !p.Info.moreAfter(0, len(p.Items)):
			// Read whole.
		case len(p.Items) >= size && size < maxDensePage && regrown < maxRegrow:
			// It holds all that was asked for, the part more (it grew, or
			// the size was a guess): ask for all it counts, once more.
			size = min(max(p.Info.Count, 2*size), max(s.w, maxDensePage))
			more, regrown = []part{pt}, regrown+1
		default:
			// Capped: split the part, on what this answer shows of it.
			if len(p.Items) < size && s.capped != nil {
				s.capped.Store(int64(len(p.Items)))
			}
			most = max(most, p.Info.Count, 2*len(p.Items))
			count := p.Info.Count
			if count < len(p.Items) {
				count = 2 * len(p.Items) // not counted: at least one more page of them
			}
			more, err = s.split(pt, s.samples(p.Items), len(p.Items), count, sec)
			if asked += len(more); err == nil && asked > 4*(most/max(len(p.Items), 1))+16 {
				err = fmt.Errorf("%w: second %s of %s keeps needing more parts than its count (%d) can fill", ErrPagination, lo.Format(keyLayout), s.src.KeyName, most)
			}
			if err != nil {
				yield(nil, err)
				return false, false
			}
		}
		if !s.deliver(p, yield) {
			return false, false
		}
		for i := len(more) - 1; i >= 0; i-- {
			todo = append(todo, more[i]) // the lowest part is read first
		}
	}
	return over, true
}

// maxRegrow bounds the times one second's page size grows to what an
// answer counted, for a second that grows between requests.
const maxRegrow = 3

// maxCuts bounds the parts one capped answer is split into.
const maxCuts = 255

// capAt is the length of the last answer for one second that the server
// capped in this run, or 0.
func (s *stable[T]) capAt() int {
	if s.capped == nil {
		return 0
	}
	return int(s.capped.Load())
}

// samples returns the values of items on each split field.
func (s *stable[T]) samples(items []T) [][]decimal.Decimal {
	out := make([][]decimal.Decimal, len(s.src.Splits))
	for f, sp := range s.src.Splits {
		out[f] = make([]decimal.Decimal, len(items))
		for i := range items {
			out[f][i] = sp.Value(&items[i])
		}
	}
	return out
}

// split divides a part of count items, whose answer was capped at page
// items, into parts that tile it: on the field being split, at values
// that cut the samples (the split fields' values of items of the part)
// into groups of about four fifths of a page, so that each part fits in
// one. A part of one value moves on to the next split field; with none
// left, the second cannot be proven read.
func (s *stable[T]) split(pt part, samples [][]decimal.Decimal, page, count int, sec int64) ([]part, error) {
	f, r, kept := 0, Range{}, pt.ranges
	if len(pt.ranges) > 0 {
		last := pt.ranges[len(pt.ranges)-1]
		f, r, kept = last.Split, last, pt.ranges[:len(pt.ranges)-1]
		if pt.single {
			f, r, kept = f+1, Range{Split: f + 1}, pt.ranges
		}
	}
	if page == 0 || f >= len(s.src.Splits) || len(samples[f]) == 0 {
		return nil, s.unsplittable(sec, count, page)
	}
	vals := slices.Clone(samples[f])
	n := len(vals)
	slices.SortFunc(vals, decimal.Decimal.Cmp)
	parts := min(maxCuts+1, max(2, (5*count+4*page-1)/(4*page)))
	var cuts []decimal.Decimal
	for i := 1; i < parts; i++ {
		cuts = addCut(cuts, r, vals[i*n/parts])
	}
	single := -1 // the index among cuts of a part holding one value
	if len(cuts) == 0 {
		// Every value sampled is the part's lower bound, or (few above it)
		// the quantiles all fall on it: set the smallest value apart.
		v := vals[0]
		next := v.Add(decimal.New(1, -isolationDigits(vals)))
		cuts = addCut(cuts, r, v)
		single = len(cuts) // the part from v on
		cuts = addCut(cuts, r, next)
		if len(cuts) == 0 {
			// The part is that one value already: split on the next field.
			return s.split(part{ranges: append(slices.Clip(kept), r), single: true}, samples, page, count, sec)
		}
	}
	out := make([]part, 0, len(cuts)+1)
	lower := r.Lower
	for i := 0; i <= len(cuts); i++ {
		pr := Range{Split: f, Lower: lower}
		if i < len(cuts) {
			pr.Upper = decimal.NewNullDecimal(cuts[i])
			lower = pr.Upper
		} else {
			pr.Upper = r.Upper
		}
		out = append(out, part{ranges: append(slices.Clip(kept), pr), single: i == single})
	}
	return out, nil
}

// addCut appends c to ascending cuts when it lies strictly inside r and
// past the last cut.
func addCut(cuts []decimal.Decimal, r Range, c decimal.Decimal) []decimal.Decimal {
	switch {
	case r.Lower.Valid && !c.GreaterThan(r.Lower.Decimal), r.Upper.Valid && !c.LessThan(r.Upper.Decimal):
		return cuts
	case len(cuts) > 0 && !c.GreaterThan(cuts[len(cuts)-1]):
		return cuts
	}
	return append(cuts, c)
}

// maxDecimalPlaces is the most decimal places a service amount has (.NET's
// System.Decimal).
const maxDecimalPlaces = 28

// isolationDigits is the number of decimal places of the width of a part
// that holds one value: two past the most any value sampled has, so that
// another value falls in it only at a precision none of them shows.
func isolationDigits(vals []decimal.Decimal) int32 {
	var places int32
	for _, v := range vals {
		places = max(places, -v.Exponent())
	}
	return min(places+2, maxDecimalPlaces)
}

// unsplittable is the error for a second that no split can prove read:
// count items (of the second, or of one value of its split fields) where
// the server gives at most page.
func (s *stable[T]) unsplittable(sec int64, count, page int) error {
	if len(s.src.Splits) == 0 {
		return fmt.Errorf("%w: cannot prove that every item with %s in second %s was read: it holds %d items, more than the %d the server gives in a page, and the endpoint has no numeric field to split it on",
			ErrPagination, s.src.KeyName, secTime(sec).Format(keyLayout), count, page)
	}
	names := make([]string, len(s.src.Splits))
	for i, sp := range s.src.Splits {
		names[i] = sp.Name
	}
	return fmt.Errorf("%w: cannot prove that every item with %s in second %s was read: %d of its items, more than the %d the server gives in a page, share one value of %s",
		ErrPagination, s.src.KeyName, secTime(sec).Format(keyLayout), count, page, joinNames(names))
}

// joinNames writes "a", "a and b", "a, b and c".
func joinNames(names []string) string {
	switch len(names) {
	case 1:
		return names[0]
	case 2:
		return names[0] + " and " + names[1]
	}
	out := ""
	for i, n := range names[:len(names)-1] {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out + " and " + names[len(names)-1]
}

package filter

import (
	"context"
	"iter"
	"time"

	"github.com/billingapi/billing-go/query"
)

// Request is a list request as a store answers it: the filter, the order
// and the page. The handler checks it (see billingtest's listRequest).
type Request struct {
	// Page is the page number and Size its rows; OffsetSize, when not 0,
	// is the page size that page numbers count (a paging variation).
	Page, Size, OffsetSize int
	// SortField is the sort field's index in the schema, -1 for the
	// order by id; Desc reverses it. Tie orders rows whose keys are equal
	// (nil: by id).
	SortField int
	Desc      bool
	Tie       func(a, b *TieKey) int
	// Varied says a paging variation is on: a store then takes no
	// shortcut that assumes the default paging and order.
	Varied bool
	// Expr is the filter, parsed and checked; Text the query parameter
	// as given, which names the filter's matches in a store's cache;
	// Unlisted admits enum values the reference does not list.
	Expr     query.Expr
	Text     string
	Unlisted bool
	// Key is, for a sort on a date field, the range that the filter's
	// conditions on that field admit (nil: no such condition), and
	// KeyOnly says the filter has no other condition.
	Key     *TimeRange
	KeyOnly bool
	// Customer, when not 0, limits the rows to one customer's; KeyField,
	// when set, names a date that each hit of the answer carries.
	Customer int64
	KeyField string
}

// Page is one page of a list and the counts its headers carry.
type Page[T any] struct {
	Items           []T
	Count, MaxCount int
	// Visited is how many rows the list looked at, for tests of what a
	// page costs.
	Visited int
}

// Run filters, sorts and pages rows, which src yields in ascending id
// order. pred nil means no filter.
func Run[T any](src iter.Seq[T], id func(T) int64, sc *Schema[T], lr *Request, pred func(T) bool) Page[T] {
	var out Page[T]
	// int64, so that a large page number cannot overflow on any platform.
	offset := lr.Size
	if lr.OffsetSize > 0 {
		offset = lr.OffsetSize
	}
	start := int64(lr.Page) * int64(offset)
	end := start + int64(lr.Size)

	// Id order is the source order: it keeps only the page, no sort.
	// Another order keys every match, to select the page from them.
	sorted := lr.SortField >= 0
	var key sortKeyer[T]
	var cmp func(a, b *sortItem[T]) int
	var matched []sortItem[T]
	if sorted {
		key, cmp = keyer(&sc.Fields[lr.SortField], lr.Desc, lr.Tie)
		buf, _ := sc.sortBufs.Get().(*[]sortItem[T])
		if buf == nil {
			buf = new([]sortItem[T])
		}
		matched = (*buf)[:0]
		defer func() {
			clear(matched) // drop the rows, so that the pool keeps nothing alive
			*buf = matched[:0]
			sc.sortBufs.Put(buf)
		}()
	}
	for row := range src {
		out.MaxCount++
		out.Visited++
		switch n := int64(out.Count); {
		case pred != nil && !pred(row):
			continue
		case sorted:
			// Keyed in place: a local passed to key would escape to the heap.
			matched = append(matched, sortItem[T]{row: row, id: id(row), seq: int64(out.MaxCount)})
			key(&matched[len(matched)-1])
		case n >= start && n < end:
			out.Items = append(out.Items, row)
		}
		out.Count++
	}
	if !sorted {
		if out.Items == nil {
			out.Items = []T{}
		}
		return out
	}
	win := selectWindow(matched, int(min(start, int64(out.Count))), int(min(end, int64(out.Count))), cmp)
	out.Items = make([]T, len(win))
	for i := range win {
		out.Items[i] = win[i].row
	}
	return out
}

// TieKey is what a tie order reads of a row: its id and its place in the
// order the store yields rows.
type TieKey struct{ ID, Seq int64 }

// CheckEvery is how many rows a filter tests between two looks at the
// request's context: often enough that a list stops within microseconds
// of its client leaving, rarely enough that the look costs nothing.
const CheckEvery = 256

// UntilDone is pred, but once ctx has ended it tests no more rows and
// admits none, so that a list whose client has gone stops its filtering
// at once; the handler then sees ctx.Err() and sends nothing. A nil pred
// (no filter) stays nil: a list without a filter costs a bounded scan.
func UntilDone[T any](ctx context.Context, pred func(T) bool) func(T) bool {
	if pred == nil || ctx.Done() == nil {
		return pred
	}
	n, done := 0, false
	return func(row T) bool {
		if done {
			return false
		}
		if n++; n%CheckEvery == 0 && ctx.Err() != nil {
			done = true
			return false
		}
		return pred(row)
	}
}

// KeyBounds is the key range that expr's conditions on date field field
// admit (each match or range condition bounds it, and together they
// intersect; nil: none bounds it), and whether expr has no other
// condition, so that the range alone is the answer. The conditions have
// compiled.
func KeyBounds[T any](sc *Schema[T], field int, expr query.Expr) (key *TimeRange, keyOnly bool) {
	keyOnly = true
	for _, c := range expr {
		i, ok := sc.Index(c.Name)
		b, err := TimeBounds(c)
		if !ok || i != field || err != nil {
			keyOnly = false
			continue
		}
		if key == nil {
			key = &TimeRange{}
		}
		if b.HasLo && (!key.HasLo || b.Lo.After(key.Lo)) {
			key.Lo, key.HasLo = b.Lo, true
		}
		if b.HasHi && (!key.HasHi || b.Hi.Before(key.Hi)) {
			key.Hi, key.HasHi = b.Hi, true
		}
	}
	return key, keyOnly
}

// Hit is a row of a store's answer: its id and, when the request names a
// KeyField, that date.
type Hit struct {
	ID  int64
	Key time.Time
}

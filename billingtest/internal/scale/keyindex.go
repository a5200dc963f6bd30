package scale

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/query"
)

// A key index holds the invoices sorted ascending by one date field, ties
// broken by id: the order that a stable iteration (billing.Stable) asks
// for page after page, each page a key range, and, walked backwards one
// run of equal keys at a time, the descending order. Answering such a
// page from the index is two binary searches and a slice, where the
// general path (filter.Run) filters and partially sorts every invoice on
// every request: a stable sweep of 100,000 invoices spent most of its
// time there. A filter with other conditions is tested on the key range
// only, and its matches are remembered: a client pages through a
// filtered list with the same filter page after page, so the first page
// tests the filter on every invoice of the key range, to count the
// matches for X-Count, and each later page is a slice of the matches.
//
// An index is built on first use and dropped when the store changes
// (Store.gen moves with every write to an invoice), so that it never
// answers from stale data.

// keyIndexes caches a store's key indexes, one per date field of the list
// of all invoices.
type keyIndexes struct {
	mu  sync.Mutex // held while an index is looked up or built
	gen uint64     // the store generation the indexes were built at
	m   map[int]*keyIndex
}

// keyIndex is every invoice with its key, in ascending (key, id) order,
// and the matches of the last filters it answered (at most
// maxCachedFilters, past which it forgets them all): positions in
// entries, ascending, by the filter's text, 4 bytes a match.
type keyIndex struct {
	entries []keyEntry
	mu      sync.Mutex // guards matches
	matches map[string][]int32
}

const maxCachedFilters = 8

// keyEntry is an invoice in a key index: 24 bytes, so that an index of a
// million invoices takes 24 MB.
type keyEntry struct {
	sec  int64
	nsec int32
	rec  *invoiceRecord
}

// sameKey reports whether two entries have the same key.
func sameKey(a, b *keyEntry) bool { return a.sec == b.sec && a.nsec == b.nsec }

// keyed reports whether q can be answered from a key index: a sort on a
// date field of the row itself, in either direction (a descending page
// walks the index backwards, one run of equal keys at a time, each run in
// ascending id order as filter.Run orders ties). A related entity's date
// (Customer.CreatedTimestamp) changes with that entity, which Store.gen
// does not follow.
func keyed[T any](sc *filter.Schema[T], q *filter.Request) bool {
	if q.SortField < 0 {
		return false
	}
	f := &sc.Fields[q.SortField]
	return f.Kind == query.TimeField && !strings.Contains(f.Name, ".")
}

// keyIndex returns the index of the list of all invoices on date field
// field of the schema, building it if the store changed since it was
// built.
func (s *Store) keyIndex(field int) *keyIndex {
	ix := &s.keys
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.gen != s.gen || ix.m == nil {
		ix.gen, ix.m = s.gen, map[int]*keyIndex{}
	}
	if k, ok := ix.m[field]; ok {
		return k
	}
	get := s.schema.Fields[field].Get.Time
	entries := make([]keyEntry, 0, s.table.len())
	for r := range s.rows(0) {
		t := get(r)
		entries = append(entries, keyEntry{sec: t.Unix(), nsec: int32(t.Nanosecond()), rec: r})
	}
	// Rows come in id order: a stable sort by key leaves ties in it.
	slices.SortStableFunc(entries, func(a, b keyEntry) int {
		if c := cmp.Compare(a.sec, b.sec); c != 0 {
			return c
		}
		return cmp.Compare(a.nsec, b.nsec)
	})
	k := &keyIndex{entries: entries}
	ix.m[field] = k
	return k
}

// page answers lr from the index: the rows whose key the filter's
// conditions on the key field admit, narrowed by binary search, then pred
// over those alone (or nothing more when the filter has no other
// condition), paged in the requested order. Its cost is the page and,
// the first time a filter is asked for, the rows of its key range, which
// pred tests to count the matches; never the rows
// outside the range. ctx is the request's: a scan it cut short (pred
// then fails every row) is not remembered.
func (k *keyIndex) page(ctx context.Context, q *filter.Request, pred func(*invoiceRecord) bool) filter.Page[*invoiceRecord] {
	out := filter.Page[*invoiceRecord]{MaxCount: len(k.entries)}
	lo, hi := 0, len(k.entries)
	if r := q.Key; r != nil {
		lo = k.search(firstTime) // a key condition excludes a missing date
		if r.HasLo {
			lo = max(lo, k.search(r.Lo))
		}
		if r.HasHi {
			hi = max(lo, k.search(r.Hi))
		}
	}
	start := int64(q.Page) * int64(q.Size)
	end := start + int64(q.Size)
	var n int
	var at func(int) *keyEntry
	if q.KeyOnly || pred == nil {
		rows := k.entries[lo:hi]
		n, at = len(rows), func(i int) *keyEntry { return &rows[i] }
	} else {
		k.mu.Lock()
		m, ok := k.matches[q.Text]
		k.mu.Unlock()
		if !ok {
			for i := lo; i < hi; i++ {
				if pred(k.entries[i].rec) {
					m = append(m, int32(i))
				}
			}
			out.Visited += hi - lo
			if ctx.Err() == nil {
				k.mu.Lock()
				if k.matches == nil || len(k.matches) >= maxCachedFilters {
					k.matches = make(map[string][]int32, maxCachedFilters)
				}
				k.matches[q.Text] = m
				k.mu.Unlock()
			}
		}
		n, at = len(m), func(i int) *keyEntry { return &k.entries[m[i]] }
	}
	out.Count = n
	if start < int64(n) {
		walk(n, at, q.Desc, int(start), func(e *keyEntry) bool {
			out.Visited++
			out.Items = append(out.Items, e.rec)
			return int64(len(out.Items)) < end-start
		})
	}
	return out
}

// walk yields the n entries that at reads (ascending by key, ties by
// id) from position from of the requested order on, until yield returns
// false. Descending, runs of equal keys come last first, each in
// ascending id order.
func walk(n int, at func(int) *keyEntry, desc bool, from int, yield func(*keyEntry) bool) {
	if from >= n {
		return
	}
	if !desc {
		for i := from; i < n; i++ {
			if !yield(at(i)) {
				return
			}
		}
		return
	}
	// The run holding position from: descending, run [g0, g1) takes the
	// positions [n-g1, n-g0).
	j := n - 1 - from
	ej := at(j)
	g0 := sort.Search(j, func(i int) bool { return !keyBefore(at(i), ej) })
	g1 := j + 1 + sort.Search(n-j-1, func(i int) bool { return !sameKey(at(j+1+i), ej) })
	i := g0 + from - (n - g1)
	for {
		for ; i < g1; i++ {
			if !yield(at(i)) {
				return
			}
		}
		if g0 == 0 {
			return
		}
		g1, g0 = g0, g0-1
		for g0 > 0 && sameKey(at(g0-1), at(g1-1)) {
			g0--
		}
		i = g0
	}
}

// keyBefore reports whether a's key is before b's.
func keyBefore(a, b *keyEntry) bool { return a.sec < b.sec || (a.sec == b.sec && a.nsec < b.nsec) }

// firstTime is the least date that is not missing (the zero time).
var firstTime = time.Time{}.Add(time.Nanosecond)

// search is the position of the first entry whose key is at or after t.
func (k *keyIndex) search(t time.Time) int {
	sec, nsec := t.Unix(), int32(t.Nanosecond())
	return sort.Search(len(k.entries), func(i int) bool {
		e := &k.entries[i]
		return e.sec > sec || (e.sec == sec && e.nsec >= nsec)
	})
}

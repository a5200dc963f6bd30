package billingtest

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/billingapi/billing-go/query"
)

// A key index holds the invoices sorted ascending by one date field, ties
// broken by id: the order that a stable iteration (billing.Stable) asks
// for page after page, each page a key range, and, walked backwards one
// run of equal keys at a time, the descending order. Answering such a
// page from the index is two binary searches and a slice, where the
// general path (runList) filters and partially sorts every invoice on
// every request: a stable sweep of 100,000 invoices spent most of its
// time there. A filter with other conditions is tested on the key range
// only, and its matches are remembered (see matchCache).
//
// An index is built on first use and dropped when the store changes
// (store.gen moves with every write to an invoice), so that it never
// answers from stale data.

// keyIndexes caches a store's key indexes, one per date field of the list
// of all invoices.
type keyIndexes struct {
	mu  sync.Mutex // held while an index is looked up or built
	gen uint64     // the store generation the indexes were built at
	m   map[int]*keyIndex
}

// keyIndex is every invoice with its key, in ascending (key, id) order.
type keyIndex struct {
	st      *store
	entries []keyEntry
	matches matchCache
}

// keyEntry is an invoice in a key index: 24 bytes, so that an index of a
// million invoices takes 24 MB.
type keyEntry struct {
	sec  int64
	nsec int32
	rec  *invoiceRecord
}

// sameKey reports whether two entries have the same key.
func sameKey(a, b *keyEntry) bool { return a.sec == b.sec && a.nsec == b.nsec }

// keyed reports whether lr can be answered from a key index: a sort on a
// date field of the row itself, in either direction (a descending page
// walks the index backwards, one run of equal keys at a time, each run in
// ascending id order as sorting.go orders ties). A related entity's date
// (Customer.CreatedTimestamp) changes with that entity, which store.gen
// does not follow.
func keyed[T any](sc *filterSchema[T], lr listRequest) bool {
	if lr.sortField < 0 {
		return false
	}
	f := &sc.fields[lr.sortField]
	return f.kind == query.TimeField && !strings.Contains(f.name, ".")
}

// invoiceKeyIndex returns the index of the list of all invoices on date
// field field of invoiceSchema, building it if the store changed since
// it was built. The caller holds at least the read lock.
func (st *store) invoiceKeyIndex(field int) *keyIndex {
	ix := &st.keyIndexes
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.gen != st.gen || ix.m == nil {
		ix.gen, ix.m = st.gen, map[int]*keyIndex{}
	}
	if k, ok := ix.m[field]; ok {
		return k
	}
	get := invoiceSchema.fields[field].get.time
	entries := make([]keyEntry, 0, st.invoices.len())
	for row := range st.invoiceRows(0) {
		t := get(row)
		entries = append(entries, keyEntry{sec: t.Unix(), nsec: int32(t.Nanosecond()), rec: row.rec})
	}
	// Rows come in id order: a stable sort by key leaves ties in it.
	slices.SortStableFunc(entries, func(a, b keyEntry) int {
		if c := cmp.Compare(a.sec, b.sec); c != 0 {
			return c
		}
		return cmp.Compare(a.nsec, b.nsec)
	})
	k := &keyIndex{st: st, entries: entries}
	ix.m[field] = k
	return k
}

// page answers lr from the index: the rows whose key the filter's
// conditions on the key field admit, narrowed by binary search, then pred
// over those alone (or nothing more when the filter has no other
// condition), paged in the requested order. Its cost is the page and,
// the first time a filter is asked for, the rows of its key range, which
// pred tests to count the matches (see matchCache); never the rows
// outside the range. ctx is the request's: a scan it cut short (pred
// then fails every row) is not remembered.
func (k *keyIndex) page(ctx context.Context, lr listRequest, pred func(invoiceRow) bool) listPage[invoiceRow] {
	out := listPage[invoiceRow]{maxCount: len(k.entries)}
	lo, hi := 0, len(k.entries)
	if r := lr.key; r != nil {
		lo = k.search(firstTime) // a key condition excludes a missing date
		if r.hasLo {
			lo = max(lo, k.search(r.lo))
		}
		if r.hasHi {
			hi = max(lo, k.search(r.hi))
		}
	}
	start := int64(lr.page) * int64(lr.size)
	end := start + int64(lr.size)
	var n int
	var at func(int) *keyEntry
	if lr.keyOnly || pred == nil {
		rows := k.entries[lo:hi]
		n, at = len(rows), func(i int) *keyEntry { return &rows[i] }
	} else {
		m, ok := k.matches.get(lr.filter)
		if !ok {
			for i := lo; i < hi; i++ {
				if pred(invoiceRow{rec: k.entries[i].rec, st: k.st}) {
					m = append(m, int32(i))
				}
			}
			out.visited += hi - lo
			if ctx.Err() == nil {
				k.matches.put(lr.filter, m)
			}
		}
		n, at = len(m), func(i int) *keyEntry { return &k.entries[m[i]] }
	}
	out.count = n
	if start < int64(n) {
		walk(n, at, lr.desc, int(start), func(e *keyEntry) bool {
			out.visited++
			out.items = append(out.items, invoiceRow{rec: e.rec, st: k.st})
			return int64(len(out.items)) < end-start
		})
	}
	if out.items == nil {
		out.items = []invoiceRow{}
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

// keyBounds sets lr.key to the key range that expr's conditions on the
// sort field admit (each match or range condition bounds it, and together
// they intersect), and lr.keyOnly when expr has no other condition, so
// that the range alone is the answer. The conditions have compiled.
func keyBounds[T any](lr *listRequest, sc *filterSchema[T], expr query.Expr) {
	lr.keyOnly = true
	for _, c := range expr {
		i, ok := sc.byName[strings.ToLower(c.Name)]
		var b timeRange
		var err error
		if ok && i == lr.sortField {
			b, err = timeBounds(c)
		}
		if !ok || i != lr.sortField || err != nil {
			lr.keyOnly = false
			continue
		}
		if lr.key == nil {
			lr.key = &timeRange{}
		}
		r := lr.key
		if b.hasLo && (!r.hasLo || b.lo.After(r.lo)) {
			r.lo, r.hasLo = b.lo, true
		}
		if b.hasHi && (!r.hasHi || b.hi.Before(r.hi)) {
			r.hi, r.hasHi = b.hi, true
		}
	}
}

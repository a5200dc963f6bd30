package billingtest

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/billingapi/billing-go/query"
)

// A key index holds the invoices sorted ascending by one date field, ties
// broken by id: the order that a stable iteration (billing.Stable) asks
// for page after page, each page a key range. Answering such a page from
// the index is two binary searches and a slice, where the general path
// (runList) filters and partially sorts every invoice on every request:
// a stable sweep of 100,000 invoices spent most of its time there.
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
	items []sortItem[invoiceRow]
}

// keyed reports whether lr can be answered from a key index: an ascending
// sort on a date field of the row itself. Descending sorts keep ties in
// ascending id order (see sorting.go), which a reversed index would not;
// a related entity's date (Customer.CreatedTimestamp) changes with that
// entity, which store.gen does not follow.
func keyed[T any](sc *filterSchema[T], lr listRequest) bool {
	if lr.sortField < 0 || lr.desc {
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
	key, compare := keyer(&invoiceSchema.fields[field], false, nil)
	items := make([]sortItem[invoiceRow], 0, st.invoices.len())
	for row := range st.invoiceRows(0) {
		items = append(items, sortItem[invoiceRow]{row: row, id: row.rec.id})
		key(&items[len(items)-1])
	}
	slices.SortFunc(items, func(a, b sortItem[invoiceRow]) int { return compare(&a, &b) })
	k := &keyIndex{items: items}
	ix.m[field] = k
	return k
}

// page answers lr from the index: the rows whose key the filter's
// conditions on the key field admit, narrowed by binary search, then pred
// over those alone (or nothing more when the filter has no other
// condition), paged in index order.
func (k *keyIndex) page(lr listRequest, pred func(invoiceRow) bool) listPage[invoiceRow] {
	out := listPage[invoiceRow]{maxCount: len(k.items)}
	lo, hi := 0, len(k.items)
	if r := lr.key; r != nil {
		lo = k.search(firstTime) // a key condition excludes a missing date
		if r.hasLo {
			lo = max(lo, k.search(r.lo))
		}
		if r.hasHi {
			hi = max(lo, k.search(r.hi))
		}
	}
	rows := k.items[lo:hi]
	start := int64(lr.page) * int64(lr.size)
	end := start + int64(lr.size)
	if lr.keyOnly {
		out.count = len(rows)
		for _, it := range rows[min(start, int64(len(rows))):min(end, int64(len(rows)))] {
			out.items = append(out.items, it.row)
		}
	} else {
		for _, it := range rows {
			if !pred(it.row) {
				continue
			}
			if n := int64(out.count); n >= start && n < end {
				out.items = append(out.items, it.row)
			}
			out.count++
		}
	}
	if out.items == nil {
		out.items = []invoiceRow{}
	}
	return out
}

// firstTime is the least date that is not missing (the zero time).
var firstTime = time.Time{}.Add(time.Nanosecond)

// search is the position of the first item whose key is at or after t.
func (k *keyIndex) search(t time.Time) int {
	sec, nsec := t.Unix(), int32(t.Nanosecond())
	return sort.Search(len(k.items), func(i int) bool {
		it := &k.items[i]
		return it.sec > sec || (it.sec == sec && it.nsec >= nsec)
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

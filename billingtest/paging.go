package billingtest

import (
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/billingapi/billing-go/query"
)

// listRequest is the shared list controls of one request, checked.
//
// The paging, sorting and header rules (section 4.0 of the reference),
// with the choices the fake makes where the reference is silent:
//
// Parameters. pageNumber is zero-based; absent means 0. pageSize absent or
// 0 means [DefaultPageSize]; above [MaxPageSize] it is cut to MaxPageSize,
// as the reference says a list never exceeds its maximum. Both must be
// integers that fit in 32 bits (the service's int); a negative value, or
// one that is present but not such an integer (including an empty value),
// is a 400. sortExpression must be one of the endpoint's text or date
// filter names (case-insensitive) and sortOrder Ascending or Descending
// (case-insensitive); a sortOrder without a sortExpression is a 400, as the
// reference says to give them together, and so is an empty value of
// either. query is the filter expression; an empty query is no filter.
// Parameter names are matched without regard to case (see parseRawQuery). Every
// 4xx has the reference's error body with Key "Api Error".
//
// Headers, on every 200 list answer, for page n of size s with c matching
// rows:
//
//	X-Count         c, the rows matching the query
//	X-MaxCount      the rows of the endpoint's scope without the query
//	                (all invoices; the customer's invoices; the
//	                subscription product's items)
//	X-CurrentPage   n, as asked, even past the last page
//	X-NextPage      n+1 when page n+1 has rows, else -1
//	X-PreviousPage  n-1, or -1 on page 0 (also n-1 past the last page)
//	X-PageSize      s, the effective page size
//	X-MaxPageIndex  ceil(c/s): the number of pages, as the reference
//	                describes it ("Total number of pages"), 0 when nothing
//	                matches; the last page's index is one less
//	X-SortOrder     Ascending (the default) or Descending
//	X-SortExpression the sortExpression as given, or "id" by default
//
// The body is a JSON array, [] for an empty page or a page past the end.
type listRequest struct {
	page, size int
	// sortName is sortExpression as given; sortField its index in the
	// schema, or -1 for the default order by id.
	sortName  string
	sortField int
	desc      bool
	// keyed is a sort on a date field, which a key index can
	// answer (see keyindex.go; the list of all invoices keeps them). key
	// is, for any sort on a date field, the range that the filter's
	// conditions on that field admit (nil: no such condition), and
	// keyOnly says the filter has no other condition.
	keyed   bool
	key     *timeRange
	keyOnly bool
	// filter is the query parameter as given, which names the filter's
	// matches in a key index's cache.
	filter string

	// The variations of what the reference leaves open (see vary):
	// asked is pageSize as given (0: none), offsetSize is the page size page numbers count (0: size),
	// headerSize what X-PageSize says (0: size), tie the order of rows
	// whose keys are equal (nil: by id), otherHeaders the other reading
	// of X-NextPage and X-MaxPageIndex.
	asked, offsetSize, headerSize int
	tie                           func(a, b *tieKey) int
	otherHeaders                  bool
}

// param returns a query parameter and whether it was given.
func param(q url.Values, name string) (string, bool) {
	v, ok := q[name]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[0], true
}

// pagingInt reads pageNumber or pageSize; absent reads as 0.
func pagingInt(q url.Values, name string) (int, error) {
	v, ok := param(q, name)
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, badRequest("%s %q is not an integer", name, v)
	}
	if n < 0 {
		return 0, badRequest("%s must not be negative, got %d", name, n)
	}
	return int(n), nil
}

// parseListRequest reads and checks the shared list controls and compiles
// the filter for schema sc; unlisted admits enum values the reference
// does not list.
func parseListRequest[T any](q url.Values, sc *filterSchema[T], unlisted bool) (listRequest, func(T) bool, error) {
	lr := listRequest{sortField: -1, sortName: "id", size: DefaultPageSize}
	var err error
	if lr.page, err = pagingInt(q, "pageNumber"); err != nil {
		return lr, nil, err
	}
	size, err := pagingInt(q, "pageSize")
	if err != nil {
		return lr, nil, err
	}
	if size > 0 {
		lr.size = min(size, MaxPageSize)
	}
	lr.asked = size

	order, hasOrder := param(q, "sortOrder")
	if hasOrder {
		switch {
		case strings.EqualFold(order, string(query.Ascending)):
		case strings.EqualFold(order, string(query.Descending)):
			lr.desc = true
		default:
			return lr, nil, badRequest("sortOrder %q is neither Ascending nor Descending", order)
		}
	}
	if name, ok := param(q, "sortExpression"); ok {
		f, known := sc.field(name)
		if !known || !f.kind.Sortable() {
			return lr, nil, badRequest("sortExpression %q is not a string or date filter name of %s; valid names: %s", name, sc.endpoint, sc.names(true))
		}
		lr.sortName = name
		lr.sortField = sc.byName[strings.ToLower(name)]
	} else if hasOrder {
		return lr, nil, badRequest("sortOrder %q given without sortExpression; give them together", order)
	}

	text, _ := param(q, "query")
	lr.filter = text
	expr, pred, err := sc.parseUnlisted(text, unlisted)
	if err != nil {
		return lr, nil, err
	}
	lr.keyed = keyed(sc, lr)
	if lr.sortField >= 0 && sc.fields[lr.sortField].kind == query.TimeField {
		keyBounds(&lr, sc, expr) // read by the key index, and by churn to aim
	}
	return lr, pred, nil
}

// listPage is one page of a list and the counts its headers carry.
type listPage[T any] struct {
	items           []T
	count, maxCount int
	// visited is how many rows the list looked at, for tests of what a
	// page costs.
	visited int
}

// runList filters, sorts and pages rows, which src yields in ascending id
// order. pred nil means no filter.
func runList[T any](src iter.Seq[T], id func(T) int64, sc *filterSchema[T], lr listRequest, pred func(T) bool) listPage[T] {
	var out listPage[T]
	// int64, so that a large pageNumber cannot overflow on any platform.
	offset := lr.size
	if lr.offsetSize > 0 {
		offset = lr.offsetSize
	}
	start := int64(lr.page) * int64(offset)
	end := start + int64(lr.size)

	if lr.sortField < 0 {
		// Id order is the source order: keep only the page, no sort.
		for row := range src {
			out.maxCount++
			out.visited++
			if pred != nil && !pred(row) {
				continue
			}
			if n := int64(out.count); n >= start && n < end {
				out.items = append(out.items, row)
			}
			out.count++
		}
		if out.items == nil {
			out.items = []T{}
		}
		sc.completePage(out.items)
		return out
	}

	f := &sc.fields[lr.sortField]
	key, cmp := keyer(f, lr.desc, lr.tie)
	buf, _ := sc.sortBufs.Get().(*[]sortItem[T])
	if buf == nil {
		buf = new([]sortItem[T])
	}
	matched := (*buf)[:0]
	defer func() {
		clear(matched) // drop the rows, so that the pool keeps nothing alive
		*buf = matched[:0]
		sc.sortBufs.Put(buf)
	}()
	for row := range src {
		out.maxCount++
		out.visited++
		if pred != nil && !pred(row) {
			continue
		}
		// Keyed in place: a local passed to key would escape to the heap.
		matched = append(matched, sortItem[T]{row: row, id: id(row), seq: int64(out.maxCount)})
		key(&matched[len(matched)-1])
	}
	out.count = len(matched)
	win := selectWindow(matched, int(min(start, int64(out.count))), int(min(end, int64(out.count))), cmp)
	out.items = make([]T, len(win))
	for i := range win {
		out.items[i] = win[i].row
	}
	sc.completePage(out.items)
	return out
}

// completePage finishes the rows of a page with sc.complete, if set.
func (sc *filterSchema[T]) completePage(items []T) {
	if sc.complete == nil {
		return
	}
	for i := range items {
		items[i] = sc.complete(items[i])
	}
}

// setPageHeaders writes the nine X-* headers; see listRequest.
func setPageHeaders[T any](h http.Header, lr listRequest, p listPage[T]) {
	size, offset := lr.size, lr.size
	if lr.headerSize > 0 {
		size = lr.headerSize
	}
	if lr.offsetSize > 0 {
		offset = lr.offsetSize
	}
	pages := 0
	if p.count > 0 {
		pages = (p.count-1)/offset + 1
	}
	next, prev := -1, lr.page-1
	if lr.page+1 < pages {
		next = lr.page + 1
	}
	maxIndex := pages
	if lr.otherHeaders {
		next, maxIndex = lr.page+1, max(pages-1, 0)
	}
	order := query.Ascending
	if lr.desc {
		order = query.Descending
	}
	// Set in the map directly: Header.Set would send Go's canonical form
	// (X-Nextpage), not the reference's spelling.
	itoa := strconv.Itoa
	h["X-Count"] = []string{itoa(p.count)}
	h["X-MaxCount"] = []string{itoa(p.maxCount)}
	h["X-CurrentPage"] = []string{itoa(lr.page)}
	h["X-NextPage"] = []string{itoa(next)}
	h["X-PreviousPage"] = []string{itoa(prev)}
	h["X-PageSize"] = []string{itoa(size)}
	h["X-MaxPageIndex"] = []string{itoa(maxIndex)}
	h["X-SortOrder"] = []string{string(order)}
	h["X-SortExpression"] = []string{lr.sortName}
}

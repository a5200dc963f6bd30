package billingtest

import (
	"cmp"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/query"
)

// listRequest is the shared list controls of one request, checked: the
// paging, sorting and header rules of section 4.0 of the reference, with
// the fake's choices where it is silent, as the package doc's Lists
// section states them, and these details besides. pageNumber and pageSize
// must fit in 32 bits (the service's int); a value that is present but
// not such an integer, an empty one included, is a 400, and so is an empty
// sortExpression or sortOrder. Parameter names match without regard to
// case (see parseRawQuery). X-PreviousPage is n-1 past the last page too;
// X-SortExpression is the sortExpression as given. Every 4xx has the
// reference's error body with Key "Api Error".
type listRequest struct {
	// filter.Request is what a store answers: page, order, filter.
	filter.Request
	// sortName is sortExpression as given.
	sortName string

	// The variations of what the reference leaves open (see vary):
	// asked is pageSize as given (0: none), headerSize what X-PageSize
	// says (0: the size), otherHeaders the other reading of X-NextPage and
	// X-MaxPageIndex; filter.Request has the page size that page numbers
	// count and the order of rows whose keys are equal.
	asked, headerSize int
	otherHeaders      bool
}

// param returns a query parameter and whether it was given.
func param(q url.Values, name string) (string, bool) {
	v, ok := q[name]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[0], true
}

// pagingInt reads pageNumber or pageSize; absent reads as 0. White space
// around the number is ignored, as the service's integer binder ignores it.
func pagingInt(q url.Values, name string) (int, error) {
	v, ok := param(q, name)
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
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
func parseListRequest[T any](q url.Values, sc *filter.Schema[T], unlisted bool) (listRequest, func(T) bool, error) {
	lr := listRequest{Request: filter.Request{SortField: -1, Size: DefaultPageSize, Unlisted: unlisted}, sortName: "id"}
	var err error
	if lr.Page, err = pagingInt(q, "pageNumber"); err != nil {
		return lr, nil, err
	}
	size, err := pagingInt(q, "pageSize")
	if err != nil {
		return lr, nil, err
	}
	if size > 0 {
		lr.Size = min(size, MaxPageSize)
	}
	lr.asked = size

	order, hasOrder := param(q, "sortOrder")
	if hasOrder {
		switch {
		case strings.EqualFold(order, string(query.Ascending)):
		case strings.EqualFold(order, string(query.Descending)):
			lr.Desc = true
		default:
			return lr, nil, badRequest("sortOrder %q is neither Ascending nor Descending", order)
		}
	}
	if name, ok := param(q, "sortExpression"); ok {
		i, known := sc.Index(name)
		if !known || !sc.Fields[i].Kind.Sortable() {
			return lr, nil, badRequest("sortExpression %q is not a string or date filter name of %s; valid names: %s", name, sc.Endpoint, sc.Names(true))
		}
		lr.sortName = name
		lr.SortField = i
	} else if hasOrder {
		return lr, nil, badRequest("sortOrder %q given without sortExpression; give them together", order)
	}

	lr.Text, _ = param(q, "query")
	var pred func(T) bool
	lr.Expr, pred, err = sc.Parse(lr.Text, unlisted)
	if err != nil {
		return lr, nil, badRequest("%s", err)
	}
	if lr.SortField >= 0 && sc.Fields[lr.SortField].Kind == query.TimeField {
		lr.Key, lr.KeyOnly = filter.KeyBounds(sc, lr.SortField, lr.Expr) // read by the key index, and by churn to aim
	}
	return lr, pred, nil
}

// setPageHeaders writes the nine X-* headers; see listRequest.
func setPageHeaders[T any](h http.Header, lr listRequest, p filter.Page[T]) {
	size, offset := cmp.Or(lr.headerSize, lr.Size), cmp.Or(lr.OffsetSize, lr.Size)
	pages := (p.Count + offset - 1) / offset
	next, prev := -1, lr.Page-1
	if lr.Page < pages-1 { // not lr.Page+1, which overflows an int32 page number where ints are 32 bits
		next = lr.Page + 1
	}
	maxIndex := pages
	if lr.otherHeaders {
		next, maxIndex = lr.Page+1, max(pages-1, 0)
	}
	order := query.Ascending
	if lr.Desc {
		order = query.Descending
	}
	// Set in the map directly: Header.Set would send Go's canonical form
	// (X-Nextpage), not the reference's spelling.
	itoa := strconv.Itoa
	h["X-Count"] = []string{itoa(p.Count)}
	h["X-MaxCount"] = []string{itoa(p.MaxCount)}
	h["X-CurrentPage"] = []string{itoa(lr.Page)}
	h["X-NextPage"] = []string{itoa(next)}
	h["X-PreviousPage"] = []string{itoa(prev)}
	h["X-PageSize"] = []string{itoa(size)}
	h["X-MaxPageIndex"] = []string{itoa(maxIndex)}
	h["X-SortOrder"] = []string{string(order)}
	h["X-SortExpression"] = []string{lr.sortName}
}

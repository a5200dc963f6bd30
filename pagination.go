package billing

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/billingapi/billing-go/internal/pager"
	"github.com/billingapi/billing-go/query"
)

// ListOptions are the paging and sorting controls every list endpoint
// shares. Each endpoint's params embed them.
type ListOptions struct {
	// PageNumber is the zero-based page to read. Iterators start from it.
	PageNumber int `url:"pageNumber"`
	// PageSize is the number of items per page. 0 leaves it to the server,
	// whose default the API reference does not show; the server never
	// returns more than its maximum for the entity, at least 1,000.
	PageSize int `url:"pageSize,omitempty"`
	// Sort orders the results by one of the endpoint's string or date
	// filter names (sortExpression and sortOrder on the wire).
	Sort query.Sort `url:"sort,omitempty"`
}

// check rejects paging values the API cannot mean, and a sort field that
// is not one of the endpoint's string or date filter names.
func (o ListOptions) check(filter any) error {
	if o.PageNumber < 0 {
		return invalid("pageNumber", "must not be negative, got %d", o.PageNumber)
	}
	if o.PageSize < 0 {
		return invalid("pageSize", "must not be negative, got %d", o.PageSize)
	}
	if err := o.Sort.Validate(); err != nil {
		return invalid("sortOrder", "%v", err)
	}
	if o.Sort.Field == "" {
		return nil
	}
	fields, err := query.Fields(filter)
	if err != nil {
		return err
	}
	var names []string
	for _, f := range fields {
		if !f.Kind.Sortable() {
			continue
		}
		if strings.EqualFold(f.Name, o.Sort.Field) {
			return nil
		}
		names = append(names, f.Name)
	}
	return invalid("sortExpression", "%q is not a string or date filter of this endpoint; use one of %s", o.Sort.Field, strings.Join(names, ", "))
}

// PageInfo holds the X-* paging headers of a list answer. A header the
// answer did not carry reads as -1 (or "" for the sort headers).
type PageInfo struct {
	// Count is X-Count: the number of results matching the criteria.
	Count int
	// MaxCount is X-MaxCount: the number of results without criteria.
	MaxCount int
	// CurrentPage is X-CurrentPage: this page's zero-based number.
	CurrentPage int
	// NextPage is X-NextPage: the number of the next page; -1 (sent or
	// absent) when there is none.
	NextPage int
	// PreviousPage is X-PreviousPage: the previous page, -1 for none.
	PreviousPage int
	// PageSize is X-PageSize: the most items this page could hold.
	PageSize int
	// MaxPageIndex is X-MaxPageIndex, described by the API reference as the
	// total number of pages.
	MaxPageIndex int
	// SortOrder is X-SortOrder.
	SortOrder query.Order
	// SortExpression is X-SortExpression: the field sorted on.
	SortExpression string
}

// Page is one page of a list: its items and its decoded paging headers.
type Page[T any] struct {
	// Items are the entities on this page.
	Items []T
	PageInfo
	// Response is the HTTP answer the page came in.
	Response Response

	// info is what the iteration engine reads of the page: the paging
	// headers, whether X-NextPage was sent at all, and what was asked for.
	info pager.Info
	// cursor is the Stable cursor whose pending positions are this page's
	// items, so that items can move it item by item.
	cursor *pager.Cursor
}

// newPage starts the page of an answer from its paging headers.
func newPage[T any](h http.Header, requested, requestedSize int) (*Page[T], error) {
	info, err := parsePageInfo(h)
	if err != nil {
		return nil, err
	}
	return &Page[T]{PageInfo: info, info: pager.Info{
		Count: info.Count, CurrentPage: info.CurrentPage, NextPage: info.NextPage, PageSize: info.PageSize, MaxPageIndex: info.MaxPageIndex,
		NextHeader: len(h.Values("X-NextPage")) > 0, Requested: requested, RequestedSize: requestedSize,
		Date: answerDate(h),
	}}, nil
}

// answerDate reads the answer's Date header, the server's clock when it
// answered: zero when absent or unreadable, which stable iteration takes
// as a clock it cannot see (every second already over).
func answerDate(h http.Header) time.Time {
	t, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// parsePageInfo reads the paging headers of an answer. A header that is
// present but cannot be read is an error (ErrPagination): guessing would
// end an iteration early, or run it on, without a word. An absent header
// reads as -1 and leaves the decision to the others (see Page.HasNext).
func parsePageInfo(h http.Header) (PageInfo, error) {
	p := PageInfo{SortOrder: query.Order(h.Get("X-SortOrder")), SortExpression: h.Get("X-SortExpression")}
	for _, f := range []struct {
		name string
		dst  *int
	}{
		{"X-Count", &p.Count}, {"X-MaxCount", &p.MaxCount}, {"X-CurrentPage", &p.CurrentPage},
		{"X-NextPage", &p.NextPage}, {"X-PreviousPage", &p.PreviousPage}, {"X-PageSize", &p.PageSize},
		{"X-MaxPageIndex", &p.MaxPageIndex},
	} {
		v, err := pagingHeader(h, f.name)
		if err != nil {
			return PageInfo{}, err
		}
		*f.dst = v
	}
	return p, nil
}

// pagingHeader reads one integer paging header: -1 when absent; an error
// when it is not an integer of at least -1, or is repeated with values
// that disagree.
func pagingHeader(h http.Header, name string) (int, error) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return -1, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(vs[0]))
	if err != nil || n < -1 {
		return 0, fmt.Errorf("%w: header %s: %s is not a page number or count", ErrPagination, name, quoteForError(truncateForError(vs[0])))
	}
	for _, v := range vs[1:] {
		if strings.TrimSpace(v) != strings.TrimSpace(vs[0]) {
			return 0, fmt.Errorf("%w: header %s sent twice, as %s and %s", ErrPagination, name, quoteForError(truncateForError(vs[0])), quoteForError(truncateForError(v)))
		}
	}
	return n, nil
}

// HasNext reports whether another page follows, from whichever headers the
// server sent: an empty page, an X-NextPage that does not move forward, an
// X-MaxPageIndex or X-Count that this page reaches, or (with none of those)
// a page shorter than its size all mean this is the last page.
func (p *Page[T]) HasNext() bool { return p.info.HasNext(len(p.Items)) }

// NextPageNumber is the number of the page after this one: X-NextPage when
// it moves forward, else the current page plus one.
func (p *Page[T]) NextPageNumber() int { return p.info.NextPageNumber() }

// identified is the pointer to a listed entity, which reads its id for
// the iteration engine. Each list item type declares entityID beside its
// type; a list of a type without one does not compile (pagesOf), rather
// than failing at its first iteration.
type identified[T any] interface {
	*T
	entityID() int64
}

// idOf reads a listed item's id, for the iteration engine.
func idOf[T any, P identified[T]](v *T) int64 { return P(v).entityID() }

// pathID formats a path id, rejecting ids the API cannot have. Ids are
// integers, so a path built from them cannot be steered elsewhere.
func pathID(field string, id int64) (string, error) {
	if id <= 0 {
		return "", invalid(field, "must be a positive id, got %d", id)
	}
	return strconv.FormatInt(id, 10), nil
}

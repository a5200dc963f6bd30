package billing

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"

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

	// requested is the page number that was asked for; it stands in for
	// CurrentPage when the server leaves that header out.
	requested     int
	requestedSize int
	// nextHeader records whether X-NextPage was sent: -1 then means "no
	// next page", while an absent header says nothing.
	nextHeader bool
	// cursor is the Stable cursor whose pending positions are this page's
	// items, so that items can move it item by item.
	cursor *Cursor
}

// newPage starts the page of an answer from its paging headers.
func newPage[T any](h http.Header, requested, requestedSize int) (*Page[T], error) {
	info, err := parsePageInfo(h)
	if err != nil {
		return nil, err
	}
	return &Page[T]{
		PageInfo:      info,
		requested:     requested,
		requestedSize: requestedSize,
		nextHeader:    len(h.Values("X-NextPage")) > 0,
	}, nil
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

func (p *Page[T]) current() int {
	if p.CurrentPage >= 0 {
		return p.CurrentPage
	}
	return p.requested
}

// HasNext reports whether another page follows, from whichever headers the
// server sent: an empty page, an X-NextPage that does not move forward, an
// X-MaxPageIndex or X-Count that this page reaches, or (with none of those)
// a page shorter than its size all mean this is the last page.
func (p *Page[T]) HasNext() bool {
	if len(p.Items) == 0 {
		return false
	}
	cur := p.current()
	if p.nextHeader && (p.NextPage < 0 || p.NextPage <= cur) {
		return false
	}
	if p.MaxPageIndex >= 0 && cur >= p.MaxPageIndex {
		return false
	}
	size := p.PageSize
	if size <= 0 {
		size = p.requestedSize
	}
	if p.Count >= 0 && size > 0 && (cur+1)*size >= p.Count {
		return false
	}
	if !p.nextHeader && p.Count < 0 && p.MaxPageIndex < 0 && size > 0 && len(p.Items) < size {
		return false
	}
	return true
}

// NextPageNumber is the number of the page after this one: X-NextPage when
// it moves forward, else the current page plus one.
func (p *Page[T]) NextPageNumber() int {
	if cur := p.current(); p.NextPage > cur {
		return p.NextPage
	}
	return p.current() + 1
}

// fetchFunc reads one page.
type fetchFunc[T any] func(ctx context.Context, pageNumber int) (*Page[T], error)

// listPage sends one GET for a list endpoint and decodes the page.
func listPage[T any](ctx context.Context, c *Client, op Operation, path string, q url.Values, pageNumber, pageSize int, opts []RequestOption) (*Page[T], error) {
	var page *Page[T]
	cl := &call{op: op, method: http.MethodGet, path: path, query: q, read: func(resp *http.Response) error {
		defer drainAndClose(resp.Body)
		p, err := newPage[T](resp.Header, pageNumber, pageSize)
		if err != nil {
			return err
		}
		p.Response = Response{StatusCode: resp.StatusCode, Header: resp.Header, RateLimit: parseRateLimit(resp.Header, c.cfg.now())}
		if err := decodeListAnswer(resp, &p.Items, pageItemLimit(pageSize, p.PageSize), c.cfg.maxResponseBytes, &c.cfg.listBodies, slotFrom(ctx)); err != nil {
			return err
		}
		page = p
		return nil
	}}
	if _, err := c.do(ctx, cl, opts); err != nil {
		return nil, err
	}
	return page, nil
}

// sizedFetch reads one page of the given size; 0 means the size the
// params ask for.
type sizedFetch[T any] func(ctx context.Context, pageNumber, pageSize int) (*Page[T], error)

// pages iterates from page first until the last page. It checks the
// context between pages, yields an error once and stops, and refuses to
// go on when the server does not serve the page that was asked for, since
// that would repeat or skip items forever. With prefetch >= 2 and a total
// known from the first page, it fetches the rest through prefetchRange.
//
// A page shorter than asked for while more items are announced after it
// (X-Count, else X-NextPage) is a page the server capped: the iteration
// goes on in pages of that length. When the server said so in
// X-PageSize, its page numbers count pages of that length; when it
// echoed the size asked for, a page other than page 0 may have started
// at either reckoning, so it is asked for again in the capped size (or,
// when no page of that size starts where it did, the iteration ends with
// ErrPagination).
func pages[T any](ctx context.Context, first, prefetch int, capture *Response, fetch sizedFetch[T]) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		if ctx == nil {
			yield(nil, invalid("ctx", "nil context.Context"))
			return
		}
		n, size := first, 0
		var prev *Page[T]
		for {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			p, err := fetch(ctx, n, size)
			if err != nil {
				yield(nil, err)
				return
			}
			if err := checkAdvance(p, prev, n); err != nil {
				yield(nil, err)
				return
			}
			if len(p.Items) == 0 && prev != nil {
				return
			}
			asked, capped := p.requestedSize, false
			if asked > 0 && len(p.Items) > 0 && len(p.Items) < asked && moreAfter(p, n*asked) {
				capped, size = true, len(p.Items)
				if n > 0 && (p.PageSize <= 0 || p.PageSize >= asked) {
					if n*asked%size != 0 {
						yield(nil, fmt.Errorf("%w: the server returned %d items on page %d where %d were asked for and more are announced: it caps pages without saying so, and no page of %d starts where page %d does; ask for at most %d", ErrPagination, size, n, asked, size, n, size))
						return
					}
					n = n * asked / size
					continue
				}
			}
			hasNext := p.HasNext() || capped
			last := lastPageIndex(p)
			if size > 0 && p.Count > 0 {
				last = (p.Count - 1) / size
			}
			// Prefetching guesses page numbers, so it needs consecutive
			// ones. It starts before p is yielded, so that the next pages
			// are on their way while the caller works through this one.
			if next := p.NextPageNumber(); prefetch >= 2 && hasNext && last >= next && next == p.current()+1 {
				sized := func(ctx context.Context, n int) (*Page[T], error) { return fetch(ctx, n, size) }
				var more bool
				if prev, more = prefetchRange(ctx, p, last, prefetch, capture, sized, yield); !more || !prev.HasNext() {
					return
				}
				// The list grew while it was read: go on one page at a time.
				n = prev.NextPageNumber()
				continue
			}
			if !yield(p, nil) || !hasNext {
				return
			}
			prev = p
			n = p.NextPageNumber()
		}
	}
}

// checkAdvance refuses a page that is not the one asked for, or that
// repeats the page before it.
func checkAdvance[T any](p, prev *Page[T], want int) error {
	if p.CurrentPage >= 0 && p.CurrentPage != want {
		return fmt.Errorf("%w: asked for page %d, the server answered page %d", ErrPagination, want, p.CurrentPage)
	}
	if prev != nil && samePage(prev, p) {
		return fmt.Errorf("%w: page %d repeats the items of the page before it", ErrPagination, want)
	}
	return nil
}

// identified is an entity with an id; every listed entity has one.
type identified interface{ entityID() int64 }

func (v Invoice) entityID() int64                 { return v.ID }
func (v InvoiceSummary) entityID() int64          { return v.ID }
func (v SubscriptionProductItem) entityID() int64 { return v.ID }

// samePage reports whether b holds the same items as a, which is how a
// server that ignores pageNumber and sends no paging headers shows itself.
func samePage[T any](a, b *Page[T]) bool {
	if len(a.Items) != len(b.Items) || len(a.Items) == 0 {
		return false
	}
	firstA, okA := any(&a.Items[0]).(identified) // pointers: no copy of the items
	firstB, okB := any(&b.Items[0]).(identified)
	if !okA || !okB {
		return false
	}
	lastA := any(&a.Items[len(a.Items)-1]).(identified)
	lastB := any(&b.Items[len(b.Items)-1]).(identified)
	return firstA.entityID() == firstB.entityID() && lastA.entityID() == lastB.entityID()
}

// items flattens pages into their items.
func items[T any](seq iter.Seq2[*Page[T], error]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for p, err := range seq {
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for i, it := range p.Items {
				if p.cursor != nil {
					p.cursor.upto = i + 1 // past this item before the caller sees it
				}
				if !yield(it, nil) {
					return
				}
			}
		}
	}
}

// count reads X-Count with a one-item page.
func count[T any](ctx context.Context, fetch func(ctx context.Context, pageSize int) (*Page[T], error)) (int, error) {
	p, err := fetch(ctx, 1)
	if err != nil {
		return 0, err
	}
	if p.Count < 0 {
		return 0, fmt.Errorf("%w: the answer carried no X-Count header", ErrPagination)
	}
	return p.Count, nil
}

// pathID formats a path id, rejecting ids the API cannot have. Ids are
// integers, so a path built from them cannot be steered elsewhere.
func pathID(field string, id int64) (string, error) {
	if id <= 0 {
		return "", invalid(field, "must be a positive id, got %d", id)
	}
	return strconv.FormatInt(id, 10), nil
}

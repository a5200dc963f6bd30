package billing

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/url"
	"strconv"

	"github.com/billingapi/billing-go/internal/pager"
	"github.com/billingapi/billing-go/query"
)

// listCall is a list endpoint with the caller's params: what its List,
// Pages, All and Count share.
type listCall struct {
	op     Operation
	path   string // escaped, ids formatted
	params any    // the params struct, encoded by go-querystring
	lo     ListOptions
	filter any
	err    error // a path id the API cannot have
}

// query checks and encodes the params.
func (lc listCall) query() (url.Values, error) {
	if lc.err != nil {
		return nil, lc.err
	}
	return encodeParams(lc.params, lc.lo, lc.filter)
}

// list reads the page the params ask for.
func list[T any](ctx context.Context, c *Client, lc listCall, opts []RequestOption) (*Page[T], error) {
	q, err := lc.query()
	if err != nil {
		return nil, err
	}
	return listPage[T](ctx, c, lc, q, lc.lo.PageNumber, lc.lo.PageSize, nil, opts)
}

// countOf reads X-Count for the params' criteria with a one-item page.
func countOf[T any](ctx context.Context, c *Client, lc listCall, opts []RequestOption) (int, error) {
	lc.lo.PageNumber, lc.lo.PageSize = 0, 1
	q, err := lc.query()
	if err != nil {
		return 0, err
	}
	q.Set("pageNumber", "0")
	q.Set("pageSize", "1")
	p, err := listPage[T](ctx, c, lc, q, 0, 1, nil, opts)
	if err != nil {
		return 0, err
	}
	if p.Count < 0 {
		return 0, fmt.Errorf("%w: the answer carried no X-Count header", ErrPagination)
	}
	return p.Count, nil
}

// pagesOf iterates over the pages of a list endpoint through the iteration
// engine (internal/pager): by page number from the params' PageNumber, or
// by key with Stable. The params are encoded once; each request is that
// query with its page, size and (stable) key range set, sent with the
// request options among opts.
func pagesOf[T any](ctx context.Context, c *Client, lc listCall, opts []IterOption) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		if ctx == nil {
			yield(nil, invalid("ctx", "nil context.Context"))
			return
		}
		rc, reqs, err := applyIterOptions(opts)
		if err != nil {
			yield(nil, &ValidationError{Field: "RequestOption", Reason: err.Error()})
			return
		}
		q, err := lc.query()
		if err != nil {
			yield(nil, err)
			return
		}
		src := pager.Source[T]{ID: idOf[T], Fetch: func(ctx context.Context, r pager.Request) (*pager.Page[T], error) {
			return fetchPage[T](ctx, c, lc, pageQuery(q, r), r, reqs)
		}}
		var seq iter.Seq2[*pager.Page[T], error]
		if rc.stable == nil {
			seq = pager.Pages(ctx, src, lc.lo.PageNumber, rc.prefetch)
		} else if seq, err = stableSeq(ctx, c, lc, q, rc, reqs, src); err != nil {
			yield(nil, err)
			return
		}
		for p, err := range seq {
			if err != nil {
				var apiErr *APIError
				if rc.capture != nil && errors.As(err, &apiErr) {
					*rc.capture = Response{StatusCode: apiErr.StatusCode, Header: apiErr.Header, RateLimit: apiErr.RateLimit}
				}
				yield(nil, err)
				return
			}
			// The engine may have kept only some of the page's items
			// (stable iteration drops those delivered before).
			page := *p.Meta.(*Page[T])
			page.Items, page.cursor = p.Items, p.Cursor
			if rc.capture != nil {
				// Requests in a pipeline do not write it (they run at
				// once): it is the answer of the page yielded.
				*rc.capture = page.Response
			}
			if !yield(&page, nil) {
				return
			}
		}
	}
}

// pageQuery is the query of one request: the params' with the page and
// size asked for.
func pageQuery(q url.Values, r pager.Request) url.Values {
	q = maps.Clone(q)
	q.Set("pageNumber", strconv.Itoa(r.Page))
	if r.Size > 0 {
		q.Set("pageSize", strconv.Itoa(r.Size))
	}
	return q
}

// fetchPage reads one page for the engine.
func fetchPage[T any](ctx context.Context, c *Client, lc listCall, q url.Values, r pager.Request, opts []RequestOption) (*pager.Page[T], error) {
	size := lc.lo.PageSize
	if r.Size > 0 {
		size = r.Size
	}
	p, err := listPage[T](ctx, c, lc, q, r.Page, size, r.Claim, opts)
	if err != nil {
		return nil, err
	}
	return &pager.Page[T]{Items: p.Items, Info: p.info(), Meta: p}, nil
}

// stableSeq is the stable iteration of a list (see Stable): the cursor
// bound to the endpoint, its filter and key before any request, and every
// request sorted ascending on the key with the key range asked for merged
// into the filter.
func stableSeq[T any](ctx context.Context, c *Client, lc listCall, q url.Values, rc requestConfig, reqs []RequestOption, src pager.Source[T]) (iter.Seq2[*pager.Page[T], error], error) {
	switch {
	case lc.lo.PageNumber != 0:
		return nil, invalid("pageNumber", "stable iteration starts from its cursor; leave PageNumber 0")
	case lc.lo.PageSize == 1:
		return nil, invalid("pageSize", "stable iteration needs pages of at least 2 items")
	}
	key, err := rc.stable.bind(lc, q)
	if err != nil {
		return nil, err
	}
	if src.Key, err = keyReader[T](key.entity); err != nil {
		return nil, err
	}
	src.KeyName = key.name
	src.Fetch = func(ctx context.Context, r pager.Request) (*pager.Page[T], error) {
		kq := pageQuery(q, r)
		if err := mergeKeyRange(kq, key.name, r.Lower, r.Upper); err != nil {
			return nil, err
		}
		kq.Set("sortExpression", key.name)
		kq.Set("sortOrder", string(query.Ascending))
		return fetchPage[T](ctx, c, lc, kq, r, reqs)
	}
	w := lc.lo.PageSize
	if w == 0 {
		w = stableDefaultPageSize
	}
	return pager.Stable(ctx, src, &rc.stable.cur.c, w, rc.prefetch), nil
}

// items flattens pages into their items, moving a stable iteration's
// cursor past each item before the caller sees it.
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
					p.cursor.Reached(i + 1)
				}
				if !yield(it, nil) {
					return
				}
			}
		}
	}
}

// orZero returns *p, or the zero value for a nil p, so that nil params
// mean "no options".
func orZero[P any](p *P) P {
	if p == nil {
		var zero P
		return zero
	}
	return *p
}

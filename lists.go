package billing

import (
	"context"
	"iter"
)

// listOptions gives the generic iterators access to the ListOptions that
// every list params type embeds.
func (o *ListOptions) listOptions() *ListOptions { return o }

// pagedParams is a pointer to a list params type.
type pagedParams[P any] interface {
	*P
	listOptions() *ListOptions
}

// pagesOf iterates over the pages of a list, starting at the params' page
// number. It works on a copy of the params, so the caller may reuse or
// change theirs while iterating. list sends one page's request with the
// request options among opts.
func pagesOf[T, P any, PP pagedParams[P]](ctx context.Context, params PP, opts []IterOption, list func(context.Context, PP, []RequestOption) (*Page[T], error)) iter.Seq2[*Page[T], error] {
	var p P
	if params != nil {
		p = *params
	}
	rc, reqs, err := applyIterOptions(opts)
	if err != nil {
		return func(yield func(*Page[T], error) bool) {
			yield(nil, &ValidationError{Field: "RequestOption", Reason: err.Error()})
		}
	}
	if rc.stable != nil {
		lo := PP(&p).listOptions()
		if lo.PageNumber != 0 {
			return func(yield func(*Page[T], error) bool) {
				yield(nil, invalid("pageNumber", "stable iteration starts from its cursor; leave PageNumber 0"))
			}
		}
		return stablePages(ctx, rc.stable, rc.prefetch, rc.capture, lo.PageSize, func(ctx context.Context, req *stableReq, n, size int) (*Page[T], error) {
			q := p
			qlo := PP(&q).listOptions()
			qlo.PageNumber, qlo.PageSize = n, size
			return list(withStableReq(ctx, req), &q, reqs)
		})
	}
	return pages(ctx, PP(&p).listOptions().PageNumber, rc.prefetch, rc.capture, func(ctx context.Context, n, size int) (*Page[T], error) {
		q := p
		lo := PP(&q).listOptions()
		lo.PageNumber = n
		if size > 0 {
			lo.PageSize = size
		}
		return list(ctx, &q, reqs)
	})
}

// countOf reads X-Count for the params' criteria with a one-item page.
func countOf[T, P any, PP pagedParams[P]](ctx context.Context, params PP, list func(context.Context, PP) (*Page[T], error)) (int, error) {
	var p P
	if params != nil {
		p = *params
	}
	return count(ctx, func(ctx context.Context, size int) (*Page[T], error) {
		lo := PP(&p).listOptions()
		lo.PageNumber, lo.PageSize = 0, size
		return list(ctx, &p)
	})
}

// listWith checks and encodes a list endpoint's params and reads one page
// of op.
func listWith[T any](ctx context.Context, c *Client, op Operation, path string, params any, lo ListOptions, filter any, opts []RequestOption) (*Page[T], error) {
	q, err := encodeParams(params, lo, filter)
	if err != nil {
		return nil, err
	}
	if r := stableReqFrom(ctx); r != nil {
		if err := r.prepare(path, q, lo, filter); err != nil {
			return nil, err
		}
	}
	return listPage[T](ctx, c, op, path, q, lo.PageNumber, lo.PageSize, opts)
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

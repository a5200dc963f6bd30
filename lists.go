package billing

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"net/url"
	"strconv"

	"github.com/billingapi/billing-go/internal/pager"
	"github.com/billingapi/billing-go/query"
	querystring "github.com/google/go-querystring/query"
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

// query checks and encodes the params with go-querystring: what must fail
// before anything is sent fails here. The filter is built as the params
// are encoded (its EncodeValues), so an error there is a bad filter value.
func (lc listCall) query() (url.Values, error) {
	if lc.err != nil {
		return nil, lc.err
	}
	if err := lc.lo.check(lc.filter); err != nil {
		return nil, err
	}
	v, err := querystring.Values(lc.params)
	if err != nil {
		return nil, &ValidationError{Field: "query", Reason: err.Error()}
	}
	return v, nil
}

// list reads the page the params ask for.
func list[T any](ctx context.Context, c *Client, lc listCall, opts []RequestOption) (*Page[T], error) {
	q, err := lc.query()
	if err != nil {
		return nil, err
	}
	return listPage[T](ctx, c, lc, q, nil, pager.Request{Page: lc.lo.PageNumber}, opts)
}

// countOf reads X-Count for the params' criteria with a one-item page.
func countOf[T any](ctx context.Context, c *Client, lc listCall, opts []RequestOption) (int, error) {
	lc.lo.PageNumber, lc.lo.PageSize = 0, 1 // whatever the params say
	q, err := lc.query()
	if err != nil {
		return 0, err
	}
	p, err := listPage[T](ctx, c, lc, q, nil, pager.Request{Size: 1}, opts)
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
func pagesOf[T any, P identified[T]](ctx context.Context, c *Client, lc listCall, opts []IterOption) iter.Seq2[*Page[T], error] {
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
		var key *stableKey // the key of a stable iteration
		src := pager.Source[T]{ID: idOf[T, P], Fetch: func(ctx context.Context, r pager.Request) (*pager.Page[T], error) {
			p, err := listPage[T](ctx, c, lc, q, key, r, reqs)
			if err != nil {
				return nil, err
			}
			return &pager.Page[T]{Items: p.Items, Info: p.info, Meta: p}, nil
		}}
		var seq iter.Seq2[*pager.Page[T], error]
		if rc.stable == nil {
			seq = pager.Pages(ctx, src, lc.lo.PageNumber, rc.prefetch)
		} else {
			k, err := rc.stable.bind(lc, q)
			if err == nil {
				src.Key, err = keyReader[T](k.entity)
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if src.Splits, err = splitsOf[T](lc.filter); err != nil {
				yield(nil, err)
				return
			}
			for _, sp := range src.Splits {
				k.splits = append(k.splits, sp.Name)
			}
			key, src.KeyName = &k, k.name
			w := cmp.Or(lc.lo.PageSize, stableDefaultPageSize)
			seq = pager.Stable(ctx, src, &rc.stable.cur.c, w, rc.prefetch)
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

// listPage sends one GET of a list endpoint and decodes the page: the
// params' query q with the page and size r asks for (size 0: the params'),
// and, for a stable iteration (key not nil), r's key range and parts
// merged into the filter and the sort on the key ascending. r.Claim, inside an iteration's
// pipeline, is the gate every attempt passes.
func listPage[T any](ctx context.Context, c *Client, lc listCall, q url.Values, key *stableKey, r pager.Request, opts []RequestOption) (*Page[T], error) {
	q = maps.Clone(q)
	q.Set("pageNumber", strconv.Itoa(r.Page))
	size := lc.lo.PageSize
	if r.Size > 0 {
		size = r.Size
		q.Set("pageSize", strconv.Itoa(size))
	}
	if key != nil {
		if err := mergeKeyRange(q, key.name, r.Lower, r.Upper); err != nil {
			return nil, err
		}
		for _, part := range r.Parts {
			if err := mergeSplitRange(q, key.splits[part.Split], part.Lower, part.Upper); err != nil {
				return nil, err
			}
		}
		q.Set("sortExpression", key.name)
		q.Set("sortOrder", string(query.Ascending))
	}
	var page *Page[T]
	var cl *call // its read hands the answer's headers over scrubbed of cl's secrets
	cl = &call{op: lc.op, method: http.MethodGet, path: lc.path, query: q, claim: r.Claim, read: func(resp *http.Response) error {
		defer drainAndClose(resp.Body)
		p, err := newPage[T](resp.Header, r.Page, size)
		if err != nil {
			return err
		}
		p.Response = c.response(cl, resp)
		scrub := func(body []byte, out any) {
			if bytes.Contains(body, []byte(*c.cfg.keyRun)) { // see scrubEchoes
				c.scrubEchoes(cl, body, out)
			}
		}
		if err := decodeListAnswer(resp, &p.Items, pageItemLimit(size, p.PageSize), c.cfg.maxResponseBytes, &c.cfg.listBodies, r.Claim, scrub); err != nil {
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

// items flattens pages into their items, moving a stable iteration's
// cursor past each item before the caller sees it. Once ctx is done it
// yields ctx's error instead of the rest of a page already read, so that
// a cancel stops the loop at the next item (and a stable cursor stays
// just past the last item the caller saw).
func items[T any](ctx context.Context, seq iter.Seq2[*Page[T], error]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		for p, err := range seq {
			if err != nil {
				yield(zero, err)
				return
			}
			for i, it := range p.Items {
				if err := ctx.Err(); err != nil {
					yield(zero, err)
					return
				}
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

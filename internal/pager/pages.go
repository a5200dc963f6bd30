package pager

import (
	"context"
	"fmt"
	"iter"
)

// Pages iterates over the pages of src from page first until the last
// page, by page number; with prefetch >= 2, through a pipeline once the
// first page has told how many pages there are. See the package
// documentation.
func Pages[T any](ctx context.Context, src Source[T], first, prefetch int) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		n, size := first, 0
		var prev *Page[T]
		for {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			p, err := src.Fetch(ctx, Request{Page: n, Size: size})
			if err != nil {
				yield(nil, err)
				return
			}
			if err := checkAdvance(src, p, prev, n); err != nil {
				yield(nil, err)
				return
			}
			if len(p.Items) == 0 && prev != nil {
				return
			}
			asked, capped := p.Info.RequestedSize, false
			if asked == 0 {
				asked = max(p.Info.PageSize, 0)
			}
			if asked > 0 && len(p.Items) > 0 && len(p.Items) < asked && p.Info.moreAfter(n*asked, len(p.Items)) {
				capped, size = true, len(p.Items)
				if n > 0 && (p.Info.PageSize <= 0 || p.Info.PageSize >= asked) {
					if n*asked%size != 0 {
						yield(nil, fmt.Errorf("%w: the server returned %d items on page %d where %d were asked for and more are announced: it caps pages without saying so, and no page of %d starts where page %d does; ask for at most %d", ErrPagination, size, n, asked, size, n, size))
						return
					}
					n = n * asked / size
					continue
				}
			}
			hasNext := p.Info.HasNext(len(p.Items)) || capped
			last := p.Info.lastPageIndex()
			if size > 0 && p.Info.Count > 0 {
				last = (p.Info.Count - 1) / size
			}
			// Prefetching guesses page numbers, so it needs consecutive
			// ones. It starts before p is yielded, so that the next pages
			// are on their way while the caller works through this one.
			if next := p.Info.NextPageNumber(); prefetch >= 2 && hasNext && last >= next && next == p.Info.current()+1 {
				var more bool
				if prev, more = prefetchRange(ctx, src, p, size, last, prefetch, yield); !more || !prev.Info.HasNext(len(prev.Items)) {
					return
				}
				// The list grew while it was read: go on one page at a time.
				n = prev.Info.NextPageNumber()
				continue
			}
			if !yield(p, nil) || !hasNext {
				return
			}
			prev = p
			n = p.Info.NextPageNumber()
		}
	}
}

// checkAdvance refuses a page that is not the one asked for, or that
// repeats the page before it.
func checkAdvance[T any](src Source[T], p, prev *Page[T], want int) error {
	if p.Info.CurrentPage >= 0 && p.Info.CurrentPage != want {
		return fmt.Errorf("%w: asked for page %d, the server answered page %d", ErrPagination, want, p.Info.CurrentPage)
	}
	if prev != nil && samePage(src, prev, p) {
		return fmt.Errorf("%w: page %d repeats the items of the page before it", ErrPagination, want)
	}
	return nil
}

// samePage reports whether b holds the same items as a, which is how a
// server that ignores pageNumber and sends no paging headers shows itself.
func samePage[T any](src Source[T], a, b *Page[T]) bool {
	if len(a.Items) != len(b.Items) || len(a.Items) == 0 {
		return false
	}
	last := len(a.Items) - 1
	return src.ID(&a.Items[0]) == src.ID(&b.Items[0]) && src.ID(&a.Items[last]) == src.ID(&b.Items[last])
}

// fetched is one page of a prefetch pipeline, or its error.
type fetched[T any] struct {
	page *Page[T]
	err  error
}

// prefetchRange yields head, a page already fetched, then the pages after
// it up to page to (inclusive), of the given size, fetched through a
// pipeline of n requests, in order; the first fetches start before head
// is yielded. It returns the last page yielded, and false when the
// iteration must end (yield said stop, or an error was yielded).
//
// Each page is a task, 2n of them at once, whose page waits in it until
// it is the head: at most 2n pages are held beyond the one being yielded.
func prefetchRange[T any](ctx context.Context, src Source[T], head *Page[T], size, to, n int, yield func(*Page[T], error) bool) (*Page[T], bool) {
	from := head.Info.NextPageNumber()
	next := from
	pl := Start(ctx, NewGate(n), Config{Tasks: 2 * n, InOrder: true}, func(ctx context.Context) (Task[fetched[T]], bool) {
		if next > to || ctx.Err() != nil {
			return nil, false
		}
		page := next
		next++
		return func(ctx context.Context, c *Claim, emit func(fetched[T]) bool) {
			p, err := src.Fetch(ctx, Request{Page: page, Size: size, Claim: c})
			emit(fetched[T]{p, err})
		}, true
	})
	defer pl.Stop()
	if !yield(head, nil) {
		return head, false
	}
	prev := head
	for want := from; ; want++ {
		r, ok := pl.Next()
		if !ok {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return prev, false
			}
			return prev, true
		}
		if r.err != nil {
			yield(nil, r.err)
			return prev, false
		}
		if err := checkAdvance(src, r.page, prev, want); err != nil {
			yield(nil, err)
			return prev, false
		}
		if len(r.page.Items) == 0 {
			return prev, false // the list shrank since the first page: it ends here
		}
		if !yield(r.page, nil) {
			return r.page, false
		}
		prev = r.page
	}
}

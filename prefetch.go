package billing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Prefetch makes an iterator (All, Pages and their variants) fetch up to n
// pages ahead, concurrently, once the first page has told how many pages
// there are (X-Count and X-PageSize). Pages are still yielded strictly in
// order, and hold exactly the items a sequential iteration would yield.
// At most n requests are in flight, retries included, and at most 2n
// pages are held in memory beyond the one being yielded (pages that
// arrived ahead of their turn wait while the next requests run). A
// request stops counting once its answer has been read, while the page is
// decoded, so that decoding does not hold the next request back; the
// requests start in page order.
//
// Breaking out of the loop or cancelling the context stops every fetch and
// waits for them, so no goroutine outlives the iteration. Retries work as
// for any call; a 429 pauses the whole pipeline for the wait the server
// asked for, not just the request that received it. [CaptureResponse]
// then holds the answer of the last page yielded. Without X-Count, or
// with n < 2, the iterator reads one page at a time. Calls that are not
// n must be between 0 and 64.
//
// The client's default transport keeps enough idle connections for any n;
// a transport given with [WithHTTPClient] should allow at least n idle
// connections per host (http.Transport.MaxIdleConnsPerHost), or the
// pipeline opens new connections all the time.
func Prefetch(n int) IterOption {
	return iterOnly(func(rc *requestConfig) error {
		if n < 0 || n > maxPrefetch {
			return fmt.Errorf("Prefetch: n must be between 0 and %d, got %d", maxPrefetch, n)
		}
		rc.prefetch = n
		return nil
	})
}

// maxPrefetch bounds the pipeline: more concurrency than this only adds
// load on the service and memory here.
const maxPrefetch = 64

// pacer holds every request of a prefetch pipeline back while the service
// has asked the client to wait.
type pacer struct {
	mu    sync.Mutex
	until time.Time
}

type pacerKey struct{}

// captureKey marks a context whose requests must not write the caller's
// CaptureResponse: prefetch workers run at once, so the pipeline sets it
// from each page as it yields the page instead.
type captureKey struct{}

func captureSuppressed(ctx context.Context) bool {
	return ctx.Value(captureKey{}) != nil
}

func withPacer(ctx context.Context, p *pacer) context.Context {
	return context.WithValue(ctx, pacerKey{}, p)
}

func pacerFrom(ctx context.Context) *pacer {
	p, _ := ctx.Value(pacerKey{}).(*pacer)
	return p
}

// pauseFor holds every request back for d from now (extending, never
// shortening, a pause already in force).
func (p *pacer) pauseFor(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if until := time.Now().Add(d); until.After(p.until) {
		p.until = until
	}
}

// wait blocks until no pause is in force or ctx is done.
func (p *pacer) wait(ctx context.Context) {
	for {
		p.mu.Lock()
		d := time.Until(p.until)
		p.mu.Unlock()
		if d <= 0 {
			return
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// lastPageIndex is the index of the last page as the first page's
// headers tell it, or -1 when they do not.
func lastPageIndex[T any](p *Page[T]) int {
	size := p.PageSize
	if size <= 0 {
		size = p.requestedSize
	}
	if p.Count <= 0 || size <= 0 {
		return -1
	}
	return (p.Count - 1) / size
}

// fetched is one page of a prefetch pipeline, or its error.
type fetched[T any] struct {
	page *Page[T]
	err  error
}

// prefetchRange yields head, a page already fetched, then fetches the
// pages after it up to page to (inclusive) with up to n requests in
// flight and hands them to yield in order; the first fetches start before
// head is yielded. It returns the last page yielded, and false when the
// iteration must end (yield said stop, or an error was yielded). Every
// fetch is cancelled and waited for before it returns.
func prefetchRange[T any](ctx context.Context, head *Page[T], to, n int, capture *Response, fetch fetchFunc[T], yield func(*Page[T], error) bool) (*Page[T], bool) {
	from := head.NextPageNumber()
	ctx, cancel := context.WithCancel(context.WithValue(withPacer(ctx, &pacer{}), captureKey{}, true))
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()

	// A fetch holds one of n slots only while its request is on the wire
	// (see requestSlots), not until its page is yielded: a page that
	// finished early but waits for the pages before it would otherwise keep
	// a slot idle. Up to 2n pages are queued, so that n fetches can run
	// while n pages wait their turn.
	slots, decoders := make(requestSlots, n), newDecoders()
	queue := make([]chan fetched[T], 0, 2*n)
	next := from
	turn := make(chan struct{})
	close(turn) // the first fetch goes first
	launch := func() {
		ch := make(chan fetched[T], 1) // buffered: a fetch finishing after a break never blocks
		queue = append(queue, ch)
		page := next
		next++
		s := &slot{slots: slots, decoders: decoders, turn: turn, took: make(chan struct{})}
		turn = s.took
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := fetch(withSlot(ctx, s), page)
			s.done()
			ch <- fetched[T]{p, err}
		}()
	}
	for next <= to && len(queue) < 2*n {
		launch()
	}
	if !yield(head, nil) {
		return head, false
	}
	prev := head
	for want := from; len(queue) > 0; want++ {
		r := <-queue[0]
		queue = queue[1:]
		if err := ctx.Err(); err != nil {
			// Cancelled: pages fetched ahead are not yielded, as a
			// sequential iteration would not have fetched them.
			yield(nil, err)
			return prev, false
		}
		if r.err != nil {
			var apiErr *APIError
			if capture != nil && errors.As(r.err, &apiErr) {
				*capture = Response{StatusCode: apiErr.StatusCode, Header: apiErr.Header, RateLimit: apiErr.RateLimit}
			}
			yield(nil, r.err)
			return prev, false
		}
		if capture != nil {
			*capture = r.page.Response
		}
		if err := checkAdvance(r.page, prev, want); err != nil {
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
		if next <= to {
			launch()
		}
	}
	return prev, true
}

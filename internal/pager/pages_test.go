package pager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// pageServices are the services Pages must read every item of, exactly
// once and in order: every reading of the paging headers the reference
// allows, page caps said in X-PageSize or not, the server's default size.
// size is the caller's page size (0: the server's default).
var pageServices = []struct {
	name string
	svc  service
	size int
}{
	{"reference headers", service{}, 10},
	{"other reading of the headers", service{headers: headersOther}, 10},
	{"X-Count only", service{headers: headersCountOnly}, 10},
	{"no paging headers", service{headers: headersNone}, 10},
	{"silent cap", service{pageCap: 4}, 10},
	{"honest cap", service{pageCap: 4, honestCap: true}, 10},
	{"silent cap, other headers", service{pageCap: 4, headers: headersOther}, 10},
	{"silent cap, X-Count only", service{pageCap: 4, headers: headersCountOnly}, 10},
	{"honest cap, X-Count only", service{pageCap: 4, honestCap: true, headers: headersCountOnly}, 10},
	{"cap that divides the size", service{pageCap: 5}, 10},
	{"server's default size", service{defaultSize: 7}, 0},
	{"server's default size, other headers", service{defaultSize: 7, headers: headersOther}, 0},
	{"server's default size above a silent cap", service{defaultSize: 7, pageCap: 4}, 0},
	{"server's default size above an honest cap", service{defaultSize: 7, pageCap: 4, honestCap: true}, 0},
}

var prefetches = []int{0, 2, 3, 8}

// runPages reads src's pages from first, with prefetch, through body (nil:
// read them all); it returns the ids of each page yielded, and the error
// that ended the iteration.
func runPages(ctx context.Context, src Source[item], first, prefetch int, body func(i int, p *Page[item]) bool) ([][]int64, error) {
	var got [][]int64
	for p, err := range Pages(ctx, src, first, prefetch) {
		if err != nil {
			return got, err
		}
		got = append(got, ids(p.Items))
		if body != nil && !body(len(got)-1, p) {
			break
		}
	}
	return got, nil
}

// inPages cuts want into pages of size.
func inPages(want []int64, size int) [][]int64 {
	if len(want) == 0 {
		return [][]int64{{}}
	}
	var out [][]int64
	for len(want) > 0 {
		n := min(size, len(want))
		out = append(out, want[:n])
		want = want[n:]
	}
	return out
}

// servedSize is the size of the pages svc serves to a caller asking size.
func servedSize(svc service, size int) int {
	if size == 0 {
		size = svc.defaultSize
	}
	if svc.pageCap > 0 {
		return min(size, svc.pageCap)
	}
	return size
}

func TestPagesYieldsEveryItemOnceInOrder(t *testing.T) {
	t.Parallel()
	for _, sv := range pageServices {
		for _, n := range []int{0, 1, 9, 10, 23, 100} {
			runInBubble(t, fmt.Sprintf("%s, %d items", sv.name, n), func(t *testing.T) {
				want := inPages(idRange(1, int64(n)), servedSize(sv.svc, sv.size))
				sequentialCalls := 0
				for _, prefetch := range prefetches {
					f := newFakeSource(sv.svc, keysEvery(n, time.Second))
					f.size = sv.size
					got, err := runPages(t.Context(), f.source(), 0, prefetch, nil)
					if err != nil {
						t.Fatalf("prefetch %d: %v", prefetch, err)
					}
					if d := cmp.Diff(want, got); d != "" {
						t.Fatalf("prefetch %d: pages:\n%s", prefetch, d)
					}
					if prefetch == 0 {
						sequentialCalls = f.calledTimes()
					} else if got := f.calledTimes(); got != sequentialCalls {
						t.Errorf("prefetch %d: %d requests, sequential %d: prefetching wastes requests", prefetch, got, sequentialCalls)
					}
					if f.inFlight.Load() != 0 {
						t.Fatalf("prefetch %d: %d requests still running after the loop", prefetch, f.inFlight.Load())
					}
					if most := f.maxOnWire.Load(); most > int64(max(prefetch, 1)) {
						t.Errorf("prefetch %d: %d requests on the wire at once", prefetch, most)
					}
					// Pages after the first go through the pipeline,
					// where the headers tell how many there are.
					pipelined := prefetch >= 2 && sv.svc.headers != headersNone && len(want) >= 2
					for i, r := range f.requests()[1:] {
						if r.Gated != pipelined {
							t.Errorf("prefetch %d: request %d (%+v) passed a gate: %v, want %v", prefetch, i+1, r.Request, r.Gated, pipelined)
						}
					}
				}
			})
		}
	}
}

func TestPagesFromAPageNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		svc   service
		size  int
		first int
		want  [][]int64 // nil: ErrPagination before any page
	}{
		{"reference headers", service{}, 10, 2, [][]int64{idRange(21, 23)}},
		{"past the end", service{}, 10, 5, [][]int64{{}}},
		{"silent cap dividing the page's start", service{pageCap: 5}, 10, 2, [][]int64{idRange(21, 23)}},
		{"silent cap, more pages after", service{pageCap: 5}, 10, 1, [][]int64{idRange(11, 15), idRange(16, 20), idRange(21, 23)}},
		{"silent cap not dividing the page's start", service{pageCap: 4}, 10, 1, nil},
		{"honest cap: page numbers count its pages", service{pageCap: 4, honestCap: true}, 10, 2, [][]int64{idRange(9, 12), idRange(13, 16), idRange(17, 20), idRange(21, 23)}},
		{"server's default size", service{defaultSize: 7}, 0, 1, [][]int64{idRange(8, 14), idRange(15, 21), idRange(22, 23)}},
		{"server's default size above a silent cap", service{defaultSize: 8, pageCap: 4}, 0, 1, [][]int64{idRange(9, 12), idRange(13, 16), idRange(17, 20), idRange(21, 23)}},
	}
	for _, tt := range tests {
		for _, prefetch := range prefetches {
			runInBubble(t, fmt.Sprintf("%s, prefetch %d", tt.name, prefetch), func(t *testing.T) {
				f := newFakeSource(tt.svc, keysEvery(23, time.Second))
				f.size = tt.size
				got, err := runPages(t.Context(), f.source(), tt.first, prefetch, nil)
				if tt.want == nil {
					if !errors.Is(err, ErrPagination) || len(got) != 0 {
						t.Fatalf("pages %v, error %v; want no page and ErrPagination", got, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Fatalf("pages:\n%s", d)
				}
			})
		}
	}
}

// TestPagesRefusesAServerThatRepeatsOrSkipsPages: a server that answers
// the same page whatever is asked, or another page than the one asked
// for (and says so), ends the iteration with ErrPagination after the
// pages it read right.
func TestPagesRefusesAServerThatRepeatsOrSkipsPages(t *testing.T) {
	t.Parallel()
	var tests []struct {
		name string
		svc  service
	}
	for _, h := range []struct {
		name    string
		headers headerStyle
	}{{"reference headers", headersReference}, {"other headers", headersOther}, {"X-Count only", headersCountOnly}, {"no headers", headersNone}} {
		tests = append(tests, struct {
			name string
			svc  service
		}{"same page always, " + h.name, service{headers: h.headers, ignorePage: true}})
		if h.headers == headersReference || h.headers == headersOther {
			// Without X-CurrentPage, another page cannot be told apart.
			tests = append(tests, struct {
				name string
				svc  service
			}{"the page after the one asked, " + h.name, service{headers: h.headers, nextPageInstead: true}})
		}
	}
	for _, tt := range tests {
		for _, prefetch := range prefetches {
			runInBubble(t, fmt.Sprintf("%s, prefetch %d", tt.name, prefetch), func(t *testing.T) {
				f := newFakeSource(tt.svc, keysEvery(35, time.Second))
				f.size = 10
				f.failFrom = 100 // the guard of an iteration that does not end
				got, err := runPages(t.Context(), f.source(), 0, prefetch, nil)
				if !errors.Is(err, ErrPagination) {
					t.Fatalf("error %v, want ErrPagination", err)
				}
				if d := cmp.Diff([][]int64{idRange(1, 10)}, got); d != "" {
					t.Fatalf("pages before the error:\n%s", d)
				}
				if f.inFlight.Load() != 0 {
					t.Fatalf("%d requests still running after the loop", f.inFlight.Load())
				}
			})
		}
	}
}

// TestPagesWhileTheListChanges: items added at the end while the list is
// read are read too; items removed from the end end it early, without an
// error or an empty page. Both change the list once its first page is
// read, before any other is.
func TestPagesWhileTheListChanges(t *testing.T) {
	t.Parallel()
	changes := []struct {
		name   string
		change func(f *fakeSource)
	}{
		{"grows by 17", func(f *fakeSource) {
			for i := range 17 {
				f.add(baseKey.Add(time.Hour + time.Duration(i)*time.Second))
			}
		}},
		{"grows by a page", func(f *fakeSource) {
			for i := range 10 {
				f.add(baseKey.Add(time.Hour + time.Duration(i)*time.Second))
			}
		}},
		{"shrinks by 15", func(f *fakeSource) {
			for id := int64(29); id <= 43; id++ {
				f.remove(id)
			}
		}},
		{"shrinks to its first page", func(f *fakeSource) {
			for id := int64(11); id <= 43; id++ {
				f.remove(id)
			}
		}},
		{"shrinks to nothing", func(f *fakeSource) {
			for id := int64(1); id <= 43; id++ {
				f.remove(id)
			}
		}},
	}
	for _, sv := range pageServices {
		for _, ch := range changes {
			for _, prefetch := range prefetches {
				runInBubble(t, fmt.Sprintf("%s, %s, prefetch %d", sv.name, ch.name, prefetch), func(t *testing.T) {
					f := newFakeSource(sv.svc, keysEvery(43, time.Second))
					f.size = sv.size
					f.mutate = func(call int, f *fakeSource) {
						if call == 2 {
							ch.change(f)
						}
					}
					got, err := runPages(t.Context(), f.source(), 0, prefetch, nil)
					if err != nil {
						t.Fatal(err)
					}
					// The first page as it was, then what is left
					// after it.
					size := servedSize(sv.svc, sv.size)
					want := idRange(1, int64(size))
					for _, id := range ids(f.snapshot()) {
						if id > int64(size) {
							want = append(want, id)
						}
					}
					if d := cmp.Diff(want, slices.Concat(got...)); d != "" {
						t.Fatalf("items:\n%s", d)
					}
					for i, p := range got {
						if len(p) == 0 {
							t.Fatalf("page %d of %d is empty", i, len(got))
						}
					}
				})
			}
		}
	}
}

// TestPagesStopsWhenTheLoopBreaks: a loop that breaks while pages are on
// their way leaves no request running once it has ended.
func TestPagesStopsWhenTheLoopBreaks(t *testing.T) {
	t.Parallel()
	for _, prefetch := range []int{2, 3, 8} {
		for _, at := range []int{0, 1, 4} {
			runInBubble(t, fmt.Sprintf("prefetch %d, break after page %d", prefetch, at), func(t *testing.T) {
				f := newFakeSource(service{}, keysEvery(300, time.Second))
				f.size = 10
				f.block = func(ctx context.Context, r Request) error {
					if r.Page <= at+1 {
						return nil
					}
					<-ctx.Done() // on the wire until the iteration stops
					return ctx.Err()
				}
				running := int64(0)
				got, err := runPages(t.Context(), f.source(), 0, prefetch, func(i int, p *Page[item]) bool {
					if i < at {
						return true
					}
					synctest.Wait() // the pipeline has sent what it can
					running = f.inFlight.Load()
					return false
				})
				if err != nil {
					t.Fatal(err)
				}
				if left := f.inFlight.Load(); left != 0 {
					t.Fatalf("%d requests still running after the loop ended", left)
				}
				if running < int64(prefetch) {
					t.Fatalf("%d requests running at the break, want at least %d: the test proves nothing", running, prefetch)
				}
				if d := cmp.Diff(inPages(idRange(1, int64(10*(at+1))), 10), got); d != "" {
					t.Fatalf("pages:\n%s", d)
				}
			})
		}
	}
}

// TestPagesEndsOnAnError: a done context, or a request that fails, ends
// the iteration with that error, after the pages before it and with no
// request left running.
func TestPagesEndsOnAnError(t *testing.T) {
	t.Parallel()
	errBroken := errors.New("broken")
	tests := []struct {
		name string
		// cancelAt cancels the context while page cancelAt is yielded
		// (-1: never); failAt makes the request for that page fail.
		cancelAt, failAt int
		want             error
	}{
		{"cancelled on the first page", 0, -1, context.Canceled},
		{"cancelled later", 3, -1, context.Canceled},
		{"the first request fails", -1, 0, errBroken},
		{"the second request fails", -1, 1, errBroken},
		{"a later request fails", -1, 6, errBroken},
	}
	for _, tt := range tests {
		for _, prefetch := range prefetches {
			runInBubble(t, fmt.Sprintf("%s, prefetch %d", tt.name, prefetch), func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				f := newFakeSource(service{}, keysEvery(100, time.Second))
				f.size = 10
				f.block = func(ctx context.Context, r Request) error {
					if r.Page == tt.failAt {
						return errBroken
					}
					return nil
				}
				got, err := runPages(ctx, f.source(), 0, prefetch, func(i int, p *Page[item]) bool {
					if i == tt.cancelAt {
						cancel()
					}
					return true
				})
				if !errors.Is(err, tt.want) {
					t.Fatalf("error %v, want %v", err, tt.want)
				}
				var want [][]int64
				for i := range max(tt.cancelAt+1, tt.failAt) {
					want = append(want, idRange(int64(10*i+1), int64(10*i+10)))
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("pages before the error:\n%s", d)
				}
				if left := f.inFlight.Load(); left != 0 {
					t.Fatalf("%d requests still running after the loop ended", left)
				}
			})
		}
	}
}

// TestPagesKeepsNRequestsOnTheWire: with prefetch n, n requests are on
// the wire while the consumer waits, one of them the head's.
func TestPagesKeepsNRequestsOnTheWire(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3, 8} {
		runInBubble(t, fmt.Sprint("prefetch ", n), func(t *testing.T) {
			f := newFakeSource(service{}, keysEvery(300, time.Second))
			f.size = 10
			release := make(chan struct{})
			f.block = func(ctx context.Context, r Request) error {
				if r.Page > 0 {
					select {
					case <-release:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				return nil
			}
			type run struct {
				got [][]int64
				err error
			}
			done := make(chan run)
			go func() {
				got, err := runPages(t.Context(), f.source(), 0, n, nil)
				done <- run{got, err}
			}()
			synctest.Wait()
			if got := f.onWire.Load(); got != int64(n) {
				t.Errorf("%d requests on the wire while the consumer waits, want %d", got, n)
			}
			close(release)
			r := <-done
			if r.err != nil {
				t.Fatal(r.err)
			}
			if d := cmp.Diff(inPages(idRange(1, 300), 10), r.got); d != "" {
				t.Fatalf("pages:\n%s", d)
			}
		})
	}
}

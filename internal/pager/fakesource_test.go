package pager

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shopspring/decimal"
)

// The fake source: an in-memory list endpoint that answers Requests as
// the live service may where the API reference is silent (its page cap,
// said in X-PageSize or not; either reading of X-NextPage and
// X-MaxPageIndex; the order of equal keys, even one that changes between
// requests), or as a broken one does (ignoring the page number, the key
// range or the sort), while its items change between requests. It passes
// each request through the request's Claim as the SDK's transport does,
// and counts the Fetch calls in flight.

// item is a listed entity: an id and the key stable iteration pages on.
// Its values of the split fields follow from its id (fakeSource.vals).
type item struct {
	ID  int64
	Key time.Time
}

func (it item) String() string {
	return fmt.Sprintf("%d@%s", it.ID, it.Key.Format("15:04:05.000000000"))
}

// headerStyle is which paging headers the service sends.
type headerStyle int

const (
	// headersReference: X-NextPage -1 on the last page, X-MaxPageIndex the
	// number of pages, and every other header.
	headersReference headerStyle = iota
	// headersOther: the other reading, X-NextPage n+1 on every page and
	// X-MaxPageIndex the index of the last page.
	headersOther
	// headersCountOnly: X-Count and nothing else.
	headersCountOnly
	// headersNone: no paging header at all.
	headersNone
)

// tieOrder is the order the service gives items with equal keys.
type tieOrder int

const (
	tieByID tieOrder = iota
	tieByIDDescending
	tieByInsertion
	// tieShuffled is a new order on every request: seeded by the request
	// and the number of times the same request was asked before, so that
	// a run that sends the same requests gets the same answers.
	tieShuffled
)

// service is how the fake answers.
type service struct {
	// pageCap is the largest page (0: none); with honestCap X-PageSize
	// says it and page numbers count pages of it, without it X-PageSize
	// echoes the size asked for and page p starts at p × asked.
	pageCap   int
	honestCap bool
	// defaultSize is the page size when none is asked for (0: 1000).
	defaultSize int
	headers     headerStyle
	ties        tieOrder
	// Broken services: one that answers page 0 whatever is asked, one that
	// answers page n+1 (and says so) for every n > 0, one that ignores the
	// key range, one that sends each page in descending key order.
	ignorePage, nextPageInstead, ignoreRange, unsorted bool
	// hide, when set, is an item the service keeps out of every page:
	// among the items sharing its key (more than a page of them), it puts
	// it where the page asked for is not.
	hide int64
}

// errFailing is the error of a fakeSource that has gone down.
var errFailing = errors.New("the service is down")

// fakeSource is a list endpoint with the caller's criteria.
type fakeSource struct {
	svc service
	// size is the caller's page size, asked when a request says none (0:
	// the service's default).
	size int
	// filterUpper is the caller's own filter on the key, key < filterUpper
	// (zero: none): a request whose range cannot meet it gets
	// ErrEmptyRange, as the SDK's source answers it.
	filterUpper time.Time
	// block, when set, runs before each answer, outside the lock, with
	// the request's claim held: a request on the wire until it returns.
	block func(ctx context.Context, r Request) error
	// mutate, when set, runs under the lock before each answer: call is
	// the number of the request (from 1).
	mutate func(call int, f *fakeSource)
	// failFrom, when not 0, makes every request from that number on fail
	// with errFailing: a service that goes down.
	failFrom int
	// splits is how many split fields the endpoint has: 0, 1 (val) or 2
	// (val, then val2); vals gives an item's values of them, in cents, by
	// its id (nil: id×7 mod 1000 and the id). Set both before the run.
	splits int
	vals   func(id int64) (val, val2 int64)
	// clock, when set, is the service's clock, sent as each answer's
	// Date; it is read under the lock, after mutate.
	clock func() time.Time

	mu      sync.Mutex
	items   []item // in insertion order
	nextID  int64
	calls   int
	asked   map[string]int // how often each request was answered
	log     []call         // every request answered
	history map[item]bool  // every id and key an item has had
	touched map[int64]bool // ids inserted, deleted or moved since the start

	inFlight          atomic.Int64 // Fetch calls running
	onWire, maxOnWire atomic.Int64 // between Acquire and Release
}

// newFakeSource is a source of items, with ids from 1 in their order.
func newFakeSource(svc service, keys []time.Time) *fakeSource {
	f := &fakeSource{svc: svc, asked: map[string]int{}, history: map[item]bool{}, touched: map[int64]bool{}, splits: 1}
	for _, k := range keys {
		f.add(k)
	}
	f.touched = map[int64]bool{}
	return f
}

// source is the fake as the engine sees it.
func (f *fakeSource) source() Source[item] {
	src := Source[item]{
		Fetch:   f.fetch,
		ID:      func(it *item) int64 { return it.ID },
		Key:     func(it *item) time.Time { return it.Key },
		KeyName: "key",
	}
	vals := f.vals
	if vals == nil {
		vals = func(id int64) (int64, int64) { return id * 7 % 1000, id }
	}
	splits := []Split[item]{
		{Name: "val", Value: func(it *item) decimal.Decimal { v, _ := vals(it.ID); return decimal.New(v, -2) }},
		{Name: "val2", Value: func(it *item) decimal.Decimal { _, v := vals(it.ID); return decimal.New(v, -2) }},
	}
	src.Splits = splits[:f.splits]
	return src
}

// add inserts an item at key k; under the lock (or before any request).
func (f *fakeSource) add(k time.Time) int64 {
	f.nextID++
	it := item{ID: f.nextID, Key: k}
	f.items = append(f.items, it)
	f.history[it] = true
	f.touched[it.ID] = true
	return it.ID
}

// remove deletes the item id; under the lock.
func (f *fakeSource) remove(id int64) {
	f.items = slices.DeleteFunc(f.items, func(it item) bool { return it.ID == id })
	f.touched[id] = true
}

// move changes the key of item id to k; under the lock.
func (f *fakeSource) move(id int64, k time.Time) {
	for i := range f.items {
		if f.items[i].ID == id {
			f.items[i].Key = k
			f.history[f.items[i]] = true
			f.touched[id] = true
		}
	}
}

// snapshot is a copy of the items, in key order (ties by id).
func (f *fakeSource) snapshot() []item {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.items)
	slices.SortStableFunc(out, func(a, b item) int { return cmp.Or(a.Key.Compare(b.Key), cmp.Compare(a.ID, b.ID)) })
	return out
}

// call is a request answered: the request without its claim, and
// whether it had one.
type call struct {
	Request
	Gated bool
}

// requests is a copy of the log of requests answered.
func (f *fakeSource) requests() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.log)
}

// calledTimes is the number of requests answered.
func (f *fakeSource) calledTimes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func raise(m *atomic.Int64, v int64) {
	for {
		old := m.Load()
		if v <= old || m.CompareAndSwap(old, v) {
			return
		}
	}
}

// fetch is Source.Fetch: the request passes its claim as the transport's
// attempts do (Acquire before sending, Release once the answer is read,
// Decode around decoding).
func (f *fakeSource) fetch(ctx context.Context, r Request) (*Page[item], error) {
	f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	r.Claim.Acquire(ctx)
	if err := ctx.Err(); err != nil {
		r.Claim.Release()
		return nil, err
	}
	raise(&f.maxOnWire, f.onWire.Add(1))
	var err error
	if f.block != nil {
		err = f.block(ctx, r)
	}
	var p *Page[item]
	if err == nil {
		p, err = f.answer(r)
	}
	f.onWire.Add(-1)
	r.Claim.Release()
	if err != nil {
		return nil, err
	}
	defer r.Claim.Decode()()
	return p, nil
}

// answer is the service's answer to r.
func (f *fakeSource) answer(r Request) (*Page[item], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.failFrom > 0 && f.calls >= f.failFrom {
		return nil, errFailing
	}
	if f.mutate != nil {
		f.mutate(f.calls, f)
	}
	f.log = append(f.log, call{Request: Request{Page: r.Page, Size: r.Size, Lower: r.Lower, Upper: r.Upper, Parts: r.Parts}, Gated: r.Claim != nil})
	r.Claim = nil
	sig := fmt.Sprint(r.Page, r.Size, r.Lower, r.Upper, r.Parts)
	rep := f.asked[sig]
	f.asked[sig]++

	lo, hi := r.Lower, r.Upper
	if !f.filterUpper.IsZero() && (hi.IsZero() || f.filterUpper.Before(hi)) {
		hi = f.filterUpper
	}
	if !lo.IsZero() && !hi.IsZero() && !lo.Before(hi) {
		return nil, ErrEmptyRange
	}
	if f.svc.ignoreRange {
		lo, hi = time.Time{}, f.filterUpper
	}
	var matched []item
	src := f.source()
	for _, it := range f.items {
		in := (lo.IsZero() || !it.Key.Before(lo)) && (hi.IsZero() || it.Key.Before(hi))
		for _, p := range r.Parts {
			in = in && p.contains(src.Splits[p.Split].Value(&it))
		}
		if in {
			matched = append(matched, it)
		}
	}
	f.sortTies(matched, r, rep)

	asked := r.Size
	if asked == 0 {
		asked = f.size
	}
	requested := asked
	if asked == 0 {
		asked = cmp.Or(f.svc.defaultSize, 1000)
	}
	served, offset, header := asked, asked, asked
	if c := f.svc.pageCap; c > 0 && asked > c {
		served = c
		if f.svc.honestCap {
			offset, header = c, c
		}
	}
	page := r.Page
	switch {
	case f.svc.ignorePage:
		page = 0
	case f.svc.nextPageInstead && page > 0:
		page++
	}
	start := min(page*offset, len(matched))
	end := min(start+served, len(matched))
	if f.svc.hide != 0 {
		hideFrom(matched, f.svc.hide, start, end)
	}
	items := slices.Clone(matched[start:end])
	if items == nil {
		items = []item{}
	}
	if f.svc.unsorted && len(items) > 1 && !items[0].Key.Equal(items[len(items)-1].Key) {
		slices.Reverse(items)
	}

	count := len(matched)
	pages := 0
	if count > 0 {
		pages = (count-1)/offset + 1
	}
	info := Info{Count: -1, CurrentPage: -1, NextPage: -1, PageSize: -1, MaxPageIndex: -1, Requested: r.Page, RequestedSize: requested}
	if f.clock != nil {
		info.Date = f.clock().Truncate(time.Second)
	}
	switch f.svc.headers {
	case headersReference, headersOther:
		info.Count, info.CurrentPage, info.PageSize, info.NextHeader = count, page, header, true
		info.MaxPageIndex = pages
		if page+1 < pages {
			info.NextPage = page + 1
		}
		if f.svc.headers == headersOther {
			info.NextPage, info.MaxPageIndex = page+1, max(pages-1, 0)
		}
	case headersCountOnly:
		info.Count = count
	}
	return &Page[item]{Items: items, Info: info, Meta: f.calls}, nil
}

// sortTies sorts items by key, equal keys in the service's tie order.
func (f *fakeSource) sortTies(items []item, r Request, rep int) {
	var rank map[int64]int
	switch f.svc.ties {
	case tieByInsertion:
		rank = make(map[int64]int, len(f.items))
		for i, it := range f.items {
			rank[it.ID] = i
		}
	case tieShuffled:
		h := fnv.New64a()
		fmt.Fprintf(h, "%d %d %d %d %d", r.Page, r.Size, r.Lower.UnixNano(), r.Upper.UnixNano(), rep)
		rng := rand.New(rand.NewPCG(h.Sum64(), uint64(rep)))
		perm := rng.Perm(len(items))
		rank = make(map[int64]int, len(items))
		for i, it := range items {
			rank[it.ID] = perm[i]
		}
	}
	slices.SortFunc(items, func(a, b item) int {
		if c := a.Key.Compare(b.Key); c != 0 {
			return c
		}
		switch f.svc.ties {
		case tieByIDDescending:
			return cmp.Compare(b.ID, a.ID)
		case tieByInsertion, tieShuffled:
			return cmp.Compare(rank[a.ID], rank[b.ID])
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// hideFrom moves item id, if it lies in items[start:end], to a place
// among the items of its key outside that window, where there is one.
func hideFrom(items []item, id int64, start, end int) {
	at := slices.IndexFunc(items, func(it item) bool { return it.ID == id })
	if at < start || at >= end {
		return
	}
	lo, hi := at, at+1
	for lo > 0 && items[lo-1].Key.Equal(items[at].Key) {
		lo--
	}
	for hi < len(items) && items[hi].Key.Equal(items[at].Key) {
		hi++
	}
	to := -1
	switch {
	case lo < start:
		to = lo
	case hi > end:
		to = hi - 1
	default:
		return
	}
	it := items[at]
	if to < at {
		copy(items[to+1:at+1], items[to:at])
	} else {
		copy(items[at:to], items[at+1:to+1])
	}
	items[to] = it
}

// keysEvery is n keys from baseKey on, one every step.
func keysEvery(n int, step time.Duration) []time.Time {
	keys := make([]time.Time, n)
	for i := range keys {
		keys[i] = baseKey.Add(time.Duration(i) * step)
	}
	return keys
}

// baseKey is the second the fake lists' keys start at.
var baseKey = time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)

// tiedKeys is groups of items: group g holds perSecond[g] items at second
// base+g, all at exactly the same instant when same, else 1µs apart.
func tiedKeys(perSecond []int, same bool) []time.Time {
	var keys []time.Time
	for g, n := range perSecond {
		sec := baseKey.Add(time.Duration(g) * time.Second)
		for i := range n {
			k := sec.Add(250 * time.Millisecond)
			if !same {
				k = sec.Add(time.Duration(i) * time.Microsecond)
			}
			keys = append(keys, k)
		}
	}
	return keys
}

// ids are the ids of items.
func ids(items []item) []int64 {
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// idRange is the ids from..to inclusive.
func idRange(from, to int64) []int64 {
	var out []int64
	for id := from; id <= to; id++ {
		out = append(out, id)
	}
	return out
}

// runInBubble runs test as a parallel subtest named name, inside a
// synctest bubble, whose fake clock lets the pipeline's waits and the
// fake source's latencies pass at once and in a fixed order.
func runInBubble(t *testing.T, name string, test func(t *testing.T)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, test)
	})
}

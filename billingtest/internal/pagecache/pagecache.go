// Package pagecache keeps a few whole encoded list answers (body and page
// headers) so that a list page asked for again is written without being
// queried and encoded again.
//
// Design. A page of 100 invoices costs about 0.16 ms to encode; a client
// that reads the same page again (a dashboard polling it, a test asking
// twice) pays it each time. Three choices keep the cache small and its
// cost independent of the account's size:
//
//   - Per version. Every answer is stored with the version of the store
//     it was computed from (a counter the fake bumps on every change to
//     what lists show), and the cache holds answers of one version only:
//     the first lookup at a newer version drops them all. No change has
//     to know which pages it touches, and no stale page can outlive a
//     change, whatever the page's filter or sort. The version is that
//     of the lock guarding the store ([RWMutex]), which counts its write
//     locks, so that no change path can forget to bump it; an answer
//     that reads the clock has the clock's reading in its key ([Key]).
//   - Admission on the second sight. A sweep asks for each page once; a
//     cache that kept every answer would copy each page in, evict the
//     ones before it and never serve any. So a key is kept only when it
//     was asked for before within the last RingSize lookups, remembered
//     as hashes in a fixed ring: a sweep pays a hash and a ring scan per
//     page, and copies nothing. The ring is short on purpose: a key that
//     comes back within RingSize lookups belongs to a cycle of at most
//     RingSize answers, each at most a quarter of maxBytes, so the whole
//     cycle fits and least-recently-used eviction keeps it. A longer
//     cycle (the same sequential sweep run again and again) is never
//     admitted: with a long memory it was, and each of its pages was
//     copied in only to be evicted before its turn came back, a quarter
//     more CPU a page for no hit. Sweeps with concurrent requests, whose
//     pages arrive in any order, can ask for a page at the end of one
//     sweep and again at the start of the next: a small account's page
//     may then be kept, and serves later sweeps.
//   - Bounded. At most maxEntries answers and maxBytes of bodies and
//     headers, the least recently used evicted; an answer larger than a
//     quarter of maxBytes is never kept, so that one answer cannot push
//     out the rest. A cache of every page of a list would grow with the
//     account (a million invoices), which is what this one must not do.
package pagecache

import (
	"hash/maphash"
	"net/http"
	"slices"
	"sync"
)

// RingSize is how many recent keys admission remembers: no more answers
// than the cache holds at its largest (four of a quarter of maxBytes).
const RingSize = 4

// Answer is an encoded list answer: its page headers, one value each,
// and its body. A cached Answer is shared by every request it serves:
// nothing may change it.
type Answer struct {
	Header http.Header
	Body   []byte
}

// size is what a keeps in memory, roughly: its body, and each header's
// name and value with a slice's worth of overhead.
func (a *Answer) size() int {
	n := len(a.Body)
	for k, v := range a.Header {
		n += len(k) + 32
		for _, s := range v {
			n += len(s) + 16
		}
	}
	return n
}

// SetHeaders sets a's headers in h, copied, so that nothing done to h
// reaches the cached answer.
func (a *Answer) SetHeaders(h http.Header) {
	n := 0
	for _, v := range a.Header {
		n += len(v)
	}
	vals := make([]string, 0, n) // one allocation for all the values
	for k, v := range a.Header {
		i := len(vals)
		vals = append(vals, v...)
		h[k] = vals[i:len(vals):len(vals)]
	}
}

// Cache is a bounded cache of answers of one store version. It is safe
// for concurrent use. A nil *Cache keeps nothing: every lookup misses
// and is not admitted.
type Cache struct {
	maxEntries, maxBytes int
	seed                 maphash.Seed

	mu      sync.Mutex
	version uint64
	ring    [RingSize]uint64 // key hashes of recent lookups; 0: none
	next    int              // the ring's slot to write next
	entries map[string]*entry
	lru     entry // sentinel: lru.next is the most recently used
	bytes   int
	hits    int
}

type entry struct {
	key        string
	answer     Answer
	size       int
	prev, next *entry
}

// New returns an empty cache of at most maxEntries answers and maxBytes
// in all. Both must be positive, and maxEntries at least RingSize, so
// that every cycle admission lets in fits.
func New(maxEntries, maxBytes int) *Cache {
	c := &Cache{maxEntries: maxEntries, maxBytes: maxBytes, seed: maphash.MakeSeed(), entries: map[string]*entry{}}
	c.lru.prev, c.lru.next = &c.lru, &c.lru
	return c
}

// Ticket is what a lookup that missed says about keeping the answer the
// caller computes instead: pass it to [Ticket.Keep].
type Ticket struct {
	c       *Cache
	version uint64
	key     string
}

// Lookup returns the answer of key at version, or nil. On a miss it notes key as seen, and the ticket keeps the answer the caller
// computes at version if key was seen before within the last RingSize
// lookups. The caller reads version at the same moment as the store the
// answer is computed from (under the same lock): an answer is served only
// at the version it was computed at.
func (c *Cache) Lookup(version uint64, key string) (*Answer, Ticket) {
	if c == nil {
		return nil, Ticket{}
	}
	h := maphash.String(c.seed, key) | 1 // never 0, the ring's empty slot
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(version)
	if version != c.version {
		return nil, Ticket{} // an older store than answers were kept for
	}
	if e := c.entries[key]; e != nil {
		c.unlink(e)
		c.pushFront(e)
		c.hits++
		return &e.answer, Ticket{}
	}
	seen := slices.Contains(c.ring[:], h)
	c.ring[c.next] = h
	c.next = (c.next + 1) % RingSize
	if !seen {
		return nil, Ticket{}
	}
	return nil, Ticket{c: c, version: version, key: key}
}

// Keep stores a copy of a when the lookup that gave t admitted its key,
// unless the store has changed since (the cache has moved to a newer
// version) or a is too large; otherwise it does nothing.
func (t Ticket) Keep(a Answer) {
	c := t.c
	if c == nil {
		return
	}
	a.Body = slices.Clone(a.Body) // the caller's buffer may be reused
	size := a.size()
	if size > c.maxBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(t.version)
	if t.version != c.version {
		return // computed from a store that has changed since
	}
	if old := c.entries[t.key]; old != nil {
		c.remove(old) // kept by a concurrent request meanwhile
	}
	e := &entry{key: t.key, answer: a, size: size}
	c.entries[t.key] = e
	c.pushFront(e)
	c.bytes += size
	for len(c.entries) > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.lru.prev)
	}
}

// Stats is what a cache holds and has served.
type Stats struct {
	Entries, Bytes int // the answers held and their size
	Hits           int // the lookups that found an answer, ever
}

// Stats returns c's figures now.
func (c *Cache) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Entries: len(c.entries), Bytes: c.bytes, Hits: c.hits}
}

// advance drops every answer when version is newer than the cache's.
// The caller holds c.mu.
func (c *Cache) advance(version uint64) {
	if version <= c.version {
		return
	}
	c.version = version
	clear(c.entries)
	c.lru.prev, c.lru.next = &c.lru, &c.lru
	c.bytes = 0
}

func (c *Cache) remove(e *entry) {
	c.unlink(e)
	delete(c.entries, e.key)
	c.bytes -= e.size
}

func (c *Cache) unlink(e *entry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (c *Cache) pushFront(e *entry) {
	e.prev, e.next = &c.lru, c.lru.next
	c.lru.next.prev = e
	c.lru.next = e
}

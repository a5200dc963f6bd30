package scale

import "sync"

// A key index remembers, for the last few filters it answered, which of
// its entries they matched. A client pages through a filtered list with
// the same filter page after page; the first page tests the filter on
// every invoice of the key range, to count the matches for X-Count, and
// each later page is then the page alone: a slice of the matches. The
// memory goes with the index, which a change to any invoice drops.

// maxCachedFilters bounds the filters an index remembers; past it, it
// forgets them all. A match set takes 4 bytes a match.
const maxCachedFilters = 8

// matchCache maps a filter's text to its matches: positions in the
// index's entries, ascending.
type matchCache struct {
	mu   sync.Mutex
	sets map[string][]int32
}

func (c *matchCache) get(filter string) ([]int32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.sets[filter]
	return m, ok
}

// put remembers the matches of filter, which are not to be modified.
func (c *matchCache) put(filter string, m []int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sets == nil || len(c.sets) >= maxCachedFilters {
		c.sets = make(map[string][]int32, maxCachedFilters)
	}
	c.sets[filter] = m
}

package pagecache

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func answer(body string) Answer {
	return Answer{Header: http.Header{"X-Count": {"3"}, "X-SortOrder": {"Ascending"}}, Body: []byte(body)}
}

// step is one call on a cache: a lookup of key at version, kept with
// body when the lookup gives a ticket (keep != ""), and what it must
// give.
type step struct {
	version uint64
	key     string
	keep    string // the body to keep on a miss; "" keeps nothing
	hit     string // the body the lookup must find; "" a miss
	admit   bool   // on a miss, whether the ticket keeps
}

func TestCacheLookupAndKeep(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		steps []step
		// entries the cache holds at the end.
		entries int
	}{
		{"first sight is not kept", []step{
			{version: 1, key: "a", keep: "A"},
			{version: 1, key: "b", keep: "B"},
		}, 0},
		{"second sight is kept, third served", []step{
			{version: 1, key: "a", keep: "A"},
			{version: 1, key: "a", keep: "A", admit: true},
			{version: 1, key: "a", hit: "A"},
			{version: 1, key: "a", hit: "A"},
		}, 1},
		{"a sweep keeps nothing", func() []step {
			var s []step
			for i := range 3 * RingSize {
				s = append(s, step{version: 1, key: fmt.Sprint("page", i), keep: "P"})
			}
			return s
		}(), 0},
		{"a sweep run again and again keeps nothing", func() []step {
			var s []step
			for range 3 {
				for i := range RingSize + 1 {
					s = append(s, step{version: 1, key: fmt.Sprint("page", i), keep: "P"})
				}
			}
			return s
		}(), 0},
		{"a cycle within the ring is kept, then served", func() []step {
			var s []step
			for round := range 3 {
				for i := range RingSize {
					key := fmt.Sprint("page", i)
					switch round {
					case 0:
						s = append(s, step{version: 1, key: key, keep: key})
					case 1:
						s = append(s, step{version: 1, key: key, keep: key, admit: true})
					default:
						s = append(s, step{version: 1, key: key, hit: key})
					}
				}
			}
			return s
		}(), RingSize},
		{"a key out of the ring is first seen again", func() []step {
			s := []step{{version: 1, key: "a", keep: "A"}}
			for i := range RingSize {
				s = append(s, step{version: 1, key: fmt.Sprint("other", i), keep: "O"})
			}
			return append(s, step{version: 1, key: "a", keep: "A"})
		}(), 0},
		{"a key still in the ring is admitted", func() []step {
			s := []step{{version: 1, key: "a", keep: "A"}}
			for i := range RingSize - 1 {
				s = append(s, step{version: 1, key: fmt.Sprint("other", i), keep: "O"})
			}
			return append(s, step{version: 1, key: "a", keep: "A", admit: true}, step{version: 1, key: "a", hit: "A"})
		}(), 1},
		{"a newer version drops every answer", []step{
			{version: 1, key: "a", keep: "A1"},
			{version: 1, key: "a", keep: "A1", admit: true},
			{version: 1, key: "b", keep: "B1"},
			{version: 1, key: "b", keep: "B1", admit: true},
			{version: 2, key: "a", keep: "A2", admit: true}, // seen before: the ring outlives versions
			{version: 2, key: "a", hit: "A2"},
			{version: 2, key: "b", keep: "B2", admit: true},
		}, 2},
		{"an older version is never served nor kept", []step{
			{version: 5, key: "a", keep: "A5"},
			{version: 5, key: "a", keep: "A5", admit: true},
			{version: 4, key: "a", keep: "A4"},
			{version: 5, key: "a", hit: "A5"},
		}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cache := New(48, 1<<20)
			for i, s := range c.steps {
				got, ticket := cache.Lookup(s.version, s.key)
				if s.hit != "" {
					if got == nil || string(got.Body) != s.hit {
						t.Fatalf("step %d: Lookup(%d, %q) = %v; want %q", i, s.version, s.key, got, s.hit)
					}
					if want := answer(s.hit); !reflect.DeepEqual(*got, want) {
						t.Fatalf("step %d: got %+v; want %+v", i, *got, want)
					}
					continue
				}
				if got != nil {
					t.Fatalf("step %d: Lookup(%d, %q) hit %q; want a miss", i, s.version, s.key, got.Body)
				}
				if admitted := ticket.c != nil; admitted != s.admit {
					t.Fatalf("step %d: Lookup(%d, %q) admitted %v; want %v", i, s.version, s.key, admitted, s.admit)
				}
				if s.keep != "" {
					ticket.Keep(answer(s.keep))
				}
			}
			hits := 0
			for _, s := range c.steps {
				if s.hit != "" {
					hits++
				}
			}
			if got := cache.Stats(); got.Entries != c.entries || got.Hits != hits {
				t.Errorf("%d entries, %d hits; want %d, %d", got.Entries, got.Hits, c.entries, hits)
			}
		})
	}
}

// keep looks key up twice at version and keeps body, as a page asked for
// twice is.
func keep(t *testing.T, c *Cache, version uint64, key, body string) {
	t.Helper()
	c.Lookup(version, key)
	got, ticket := c.Lookup(version, key)
	if got != nil || ticket.c == nil {
		t.Fatalf("second lookup of %q: %v, admitted %v; want a miss, admitted", key, got, ticket.c != nil)
	}
	ticket.Keep(answer(body))
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := New(3, 1<<20)
	for _, k := range []string{"a", "b", "c"} {
		keep(t, c, 1, k, k)
	}
	if got, _ := c.Lookup(1, "a"); got == nil { // a is now the most recent
		t.Fatal("a missing before any eviction")
	}
	keep(t, c, 1, "d", "d") // evicts b
	var held []string
	for _, k := range []string{"a", "b", "c", "d"} {
		if got, _ := c.Lookup(1, k); got != nil {
			held = append(held, k)
		}
	}
	if want := []string{"a", "c", "d"}; !reflect.DeepEqual(held, want) {
		t.Errorf("held %v; want %v", held, want)
	}
}

func TestCacheBytesBound(t *testing.T) {
	t.Parallel()
	const limit = 16 << 10
	c := New(100, limit)
	big := strings.Repeat("x", limit/4+1)
	keep(t, c, 1, "big", big)
	if n := c.Stats().Entries; n != 0 {
		t.Fatalf("an answer over a quarter of the bound was kept (%d entries)", n)
	}
	body := strings.Repeat("y", limit/5)
	for i := range 10 {
		keep(t, c, 1, fmt.Sprint("k", i), body)
		if bytes := c.Stats().Bytes; bytes > limit {
			t.Fatalf("after %d answers the cache holds %d bytes; bound %d", i+1, bytes, limit)
		}
	}
	n, bytes := c.Stats().Entries, c.Stats().Bytes
	one := answer(body)
	if want := limit / one.size(); n != want || bytes != n*one.size() {
		t.Errorf("%d entries of %d bytes; want %d of %d", n, bytes, want, want*one.size())
	}
	// The most recent ones are kept.
	if got, _ := c.Lookup(1, "k9"); got == nil {
		t.Error("the last answer kept is missing")
	}
}

// A kept answer is the cache's own: neither the caller's buffer nor a
// response's headers reach it.
func TestCacheKeepsCopies(t *testing.T) {
	t.Parallel()
	c := New(4, 1<<20)
	c.Lookup(1, "a")
	_, ticket := c.Lookup(1, "a")
	buf := []byte("[1,2]")
	ticket.Keep(Answer{Header: http.Header{"X-Count": {"2"}}, Body: buf})
	copy(buf, "XXXXX")
	got, _ := c.Lookup(1, "a")
	h := http.Header{"Date": {"today"}}
	got.SetHeaders(h)
	if want := (http.Header{"Date": {"today"}, "X-Count": {"2"}}); !reflect.DeepEqual(h, want) {
		t.Errorf("SetHeaders gave %v; want %v", h, want)
	}
	h["X-Count"][0] = "changed"
	h["X-Count"] = append(h["X-Count"], "more")
	again, _ := c.Lookup(1, "a")
	if want := (Answer{Header: http.Header{"X-Count": {"2"}}, Body: []byte("[1,2]")}); !reflect.DeepEqual(*again, want) {
		t.Errorf("cached answer became %+v; want %+v", *again, want)
	}
}

func TestNilCacheKeepsNothing(t *testing.T) {
	t.Parallel()
	var c *Cache
	for range 3 {
		got, ticket := c.Lookup(1, "a")
		if got != nil {
			t.Fatal("a nil cache hit")
		}
		ticket.Keep(answer("A"))
	}
	if got := c.Stats(); got != (Stats{}) {
		t.Errorf("Stats = %+v; want none", got)
	}
}

func TestKeyDistinguishesEveryPart(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 6, 1, 12, 0, 0, 5, time.UTC)
	keys := map[string]string{}
	for name, k := range map[string]string{
		"base":        Key("GET /v1/Invoices", 0, "pageNumber=1", time.Time{}),
		"route":       Key("GET /v1/customers/{customerId}/invoiceSummaries", 0, "pageNumber=1", time.Time{}),
		"parent":      Key("GET /v1/Invoices", 7, "pageNumber=1", time.Time{}),
		"query":       Key("GET /v1/Invoices", 0, "pageNumber=2", time.Time{}),
		"clock":       Key("GET /v1/Invoices", 0, "pageNumber=1", at),
		"clock+1ns":   Key("GET /v1/Invoices", 0, "pageNumber=1", at.Add(1)),
		"clock+1s":    Key("GET /v1/Invoices", 0, "pageNumber=1", at.Add(time.Second)),
		"parent 1":    Key("GET /v1/Invoices", 1, "1", time.Time{}),
		"parent 11":   Key("GET /v1/Invoices", 11, "", time.Time{}),
		"empty query": Key("GET /v1/Invoices", 0, "", time.Time{}),
	} {
		if other, dup := keys[k]; dup {
			t.Errorf("%s and %s have the same key %q", name, other, k)
		}
		keys[k] = name
	}
}

func TestRWMutexVersionCountsWriteLocks(t *testing.T) {
	t.Parallel()
	var m RWMutex
	var got []uint64
	m.RLock()
	got = append(got, m.Version())
	m.RUnlock()
	m.Lock()
	got = append(got, m.Version())
	m.Unlock()
	m.RLock()
	got = append(got, m.Version())
	m.RUnlock()
	m.Lock()
	got = append(got, m.Version())
	m.Unlock()
	if want := []uint64{0, 1, 1, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("versions %v; want %v", got, want)
	}
}

// Lookups and keeps from many goroutines at advancing versions: a hit
// is always the answer computed for its version, however the calls
// interleave. One key, so that hits cannot depend on the interleaving:
// after its first lookup the key is always admitted, 41 versions share
// 8,000 lookups, so some goroutine looks up twice in one version, and
// its keep between the two stores an answer (no lock came between
// them, or its second lookup would have read the newer version) that
// the second one hits.
func TestCacheConcurrentVersions(t *testing.T) {
	t.Parallel()
	c := New(8, 1<<20)
	var m RWMutex
	changes := 0
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 2000 {
				if g == 0 && i%50 == 0 {
					m.Lock()
					changes++ // what the lock guards: a change
					m.Unlock()
				}
				const key = "k"
				m.RLock()
				v := m.Version()
				got, ticket := c.Lookup(v, key)
				m.RUnlock()
				want := fmt.Sprint(key, "@", v)
				if got != nil && string(got.Body) != want {
					t.Errorf("Lookup(%d, %q) = %q; want %q", v, key, got.Body, want)
					return
				}
				ticket.Keep(answer(want))
			}
		}()
	}
	for range 4 {
		<-done
	}
	if c.Stats().Hits == 0 || changes != 40 {
		t.Errorf("%d hits, %d changes; want some, 40", c.Stats().Hits, changes)
	}
}

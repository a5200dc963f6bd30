package pager

import "time"

// Cursor is the position of a stable iteration (the SDK's billing.Cursor
// holds one, and gives it its text form): State, and the positions of the
// page being yielded, item by item.
type Cursor struct {
	State State
	// pending are the positions of the page being yielded, item by item;
	// the first upto of them count, the first applied are in State already.
	pending       []mark
	upto, applied int
}

// State is what a cursor's text carries.
//
// The position is a frontier, second Sec: every item whose key stays the
// same for the whole run and lies in a second before Sec has been
// delivered (a cursor of an earlier format may carry Nanos, a frontier
// inside Sec: items before that instant were delivered too). The items
// delivered inside Sec are listed with their keys, so that none comes
// twice at the same key, and an item whose key moved comes again at its
// new key.
type State struct {
	// Path and Fingerprint bind the cursor to one endpoint and filter;
	// both are empty until the iteration starts.
	Path        string `json:"p,omitempty"`
	Fingerprint string `json:"f,omitempty"`
	// Key is the filter name paged on, e.g. postedTimestamp.
	Key string `json:"k,omitempty"`
	// Started reports whether the frontier means anything: false before
	// the first item.
	Started bool `json:"s,omitempty"`
	// Sec is the second of the frontier (Unix seconds).
	Sec int64 `json:"t,omitempty"`
	// Nanos is the frontier's fraction of Sec, in nanoseconds: 0, but in
	// a cursor of an earlier format.
	Nanos int64 `json:"ns,omitempty"`
	// IDs are the ids delivered at keys from the frontier on, inside Sec,
	// in delivery order; an id whose key changed inside Sec is listed once
	// per key.
	IDs []int64 `json:"i,omitempty"`
	// Keys are the keys of IDs, one each: nanoseconds into Sec in memory
	// (the text form counts them past the frontier); AnyKey stands for any
	// instant of Sec.
	Keys []int64 `json:"d,omitempty"`
	// Pos was a position hint of an earlier format: read, and no longer
	// used.
	Pos int `json:"n,omitempty"`
}

// AnyKey is the key of an id delivered at an unknown instant of Sec (a
// cursor written before keys were kept).
const AnyKey = -1

// keyAt is a key at full precision: Unix second and nanoseconds into it.
type keyAt struct{ sec, ns int64 }

func keyOfTime(t time.Time) keyAt { return keyAt{t.Unix(), int64(t.Nanosecond())} }

func (a keyAt) less(b keyAt) bool { return a.sec < b.sec || a.sec == b.sec && a.ns < b.ns }

// mark is where the cursor stands after one item: the item's id and key,
// and the frontier after it.
type mark struct {
	id       int64
	key      keyAt
	frontier keyAt
}

// Reached says the consumer is past the first n items of the page being
// yielded (before it sees item n-1, so that a cursor saved while handling
// an item resumes after it).
func (c *Cursor) Reached(n int) { c.upto = n }

// Settle folds the positions that count into State.
func (c *Cursor) Settle() {
	for ; c.applied < c.upto && c.applied < len(c.pending); c.applied++ {
		m := c.pending[c.applied]
		c.State.advance(m.frontier)
		c.State.record(m.id, m.key)
		c.State.Pos = 0
	}
}

// endPage ends the page being yielded, whose positions pending holds (all
// of them counting until the consumer says otherwise): it folds the
// positions reached into State, all of them when the
// consumer took the whole page, and forgets the page.
func (c *Cursor) endPage(whole bool) {
	if whole {
		c.upto = len(c.pending)
	}
	c.Settle()
	c.pending, c.upto, c.applied = nil, 0, 0
}

// frontier is the key before which everything has been delivered.
func (s *State) frontier() keyAt { return keyAt{s.Sec, s.Nanos} }

// advance moves the frontier forward to f (never back), forgetting the
// ids delivered before it.
func (s *State) advance(f keyAt) {
	if s.Started && !s.frontier().less(f) {
		return
	}
	if !s.Started || f.sec != s.Sec {
		s.Started, s.Sec, s.Nanos, s.IDs, s.Keys = true, f.sec, f.ns, s.IDs[:0], s.Keys[:0]
		return
	}
	s.Nanos = f.ns
	kept := 0
	for i, id := range s.IDs {
		if k := s.Keys[i]; k == AnyKey || k >= f.ns {
			s.IDs[kept], s.Keys[kept] = id, k
			kept++
		}
	}
	s.IDs, s.Keys = s.IDs[:kept], s.Keys[:kept]
}

// record notes that id was delivered at key k, unless k is before the
// frontier (and so needs no note). An id delivered again at another key
// (its key changed) is noted once per key, so that it comes at most once
// at each; the caller never records the same id and key twice.
func (s *State) record(id int64, k keyAt) {
	if !s.Started || k.sec != s.Sec || k.ns < s.Nanos {
		return
	}
	s.IDs = append(s.IDs, id)
	s.Keys = append(s.Keys, k.ns)
}

// idKey is an id delivered at a key: second and nanoseconds into it
// (AnyKey: at an instant of that second the cursor does not know).
type idKey struct{ id, sec, ns int64 }

// delivered returns the ids delivered at keys from the frontier on, with
// their keys, as a set the caller may add to.
func (s *State) delivered() map[idKey]struct{} {
	m := make(map[idKey]struct{}, len(s.IDs)+8)
	for i, id := range s.IDs {
		m[idKey{id, s.Sec, s.Keys[i]}] = struct{}{}
	}
	return m
}

package billing

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/billingapi/billing-go/internal/jsonwire"
)

// Cursor is the position of a [Stable] iteration: how far it got, on which
// endpoint, with which filter and key field. The zero Cursor starts at the
// beginning; an iteration moves it forward, and a Cursor saved with
// MarshalText and restored with UnmarshalText resumes there, in another
// process if need be.
//
// Before each item is yielded the cursor already points just past it, so
// that a job which saves the cursor after handling an item (or a batch)
// resumes with the next one, without loss or repetition. A Pages loop sees
// the cursor past the whole page it is given.
//
// What it holds: the endpoint path, a fingerprint of the filter, the key
// field, the frontier (the key, at full precision, before which every
// item has been delivered), a position hint, and the ids delivered at or
// after the frontier with their keys, so that an item is neither yielded
// twice nor held back after its key changed. Its text is about 200 bytes
// plus 9 to 14 per such id: those share the key of the last item
// delivered, except inside a group of items with one key larger than a
// page, where they are the items of that second delivered so far (up to
// the size of the second: about 23 KB of text for 2,500 ids of 4 digits
// at one instant). A
// cursor written by an earlier version of the SDK, which kept ids without
// their keys, is read as such and resumes correctly.
//
// A Cursor belongs to one iteration at a time. Read or save it in the loop
// body, on the goroutine running the loop; it is not safe for concurrent
// use while an iteration runs.
type Cursor struct {
	st cursorState
	// pending are the positions of the page being yielded, item by item;
	// the first upto of them count, the first applied are in st already.
	pending       []cursorMark
	upto, applied int
}

// cursorState is what a cursor's text carries.
//
// The position is a frontier, a key at full precision (Sec and Nanos):
// every item whose key stays the same for the whole run and is before the
// frontier has been delivered. The items delivered at or after it, all of
// them inside second Sec (in practice those that share the frontier's
// key), are listed with their keys, so that they are not delivered again
// unless their key changes, and so that an item whose key moved is never
// taken for one that did not.
type cursorState struct {
	// Path and Fingerprint bind the cursor to one endpoint and filter;
	// both are empty until the first request.
	Path        string `json:"p,omitempty"`
	Fingerprint string `json:"f,omitempty"`
	// Key is the filter name paged on, e.g. postedTimestamp.
	Key string `json:"k,omitempty"`
	// Started reports whether the frontier means anything: false before
	// the first item.
	Started bool `json:"s,omitempty"`
	// Sec is the second of the frontier (Unix seconds).
	Sec int64 `json:"t,omitempty"`
	// Nanos is the frontier's fraction of Sec, in nanoseconds.
	Nanos int64 `json:"ns,omitempty"`
	// IDs are the ids delivered at keys from the frontier on, inside Sec,
	// in delivery order.
	IDs []int64 `json:"i,omitempty"`
	// Keys are the keys of IDs, one each: nanoseconds into Sec in memory,
	// past the frontier in the text; anyKey stands for any instant of Sec.
	// A cursor written before keys were kept has no Keys: its ids were
	// delivered at some instant of Sec, and read as anyKey.
	Keys []int64 `json:"d,omitempty"`
	// Pos is how many items of Sec, in the server's order, precede the
	// next one as last seen: where paging by number inside the second
	// goes on. A hint only: the iterator proves what it reads by keys.
	Pos int `json:"n,omitempty"`
}

// anyKey is the key of an id delivered at an unknown instant of Sec.
const anyKey = -1

// keyAt is a key at full precision: Unix second and nanoseconds into it.
type keyAt struct{ sec, ns int64 }

func keyOfTime(t time.Time) keyAt { return keyAt{t.Unix(), int64(t.Nanosecond())} }

func (a keyAt) less(b keyAt) bool { return a.sec < b.sec || a.sec == b.sec && a.ns < b.ns }

// cursorMark is where the cursor stands after one item: the item's id and
// key, the frontier after it, and the position hint.
type cursorMark struct {
	id       int64
	key      keyAt
	frontier keyAt
	pos      int
}

// cursorPrefix marks the version of the text form; a later format gets a
// new prefix, and the decoder keeps reading this one.
const cursorPrefix = "bc1."

// maxCursorIDs bounds the ids a decoded cursor may hold, so that a hostile
// or corrupted text cannot make the iterator build a huge set.
const maxCursorIDs = 1 << 20

const nanosPerSec = int64(time.Second)

// fingerprintLen is the length of the filter fingerprint, hex digits.
const fingerprintLen = 32

// settle folds the pending positions that count into st.
func (c *Cursor) settle() {
	for ; c.applied < c.upto && c.applied < len(c.pending); c.applied++ {
		c.st.apply(c.pending[c.applied])
	}
}

// finishPage folds in every position of the page and forgets the page.
func (c *Cursor) finishPage() {
	c.upto = len(c.pending)
	c.settle()
	c.pending, c.upto, c.applied = nil, 0, 0
}

// apply moves the state past one item.
func (s *cursorState) apply(m cursorMark) {
	s.advance(m.frontier)
	s.record(m.id, m.key)
	s.Pos = m.pos
}

// frontier is the key before which everything has been delivered.
func (s *cursorState) frontier() keyAt { return keyAt{s.Sec, s.Nanos} }

// advance moves the frontier forward to f (never back), forgetting the
// ids delivered before it.
func (s *cursorState) advance(f keyAt) {
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
		if k := s.Keys[i]; k == anyKey || k >= f.ns {
			s.IDs[kept], s.Keys[kept] = id, k
			kept++
		}
	}
	s.IDs, s.Keys = s.IDs[:kept], s.Keys[:kept]
}

// record notes that id was delivered at key k, unless k is before the
// frontier (and so needs no note); a later delivery of the same id, after
// a change of its key, replaces the earlier one.
func (s *cursorState) record(id int64, k keyAt) {
	if !s.Started || k.sec != s.Sec || k.ns < s.Nanos {
		return
	}
	for i, have := range s.IDs {
		if have == id {
			s.Keys[i] = k.ns
			return
		}
	}
	s.IDs = append(s.IDs, id)
	s.Keys = append(s.Keys, k.ns)
}

// clone is a copy that shares no slice with s.
func (s cursorState) clone() cursorState {
	s.IDs = append([]int64(nil), s.IDs...)
	s.Keys = append([]int64(nil), s.Keys...)
	return s
}

// MarshalText encodes the cursor as short printable text: a version prefix
// and base64url of JSON. The text is opaque; it carries the endpoint path,
// a fingerprint of the filter and parameters, the key field, the frontier
// (a key at full precision, before which everything was delivered), a
// position hint, and the ids delivered at or after the frontier with
// their keys. Those are the items that share the key of the last item
// delivered, or (while a group of items sharing one key is larger than a
// page) the items of that second delivered so far: the text grows by 9
// to 14 bytes per such id (with the digits of the ids and keys), and is
// about 200 bytes when keys differ.
func (c *Cursor) MarshalText() ([]byte, error) {
	c.settle()
	st := c.st
	st.Keys = make([]int64, len(c.st.Keys))
	for i, k := range c.st.Keys {
		if k != anyKey {
			k -= st.Nanos
		}
		st.Keys[i] = k
	}
	b, err := jsonwire.Marshal(&st)
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(cursorPrefix)+base64.RawURLEncoding.EncodedLen(len(b)))
	copy(out, cursorPrefix)
	base64.RawURLEncoding.Encode(out[len(cursorPrefix):], b)
	return out, nil
}

// String returns the text form, or "" if it cannot be made.
func (c *Cursor) String() string {
	b, err := c.MarshalText()
	if err != nil {
		return ""
	}
	return string(b)
}

// UnmarshalText restores a cursor from MarshalText's output. Text that is
// malformed, of an unknown version or inconsistent is an error (wrapping
// no value from the text), and leaves c unchanged.
func (c *Cursor) UnmarshalText(text []byte) error {
	st, err := decodeCursor(text)
	if err != nil {
		return &ValidationError{Field: "Cursor", Reason: err.Error()}
	}
	*c = Cursor{st: st}
	return nil
}

func decodeCursor(text []byte) (cursorState, error) {
	var st cursorState
	rest, ok := bytes.CutPrefix(text, []byte(cursorPrefix))
	if !ok {
		return st, fmt.Errorf("not a cursor of this SDK version (want prefix %q)", cursorPrefix)
	}
	raw := make([]byte, base64.RawURLEncoding.DecodedLen(len(rest)))
	n, err := base64.RawURLEncoding.Decode(raw, rest)
	if err != nil {
		return st, fmt.Errorf("malformed cursor: bad base64")
	}
	if err := jsonwire.UnmarshalStrict(raw[:n], &st); err != nil {
		return st, fmt.Errorf("malformed cursor: bad JSON")
	}
	if err := st.check(); err != nil {
		return st, err
	}
	if len(st.Keys) == 0 && len(st.IDs) > 0 {
		// Written before keys were kept: delivered somewhere in Sec.
		st.Keys = make([]int64, len(st.IDs))
		for i := range st.Keys {
			st.Keys[i] = anyKey
		}
		return st, nil
	}
	for i, d := range st.Keys {
		if d != anyKey {
			st.Keys[i] = st.Nanos + d
		}
	}
	return st, nil
}

// check rejects a state no iteration can have produced.
func (s *cursorState) check() error {
	switch {
	case (s.Path == "") != (s.Fingerprint == ""):
		return fmt.Errorf("inconsistent cursor: path and fingerprint go together")
	case s.Path != "" && (!strings.HasPrefix(s.Path, "/") || strings.ContainsAny(s.Path, "?#\x00 ")):
		return fmt.Errorf("inconsistent cursor: bad path")
	case s.Fingerprint != "" && (len(s.Fingerprint) != fingerprintLen || strings.Trim(s.Fingerprint, "0123456789abcdef") != ""):
		return fmt.Errorf("inconsistent cursor: bad fingerprint")
	case s.Key != "" && !validFilterName(s.Key):
		return fmt.Errorf("inconsistent cursor: bad key field")
	case s.Started && (s.Key == "" || s.Path == ""):
		return fmt.Errorf("inconsistent cursor: position without endpoint or key")
	case !s.Started && (s.Sec != 0 || s.Nanos != 0 || len(s.IDs) != 0 || s.Pos != 0):
		return fmt.Errorf("inconsistent cursor: position without a start")
	case s.Nanos < 0 || s.Nanos >= nanosPerSec:
		return fmt.Errorf("inconsistent cursor: bad fraction of a second")
	case len(s.Keys) != 0 && len(s.Keys) != len(s.IDs):
		return fmt.Errorf("inconsistent cursor: ids and keys do not pair")
	case s.Sec < minKeySec || s.Sec > maxKeySec:
		return fmt.Errorf("inconsistent cursor: key second out of range")
	case len(s.IDs) > maxCursorIDs:
		return fmt.Errorf("inconsistent cursor: too many ids")
	case s.Pos < 0 || s.Pos > maxCursorIDs*4:
		return fmt.Errorf("inconsistent cursor: bad position")
	}
	for _, id := range s.IDs {
		if id <= 0 {
			return fmt.Errorf("inconsistent cursor: bad id")
		}
	}
	for _, d := range s.Keys {
		if d != anyKey && (d < 0 || d >= nanosPerSec-s.Nanos) {
			return fmt.Errorf("inconsistent cursor: bad key")
		}
	}
	sorted := slices.Clone(s.IDs)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(s.IDs) {
		return fmt.Errorf("inconsistent cursor: repeated id")
	}
	return nil
}

// validFilterName is the filter-name syntax of package query.
func validFilterName(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" || !(part[0] >= 'A' && part[0] <= 'Z' || part[0] >= 'a' && part[0] <= 'z') {
			return false
		}
		for j := 1; j < len(part); j++ {
			ch := part[j]
			if !(ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '_') {
				return false
			}
		}
	}
	return true
}

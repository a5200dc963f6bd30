package billing

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/billingapi/billing-go/internal/pager"
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
// field, the frontier (the second before which every item has been
// delivered), and the ids delivered inside that second with their keys,
// so that an item is neither yielded twice at one key nor held back after
// its key changed. Its text is about 200 bytes plus 9 to 14 per such id:
// the items of the last second delivered, which is few when keys are
// spread, and up to all of a second that holds more than a page while it
// is read (about 23 KB of text for 2,500 ids of 4 digits). A cursor
// written by an earlier version of the SDK, which kept ids without their
// keys or a frontier inside a second, is read as such and resumes
// correctly.
//
// After an error, a cancel or a break, the cursor points just past the
// last item the loop received: the items of a page already read but not
// yet yielded are not counted as delivered, so a run resumed from it
// continues with the next item. An error the loop received does not spoil
// the cursor; save it and resume once the cause is gone.
//
// A Cursor belongs to one iteration at a time. Read or save it in the loop
// body, on the goroutine running the loop; it is not safe for concurrent
// use while an iteration runs.
type Cursor struct {
	c pager.Cursor
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

// MarshalText encodes the cursor as short printable text: a version prefix
// and base64url of JSON. The text is opaque; it carries the endpoint path,
// a fingerprint of the filter and parameters, the key field, the frontier
// second, and the ids delivered inside it with their keys: it grows by 9
// to 14 bytes per such id (with the digits of the ids and keys), and is
// about 200 bytes when keys are spread.
func (c *Cursor) MarshalText() ([]byte, error) {
	c.c.Settle()
	st := c.c.State
	st.Keys = make([]int64, len(c.c.State.Keys))
	for i, k := range c.c.State.Keys {
		if k != pager.AnyKey {
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
	*c = Cursor{c: pager.Cursor{State: st}}
	return nil
}

func decodeCursor(text []byte) (pager.State, error) {
	var st pager.State
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
	if err := checkCursor(&st); err != nil {
		return st, err
	}
	if len(st.Keys) == 0 && len(st.IDs) > 0 {
		// Written before keys were kept: delivered somewhere in Sec.
		st.Keys = make([]int64, len(st.IDs))
		for i := range st.Keys {
			st.Keys[i] = pager.AnyKey
		}
		return st, nil
	}
	for i, d := range st.Keys {
		if d != pager.AnyKey {
			st.Keys[i] = st.Nanos + d
		}
	}
	return st, nil
}

// check rejects a state no iteration can have produced.
func checkCursor(s *pager.State) error {
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
		if d != pager.AnyKey && (d < 0 || d >= nanosPerSec-s.Nanos) {
			return fmt.Errorf("inconsistent cursor: bad key")
		}
	}
	type idKey struct{ id, key int64 }
	pairs := make(map[idKey]struct{}, len(s.IDs))
	for i, id := range s.IDs {
		k := int64(pager.AnyKey)
		if len(s.Keys) > 0 {
			k = s.Keys[i]
		}
		if _, ok := pairs[idKey{id, k}]; ok {
			return fmt.Errorf("inconsistent cursor: an id repeated at the same key")
		}
		pairs[idKey{id, k}] = struct{}{}
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

package billing

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

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
type cursorState struct {
	// Path and Fingerprint bind the cursor to one endpoint and filter;
	// both are empty until the first request.
	Path        string `json:"p,omitempty"`
	Fingerprint string `json:"f,omitempty"`
	// Key is the filter name paged on, e.g. postedTimestamp.
	Key string `json:"k,omitempty"`
	// Started reports whether Sec means anything: false before the first
	// item.
	Started bool `json:"s,omitempty"`
	// Sec is the boundary second (Unix seconds) of the key.
	Sec int64 `json:"t,omitempty"`
	// IDs are the ids delivered at Sec, in delivery order.
	IDs []int64 `json:"i,omitempty"`
	// Pos is how many items at Sec, in the server's order, precede the
	// next one as last seen: where paging by number inside the second
	// goes on. A hint only: the iterator checks it (see stable.go).
	Pos int `json:"n,omitempty"`
}

// cursorMark is where the cursor stands after one item.
type cursorMark struct {
	sec, id int64
	pos     int
}

// cursorPrefix marks the version of the text form; a later format gets a
// new prefix, and the decoder keeps reading this one.
const cursorPrefix = "bc1."

// maxCursorIDs bounds the ids a decoded cursor may hold, so that a hostile
// or corrupted text cannot make the iterator build a huge set.
const maxCursorIDs = 1 << 20

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
	if !s.Started || m.sec > s.Sec {
		s.Started, s.Sec, s.IDs = true, m.sec, []int64{m.id}
	} else {
		s.IDs = append(s.IDs, m.id)
	}
	s.Pos = m.pos
}

// MarshalText encodes the cursor as short printable text: a version prefix
// and base64url of JSON. The text is opaque; it carries the endpoint path,
// a fingerprint of the filter and parameters, the key field, the last key
// second and the ids delivered in that second.
func (c *Cursor) MarshalText() ([]byte, error) {
	c.settle()
	b, err := jsonwire.Marshal(&c.st)
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
	return st, st.check()
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
	case !s.Started && (s.Sec != 0 || len(s.IDs) != 0 || s.Pos != 0):
		return fmt.Errorf("inconsistent cursor: position without a start")
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

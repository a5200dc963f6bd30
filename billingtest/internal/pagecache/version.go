package pagecache

import (
	"strconv"
	"sync"
	"time"
)

// RWMutex is a sync.RWMutex that counts its write locks, for the lock
// that guards what lists show: every change takes it to write, so
// Version, read under either lock, differs between any two states that
// can differ. Counting the locks rather than the changes means no change
// path can forget to count itself; a write lock that changes nothing
// only costs the cache its answers.
type RWMutex struct {
	sync.RWMutex
	version uint64
}

// Lock locks m for writing and starts a new version.
func (m *RWMutex) Lock() {
	m.RWMutex.Lock()
	m.version++
}

// Version is the number of write locks taken so far. The caller holds m,
// to read or to write.
func (m *RWMutex) Version() uint64 { return m.version }

// Key is the cache key of a list answer: its route, the id of its parent
// entity (0: none), its query string as sent, and the reading of the
// clock for a route whose answer reads it (the zero time otherwise). Two
// spellings of one request are two keys: a miss, never a wrong answer.
func Key(route string, parent int64, query string, clock time.Time) string {
	b := make([]byte, 0, len(route)+len(query)+48)
	b = append(b, route...)
	b = append(b, 0)
	b = strconv.AppendInt(b, parent, 10)
	b = append(b, 0)
	if !clock.IsZero() {
		b = strconv.AppendInt(b, clock.Unix(), 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(clock.Nanosecond()), 10)
	}
	b = append(b, 0)
	b = append(b, query...)
	return string(b)
}

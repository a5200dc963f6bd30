// Package churn makes the fake a busy account: rounds of inserts,
// deletes, re-keys and modifies of a list's rows before the list answers,
// drawn from a seeded source so that a seed and the requests give the same
// changes every run. billingtest's Churn and WithChurn document them.
package churn

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/shopspring/decimal"
)

// Settings are billingtest.Churn's, field for field, so that one converts
// to the other; Every is at least 1.
type Settings struct {
	Seed                                      int64
	Every, Inserts, Deletes, Rekeys, Modifies int
	KeepCount, Aim                            bool
}

// Kind is the kind of a change, spelled as billingtest.ChurnKind's.
type Kind string

// The kinds of change.
const (
	Insert Kind = "insert"
	Delete Kind = "delete"
	Rekey  Kind = "rekey"
	Modify Kind = "modify"
)

// Change is one change, as billingtest.ChurnChange reports it.
type Change struct {
	Request        int
	Route          string
	Kind           Kind
	ID             int64
	Field          string
	OldKey, NewKey time.Time
}

// Row is a row of a scope with its key.
type Row struct {
	ID  int64
	Key time.Time
}

// Scope is the rows one list reads, as churn reads and writes them. Its
// methods are called under the lock that guards the rows, held for
// writing.
type Scope interface {
	// KeyField is the date field churn keys rows by: sorted, the
	// request's sort field ("" for none), when churn can set it, else
	// the scope's default.
	KeyField(sorted string) string
	// Rows are the scope's rows in ascending id order.
	Rows(field string) []Row
	// Insert adds a look-alike of row like (0: a plain row) keyed at key,
	// and reports the row added.
	Insert(field string, like int64, key time.Time, rng *rand.Rand, now time.Time) (Row, bool)
	Delete(id int64) bool
	// SetKey and Modify change a row and return its key afterwards.
	SetKey(field string, id int64, key, now time.Time) (time.Time, bool)
	Modify(field string, id int64, rng *rand.Rand, now time.Time) (time.Time, bool)
}

// State is a fake's churn: its settings, its random source and what it
// did. The caller guards it with the lock its scopes need.
type State struct {
	set      Settings
	rng      *rand.Rand
	requests int // list requests seen
	log      []Change
}

// New starts a churn of s.
func New(s Settings) *State {
	return &State{set: s, rng: rand.New(rand.NewPCG(uint64(s.Seed), 0))}
}

// Log is the changes made so far, in the order made; the caller must not
// change it.
func (st *State) Log() []Change { return st.log }

// Before counts a list request of route sorted on sorted ("" for the
// default order) whose filter admits aim on that field (nil: any key),
// and makes a round of changes to the scope scope returns when one is
// due, at the time now returns (both asked only then).
func (st *State) Before(route, sorted string, aim *filter.TimeRange, scope func() Scope, now func() time.Time) {
	st.requests++
	if st.requests%st.set.Every != 0 {
		return
	}
	sc := scope()
	field := sc.KeyField(sorted)
	r := &round{State: st, scope: sc, field: field, rows: sc.Rows(field), now: now(),
		base: Change{Request: st.requests, Route: route, Field: field}}
	if st.set.Aim && field == sorted {
		r.aim = aim
	}
	r.run()
}

// round is one round of changes.
type round struct {
	*State
	scope Scope
	field string
	rows  []Row             // the scope's, kept up to date with the round's changes
	aim   *filter.TimeRange // the range to aim at; nil: the whole scope
	now   time.Time
	base  Change // what every change of the round shares
}

func (r *round) run() {
	for range r.set.Deletes {
		i, ok := r.pickRow()
		if !ok {
			break
		}
		old := r.rows[i]
		if r.set.KeepCount {
			// Before the delete, so that there is a row to copy; a new
			// id is the largest, so i still points at old.
			key := r.newKey()
			if !old.Key.IsZero() {
				key = r.inSecond(old.Key)
			}
			r.insert(old.ID, key)
		}
		if r.scope.Delete(old.ID) {
			r.rows = slices.Delete(r.rows, i, i+1)
			r.record(Delete, old.ID, old.Key, time.Time{})
		}
	}
	for range r.set.Inserts {
		like := int64(0)
		if i, ok := r.pickRow(); ok {
			like = r.rows[i].ID
		}
		r.insert(like, r.newKey())
	}
	for range r.set.Rekeys {
		r.change(Rekey, func(row Row) (time.Time, bool) { return r.scope.SetKey(r.field, row.ID, r.rekeyTarget(row), r.now) })
	}
	for range r.set.Modifies {
		r.change(Modify, func(row Row) (time.Time, bool) { return r.scope.Modify(r.field, row.ID, r.rng, r.now) })
	}
}

// change picks a row and changes it in place with do, which returns its
// new key.
func (r *round) change(kind Kind, do func(Row) (time.Time, bool)) {
	i, ok := r.pickRow()
	if !ok {
		return
	}
	row := &r.rows[i]
	if key, ok := do(*row); ok {
		r.record(kind, row.ID, row.Key, key)
		row.Key = key
	}
}

func (r *round) insert(like int64, key time.Time) {
	row, ok := r.scope.Insert(r.field, like, key, r.rng, r.now)
	if !ok {
		return
	}
	i, _ := slices.BinarySearchFunc(r.rows, row.ID, func(x Row, id int64) int { return cmp.Compare(x.ID, id) })
	r.rows = slices.Insert(r.rows, i, row)
	r.record(Insert, row.ID, time.Time{}, row.Key)
}

func (r *round) record(kind Kind, id int64, oldKey, newKey time.Time) {
	c := r.base
	c.Kind, c.ID, c.OldKey, c.NewKey = kind, id, oldKey, newKey
	r.log = append(r.log, c)
}

// pickRow picks a row to change: inside the aimed range when it has rows.
func (r *round) pickRow() (int, bool) {
	if len(r.rows) == 0 {
		return 0, false
	}
	if r.aim != nil {
		var inside []int
		for i, row := range r.rows {
			if r.aim.Admits(row.Key) {
				inside = append(inside, i)
			}
		}
		if len(inside) > 0 {
			return inside[r.rng.IntN(len(inside))], true
		}
	}
	return r.rng.IntN(len(r.rows)), true
}

// rekeyTarget is a new key for row: another instant in its own second, a
// key from newKey, or a key it had before in this run.
func (r *round) rekeyTarget(row Row) time.Time {
	switch r.rng.IntN(3) {
	case 1:
		if k := r.newKey(); !k.Equal(row.Key) { // a tie with itself moves nothing
			return k
		}
	case 2:
		if k, ok := r.earlierKey(row); ok {
			return k
		}
	}
	if row.Key.IsZero() {
		return r.newKey()
	}
	return r.inSecond(row.Key)
}

// earlierKey is a key row had before in this run, other than its key now.
func (r *round) earlierKey(row Row) (time.Time, bool) {
	var keys []time.Time
	for _, c := range r.log {
		if c.ID == row.ID && c.Field == r.field && !c.OldKey.IsZero() && !c.OldKey.Equal(row.Key) {
			keys = append(keys, c.OldKey)
		}
	}
	if len(keys) == 0 {
		return time.Time{}, false
	}
	return keys[r.rng.IntN(len(keys))], true
}

// newKey is a key for an inserted or moved row, in window: one an
// existing row has (a tie), another instant of an existing row's second,
// or any instant of the window.
func (r *round) newKey() time.Time {
	lo, hi := r.window()
	var keys []time.Time
	for _, row := range r.rows {
		if !row.Key.IsZero() && !row.Key.Before(lo) && row.Key.Before(hi) {
			keys = append(keys, row.Key)
		}
	}
	mode := r.rng.IntN(3)
	if len(keys) == 0 {
		mode = 2
	}
	switch mode {
	case 0:
		return keys[r.rng.IntN(len(keys))]
	case 1:
		return r.inSecond(keys[r.rng.IntN(len(keys))])
	}
	ticks := max(int64(hi.Sub(lo)/100), 1)
	return lo.Add(time.Duration(r.rng.Int64N(ticks)) * 100)
}

// window is where new keys go: the aimed range 3 times in 4, its open
// sides closed by the scope's; else the whole seconds the scope's keys
// span (the clock's second when there are none).
func (r *round) window() (lo, hi time.Time) {
	for _, row := range r.rows {
		if row.Key.IsZero() {
			continue
		}
		if lo.IsZero() || row.Key.Before(lo) {
			lo = row.Key
		}
		if hi.IsZero() || row.Key.After(hi) {
			hi = row.Key
		}
	}
	if lo.IsZero() {
		lo, hi = r.now, r.now
	}
	lo, hi = lo.Truncate(time.Second), hi.Truncate(time.Second).Add(time.Second)
	if r.aim == nil || r.rng.IntN(4) == 0 {
		return lo, hi
	}
	if r.aim.HasLo {
		lo = r.aim.Lo
	}
	if r.aim.HasHi {
		hi = r.aim.Hi
	}
	if !hi.After(lo) { // a range beside the scope's keys: one second of it
		if r.aim.HasLo {
			return lo, lo.Add(time.Second)
		}
		return hi.Add(-time.Second), hi
	}
	return lo, hi
}

// inSecond is a random instant of t's second, in the 100 ns ticks the
// service's timestamps hold, so that the wire shows every difference.
func (r *round) inSecond(t time.Time) time.Time {
	return t.Truncate(time.Second).Add(time.Duration(r.rng.Int64N(10_000_000)) * 100)
}

// cents is a random amount from 0.01 to 99.99.
func cents(rng *rand.Rand) decimal.Decimal {
	return decimal.New(1+rng.Int64N(9999), -2)
}

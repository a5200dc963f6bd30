package pager

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// normState is s with empty id lists written as nil, so that states
// compare by what they hold.
func normState(s State) State {
	if len(s.IDs) == 0 {
		s.IDs = nil
	}
	if len(s.Keys) == 0 {
		s.Keys = nil
	}
	return s
}

func at(sec, ns int64) keyAt { return keyAt{sec, ns} }

// TestCursorSettleAppliesEachPosition: each position moves the frontier
// forward only, and keeps the ids delivered at or after it with their keys.
func TestCursorSettleAppliesEachPosition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		from  State
		marks []mark
		want  State
	}{
		{
			name:  "the first item starts the state",
			marks: []mark{{id: 1, key: at(100, 0), frontier: at(100, 0)}},
			want:  State{Started: true, Sec: 100, IDs: []int64{1}, Keys: []int64{0}},
		},
		{
			name: "items at the frontier's key are kept",
			marks: []mark{
				{id: 1, key: at(100, 5), frontier: at(100, 5)},
				{id: 2, key: at(100, 5), frontier: at(100, 5)},
			},
			want: State{Started: true, Sec: 100, Nanos: 5, IDs: []int64{1, 2}, Keys: []int64{5, 5}},
		},
		{
			name: "a later key in the second forgets those before it",
			marks: []mark{
				{id: 1, key: at(100, 5), frontier: at(100, 5)},
				{id: 2, key: at(100, 9), frontier: at(100, 9)},
			},
			want: State{Started: true, Sec: 100, Nanos: 9, IDs: []int64{2}, Keys: []int64{9}},
		},
		{
			name: "a new second forgets the last one",
			marks: []mark{
				{id: 1, key: at(100, 5), frontier: at(100, 5)},
				{id: 2, key: at(101, 0), frontier: at(101, 0)},
			},
			want: State{Started: true, Sec: 101, IDs: []int64{2}, Keys: []int64{0}},
		},
		{
			name: "an item past a frontier that does not move is kept with its key",
			marks: []mark{
				{id: 1, key: at(100, 5), frontier: at(100, 5)},
				{id: 2, key: at(100, 7), frontier: at(100, 5)},
				{id: 3, key: at(100, 6), frontier: at(100, 5)},
			},
			want: State{Started: true, Sec: 100, Nanos: 5, IDs: []int64{1, 2, 3}, Keys: []int64{5, 7, 6}},
		},
		{
			name: "moving the frontier keeps the items at or after it",
			marks: []mark{
				{id: 1, key: at(100, 5), frontier: at(100, 5)},
				{id: 2, key: at(100, 8), frontier: at(100, 5)},
				{id: 3, key: at(100, 7), frontier: at(100, 7)},
			},
			want: State{Started: true, Sec: 100, Nanos: 7, IDs: []int64{2, 3}, Keys: []int64{8, 7}},
		},
		{
			name: "an item delivered again at another key is noted at each",
			marks: []mark{
				{id: 1, key: at(100, 5), frontier: at(100, 5)},
				{id: 2, key: at(100, 8), frontier: at(100, 5)},
				{id: 1, key: at(100, 9), frontier: at(100, 5)},
			},
			want: State{Started: true, Sec: 100, Nanos: 5, IDs: []int64{1, 2, 1}, Keys: []int64{5, 8, 9}},
		},
		{
			name:  "the frontier never moves back",
			from:  State{Started: true, Sec: 100, Nanos: 5, IDs: []int64{1}, Keys: []int64{5}},
			marks: []mark{{id: 2, key: at(100, 6), frontier: at(99, 0)}},
			want:  State{Started: true, Sec: 100, Nanos: 5, IDs: []int64{1, 2}, Keys: []int64{5, 6}},
		},
		{
			name:  "an item before the frontier needs no note",
			from:  State{Started: true, Sec: 100, Nanos: 5, IDs: []int64{1}, Keys: []int64{5}},
			marks: []mark{{id: 2, key: at(100, 3), frontier: at(100, 5)}},
			want:  State{Started: true, Sec: 100, Nanos: 5, IDs: []int64{1}, Keys: []int64{5}},
		},
		{
			name:  "ids of an unknown instant stay until the second ends",
			from:  State{Started: true, Sec: 100, IDs: []int64{7, 8}, Keys: []int64{AnyKey, AnyKey}},
			marks: []mark{{id: 1, key: at(100, 5), frontier: at(100, 5)}},
			want:  State{Started: true, Sec: 100, Nanos: 5, IDs: []int64{7, 8, 1}, Keys: []int64{AnyKey, AnyKey, 5}},
		},
		{
			name:  "and go with it",
			from:  State{Started: true, Sec: 100, IDs: []int64{7, 8}, Keys: []int64{AnyKey, AnyKey}},
			marks: []mark{{id: 1, key: at(101, 5), frontier: at(101, 5)}},
			want:  State{Started: true, Sec: 101, Nanos: 5, IDs: []int64{1}, Keys: []int64{5}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Cursor{State: cloneState(tt.from), pending: tt.marks, upto: len(tt.marks)}
			c.Settle()
			s := c.State
			if d := cmp.Diff(normState(tt.want), normState(s)); d != "" {
				t.Fatalf("state:\n%s", d)
			}
		})
	}
}

// TestCursorCountsWhatTheConsumerReached: the positions of a page count
// as far as the consumer said (Reached, before each item it is given),
// all of them when it took the page whole or said nothing.
func TestCursorCountsWhatTheConsumerReached(t *testing.T) {
	t.Parallel()
	page := []mark{
		{id: 1, key: at(100, 0), frontier: at(100, 0)},
		{id: 2, key: at(101, 0), frontier: at(101, 0)},
		{id: 3, key: at(102, 0), frontier: at(102, 0)},
	}
	after := func(n int) State {
		c := Cursor{pending: page[:n], upto: n}
		c.Settle()
		return normState(c.State)
	}
	tests := []struct {
		name    string
		reached []int // Reached calls, in order; -1 a Settle
		whole   bool  // the consumer took the page whole
		want    int   // items counted
	}{
		{"a page taken whole", []int{1, 2, 3}, true, 3},
		{"a page taken whole without a word", nil, true, 3},
		{"a loop that stops on a page without a word", nil, false, 3},
		{"a loop that stops on its first item", []int{1}, false, 1},
		{"a loop that stops before its first item", []int{0}, false, 0},
		{"a loop that stops on its second item", []int{1, 2}, false, 2},
		{"a settled position stays", []int{1, 2, -1, 1}, false, 2},
		{"a page taken whole after stopping short", []int{1}, true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c Cursor
			c.pending, c.upto, c.applied = page, len(page), 0
			for _, n := range tt.reached {
				if n < 0 {
					c.Settle()
					continue
				}
				c.Reached(n)
			}
			c.endPage(tt.whole)
			if d := cmp.Diff(after(tt.want), normState(c.State)); d != "" {
				t.Fatalf("state:\n%s", d)
			}
			// The page is forgotten: nothing more counts.
			c.Reached(3)
			c.Settle()
			if d := cmp.Diff(after(tt.want), normState(c.State)); d != "" {
				t.Fatalf("state after the page ended:\n%s", d)
			}
		})
	}
}

func TestCursorSettleIsIncremental(t *testing.T) {
	t.Parallel()
	var c Cursor
	startPage(&c, []mark{
		{id: 1, key: at(100, 0), frontier: at(100, 0)},
		{id: 2, key: at(100, 0), frontier: at(100, 0)},
	})
	var want []State
	var got []State
	for n := range 3 {
		c.Reached(n)
		c.Settle()
		c.Settle() // twice: applies nothing more
		got = append(got, normState(cloneState(c.State)))
	}
	want = append(want,
		State{},
		State{Started: true, Sec: 100, IDs: []int64{1}, Keys: []int64{0}},
		State{Started: true, Sec: 100, IDs: []int64{1, 2}, Keys: []int64{0, 0}},
	)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("states:\n%s", d)
	}
}

// startPage makes marks the positions of the page being yielded, as Stable
// does before it yields a page.
func startPage(c *Cursor, marks []mark) {
	c.pending, c.upto, c.applied = marks, len(marks), 0
}

// cloneState is a copy of s that shares no slice with it.
func cloneState(s State) State {
	s.IDs, s.Keys = slices.Clone(s.IDs), slices.Clone(s.Keys)
	return s
}

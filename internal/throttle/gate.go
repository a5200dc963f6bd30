package throttle

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Clock is the time a gate's pauses are measured in: the system clock in
// the SDK, a manual one in tests.
type Clock interface {
	Now() time.Time
	// After is time.After.
	After(d time.Duration) <-chan time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Gate holds the pauses the service asked a client for: the times before
// which its next request may not go out. The zero Gate is not usable:
// build it with NewGate. It is safe for concurrent use.
//
// It keeps every pause still running, not only the longest: a request
// waits for the longest one that its own limit lets it wait for (see
// Wait), so a pause too long to impose (an hour's Retry-After) must not
// hide a shorter one asked for after it.
type Gate struct {
	clock Clock

	mu sync.Mutex
	// ends are the ends of the pauses still running when the last one
	// was added, in ascending order, without repeats; at most maxPauses.
	ends []time.Time
}

// maxPauses bounds the pauses a gate keeps. A busy client gets a pause
// from each answer that shows a spent window, most of them ending within
// a second of each other; past this many, the earliest go first, which
// at worst lets a request out before a pause ends, to be paused again
// by the service's answer.
const maxPauses = 32

// NewGate returns an open gate whose pauses are measured in clock; a nil
// clock is the system clock.
func NewGate(clock Clock) *Gate {
	if clock == nil {
		clock = systemClock{}
	}
	return &Gate{clock: clock}
}

// HoldFor adds a pause of d from now. No pause shortens another: the
// longest wait the service has asked for holds whichever answer arrives
// last. A d of 0 or less changes nothing.
func (g *Gate) HoldFor(d time.Duration) {
	if d <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock.Now()
	end := now.Add(d)
	g.ends = slices.DeleteFunc(g.ends, func(t time.Time) bool { return !t.After(now) }) // over
	i, found := slices.BinarySearchFunc(g.ends, end, time.Time.Compare)
	if !found {
		g.ends = slices.Insert(g.ends, i, end)
	}
	if len(g.ends) > maxPauses {
		g.ends = slices.Delete(g.ends, 0, len(g.ends)-maxPauses)
	}
}

// Until returns the end of the longest pause: the zero time when the gate
// was never closed, a past time once every pause is over.
func (g *Gate) Until() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.ends) == 0 {
		return time.Time{}
	}
	return g.ends[len(g.ends)-1]
}

// endWithin returns the end of the longest pause that ends after now and
// at most limit from it, or the zero time when there is none.
func (g *Gate) endWithin(now time.Time, limit time.Duration) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, end := range slices.Backward(g.ends) {
		if end.Sub(now) <= limit {
			if end.After(now) {
				return end
			}
			break
		}
	}
	return time.Time{}
}

// closed reports whether the gate was ever closed.
func (g *Gate) closed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.ends) > 0
}

// PastDeadlineError is the error of Wait when the gate opens after the
// deadline of the context a request waits with: the wait could only end
// in the context's error, so it is refused at once instead.
type PastDeadlineError struct {
	// Wait is how long the gate was still to stay closed when Wait
	// refused it.
	Wait time.Duration
}

func (e *PastDeadlineError) Error() string {
	return fmt.Sprintf("the pause ends in %s, after the context's deadline", e.Wait)
}

// Wait blocks until the longest pause that ends at most limit from now is
// over, then returns nil. It returns at once
//
//   - nil when there is no such pause: a pause longer than limit is not
//     imposed on the request, which goes out and gets the service's own
//     answer (a shorter one is, whichever was asked for first);
//   - a *PastDeadlineError when the gate opens at or after ctx's deadline;
//   - ctx.Err() when ctx is done, or once it is done while waiting.
//
// A pause extended while Wait blocks is waited for too: the gate is asked
// again each time the wait ends, and the rules above apply to what is
// left. An open gate returns nil whatever ctx's state, so that a request
// fails on its context as it would without a gate.
func (g *Gate) Wait(ctx context.Context, limit time.Duration) error {
	if !g.closed() {
		return nil // never closed: no clock to read
	}
	for {
		now := g.clock.Now()
		until := g.endWithin(now, limit)
		if until.IsZero() {
			return nil
		}
		d := until.Sub(now)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if deadline, ok := ctx.Deadline(); ok && !until.Before(deadline) {
			return &PastDeadlineError{Wait: d}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-g.clock.After(d):
		}
	}
}

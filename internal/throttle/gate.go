package throttle

import (
	"context"
	"fmt"
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

// Gate holds the earliest time at which the next request of a client may
// go out. The zero Gate is not usable: build it with NewGate. It is safe
// for concurrent use.
type Gate struct {
	clock Clock

	mu    sync.Mutex
	until time.Time // no request goes out before it; zero: never closed
}

// NewGate returns an open gate whose pauses are measured in clock; a nil
// clock is the system clock.
func NewGate(clock Clock) *Gate {
	if clock == nil {
		clock = systemClock{}
	}
	return &Gate{clock: clock}
}

// HoldFor closes the gate for d from now, unless it is closed until later
// already: a pause is extended, never shortened, so that the longest wait
// the service has asked for holds whichever answer arrives last. A d of 0
// or less changes nothing.
func (g *Gate) HoldFor(d time.Duration) {
	if d <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if until := g.clock.Now().Add(d); until.After(g.until) {
		g.until = until
	}
}

// Until returns the time the gate opens: the zero time when it was never
// closed, a past time once the pause is over.
func (g *Gate) Until() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.until
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

// Wait blocks until the gate is open, then returns nil. It returns at once
//
//   - nil while the gate stays closed for longer than limit: a pause that
//     long is not imposed on the request, which goes out and gets the
//     service's own answer;
//   - a *PastDeadlineError when the gate opens at or after ctx's deadline;
//   - ctx.Err() when ctx is done, or once it is done while waiting.
//
// A pause extended while Wait blocks is waited for too: the gate is asked
// again each time the wait ends, and the rules above apply to what is
// left. An open gate returns nil whatever ctx's state, so that a request
// fails on its context as it would without a gate.
func (g *Gate) Wait(ctx context.Context, limit time.Duration) error {
	for {
		until := g.Until()
		if until.IsZero() {
			return nil // never closed: no clock to read
		}
		d := until.Sub(g.clock.Now())
		switch {
		case d <= 0, d > limit:
			return nil
		case ctx.Err() != nil:
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

package throttle

import (
	"sync"
	"time"
)

// manualClock is a Clock that moves only when the test advances it: a
// gate's pauses are measured in it, and end exactly when the test says.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []manualTimer
}

type manualTimer struct {
	at time.Time
	ch chan time.Time
}

// newManualClock starts at start. Tests that give a context a deadline
// start it at time.Now() inside their synctest bubble, so that the
// deadline, which the context measures in the bubble's time, and the
// gate's pauses are on one time line.
func newManualClock(start time.Time) *manualClock { return &manualClock{now: start} }

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.timers = append(c.timers, manualTimer{at: c.now.Add(d), ch: ch})
	return ch
}

// Advance moves the clock by d, firing the timers it reaches.
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if tm.at.After(c.now) {
			kept = append(kept, tm)
			continue
		}
		tm.ch <- c.now // buffered, and sent once
	}
	c.timers = kept
}

// pending is the number of timers not yet fired: the waits in progress.
func (c *manualClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

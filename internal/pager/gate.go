package pager

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Gate bounds the requests one pipeline has on the wire to n, keeps one
// of them for the head task (whose results the consumer is waiting for),
// holds every request back while the service has asked for a pause, and
// bounds the answers decoded at once to the processors.
type Gate struct {
	slots    chan struct{} // n: requests on the wire
	others   chan struct{} // n-1: taken first by requests not of the head
	decoders chan struct{}
	clock    Clock

	mu    sync.Mutex
	until time.Time // no request goes out before it
}

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

// NewGate returns the gate of a pipeline of n >= 2 requests on the wire;
// a nil clock is the system clock.
func NewGate(n int, clock Clock) *Gate {
	if clock == nil {
		clock = systemClock{}
	}
	return &Gate{
		slots:    make(chan struct{}, n),
		others:   make(chan struct{}, n-1),
		decoders: make(chan struct{}, runtime.GOMAXPROCS(0)),
		clock:    clock,
	}
}

// Claim returns a claim for requests outside the pipeline's tasks: head
// says they are the head's (never held back by the reserve), else they
// share the n-1 slots of the tasks ahead.
// Call Done when its requests are over.
func (g *Gate) Claim(head bool) *Claim {
	c := &Claim{gate: g}
	if !head {
		c.head = make(chan struct{}) // never closed: never the head
	}
	return c
}

// pause holds every request of the gate back until d from now (extending,
// never shortening, a pause already in force).
func (g *Gate) pause(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if until := g.clock.Now().Add(d); until.After(g.until) {
		g.until = until
	}
}

// waitPause blocks until no pause is in force, or ctx is done.
func (g *Gate) waitPause(ctx context.Context) {
	for {
		g.mu.Lock()
		until := g.until
		g.mu.Unlock()
		if until.IsZero() {
			return // never paused: no clock to read
		}
		d := until.Sub(g.clock.Now())
		if d <= 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-g.clock.After(d):
		}
	}
}

// Claim is one task's hold on a gate. The requests of a task run one after
// another, so a claim holds at most one slot, and its fields but
// heldOthers need no lock.
// Every method does nothing on a nil Claim: a request outside a pipeline
// passes no gate.
type Claim struct {
	gate *Gate
	// head is closed once the task's results are the ones the consumer
	// waits for; until then its requests take one of the others first.
	// nil: always the head.
	head <-chan struct{}
	held bool
	// heldOthers is also cleared by the consumer when the task becomes
	// the head (Pipeline.Next, through giveOthers): whoever clears it
	// gives the slot back.
	heldOthers atomic.Bool
	// turn, when set (Config.InOrder), is closed once the task before
	// this one has taken its first slot, and took is closed when this one
	// has: tasks get slots in task order.
	turn <-chan struct{}
	took chan struct{}
}

// Acquire waits until the next attempt may go out: its task's turn, a
// slot, and no pause in force (checked before and after the slot, so that
// an attempt that waited for its slot through a pause does not go out
// inside it). It returns early when ctx is done; the attempt then fails
// on ctx.
func (c *Claim) Acquire(ctx context.Context) {
	if c == nil {
		return
	}
	c.gate.waitPause(ctx)
	if !c.held {
		if c.turn != nil {
			select {
			case <-c.turn:
			case <-ctx.Done():
				return
			}
			c.turn = nil
		}
		if !c.heldOthers.Load() && c.head != nil {
			select {
			case <-c.head:
			case c.gate.others <- struct{}{}:
				c.heldOthers.Store(true)
				select {
				case <-c.head: // became the head meanwhile: not needed
					c.giveOthers()
				default:
				}
			case <-ctx.Done():
				return
			}
		}
		select {
		case c.gate.slots <- struct{}{}:
			c.held = true
			if c.took != nil {
				close(c.took) // the next task's turn
				c.took = nil
			}
		case <-ctx.Done():
			c.Release()
			return
		}
	}
	c.gate.waitPause(ctx)
}

// Release gives the slot back once an attempt's answer has been read,
// before it is decoded: decoding is the client's own work, and a slot held
// through it kept the pipeline below n requests on the wire whenever the
// CPU was busy.
func (c *Claim) Release() {
	if c == nil {
		return
	}
	if c.held {
		<-c.gate.slots
		c.held = false
	}
	c.giveOthers()
}

// giveOthers gives back the slot shared by the tasks other than the head,
// if the claim holds one. The pipeline calls it too, when the task becomes
// the head: a request it has on the wire then stops counting against the
// others', so that the tasks behind it keep n requests on the wire.
func (c *Claim) giveOthers() {
	if c.heldOthers.CompareAndSwap(true, false) {
		<-c.gate.others
	}
}

// Pause holds every request of the gate back for d: the service throttled
// one of them, and asked the client, not the request, to wait.
func (c *Claim) Pause(d time.Duration) {
	if c != nil {
		c.gate.pause(d)
	}
}

// Decode waits until an answer may be decoded and returns the function
// that ends its turn. Decoding is CPU work: more decoders than processors
// gain nothing, and leave the pipeline's reads and sends, which need a
// processor for a moment each, queued behind them.
func (c *Claim) Decode() (end func()) {
	if c == nil {
		return func() {}
	}
	c.gate.decoders <- struct{}{}
	return func() { <-c.gate.decoders }
}

// Done ends the claim: its slot is returned and the next task's turn
// comes, whatever happened to this one.
func (c *Claim) Done() {
	if c == nil {
		return
	}
	c.Release()
	if c.took != nil {
		close(c.took)
		c.took = nil
	}
}

package pager

import (
	"context"
	"runtime"
	"sync/atomic"
)

// Gate bounds the requests one pipeline has on the wire to n, keeps one
// of them for the head task (whose results the consumer is waiting for),
// and bounds the answers decoded at once to the processors. Pauses the
// service asks for are not the pipeline's: they hold every request of the
// client (internal/throttle), and each attempt waits for them once it
// has its slot.
type Gate struct {
	slots    chan struct{} // n: requests on the wire
	others   chan struct{} // n-1: taken first by requests not of the head
	decoders chan struct{}
}

// NewGate returns the gate of a pipeline of n >= 2 requests on the wire.
func NewGate(n int) *Gate {
	return &Gate{
		slots:    make(chan struct{}, n),
		others:   make(chan struct{}, n-1),
		decoders: make(chan struct{}, runtime.GOMAXPROCS(0)),
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

// Acquire waits until the next attempt may go out as far as the pipeline
// is concerned: its task's turn and a slot. It returns early when ctx is
// done; the attempt then fails on ctx.
func (c *Claim) Acquire(ctx context.Context) {
	if c == nil {
		return
	}
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

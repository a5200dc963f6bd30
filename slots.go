package billing

import (
	"context"
	"runtime"
)

// requestSlots bounds the requests a prefetch pipeline has on the wire:
// Prefetch(n) makes n of them. A slot is taken before each attempt and
// given back as soon as the answer's body has been read, before it is
// decoded: decoding is the client's own work, and a slot held through it
// kept the pipeline below n requests on the wire whenever the CPU was
// busy, in waves of n requests that all waited on the latency at once.
type requestSlots chan struct{}

// slot is one worker's claim on a requestSlots. The attempts of one call,
// and the reading of their answers, run on the worker's goroutine, so
// its fields need no lock.
type slot struct {
	slots requestSlots
	// others, when set, is taken before slots until head is closed: the
	// windows of a stable pipeline that are not being yielded share n-1
	// slots, so that the one being yielded, whose pages the loop waits
	// for, always finds one free.
	others     requestSlots
	head       <-chan struct{}
	heldOthers bool
	// decoders bounds the pipeline's pages decoded at once to the
	// processors (see decodeTurn); nil for none.
	decoders chan struct{}
	held     bool
	// turn, when set, is closed once the worker before this one has taken
	// its first slot, and took is closed when this one has: pages then get
	// slots in page order, not in the order their goroutines happen to
	// run, so that a late page does not hold up the ones before it.
	turn <-chan struct{}
	took chan struct{}
}

type slotKey struct{}

func withSlot(ctx context.Context, s *slot) context.Context {
	return context.WithValue(ctx, slotKey{}, s)
}

func slotFrom(ctx context.Context) *slot {
	s, _ := ctx.Value(slotKey{}).(*slot)
	return s
}

// take waits for a slot unless one is held, or until ctx is done.
func (s *slot) take(ctx context.Context) {
	if s == nil || s.held {
		return
	}
	if s.turn != nil {
		select {
		case <-s.turn:
		case <-ctx.Done():
			return
		}
		s.turn = nil
	}
	if s.others != nil && !s.heldOthers {
		select {
		case <-s.head:
		default:
			select {
			case s.others <- struct{}{}:
				s.heldOthers = true
			case <-s.head:
			case <-ctx.Done():
				return
			}
		}
	}
	select {
	case s.slots <- struct{}{}:
		s.held = true
		s.passTurn()
	case <-ctx.Done():
		s.give()
	}
}

// give returns the slot held, if any.
func (s *slot) give() {
	if s == nil {
		return
	}
	if s.held {
		<-s.slots
		s.held = false
	}
	if s.heldOthers {
		<-s.others
		s.heldOthers = false
	}
}

// done ends the worker's claim: its slot is returned and the next worker's
// turn comes, whatever happened to this one.
func (s *slot) done() {
	s.give()
	s.passTurn()
}

func (s *slot) passTurn() {
	if s.took != nil {
		close(s.took)
		s.took = nil
	}
}

// decodeTurn waits until the page may be decoded and returns the function
// that ends its turn. Decoding is CPU work: more decoders than processors
// gain nothing, and leave the pipeline's reads and sends, which need a
// processor for a moment each, queued behind them.
func (s *slot) decodeTurn() (end func()) {
	if s == nil || s.decoders == nil {
		return func() {}
	}
	s.decoders <- struct{}{}
	return func() { <-s.decoders }
}

// newDecoders is the decode bound of one pipeline.
func newDecoders() chan struct{} { return make(chan struct{}, runtime.GOMAXPROCS(0)) }

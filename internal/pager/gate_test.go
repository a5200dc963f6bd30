package pager

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// The gate's tests run in synctest bubbles: synctest.Wait returns once
// every goroutine of the test is blocked, so that "still waiting" is a
// fact, not a guess after a sleep, and a goroutine left blocked fails the
// test.

// gateState is what a gate holds: slots taken, of them those taken by
// tasks other than the head, and decoders running.
type gateState struct{ Slots, Others, Decoders int }

func stateOf(g *Gate) gateState {
	return gateState{Slots: len(g.slots), Others: len(g.others), Decoders: len(g.decoders)}
}

// assertGate fails the test unless g holds what want says, when (a
// moment of the test) it is checked.
func assertGate(t *testing.T, g *Gate, want gateState, when string) {
	t.Helper()
	if d := cmp.Diff(want, stateOf(g)); d != "" {
		t.Fatalf("%s:\n%s", when, d)
	}
}

// acquiring runs c.Acquire on a goroutine; the returned flag is set once
// it has returned.
func acquiring(ctx context.Context, c *Claim) *atomic.Bool {
	var done atomic.Bool
	go func() {
		c.Acquire(ctx)
		done.Store(true)
	}()
	return &done
}

// taskClaim is a claim as a pipeline makes it for a task, whose head is
// closed when it becomes the head.
func taskClaim(g *Gate) (*Claim, chan struct{}) {
	head := make(chan struct{})
	return &Claim{gate: g, head: head}, head
}

func TestGateBoundsRequestsAndKeepsOneForTheHead(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3, 5} {
		runInBubble(t, fmt.Sprint("n=", n), func(t *testing.T) {
			ctx := t.Context()
			g := NewGate(n)
			var others []*Claim
			for range n - 1 {
				c := g.Claim(false)
				c.Acquire(ctx) // n-1 slots are free for the others
				others = append(others, c)
			}
			late := g.Claim(false)
			lateDone := acquiring(ctx, late)
			synctest.Wait()
			if lateDone.Load() {
				t.Fatalf("a request not of the head went out with %d others on the wire", n-1)
			}
			head := g.Claim(true)
			head.Acquire(ctx) // the kept slot: returns at once
			assertGate(t, g, gateState{Slots: n, Others: n - 1}, "with the head's and n-1 others' requests out")
			head2 := g.Claim(true)
			head2Done := acquiring(ctx, head2)
			synctest.Wait()
			if head2Done.Load() {
				t.Fatalf("a request went out with %d on the wire", n)
			}
			// One slot frees: exactly one of the two waiting goes.
			others[0].Done()
			synctest.Wait()
			if lateDone.Load() == head2Done.Load() {
				t.Fatalf("after one release: late other went %v, second head went %v; want exactly one", lateDone.Load(), head2Done.Load())
			}
			if got := stateOf(g).Slots; got != n {
				t.Fatalf("slots held = %d, want %d", got, n)
			}
			head.Done()
			synctest.Wait()
			if !lateDone.Load() || !head2Done.Load() {
				t.Fatalf("after two releases: late other went %v, second head went %v; want both", lateDone.Load(), head2Done.Load())
			}
			for _, c := range append(others[1:], late, head2) {
				c.Done()
			}
			assertGate(t, g, gateState{}, "after every claim is done")
		})
	}
}

// TestGateNeverExceedsItsBounds: many claims acquiring and releasing at
// once never hold more than n slots, nor more than n-1 outside the head.
func TestGateNeverExceedsItsBounds(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3, 8} {
		runInBubble(t, fmt.Sprint("n=", n), func(t *testing.T) {
			g := NewGate(n)
			var all, others, maxAll, maxOthers atomic.Int64
			var wg sync.WaitGroup
			for w := range 4 * n {
				wg.Go(func() {
					for range 50 {
						c := g.Claim(w == 0) // one head, as in a pipeline
						c.Acquire(t.Context())
						raise(&maxAll, all.Add(1))
						if w != 0 {
							raise(&maxOthers, others.Add(1))
							others.Add(-1)
						}
						all.Add(-1)
						c.Done()
					}
				})
			}
			wg.Wait()
			if maxAll.Load() > int64(n) || maxOthers.Load() > int64(n-1) {
				t.Fatalf("held at once: %d in all (bound %d), %d not of the head (bound %d)", maxAll.Load(), n, maxOthers.Load(), n-1)
			}
			assertGate(t, g, gateState{}, "after every claim is done")
		})
	}
}

// TestClaimThatBecomesTheHeadGivesBackTheOthersSlot: a task whose request
// went out while it was not the head stops counting against the others
// once it is, so that the tasks behind it keep n requests on the wire.
func TestClaimThatBecomesTheHeadGivesBackTheOthersSlot(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		g := NewGate(2)
		a, aHead := taskClaim(g)
		a.Acquire(ctx)
		assertGate(t, g, gateState{Slots: 1, Others: 1}, "one task not the head on the wire")
		b, _ := taskClaim(g)
		bDone := acquiring(ctx, b)
		synctest.Wait()
		if bDone.Load() {
			t.Fatal("a second task not the head went out beside the first, with n = 2")
		}
		close(aHead)
		a.giveOthers() // as Pipeline.Next does when a becomes the head
		synctest.Wait()
		if !bDone.Load() {
			t.Fatal("the next task did not go out once the first became the head")
		}
		assertGate(t, g, gateState{Slots: 2, Others: 1}, "the head and the next task on the wire")
		a.giveOthers() // again: nothing more to give back
		a.Release()
		assertGate(t, g, gateState{Slots: 1, Others: 1}, "after the head's request is read (the others' slot given back once)")
		b.Done()
		a.Done()
		assertGate(t, g, gateState{}, "after every claim is done")
	})
}

// TestClaimWaitingForTheOthersSlotGoesWhenItBecomesTheHead: a task that
// waits for one of the others' slots goes as soon as it is the head.
func TestClaimWaitingForTheOthersSlotGoesWhenItBecomesTheHead(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		g := NewGate(2)
		other := g.Claim(false)
		other.Acquire(ctx)
		a, aHead := taskClaim(g)
		aDone := acquiring(ctx, a)
		synctest.Wait()
		if aDone.Load() {
			t.Fatal("went out while not the head, with the others' slot taken")
		}
		close(aHead)
		synctest.Wait()
		if !aDone.Load() {
			t.Fatal("still waiting after becoming the head")
		}
		assertGate(t, g, gateState{Slots: 2, Others: 1}, "the head went out on the kept slot")
		a.Done()
		other.Done()
		assertGate(t, g, gateState{}, "after every claim is done")
	})
}

// TestClaimAcquireReturnsWhenTheContextIsDone: whatever a request waits
// for, a done context releases it, holding nothing that the gate counts.
func TestClaimAcquireReturnsWhenTheContextIsDone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// setup fills the gate of n = 2 so that the claim returned waits;
		// held is what the gate holds meanwhile.
		setup func(ctx context.Context, g *Gate) *Claim
		held  gateState
	}{
		{
			name: "the others' slot",
			setup: func(ctx context.Context, g *Gate) *Claim {
				g.Claim(false).Acquire(ctx)
				c, _ := taskClaim(g)
				return c
			},
			held: gateState{Slots: 1, Others: 1},
		},
		{
			name: "a slot, as the head",
			setup: func(ctx context.Context, g *Gate) *Claim {
				g.Claim(false).Acquire(ctx)
				g.Claim(true).Acquire(ctx)
				return g.Claim(true)
			},
			held: gateState{Slots: 2, Others: 1},
		},
		{
			name: "its turn",
			setup: func(ctx context.Context, g *Gate) *Claim {
				c := g.Claim(true)
				c.turn = make(chan struct{}) // the task before it has not gone
				return c
			},
		},
	}
	for _, tt := range tests {
		runInBubble(t, tt.name, func(t *testing.T) {
			g := NewGate(2)
			c := tt.setup(t.Context(), g)
			ctx, cancel := context.WithCancel(t.Context())
			done := acquiring(ctx, c)
			synctest.Wait()
			if done.Load() {
				t.Fatal("did not wait")
			}
			cancel()
			synctest.Wait()
			if !done.Load() {
				t.Fatal("still waiting with its context done")
			}
			c.Release()
			if d := cmp.Diff(tt.held, stateOf(g)); d != "" {
				t.Fatalf("the gate after the cancelled claim's release:\n%s", d)
			}
		})
	}
}

func TestNilClaimPassesNoGate(t *testing.T) {
	t.Parallel()
	var c *Claim
	ctx, cancel := context.WithCancel(t.Context())
	c.Acquire(ctx)
	cancel()
	c.Acquire(ctx)
	end := c.Decode()
	end()
	c.Release()
	c.Done()
	c.Release()
}

// TestClaimDecodeBoundsDecoders: no more answers are decoded at once than
// there are processors, across every claim of a gate.
func TestClaimDecodeBoundsDecoders(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		procs := runtime.GOMAXPROCS(0)
		g := NewGate(2)
		var ends []func()
		for i := range procs {
			ends = append(ends, g.Claim(i%2 == 0).Decode())
		}
		assertGate(t, g, gateState{Decoders: procs}, "decoders at the bound")
		var started atomic.Bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			end := g.Claim(false).Decode()
			started.Store(true)
			end()
		}()
		synctest.Wait()
		if started.Load() {
			t.Fatalf("%d decoders at once on %d processors", procs+1, procs)
		}
		ends[0]()
		<-done
		for _, end := range ends[1:] {
			end()
		}
		assertGate(t, g, gateState{}, "after every decoder ended")
	})
}

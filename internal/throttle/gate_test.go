package throttle

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The gate's tests run in synctest bubbles with a manual clock: the clock
// moves only when a test advances it, and synctest.Wait returns once
// every goroutine of the test is blocked, so that "still waiting" is a
// fact, not a guess after a sleep.

// start is where the manual clock starts in tests without deadlines.
var start = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// waitResult is what one Wait returned, and when on the manual clock.
type waitResult struct {
	err error
	at  time.Time
}

// waiting runs g.Wait on a goroutine; its result arrives on the channel.
func waiting(ctx context.Context, g *Gate, clock *manualClock, limit time.Duration) <-chan waitResult {
	done := make(chan waitResult, 1)
	go func() {
		err := g.Wait(ctx, limit)
		done <- waitResult{err, clock.Now()}
	}()
	return done
}

// returned reports whether a Wait's result has arrived, without blocking.
func returned(done <-chan waitResult) (waitResult, bool) {
	select {
	case r := <-done:
		return r, true
	default:
		return waitResult{}, false
	}
}

// holdStep is a step of a hold test: advance the clock, then hold for
// hold (if not 0).
type holdStep struct {
	advance, hold time.Duration
}

// heldGate is a gate on a manual clock from start, held by each step in
// turn after the clock advanced by its advance.
func heldGate(steps []holdStep) (*Gate, *manualClock) {
	clock := newManualClock(start)
	g := NewGate(clock)
	for _, s := range steps {
		clock.Advance(s.advance)
		g.HoldFor(s.hold)
	}
	return g, clock
}

func TestGateHoldForExtendsAndNeverShortens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []holdStep
		until time.Duration // from the clock's start; -1: never closed
	}{
		{"never held", nil, -1},
		{"a hold of nothing", []holdStep{{hold: 0}, {hold: -time.Second}}, -1},
		{"one hold", []holdStep{{hold: 10 * time.Second}}, 10 * time.Second},
		{"a shorter one does not shorten it", []holdStep{{hold: 10 * time.Second}, {hold: 3 * time.Second}}, 10 * time.Second},
		{"a longer one extends it", []holdStep{{hold: 10 * time.Second}, {hold: 30 * time.Second}}, 30 * time.Second},
		{"later and ending sooner", []holdStep{{hold: 10 * time.Second}, {advance: 5 * time.Second, hold: 2 * time.Second}}, 10 * time.Second},
		{"later and ending later", []holdStep{{hold: 10 * time.Second}, {advance: 5 * time.Second, hold: 8 * time.Second}}, 13 * time.Second},
		{"after the pause is over", []holdStep{{hold: time.Second}, {advance: time.Minute, hold: time.Second}}, time.Minute + time.Second},
		{"the longest duration", []holdStep{{hold: 1<<63 - 1}}, 1<<63 - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, _ := heldGate(tt.steps)
			want := time.Time{}
			if tt.until >= 0 {
				want = start.Add(tt.until)
			}
			if got := g.Until(); !got.Equal(want) {
				t.Fatalf("Until() = %v, want %v", got, want)
			}
		})
	}
}

// TestGateHoldForConcurrently: holds from many goroutines at once leave
// the latest end, whatever their order.
func TestGateHoldForConcurrently(t *testing.T) {
	t.Parallel()
	clock := newManualClock(start)
	g := NewGate(clock)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() { g.HoldFor(time.Duration(i+1) * time.Second) })
	}
	wg.Wait()
	if got, want := g.Until(), start.Add(64*time.Second); !got.Equal(want) {
		t.Fatalf("Until() = %v, want %v", got, want)
	}
}

func TestGateWaitHoldsEveryRequestUntilThePauseEnds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		clock := newManualClock(start)
		g := NewGate(clock)
		g.HoldFor(10 * time.Second)
		var dones []<-chan waitResult
		for range 3 {
			dones = append(dones, waiting(t.Context(), g, clock, time.Minute))
		}
		synctest.Wait()
		if got := clock.pending(); got != 3 {
			t.Fatalf("%d requests wait for the pause's end, want 3", got)
		}
		clock.Advance(10*time.Second - time.Nanosecond)
		synctest.Wait()
		for i, done := range dones {
			if r, ok := returned(done); ok {
				t.Fatalf("request %d went out a nanosecond before the pause ended: %+v", i, r)
			}
		}
		clock.Advance(time.Nanosecond)
		var got []waitResult
		for _, done := range dones {
			got = append(got, <-done)
		}
		until := start.Add(10 * time.Second)
		if want := []waitResult{{nil, until}, {nil, until}, {nil, until}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("Wait returned %+v, want %+v", got, want)
		}
	})
}

// TestGateWaitTakesTheLongestPauseWithinItsLimit: a pause too long to
// impose does not hide a shorter one, whichever came first; each request
// waits for the longest pause its own limit allows.
func TestGateWaitTakesTheLongestPauseWithinItsLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []holdStep
		limit time.Duration
		wait  time.Duration // from the clock's start; 0: not at all
	}{
		{"a short pause after a long one", []holdStep{{hold: time.Hour}, {hold: 2 * time.Second}}, time.Minute, 2 * time.Second},
		{"a short pause before a long one", []holdStep{{hold: 2 * time.Second}, {hold: time.Hour}}, time.Minute, 2 * time.Second},
		{"the longest within the limit", []holdStep{{hold: 2 * time.Second}, {hold: 50 * time.Second}, {hold: time.Hour}}, time.Minute, 50 * time.Second},
		{"a limit that allows the long one", []holdStep{{hold: 2 * time.Second}, {hold: time.Hour}}, 2 * time.Hour, time.Hour},
		{"only the long one", []holdStep{{hold: time.Hour}}, time.Minute, 0},
		{"the short one over", []holdStep{{hold: time.Hour}, {hold: 2 * time.Second}, {advance: 3 * time.Second}}, time.Minute, 0},
		{"one pause too many", func() []holdStep {
			steps := []holdStep{{hold: time.Second}} // the earliest, dropped
			for i := range maxPauses {
				steps = append(steps, holdStep{hold: time.Hour + time.Duration(i)*time.Second})
			}
			return steps
		}(), time.Minute, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				g, clock := heldGate(tt.steps)
				from := clock.Now()
				got := <-func() <-chan waitResult {
					done := waiting(t.Context(), g, clock, tt.limit)
					synctest.Wait()
					if tt.wait > 0 {
						clock.Advance(start.Add(tt.wait).Sub(from))
					}
					return done
				}()
				want := waitResult{nil, from}
				if tt.wait > 0 {
					want.at = start.Add(tt.wait)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("Wait returned %+v, want %+v", got, want)
				}
			})
		})
	}
}

// TestGateWaitReturnsAtOnce: an open gate, or a pause longer than the
// limit, is not waited for.
func TestGateWaitReturnsAtOnce(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		steps []holdStep
		ctx   context.Context
		limit time.Duration
	}{
		{"never closed", nil, context.Background(), time.Minute},
		{"never closed, the context done", nil, cancelled, time.Minute},
		{"the pause is over", []holdStep{{hold: 5 * time.Second}, {advance: 5 * time.Second}}, context.Background(), time.Minute},
		{"the pause is over, the context done", []holdStep{{hold: 5 * time.Second}, {advance: 6 * time.Second}}, cancelled, time.Minute},
		{"a pause longer than the limit", []holdStep{{hold: time.Hour}}, context.Background(), time.Minute},
		{"what is left of it is longer than the limit", []holdStep{{hold: time.Hour}, {advance: 58 * time.Minute}}, context.Background(), time.Minute},
		{"a limit of 0", []holdStep{{hold: time.Second}}, context.Background(), 0},
		{"the longest duration", []holdStep{{hold: 1<<63 - 1}}, context.Background(), time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, clock := heldGate(tt.steps)
			if err := g.Wait(tt.ctx, tt.limit); err != nil {
				t.Fatalf("Wait = %v, want nil at once", err)
			}
			if n := clock.pending(); n != 0 {
				t.Fatalf("%d timers set: Wait waited", n)
			}
		})
	}
}

// TestGateWaitRefusesAPausePastTheDeadline: a wait that would end at or
// after the context's deadline is refused at once, with what is left of
// it; one that ends before is waited for.
func TestGateWaitRefusesAPausePastTheDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		deadline time.Duration // from the hold, of 10s
		want     error
	}{
		{5 * time.Second, &PastDeadlineError{Wait: 10 * time.Second}},
		{10*time.Second - time.Nanosecond, &PastDeadlineError{Wait: 10 * time.Second}},
		{10 * time.Second, &PastDeadlineError{Wait: 10 * time.Second}},
		{10*time.Second + time.Nanosecond, nil},
		{time.Hour, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("deadline in ", tt.deadline), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				// The clock starts at the bubble's time, which the
				// context's deadline is measured in.
				clock := newManualClock(time.Now())
				g := NewGate(clock)
				g.HoldFor(10 * time.Second)
				ctx, cancel := context.WithDeadline(t.Context(), clock.Now().Add(tt.deadline))
				defer cancel()
				done := waiting(ctx, g, clock, time.Minute)
				synctest.Wait()
				if tt.want != nil {
					r, ok := returned(done)
					if !ok {
						t.Fatal("Wait is waiting for a pause that ends after the deadline")
					}
					if !reflect.DeepEqual(r.err, tt.want) || !r.at.Equal(clock.Now()) {
						t.Fatalf("Wait = %v at +%v, want %v at once", r.err, r.at.Sub(clock.Now()), tt.want)
					}
					return
				}
				clock.Advance(10 * time.Second)
				if r := <-done; r.err != nil {
					t.Fatalf("Wait = %v, want nil at the pause's end", r.err)
				}
			})
		})
	}
}

func TestGateWaitReturnsWhenTheContextIsDone(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		clock := newManualClock(start)
		g := NewGate(clock)
		g.HoldFor(time.Minute)
		ctx, cancel := context.WithCancel(t.Context())
		done := waiting(ctx, g, clock, time.Hour)
		synctest.Wait()
		if r, ok := returned(done); ok {
			t.Fatalf("Wait returned %+v during the pause", r)
		}
		cancel()
		synctest.Wait()
		r, ok := returned(done)
		if !ok {
			t.Fatal("still waiting with its context done")
		}
		if !errors.Is(r.err, context.Canceled) || !r.at.Equal(start) {
			t.Fatalf("Wait = %v at +%v, want context.Canceled at once", r.err, r.at.Sub(start))
		}
		// And a context done before Wait is called: at once, without a
		// timer.
		pending := clock.pending()
		if err := g.Wait(ctx, time.Hour); !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait with a done context = %v, want context.Canceled", err)
		}
		if clock.pending() != pending {
			t.Fatal("Wait with a done context set a timer")
		}
	})
}

// TestGateWaitFollowsAnExtension: a pause extended while requests wait
// holds them until its new end, and the rules on limit and deadline apply
// to what is left when the first wait ends.
func TestGateWaitFollowsAnExtension(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		limit    time.Duration
		deadline time.Duration // from the start; 0: none
		want     waitResult    // at: from the start
	}{
		{"waited to the new end", time.Minute, 0, waitResult{nil, time.Time{}.Add(25 * time.Second)}},
		{"the rest is beyond the limit: goes at the first end", 12 * time.Second, 0, waitResult{nil, time.Time{}.Add(10 * time.Second)}},
		{"the rest ends past the deadline: refused at the first end", time.Minute, 20 * time.Second,
			waitResult{&PastDeadlineError{Wait: 15 * time.Second}, time.Time{}.Add(10 * time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				begin := time.Now()
				clock := newManualClock(begin)
				g := NewGate(clock)
				g.HoldFor(10 * time.Second)
				ctx := t.Context()
				if tt.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithDeadline(ctx, begin.Add(tt.deadline))
					defer cancel()
				}
				done := waiting(ctx, g, clock, tt.limit)
				synctest.Wait()
				clock.Advance(5 * time.Second)
				g.HoldFor(20 * time.Second) // to +25s
				synctest.Wait()
				if r, ok := returned(done); ok {
					t.Fatalf("Wait returned %+v before the first end", r)
				}
				clock.Advance(5 * time.Second) // +10s, the first end
				synctest.Wait()
				if r, ok := returned(done); ok {
					r.at = time.Time{}.Add(r.at.Sub(begin))
					if !reflect.DeepEqual(r, tt.want) {
						t.Fatalf("Wait = %+v, want %+v", r, tt.want)
					}
					return
				}
				clock.Advance(15*time.Second - time.Nanosecond)
				synctest.Wait()
				if r, ok := returned(done); ok {
					t.Fatalf("Wait returned %+v a nanosecond before the new end", r)
				}
				clock.Advance(time.Nanosecond)
				r := <-done
				r.at = time.Time{}.Add(r.at.Sub(begin))
				if !reflect.DeepEqual(r, tt.want) {
					t.Fatalf("Wait = %+v, want %+v", r, tt.want)
				}
			})
		})
	}
}

// TestGateWaitersOfManyGoroutines: requests waiting from many goroutines
// all go out at the pause's end, none before, and the count of those
// that went is exact.
func TestGateWaitersOfManyGoroutines(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		clock := newManualClock(start)
		g := NewGate(clock)
		g.HoldFor(time.Second)
		var went atomic.Int32
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				if err := g.Wait(t.Context(), time.Minute); err != nil {
					t.Errorf("Wait = %v", err)
				}
				if clock.Now().Before(start.Add(time.Second)) {
					t.Errorf("went out at %v, inside the pause", clock.Now())
				}
				went.Add(1)
			})
		}
		synctest.Wait()
		if n := went.Load(); n != 0 {
			t.Fatalf("%d went out during the pause", n)
		}
		clock.Advance(time.Second)
		wg.Wait()
		if n := went.Load(); n != 32 {
			t.Fatalf("%d went out after the pause, want 32", n)
		}
	})
}

package pager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// The pipeline's tests run in synctest bubbles (see gate_test.go): the
// test decides when each task finishes, and synctest.Wait tells it when
// the pipeline has done all it can.

// taskList is a next function over tasks, counting its calls.
func taskList[R any](tasks []Task[R], calls *atomic.Int64) func(context.Context) (Task[R], bool) {
	i := 0
	return func(context.Context) (Task[R], bool) {
		calls.Add(1)
		if i == len(tasks) {
			return nil, false
		}
		i++
		return tasks[i-1], true
	}
}

// drain reads every result of p.
func drain[R any](p *Pipeline[R]) []R {
	var out []R
	for {
		r, ok := p.Next()
		if !ok {
			return out
		}
		out = append(out, r)
	}
}

// res is the result j of task i.
type res struct{ Task, N int }

func TestPipelineDeliversInTaskOrderWhateverOrderTasksFinish(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		finish []int // the order in which the tasks finish
		each   int   // results per task
		cfg    Config
	}{
		{"in order", []int{0, 1, 2, 3}, 2, Config{Tasks: 4, Ahead: 8}},
		{"reversed", []int{3, 2, 1, 0}, 2, Config{Tasks: 4, Ahead: 8}},
		{"interleaved", []int{2, 0, 3, 1, 5, 4}, 3, Config{Tasks: 6, Ahead: 18}},
		{"one result each, many tasks", []int{7, 6, 5, 4, 3, 2, 1, 0}, 1, Config{Tasks: 8, Ahead: 8}},
		{"no result from some", []int{1, 3, 0, 2}, 0, Config{Tasks: 4, Ahead: 1}},
		{"results held in the tasks", []int{3, 1, 2, 0}, 2, Config{Tasks: 4}},
		{"fewer places than results", []int{2, 3, 1, 0}, 3, Config{Tasks: 4, Ahead: 2}},
		{"in task order", []int{1, 0, 2, 3}, 2, Config{Tasks: 4, Ahead: 8, InOrder: true}},
	}
	for _, tt := range tests {
		runInBubble(t, tt.name, func(t *testing.T) {
			n := len(tt.finish)
			release := make([]chan struct{}, n)
			var mu sync.Mutex
			var finished []int
			var tasks []Task[res]
			for i := range n {
				release[i] = make(chan struct{})
				tasks = append(tasks, func(ctx context.Context, _ *Claim, emit func(res) bool) {
					<-release[i]
					for j := range tt.each {
						if !emit(res{i, j}) {
							return
						}
					}
					mu.Lock()
					finished = append(finished, i)
					mu.Unlock()
				})
			}
			var calls atomic.Int64
			p := Start(t.Context(), NewGate(2), tt.cfg, taskList(tasks, &calls))
			defer p.Stop()
			got := make(chan []res)
			go func() { got <- drain(p) }()
			for _, i := range tt.finish {
				close(release[i])
				synctest.Wait()
			}
			var want []res
			for i := range n {
				for j := range tt.each {
					want = append(want, res{i, j})
				}
			}
			if d := cmp.Diff(want, <-got); d != "" {
				t.Fatalf("results:\n%s", d)
			}
			if tt.cfg.Ahead >= n*tt.each {
				// Nothing waited for a place: they finished when told.
				if d := cmp.Diff(tt.finish, finished); d != "" {
					t.Fatalf("the test did not control the order of finishing:\n%s", d)
				}
			}
		})
	}
}

func TestPipelineRunsAtMostConfigTasks(t *testing.T) {
	t.Parallel()
	const n = 10
	for _, tasks := range []int{1, 2, 4, 12} {
		runInBubble(t, fmt.Sprint("tasks=", tasks), func(t *testing.T) {
			var mu sync.Mutex
			var running []int // the tasks running, in order of starting
			var most int
			release := make([]chan struct{}, n)
			var list []Task[int]
			for i := range n {
				release[i] = make(chan struct{})
				list = append(list, func(ctx context.Context, _ *Claim, emit func(int) bool) {
					mu.Lock()
					running = append(running, i)
					most = max(most, len(running))
					mu.Unlock()
					<-release[i]
					mu.Lock()
					running = slices.DeleteFunc(running, func(j int) bool { return j == i })
					mu.Unlock()
					emit(i)
				})
			}
			var calls atomic.Int64
			p := Start(t.Context(), NewGate(2), Config{Tasks: tasks, Ahead: n}, taskList(list, &calls))
			defer p.Stop()
			for done := 0; done < n; done++ {
				synctest.Wait()
				var want []int
				for i := done; i < min(done+tasks, n); i++ {
					want = append(want, i)
				}
				mu.Lock()
				now := slices.Clone(running)
				mu.Unlock()
				slices.Sort(now) // they start in order, run in any
				d := cmp.Diff(want, now)
				if d != "" {
					t.Fatalf("after %d tasks finished, running:\n%s", done, d)
				}
				close(release[done])
			}
			if d := cmp.Diff(idRangeInt(0, n-1), drain(p)); d != "" {
				t.Fatalf("results:\n%s", d)
			}
			if most != min(tasks, n) {
				t.Fatalf("at most %d tasks ran at once, want %d", most, min(tasks, n))
			}
		})
	}
}

func idRangeInt(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// TestPipelineBoundsResultsHeldAhead: tasks other than the head hold at
// most Config.Ahead results in all, and with Ahead 0 a result waits in its
// task until the task is the head. The consumer marks the task it is
// about to read from as the head before calling Next (which makes it the
// head): a result counted as held ahead, returned by emit while its task
// was not yet marked, surely took one of the places.
func TestPipelineBoundsResultsHeldAhead(t *testing.T) {
	t.Parallel()
	const tasks, each = 4, 5
	for _, ahead := range []int{0, 1, 3, 8, 20} {
		runInBubble(t, fmt.Sprint("ahead=", ahead), func(t *testing.T) {
			var mu sync.Mutex
			head := -1 // the task the consumer reads from
			held, most := 0, 0
			aheadOf := map[int]bool{} // results counted as held ahead
			var list []Task[int]
			for i := range tasks {
				list = append(list, func(ctx context.Context, _ *Claim, emit func(int) bool) {
					for j := range each {
						k := i*each + j
						if !emit(k) {
							return
						}
						mu.Lock()
						if i > head {
							aheadOf[k] = true
							held++
							most = max(most, held)
						}
						mu.Unlock()
					}
				})
			}
			var calls atomic.Int64
			p := Start(t.Context(), NewGate(2), Config{Tasks: tasks, Ahead: ahead}, taskList(list, &calls))
			defer p.Stop()
			synctest.Wait()
			mu.Lock()
			if held != min(ahead, tasks*each) {
				t.Errorf("before the first Next, %d results are held, want %d", held, min(ahead, tasks*each))
			}
			mu.Unlock()
			for k := range tasks * each {
				mu.Lock()
				head = k / each
				if aheadOf[k] {
					held--
				}
				mu.Unlock()
				got, ok := p.Next()
				if !ok || got != k {
					t.Fatalf("Next = %d, %v; want %d, true", got, ok, k)
				}
				synctest.Wait()
			}
			if _, ok := p.Next(); ok {
				t.Fatal("a result after the last")
			}
			if most > ahead {
				t.Fatalf("%d results held ahead at once, bound %d", most, ahead)
			}
		})
	}
}

// TestPipelineStopCancelsAndWaits: Stop returns once every task and next
// have returned, whatever they were doing.
func TestPipelineStopCancelsAndWaits(t *testing.T) {
	t.Parallel()
	forever := 1 << 30
	tests := []struct {
		name string
		// task blocks or loops until the pipeline stops.
		task Task[int]
		cfg  Config
		// next gives tasks this many times, then waits for the context.
		tasks int
		read  int // results read before Stop
		// running and inNext are what runs when Stop is called.
		running, inNext int64
	}{
		{
			name:    "tasks waiting on the context",
			task:    func(ctx context.Context, _ *Claim, emit func(int) bool) { <-ctx.Done() },
			cfg:     Config{Tasks: 3, Ahead: 2},
			tasks:   forever,
			running: 3,
		},
		{
			name: "tasks emitting until told to stop",
			task: func(ctx context.Context, _ *Claim, emit func(int) bool) {
				for emit(1) {
				}
			},
			cfg:     Config{Tasks: 3, Ahead: 2},
			tasks:   forever,
			read:    5,
			running: 3,
		},
		{
			name: "tasks held by the gate",
			task: func(ctx context.Context, c *Claim, emit func(int) bool) {
				c.Acquire(ctx)
				<-ctx.Done()
			},
			cfg:     Config{Tasks: 4, InOrder: true},
			tasks:   forever,
			running: 4,
		},
		{
			name:    "next waiting on the context",
			task:    func(ctx context.Context, _ *Claim, emit func(int) bool) { emit(1) },
			cfg:     Config{Tasks: 3, Ahead: 1},
			tasks:   5,
			read:    2,
			running: 2, // of the three unread, one gave its result ahead
			inNext:  1,
		},
	}
	for _, tt := range tests {
		runInBubble(t, tt.name, func(t *testing.T) {
			var started, ended, inNext atomic.Int64
			given := 0
			next := func(ctx context.Context) (Task[int], bool) {
				inNext.Add(1)
				defer inNext.Add(-1)
				if given == tt.tasks {
					<-ctx.Done() // next itself waiting for something
					return nil, false
				}
				given++
				return func(ctx context.Context, c *Claim, emit func(int) bool) {
					started.Add(1)
					defer ended.Add(1)
					tt.task(ctx, c, emit)
				}, true
			}
			p := Start(t.Context(), NewGate(2), tt.cfg, next)
			for range tt.read {
				if _, ok := p.Next(); !ok {
					t.Fatal("Next ended early")
				}
			}
			synctest.Wait()
			if r, n := started.Load()-ended.Load(), inNext.Load(); r != tt.running || n != tt.inNext {
				t.Fatalf("before Stop: %d tasks running and %d in next, want %d and %d", r, n, tt.running, tt.inNext)
			}
			p.Stop()
			if s, e, n := started.Load(), ended.Load(), inNext.Load(); s != e || n != 0 {
				t.Fatalf("after Stop: %d tasks started, %d ended, %d in next", s, e, n)
			}
			if _, ok := p.Next(); ok {
				t.Fatal("Next returned a result after Stop")
			}
		})
	}
}

// endingContext is a context that the test ends, with the error it
// chooses (context.DeadlineExceeded without waiting for a deadline).
type endingContext struct {
	context.Context
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func newEndingContext(parent context.Context) *endingContext {
	return &endingContext{Context: parent, done: make(chan struct{})}
}

func (c *endingContext) Done() <-chan struct{} { return c.done }

func (c *endingContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *endingContext) end(err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	close(c.done)
}

// TestPipelineStopsOnADoneContext: a done context ends Next with its
// error, and the results that arrived ahead are dropped.
func TestPipelineStopsOnADoneContext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		read int // results read before the context ends
		err  error
	}{
		{"cancelled before the first result", 0, context.Canceled},
		{"cancelled midway through a task", 4, context.Canceled},
		{"cancelled after a task's last result", 3, context.Canceled},
		{"past its deadline", 7, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		runInBubble(t, tt.name, func(t *testing.T) {
			ctx := newEndingContext(t.Context())
			var emitted atomic.Int64
			var list []Task[int]
			for i := range 4 {
				list = append(list, func(ctx context.Context, _ *Claim, emit func(int) bool) {
					for j := range 3 {
						if emit(i*3 + j) {
							emitted.Add(1)
						}
					}
				})
			}
			var calls atomic.Int64
			p := Start(ctx, NewGate(2), Config{Tasks: 4, Ahead: 12}, taskList(list, &calls))
			defer p.Stop()
			var got []int
			for range tt.read {
				r, _ := p.Next()
				got = append(got, r)
			}
			synctest.Wait()
			if emitted.Load() != 12 {
				t.Fatalf("%d results emitted before the context ended, want all 12", emitted.Load())
			}
			ctx.end(tt.err)
			// The pipeline's own context, a child of one of another
			// type, ends on a goroutine of package context.
			synctest.Wait()
			if r, ok := p.Next(); ok {
				t.Fatalf("Next = %d after the context ended", r)
			}
			if err := ctx.Err(); !errors.Is(err, tt.err) {
				t.Fatalf("the caller's ctx.Err() = %v, want %v", err, tt.err)
			}
			if d := cmp.Diff(idRangeInt(0, tt.read-1), got); d != "" {
				t.Fatalf("results before the end:\n%s", d)
			}
		})
	}
}

// TestPipelineInOrderGivesFirstSlotsInTaskOrder: with InOrder, tasks take
// their first slot in task order even when the later ones are ready
// first; without it, a ready task does not wait for the ones before it.
// The gate has n = 2 and no Next is called, so that no task is the head:
// one task at a time holds a slot.
func TestPipelineInOrderGivesFirstSlotsInTaskOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		inOrder bool
		ready   []int // the order in which the tasks are ready to send
		// skip are tasks that end without sending.
		skip map[int]bool
		want []int // the order of their first slots
	}{
		{"in order, ready in reverse", true, []int{3, 2, 1, 0}, nil, []int{0, 1, 2, 3}},
		{"in order, ready at random", true, []int{2, 0, 3, 1}, nil, []int{0, 1, 2, 3}},
		{"in order, the first ends without sending", true, []int{3, 2, 1, 0}, map[int]bool{0: true}, []int{1, 2, 3}},
		{"in order, two end without sending", true, []int{3, 0, 2, 1}, map[int]bool{1: true, 2: true}, []int{0, 3}},
		{"as ready, in reverse", false, []int{3, 2, 1, 0}, nil, []int{3, 2, 1, 0}},
		{"as ready, at random", false, []int{2, 0, 3, 1}, nil, []int{2, 0, 3, 1}},
	}
	for _, tt := range tests {
		runInBubble(t, tt.name, func(t *testing.T) {
			const n = 4
			ready := make([]chan struct{}, n)
			finish := make([]chan struct{}, n)
			var mu sync.Mutex
			var took []int
			tookNow := func() []int {
				mu.Lock()
				defer mu.Unlock()
				return slices.Clone(took)
			}
			var list []Task[int]
			for i := range n {
				ready[i], finish[i] = make(chan struct{}), make(chan struct{})
				list = append(list, func(ctx context.Context, c *Claim, emit func(int) bool) {
					<-ready[i]
					if tt.skip[i] {
						return
					}
					c.Acquire(ctx)
					mu.Lock()
					took = append(took, i)
					mu.Unlock()
					<-finish[i]
				})
			}
			var calls atomic.Int64
			p := Start(t.Context(), NewGate(2), Config{Tasks: n, InOrder: tt.inOrder}, taskList(list, &calls))
			defer p.Stop()
			isReady := map[int]bool{}
			for _, i := range tt.ready {
				close(ready[i])
				isReady[i] = true
				synctest.Wait()
				if !tt.inOrder {
					// The ready one went at once; let it finish.
					if d := cmp.Diff(tt.want[:len(isReady)], tookNow()); d != "" {
						t.Fatalf("first slots once %v are ready:\n%s", tt.ready[:len(isReady)], d)
					}
					close(finish[i])
					continue
				}
				// Only the first to send can have gone: it holds the
				// one slot until it finishes.
				var want []int
				if isReady[tt.want[0]] && (tt.want[0] == 0 || allOf(isReady, tt.skip, tt.want[0])) {
					want = tt.want[:1]
				}
				if d := cmp.Diff(want, tookNow()); d != "" {
					t.Fatalf("first slots once %v are ready:\n%s", tt.ready[:len(isReady)], d)
				}
			}
			if !tt.inOrder {
				return
			}
			for k := 0; k < len(tt.want); k++ {
				synctest.Wait()
				if d := cmp.Diff(tt.want[:k+1], tookNow()); d != "" {
					t.Fatalf("first slots after %d tasks finished:\n%s", k, d)
				}
				close(finish[tt.want[k]])
			}
		})
	}
}

// allOf reports whether every task before task i that skips is ready.
func allOf(ready, skip map[int]bool, i int) bool {
	for j := range i {
		if skip[j] && !ready[j] {
			return false
		}
	}
	return true
}

package pager

import (
	"context"
	"sync"
)

// Config sizes a pipeline.
type Config struct {
	// Tasks is how many tasks run at once.
	Tasks int
	// Ahead is how many results tasks other than the head may hold, in
	// all. With 0, a task's result waits in the task until it is the head.
	Ahead int
	// InOrder makes tasks take their first slot in task order, not in the
	// order their goroutines happen to run, so that a late task does not
	// hold up the ones before it. Only for tasks that send their first
	// request at once: one that first waits for something else would hold
	// up every task behind it.
	InOrder bool
}

// Task produces results, in order, through emit; emit returns false when
// the pipeline stops, and the task should then return. Its requests pass
// the claim (Request.Claim).
type Task[R any] func(ctx context.Context, c *Claim, emit func(R) bool)

// Pipeline runs tasks concurrently and delivers their results in task
// order: every result of a task before any of the next one's. See the
// package documentation.
type Pipeline[R any] struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	ahead  chan struct{} // nil when Ahead is 0: no result goes ahead
	succ   <-chan *taskRec[R]
	cur    *taskRec[R] // the head
}

// taskRec is a task that has been started: its results, in order, and
// head, closed when the consumer starts on them. succ receives the task
// started after it, and is closed when none will be.
type taskRec[R any] struct {
	results chan result[R]
	head    chan struct{}
	claim   *Claim
	succ    chan *taskRec[R]
}

type result[R any] struct {
	r     R
	ahead bool // holds a place of Config.Ahead
}

// Start runs the tasks that next returns, in order, until it returns
// false, with cfg.Tasks of them at once; their requests pass g. next runs
// on a goroutine of the pipeline and may block (it should return false
// once ctx is done). Results are read with Next; Stop must be called.
func Start[R any](ctx context.Context, g *Gate, cfg Config, next func(context.Context) (Task[R], bool)) *Pipeline[R] {
	ctx, cancel := context.WithCancel(ctx)
	first := make(chan *taskRec[R], 1)
	p := &Pipeline[R]{ctx: ctx, cancel: cancel, succ: first}
	if cfg.Ahead > 0 {
		p.ahead = make(chan struct{}, cfg.Ahead)
	}
	running := make(chan struct{}, max(cfg.Tasks, 1))
	p.wg.Go(func() {
		succ := first
		defer func() { close(succ) }()
		var turn <-chan struct{}
		for {
			task, ok := next(ctx)
			if !ok {
				return
			}
			select {
			case running <- struct{}{}:
			case <-ctx.Done():
				return
			}
			// A place for every result a task may hold ahead, and one: a
			// task that took a place never waits to send.
			rec := &taskRec[R]{results: make(chan result[R], cfg.Ahead+1), head: make(chan struct{}), succ: make(chan *taskRec[R], 1)}
			claim := &Claim{gate: g, head: rec.head}
			if cfg.InOrder {
				claim.turn, claim.took = turn, make(chan struct{})
				turn = claim.took
			}
			rec.claim = claim
			succ <- rec // buffered: never blocks
			succ = rec.succ
			p.wg.Go(func() {
				defer func() { <-running }()
				defer close(rec.results)
				defer claim.Done()
				task(ctx, claim, func(r R) bool { return p.emit(rec, r) })
			})
		}
	})
	return p
}

// emit queues r, once it may be held: at once for the head, else when a
// place of Config.Ahead is free (or the task has become the head).
func (p *Pipeline[R]) emit(rec *taskRec[R], r R) bool {
	m := result[R]{r: r}
	select {
	case <-rec.head:
	default:
		select {
		case p.ahead <- struct{}{}:
			m.ahead = true
		case <-rec.head:
		case <-p.ctx.Done():
			return false
		}
	}
	select {
	case rec.results <- m:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// Next returns the next result in task order. It returns false when every
// task has ended, or when the context is done (the caller's ctx.Err() says
// so): results that arrived ahead are then dropped, as a sequential
// reading would not have fetched them.
func (p *Pipeline[R]) Next() (R, bool) {
	var zero R
	for {
		if p.cur == nil {
			rec, ok := <-p.succ
			if !ok {
				return zero, false
			}
			p.cur, p.succ = rec, rec.succ
			close(rec.head)
			rec.claim.giveOthers()
		}
		m, ok := <-p.cur.results
		if !ok {
			p.cur = nil
			continue
		}
		if m.ahead {
			<-p.ahead
		}
		if p.ctx.Err() != nil {
			return zero, false
		}
		return m.r, true
	}
}

// Stop cancels every task and waits for them and for next: no goroutine
// of the pipeline outlives it.
func (p *Pipeline[R]) Stop() {
	p.cancel()
	p.wg.Wait()
}

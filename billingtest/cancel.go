package billingtest

import "context"

// ctxCheckEvery is how many rows a filter tests between two looks at the
// request's context: often enough that a list stops within microseconds
// of its client leaving, rarely enough that the look costs nothing.
const ctxCheckEvery = 256

// untilDone is pred, but once ctx has ended it tests no more rows and
// admits none, so that a list whose client has gone stops its filtering
// at once; the handler then sees ctx.Err() and sends nothing. A nil pred
// (no filter) stays nil: a list without a filter costs a bounded scan.
func untilDone[T any](ctx context.Context, pred func(T) bool) func(T) bool {
	if pred == nil || ctx.Done() == nil {
		return pred
	}
	n, done := 0, false
	return func(row T) bool {
		if done {
			return false
		}
		if n++; n%ctxCheckEvery == 0 && ctx.Err() != nil {
			done = true
			return false
		}
		return pred(row)
	}
}

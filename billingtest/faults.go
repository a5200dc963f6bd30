package billingtest

import (
	"fmt"
	"sync"
	"time"
)

// Drop says when a fault cuts the connection.
type Drop int

const (
	// NoDrop answers normally.
	NoDrop Drop = iota
	// DropBeforeApply cuts the connection after reading the request and
	// before handling it: a write is not applied.
	DropBeforeApply
	// DropAfterApply handles the request, so a write is applied, then cuts
	// the connection instead of answering.
	DropAfterApply
)

// Fault is what the next requests to a route get instead of a normal
// answer, for testing retries and recovery.
type Fault struct {
	// Times is how many requests the fault applies to (0 means 1).
	Times int
	// Status, when set, answers with that status and the error body,
	// without handling the request.
	Status int
	// RetryAfter, with Status, sets the Retry-After header (whole seconds).
	RetryAfter time.Duration
	// Delay holds the request this long before going on (less if the
	// client gives up first; a fake being closed ends it at once with
	// 503, see [Server.Close]).
	Delay time.Duration
	// Drop cuts the connection before or after the request is handled.
	Drop Drop
	// Truncate handles the request, then sends the headers and only half
	// of the body before cutting the connection.
	Truncate bool
}

type faults struct {
	mu      sync.Mutex
	pending map[Route][]Fault
}

// InjectFault makes the next f.Times requests to route get f. Faults on a
// route are applied in the order injected. It applies before
// authentication and throttling, like a failing proxy in front of the
// service.
//
// route is one of the Route constants, a Route returned by
// [Server.HandleFunc], or either written in another case.
func (s *Server) InjectFault(route Route, f Fault) error {
	spec, ok := s.lookupRoute(string(route))
	if !ok {
		return fmt.Errorf("InjectFault: unknown route %q", route)
	}
	route = spec.route
	if f.Times < 0 || f.Status < 0 || f.Delay < 0 || f.RetryAfter < 0 {
		return fmt.Errorf("InjectFault: negative value in %+v", f)
	}
	if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
		return fmt.Errorf("InjectFault: status %d is not an error status", f.Status)
	}
	if f.Times == 0 {
		f.Times = 1
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if s.faults.pending == nil {
		s.faults.pending = map[Route][]Fault{}
	}
	s.faults.pending[route] = append(s.faults.pending[route], f)
	return nil
}

// ClearFaults removes every pending fault.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.pending = nil
}

// take returns the fault for the next request to route, if any.
func (fs *faults) take(route Route) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	queue := fs.pending[route]
	if len(queue) == 0 {
		return Fault{}, false
	}
	f := queue[0]
	if queue[0].Times--; queue[0].Times == 0 {
		fs.pending[route] = queue[1:]
	}
	return f, true
}

package billingtest

import "sync"

// flights counts the requests Server.Transport is serving, so that Close
// can wait for them as httptest.Server.Close waits for those on its
// connections.
type flights struct {
	mu     sync.Mutex
	idle   *sync.Cond // signalled when n drops to 0; made on first use
	n      int
	closed bool
}

// start counts a request in, or refuses it when the fake is closed and
// refuse says a closed fake serves nothing.
func (f *flights) start(refuse bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed && refuse {
		return ErrClosed
	}
	f.n++
	return nil
}

// end counts a request out.
func (f *flights) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 && f.idle != nil {
		f.idle.Broadcast()
	}
}

// closeAndWait marks the fake closed and waits for the requests in
// flight.
func (f *flights) closeAndWait() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	if f.idle == nil {
		f.idle = sync.NewCond(&f.mu)
	}
	for f.n > 0 {
		f.idle.Wait()
	}
}

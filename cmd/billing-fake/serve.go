package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// shutdownGrace is how long stopping waits for the requests in flight
// before it closes the connections still open. The fake answers from
// memory, in milliseconds, and requests held by an injected delay end as
// soon as stopping begins; a connection still busy after the grace is a
// client that stalled (in the middle of its headers or body, or not
// reading its answer), and must not hold up the exit.
const shutdownGrace = 250 * time.Millisecond

// newHTTPServer returns the server billing-fake serves handler with.
//
// ReadHeaderTimeout and IdleTimeout bound what a client that sends
// nothing holds. There is no ReadTimeout or WriteTimeout: net/http keeps
// ReadTimeout's deadline on the connection while the handler runs and
// cancels the request's context when it passes, and WriteTimeout cuts the
// answer, so either would end a request held by an injected delay (an
// hour's delay is how a client's own timeout is tested) before the delay
// does. Stopping does not rely on them: see serve.
func newHTTPServer(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
}

// serve serves srv on ln until ctx is done, then stops: ln is closed at
// once, requests in flight have shutdownGrace to finish, and the
// connections still open after it are closed, whatever their clients are
// doing. Stopping so is a clean stop, and serve returns nil; it says on
// stderr how many connections it closed. connState, when not nil, is told
// of every change of a connection's state after serve has counted it.
func serve(ctx context.Context, srv *http.Server, ln net.Listener, stderr io.Writer, connState func(net.Conn, http.ConnState)) error {
	var conns openConns
	srv.ConnState = func(c net.Conn, state http.ConnState) {
		conns.track(c, state)
		if connState != nil {
			connState(c, state)
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}

	graceCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(graceCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		// Shutdown has closed the listener and the idle connections; the
		// rest are clients that stalled. Close ends them (their handlers'
		// reads and writes fail) without waiting for anything.
		open := conns.count()
		err = srv.Close()
		fmt.Fprintf(stderr, "billing-fake: closed %d connection(s) still open %v after the stop signal\n", open, shutdownGrace)
	}
	if err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// openConns counts the server's connections that are not closed yet, for
// the report of a stop that had to close them.
type openConns struct {
	mu   sync.Mutex
	open map[net.Conn]struct{}
}

// track is the server's ConnState hook.
func (o *openConns) track(c net.Conn, state http.ConnState) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.open == nil {
		o.open = make(map[net.Conn]struct{})
	}
	switch state {
	case http.StateClosed, http.StateHijacked:
		delete(o.open, c)
	default:
		o.open[c] = struct{}{}
	}
}

// count returns the number of connections open.
func (o *openConns) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.open)
}

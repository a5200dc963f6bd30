package httpmockwiring_test

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
)

// replaceDefault puts rt in http.DefaultTransport until the test ends.
func replaceDefault(t *testing.T, rt http.RoundTripper) {
	t.Helper()
	requireDefaultUntouched(t)
	old := http.DefaultTransport
	http.DefaultTransport = rt
	t.Cleanup(func() { http.DefaultTransport = old })
}

// countingRoundTripper counts the requests it sends through next.
type countingRoundTripper struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *countingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(req)
}

// A client without WithHTTPClient keeps its own pool of connections while
// http.DefaultTransport is a *http.Transport, whichever: that only says
// how to reach the network, which the pool does too.
func TestADefaultTransportOfTypeTransportKeepsTheClientsPool(t *testing.T) {
	l := newListener(t)
	var dials atomic.Int64
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	replaceDefault(t, tr)
	calls(t, newClient(t, l.URL))
	if n, d := l.hits.Load(), dials.Load(); n != 2 || d != 0 {
		t.Errorf("%d requests reached the server, %d dials went through http.DefaultTransport; want 2 and 0", n, d)
	}
}

// Any other RoundTripper in http.DefaultTransport (instrumentation, a
// recorder, a mock) takes every request of a client without
// WithHTTPClient, whether it was put there before or after NewClient.
func TestAnotherDefaultTransportIsUsed(t *testing.T) {
	for _, before := range []bool{true, false} {
		name := map[bool]string{true: "before NewClient", false: "after NewClient"}[before]
		t.Run(name, func(t *testing.T) {
			l := newListener(t)
			own := ownTransport(t)
			rt := &countingRoundTripper{next: own}
			if before {
				replaceDefault(t, rt)
			}
			c := newClient(t, l.URL)
			if !before {
				replaceDefault(t, rt)
			}
			calls(t, c)
			if n, through := l.hits.Load(), rt.n.Load(); n != 2 || through != 2 {
				t.Errorf("%d requests reached the server, %d through http.DefaultTransport; want 2 and 2", n, through)
			}
		})
		requireDefaultUntouched(t)
	}
}

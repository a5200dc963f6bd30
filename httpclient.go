package billing

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/go-cleanhttp"
)

// The client never copies an http.Client or snapshots a transport: test
// doubles (httpmock and its kind) work by replacing http.DefaultTransport
// or a client's Transport field, before or after the code under test builds
// its clients, and go-github's client, built on the default transport,
// reaches them either way because net/http reads http.DefaultTransport
// when each request goes out. So does this client, by the two small
// transports below, and by building the http.Client of each call from
// the caller's client as it is at that moment (httpClient).

// defaultTransport is the transport of a client built without
// [WithHTTPClient]. When http.DefaultTransport is a *http.Transport, the
// standard library's or one the program put there, it only says how to
// reach the network, and the client uses its own pool instead, as it
// always did: one tuned for prefetching (see newPool). When the program
// has replaced http.DefaultTransport with any other RoundTripper
// (httpmock.Activate, a recorder, instrumentation), each request goes
// through that one, read when the request goes out.
type defaultTransport struct {
	pool *http.Transport
}

// RoundTrip sends req through the current choice (see defaultTransport).
func (t defaultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rt := http.DefaultTransport
	if _, network := rt.(*http.Transport); network || rt == nil {
		return t.pool.RoundTrip(req)
	}
	return rt.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of the client's own
// pool; a replacement of http.DefaultTransport belongs to the program.
func (t defaultTransport) CloseIdleConnections() { t.pool.CloseIdleConnections() }

// newPool is the client's own pool of connections.
func newPool() *http.Transport {
	t := cleanhttp.DefaultPooledTransport()
	// Keep a connection per prefetch worker: with the default of
	// GOMAXPROCS+1 idle connections a prefetching iterator would open
	// (and TLS-handshake) new ones all the time.
	t.MaxIdleConnsPerHost = max(t.MaxIdleConnsPerHost, maxPrefetch)
	return t
}

// callerTransport is the transport of a client built with
// [WithHTTPClient]: the caller's client's Transport as it is when each
// request goes out, or, when that is nil, http.DefaultTransport, as
// net/http itself does for such a client.
type callerTransport struct {
	hc *http.Client
}

// RoundTrip sends req through the caller's current transport.
func (t callerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rt := t.hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	return rt.RoundTrip(req)
}

// CloseIdleConnections forwards to the caller's client.
func (t callerTransport) CloseIdleConnections() { t.hc.CloseIdleConnections() }

// httpClient is the http.Client of one call, made when the call starts:
// the client's transport (which resolves the caller's at each attempt),
// the per-attempt timeout, and the caller's Jar and, unless [WithTimeout]
// was given, Timeout, as they are now. A read follows redirects within the
// API's host (checkRedirect); a write never follows one, and goes through
// writeTransport.
func (cfg *clientConfig) httpClient(write bool) *http.Client {
	hc := &http.Client{Transport: cfg.transport, Timeout: cfg.timeout, CheckRedirect: cfg.checkRedirect}
	if u := cfg.userHTTPClient; u != nil {
		hc.Jar = u.Jar
		if !cfg.timeoutSet {
			hc.Timeout = u.Timeout
		}
	}
	if write {
		// net/http would send a write's body again on a 307 or 308, and
		// turn it into a GET on the others.
		hc.CheckRedirect = refuseRedirects
		hc.Transport = writeTransport{next: hc.Transport}
	}
	return hc
}

func refuseRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// checkRedirect refuses redirects that leave the API's scheme and host, so
// that credentials and bodies never follow them elsewhere, and loops; then
// asks the caller's CheckRedirect, as it is at that moment, if any.
func (cfg *clientConfig) checkRedirect(req *http.Request, via []*http.Request) error {
	base := cfg.baseURL
	if !strings.EqualFold(req.URL.Host, base.Host) || req.URL.Scheme != base.Scheme {
		return fmt.Errorf("%w: to %s://%s", errRedirectRefused, req.URL.Scheme, req.URL.Host)
	}
	if len(via) >= maxRedirects {
		return errRedirectLoop
	}
	if u := cfg.userHTTPClient; u != nil && u.CheckRedirect != nil {
		return u.CheckRedirect(req, via)
	}
	return nil
}

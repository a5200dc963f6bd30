package billingtest

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/billingapi/billing-go/billingtest/internal/control"
)

// A web page the developer visits can make the browser send requests to
// the fake after DNS rebinding: its own name, resolved a second time to
// 127.0.0.1, reaches the fake's port as a same-origin request that can
// read answers. The default key is published and the port predictable,
// so such a page could read, replace or reset the state and inject
// faults. A rebound request still carries the page's name in Host, so the
// fake serves only requests whose Host is one of its own: a loopback name
// or address, the address the request arrived on, or one the test allows
// ([WithAllowedHosts]), as a server behind a host-name binding (IIS's, for
// one) refuses other names.

// WithAllowedHosts adds host names (or addresses) that requests may give
// in their Host header, without a port, compared without regard to case;
// "*" allows any. By default the fake serves only requests whose Host is
// localhost (or a name under .localhost), a loopback address, or the
// address the request arrived on, and answers any other 400 before
// reading the key: a web page cannot drive the fake through DNS
// rebinding. Name the host a container or another machine reaches the
// fake by (billing-fake, for a compose service) when it is not an
// address. Requests handed to [Server.Handler] in process, which arrived
// on no connection, are not checked.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *config) error {
		if len(hosts) == 0 {
			return fmt.Errorf("WithAllowedHosts: no host")
		}
		for _, h := range hosts {
			switch {
			case h == "*":
				c.anyHost = true
				continue
			case h == "":
				return fmt.Errorf("WithAllowedHosts: empty host")
			case net.ParseIP(h) == nil && strings.ContainsAny(h, ":/@[] \t"):
				return fmt.Errorf("WithAllowedHosts: %q is not a host name or address (give it without a port)", h)
			}
			c.allowedHosts = append(c.allowedHosts, canonicalHost(h))
		}
		return nil
	}
}

// canonicalHost is h lower-cased, without a trailing dot or the brackets
// of an IPv6 address.
func canonicalHost(h string) string {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// hostAllowed reports whether r's Host names this fake (see
// WithAllowedHosts).
func (s *Server) hostAllowed(r *http.Request) bool {
	local, arrived := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !arrived || local.Network() == "pipe" || s.cfg.anyHost || r.Host == "" {
		// In process (Handler or Transport), or a client without Host
		// (HTTP/1.0): no browser sends such a request.
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = canonicalHost(host)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLoopback() {
			return true
		}
		if tcp, ok := local.(*net.TCPAddr); ok && tcp.IP.Equal(ip) {
			return true
		}
	}
	for _, a := range s.cfg.allowedHosts {
		if a == host {
			return true
		}
	}
	return false
}

// refuseHost answers a request whose Host is not the fake's.
func (s *Server) refuseHost(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if len(host) > 100 {
		host = host[:100] + "..."
	}
	s.writeError(w, http.StatusBadRequest, errorKeyAPI, fmt.Sprintf("Host %s is not an address of this fake: it serves localhost, loopback addresses and the address it listens on; allow other names with WithAllowedHosts (billing-fake -allowed-hosts)", control.Quote(host)))
}

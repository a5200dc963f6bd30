package control

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
)

// A web page the developer visits can make the browser send requests to
// the fake after DNS rebinding: its own name, resolved a second time to
// 127.0.0.1, reaches the fake's port as a same-origin request that can
// read answers. The default key is published and the port predictable,
// so such a page could read, replace or reset the state and inject
// faults. A rebound request still carries the page's name in Host, so the
// fake serves only requests whose Host is one of its own: a loopback name
// or address, the address the request arrived on, or one the test allows
// (WithAllowedHosts), as a server behind a host-name binding (IIS's, for
// one) refuses other names.

// Hosts are the host names a fake serves besides its own.
type Hosts struct {
	any   bool
	names []string // canonical
}

// Allow adds host names or addresses, without a port; "*" allows any.
func (h *Hosts) Allow(hosts ...string) error {
	if len(hosts) == 0 {
		return fmt.Errorf("no host")
	}
	for _, host := range hosts {
		switch {
		case host == "*":
			h.any = true
			continue
		case host == "":
			return fmt.Errorf("empty host")
		case net.ParseIP(host) == nil && strings.ContainsAny(host, ":/@[] \t"):
			return fmt.Errorf("%q is not a host name or address (give it without a port)", host)
		}
		h.names = append(h.names, canonicalHost(host))
	}
	return nil
}

// canonicalHost is h lower-cased, without a trailing dot or the brackets
// of an IPv6 address.
func canonicalHost(h string) string {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// Refuse is the message of the 400 that answers r when its Host names
// neither the fake nor an allowed host, or "" when it does.
func (h *Hosts) Refuse(r *http.Request) string {
	if h.allows(r) {
		return ""
	}
	host := r.Host
	if len(host) > 100 {
		host = host[:100] + "..."
	}
	return fmt.Sprintf("Host %s is not an address of this fake: it serves localhost, loopback addresses and the address it listens on; allow other names with WithAllowedHosts (billing-fake -allowed-hosts)", Quote(host))
}

func (h *Hosts) allows(r *http.Request) bool {
	local, arrived := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !arrived || local.Network() == "pipe" || h.any || r.Host == "" {
		// In process (Handler or Transport), or a client without Host
		// (HTTP/1.0): no browser sends such a request.
		return true
	}
	host := r.Host
	if hp, _, err := net.SplitHostPort(host); err == nil {
		host = hp
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
	return slices.Contains(h.names, host)
}

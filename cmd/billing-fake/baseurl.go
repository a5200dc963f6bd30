package main

import (
	"fmt"
	"net"
	"runtime"
	"runtime/debug"
	"strconv"

	billing "github.com/billingapi/billing-go"
)

// baseURL is the URL a client on this machine reaches the listener at. A
// listener on every interface (0.0.0.0 or [::]) has no address a client
// can use, so its URL names the loopback address instead, on the same
// port; inside a container, that is the URL for the container's own
// processes, and others use the name or address they reach it by.
func baseURL(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return "http://" + addr.String()
	}
	ip := tcp.IP
	if ip == nil || ip.IsUnspecified() {
		// net.Listen("tcp", "[::]:port") takes IPv4 too (dual stack), so
		// the IPv4 loopback reaches either.
		ip = net.IPv4(127, 0, 0, 1)
	}
	return "http://" + net.JoinHostPort(ip.String(), strconv.Itoa(tcp.Port))
}

// versionLine is what -version prints: the SDK's version the fake is built
// from, the module's version and commit as the build recorded them, and
// the Go release.
func versionLine() string {
	module, revision := "(unknown)", ""
	if info, ok := debug.ReadBuildInfo(); ok {
		module = info.Main.Version
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	line := fmt.Sprintf("billing-fake %s (module %s", billing.Version, module)
	if revision != "" {
		line += ", commit " + revision
	}
	return line + ", " + runtime.Version() + ")"
}

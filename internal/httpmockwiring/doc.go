// Package httpmockwiring holds no code, only tests: those that show that
// every common way of wiring httpmock to a billing.Client reaches the
// mock, and that nothing meant for it reaches the network; and those of
// which transport a client without WithHTTPClient uses when the program
// has replaced http.DefaultTransport.
//
// They live in a package of their own because httpmock.Activate (like
// any replacement of http.DefaultTransport) changes it for the whole
// process, and the root package's tests, many of them parallel, send
// through http.DefaultTransport (and clone it as a *http.Transport). A test binary runs one package's tests,
// so here the only tests that can see the replaced transport are these,
// which run one after the other and leave the default as they found it.
package httpmockwiring

// Package throttle holds the pause that every request of one client
// shares. The service throttles an account, not a request: when it answers
// one request with 429 and a wait, or says on any answer that a rate-limit
// window has nothing left, a request that any other caller of the same
// client sends before that time is refused too, and spends the quota's
// answers for nothing. So the client keeps one Gate, closed until the
// latest such time, and each of its requests passes it before going out.
//
// The Gate knows no HTTP: the SDK tells it how long to hold (HoldFor) and
// asks it before each attempt (Wait), with the context of the call and
// the longest pause the call's retry policy lets the service impose.
package throttle

package billingtest

import (
	"math"
	"testing"
)

// WithScaleStore keeps the fake's invoices in the scale store from the
// start, whatever their number, and WithPlainStore in the plain store, so
// that a test runs against the one it names.
func WithScaleStore() Option { return withScaleAt(0) }

// WithPlainStore: see [WithScaleStore].
func WithPlainStore() Option { return withScaleAt(math.MaxInt) }

// withScaleAt chooses the store before any seeding does.
func withScaleAt(n int) Option {
	return func(c *config) error {
		c.seed = append([]func(*Server) error{func(s *Server) error {
			s.store.invoices.scaleAt = n
			s.store.invoices.fit(0)
			return nil
		}}, c.seed...)
		return nil
	}
}

// RawCall sends a request with the fake's key but without the SDK and
// returns the answer's body, failing t unless the status is want.
func RawCall(t *testing.T, srv *Server, method, path, body string, want int) []byte {
	t.Helper()
	r := wtDo(t, srv, method, path, body)
	wtWantStatus(t, r, want)
	return r.body
}

// RawError sends a request as RawCall does and returns the one entry of
// the error body, failing t unless the status is want and the body has
// the reference's shape exactly (see wireError).
func RawError(t *testing.T, srv *Server, method, path, body string, want int) (key, value string) {
	t.Helper()
	r := wtDo(t, srv, method, path, body)
	wtWantStatus(t, r, want)
	e := wireError(t, r)
	return e.Key, e.Value
}

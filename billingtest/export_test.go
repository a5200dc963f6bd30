package billingtest

import "math"

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

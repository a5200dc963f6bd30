package billingtest

import (
	"math"

	"github.com/billingapi/billing-go/billingtest/internal/scale"
)

// ClearListCache drops the fake's cached list encodings, so that a
// benchmark can measure encoding rather than the cache.
func ClearListCache(s *Server) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc, ok := s.store.invoices.invoiceStore.(*scale.Store); ok {
		sc.ClearListCache()
	}
}

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

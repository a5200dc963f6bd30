package billingtest

// ClearListCache drops the fake's cached list encodings, so that a
// benchmark can measure encoding rather than the cache.
func ClearListCache(s *Server) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store.listJSON.Clear()
}

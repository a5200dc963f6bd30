package billingtest

import "errors"

// Placeholders, replaced by the generator and fixtures implementation.

// GenerateOptions placeholder.
type GenerateOptions struct{}

// Generate placeholder.
func (s *Server) Generate(GenerateOptions) error { return errors.New("todo") }

// LoadFixturesFile placeholder.
func (s *Server) LoadFixturesFile(string) error { return errors.New("todo") }

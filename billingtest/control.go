package billingtest

import "net/http"

// isControlPath is replaced by the control API in the next commit.
func isControlPath(string) bool { return false }

func (s *Server) serveControl(http.ResponseWriter, *http.Request) {}

package billingtest

import "net/http"

// Placeholder handlers, replaced by the list implementation.

func (s *Server) handleListInvoices(w http.ResponseWriter, r *http.Request)         { s.todo(w) }
func (s *Server) handleListCustomerInvoices(w http.ResponseWriter, r *http.Request) { s.todo(w) }
func (s *Server) handleGetInvoice(w http.ResponseWriter, r *http.Request)           { s.todo(w) }
func (s *Server) handleInvoiceSummaries(w http.ResponseWriter, r *http.Request)     { s.todo(w) }
func (s *Server) handleSubscriptionItems(w http.ResponseWriter, r *http.Request)    { s.todo(w) }

func (s *Server) todo(w http.ResponseWriter) {
	s.writeError(w, http.StatusNotImplemented, errorKeyAPI, "todo")
}

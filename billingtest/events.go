package billingtest

import (
	"net/http"
	"strings"
	"time"
)

// EventKind is a kind of automated communication the service sends.
type EventKind string

// The kinds of automated communication in the reference's section 6.
const (
	// EventEmail is an email to the customer.
	EventEmail EventKind = "email"
	// EventWebhook is a webhook call to the account's endpoints.
	EventWebhook EventKind = "webhook"
	// EventCRM is an update to the CRM system.
	EventCRM EventKind = "crm"
	// EventAccounting is an update to the accounting system.
	EventAccounting EventKind = "accounting"
)

// Event is an automated communication a write would have triggered. The
// reference does not show which operation emits which event; the fake
// emits:
//
//	invoice.writeoff          webhook, crm, accounting, email
//	paymentMethod.replaced    webhook, email
//	paymentMethod.created     webhook, crm
//	salesTrackingCode.created webhook
//	bulkJob.processed         webhook, email
//
// A request with X-SUPPRESS-ALL-EVENTS: True emits none; any other value
// of that header is ignored.
type Event struct {
	// Kind is the kind of communication.
	Kind EventKind
	// Operation names the write, e.g. "invoice.writeoff".
	Operation string
	// EntityID is the id of the entity written: the invoice, the new
	// payment method, the tracking code or the bulk job.
	EntityID int64
	// Time is when the write happened, on the fake's clock.
	Time time.Time
}

// Events returns the events emitted so far, oldest first.
func (s *Server) Events() []Event { return logCopy(s, &s.events) }

// logCopy is a copy of log, one of the Server's logs, taken under logMu.
func logCopy[T any](s *Server, log *[]T) []T {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return append([]T(nil), *log...)
}

// ClearEvents forgets the events emitted so far.
func (s *Server) ClearEvents() {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.events = nil
}

// suppressed reports whether the request asked for no events. The value
// True is compared case-insensitively, as the service's boolean parsing
// does.
func suppressed(r *http.Request) bool {
	return strings.EqualFold(strings.TrimSpace(r.Header.Get("X-SUPPRESS-ALL-EVENTS")), "true")
}

// emit records the events of a successful write.
func (s *Server) emit(r *http.Request, operation string, id int64, kinds ...EventKind) {
	if suppressed(r) {
		return
	}
	now := s.now()
	s.logMu.Lock()
	defer s.logMu.Unlock()
	for _, k := range kinds {
		s.events = append(s.events, Event{Kind: k, Operation: operation, EntityID: id, Time: now})
	}
}

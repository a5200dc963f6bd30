// Package control is the fake's control API under /_fake/, over what it
// drives (Fake), and the Host guard in front of the whole fake; canned
// routes; and quoting for messages.
package control

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strconv"

	"github.com/billingapi/billing-go/internal/httpheader"
	"github.com/billingapi/billing-go/internal/jsonwire"
)

// CannedRoute is a route added over the control API (POST
// /_fake/routes): every request it matches gets the same answer.
type CannedRoute struct {
	Method string `json:"method"`
	// Path is a pattern as HandleFunc takes it: /v1/Invoices/{id}/Payments.
	Path string `json:"path"`
	// Status is the answer's status; 0 means 200.
	Status int `json:"status"`
	// Header holds extra response headers, sent as spelled here.
	Header map[string]string `json:"header"`
	// Body is the answer's JSON body; absent or null sends none.
	Body json.RawMessage `json:"body"`
}

// maxCannedHeaders bounds the headers of a canned answer.
const maxCannedHeaders = 64

// Handler checks the canned answer and returns the handler that sends
// it.
func (cr CannedRoute) Handler() (http.HandlerFunc, error) {
	status := cmp.Or(cr.Status, http.StatusOK)
	if status < 200 || status > 599 {
		return nil, fmt.Errorf("status %d: want 200 to 599", cr.Status)
	}
	if len(cr.Header) > maxCannedHeaders {
		return nil, fmt.Errorf("header: more than %d headers", maxCannedHeaders)
	}
	for name, v := range cr.Header {
		if !httpheader.ValidName(name) {
			return nil, fmt.Errorf("header %s: not a valid header name", Quote(name))
		}
		if !httpheader.ValidValue(v) {
			return nil, fmt.Errorf("header %s: the value holds a control character", Quote(name))
		}
	}
	var body []byte
	if len(cr.Body) > 0 && string(cr.Body) != "null" {
		body = append([]byte(nil), cr.Body...)
		if status == http.StatusNoContent || status == http.StatusNotModified {
			return nil, fmt.Errorf("status %d cannot carry a body", status)
		}
	}
	header := maps.Clone(cr.Header)
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			switch http.CanonicalHeaderKey(k) {
			case "Content-Length": // the body's own length is sent
			case "Content-Type":
				w.Header().Set(k, v)
			default:
				w.Header()[k] = []string{v} // as spelled, like the fake's own X-NextPage
			}
		}
		if body == nil {
			w.WriteHeader(status)
			return
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			_, _ = w.Write(body)
		}
	}, nil
}

// Quote is s as a JSON string, for messages that repeat what a client
// sent: quotes, and escapes for control characters.
func Quote(s string) string {
	b, _ := jsonwire.Marshal(s)
	return string(b)
}

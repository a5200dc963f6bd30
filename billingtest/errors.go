package billingtest

import (
	"github.com/billingapi/billing-go/internal/jsonwire"
	"net/http"
	"sync/atomic"
)

// errorKeyAPI is the key the reference gives most error entries.
const errorKeyAPI = "Api Error"

// errorBody is the reference's error body (section 7).
type errorBody struct {
	ErrorID        int64         `json:"ErrorId"`
	HTTPStatusCode int           `json:"HttpStatusCode"`
	Errors         []errorDetail `json:"Errors"`
}

type errorDetail struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

// errorIDs numbers error answers when [WithNumberedErrors] asks for it.
type errorIDs struct{ n atomic.Int64 }

// writeError answers with the reference's error body.
func (s *Server) writeError(w http.ResponseWriter, status int, key, message string) {
	var id int64 // 0, as in every answer of the live service seen
	if s.cfg.numberedErrors {
		id = s.errorIDs.n.Add(1)
	}
	body := errorBody{
		ErrorID:        id,
		HTTPStatusCode: status,
		Errors:         []errorDetail{{Key: key, Value: message}},
	}
	b, _ := jsonwire.Marshal(body)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

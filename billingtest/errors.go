package billingtest

import (
	"encoding/json"
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

// errorIDs numbers error answers, as the service's ErrorId does.
type errorIDs struct{ n atomic.Int64 }

// writeError answers with the reference's error body.
func (s *Server) writeError(w http.ResponseWriter, status int, key, message string) {
	body := errorBody{
		ErrorID:        s.errorIDs.n.Add(1),
		HTTPStatusCode: status,
		Errors:         []errorDetail{{Key: key, Value: message}},
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

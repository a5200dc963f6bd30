package billingtest

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"

	"github.com/billingapi/billing-go/internal/jsonwire"
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

// writeError answers with the reference's error body.
func (s *Server) writeError(w http.ResponseWriter, status int, key, message string) {
	var id int64 // 0, as in every answer of the live service seen
	if s.cfg.numberedErrors {
		id = s.errorIDs.Add(1)
	}
	b, _ := jsonwire.Marshal(errorBody{ErrorID: id, HTTPStatusCode: status, Errors: []errorDetail{{Key: key, Value: message}}})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// requestError is the one error of a refused request: the status and
// the message of its error body, under errorKeyAPI.
type requestError struct {
	status int
	key    string // "": errorKeyAPI
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) *requestError {
	return &requestError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// fail is a requestError of any status.
func fail(status int, format string, args ...any) *requestError {
	return &requestError{status: status, msg: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) *requestError {
	return &requestError{status: http.StatusNotFound, msg: fmt.Sprintf(format, args...)}
}

// writeRequestError answers with err's status and message under the key
// the reference gives these errors.
func (s *Server) writeRequestError(w http.ResponseWriter, err error) {
	var re *requestError
	if errors.As(err, &re) {
		s.writeError(w, re.status, cmp.Or(re.key, errorKeyAPI), re.msg)
		return
	}
	s.writeError(w, http.StatusBadRequest, errorKeyAPI, err.Error())
}

package billingtest

import (
	"io"
	"net/http"

	"github.com/billingapi/billing-go/billingtest/internal/bind"
	"github.com/billingapi/billing-go/billingtest/internal/control"
)

func (s *Server) controlAddRoute(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, maxRequestBody))
	var cr control.CannedRoute
	if err := bind.JSON(b, &cr); err != nil {
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, err.Error())
		return
	}
	h, err := cr.Handler()
	if err != nil {
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, err.Error())
		return
	}
	route, err := s.addRoute(cr.Method, cr.Path, h)
	if err != nil {
		s.writeError(w, http.StatusBadRequest, errorKeyAPI, err.Error())
		return
	}
	s.writeJSON(w, http.StatusCreated, routeJSON{Name: string(route), Route: route})
}

package billing

import (
	"context"
	"net/http"
)

// SalesTrackingCodesService creates sales tracking codes.
type SalesTrackingCodesService struct{ service }

// CreateSalesTrackingCodeParams are the parameters of
// [SalesTrackingCodesService.Create].
type CreateSalesTrackingCodeParams struct {
	// Type is one of the five categories (TrackingCodeType1 to
	// TrackingCodeType5) or the custom name given to one. Required.
	Type TrackingCodeType `json:"type"`
	// Code is required.
	Code string `json:"code"`
	// Name is required.
	Name string `json:"name"`
	// Description and Email are optional; empty is not sent.
	Description string `json:"description,omitempty"`
	Email       string `json:"email,omitempty"`
}

func (p *CreateSalesTrackingCodeParams) validate() error {
	switch {
	case p == nil:
		return invalid("CreateSalesTrackingCodeParams", "required")
	case p.Type == "":
		return invalid("type", "required: Sales Tracking Code 1 to 5, or a custom category name")
	case p.Code == "":
		return invalid("code", "required")
	case p.Name == "":
		return invalid("name", "required")
	}
	return nil
}

// SalesTrackingCode is a sales tracking code.
type SalesTrackingCode struct {
	ID          int64              `json:"id"`
	URI         *string            `json:"uri"`
	Type        TrackingCodeType   `json:"type"`
	Code        string             `json:"code"`
	Name        string             `json:"name"`
	Description *string            `json:"description"`
	Email       *string            `json:"email"`
	Status      TrackingCodeStatus `json:"status"`
	Deletable   bool               `json:"deletable"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

// Create creates a sales tracking code. It fails with [ErrBadRequest] when
// the type is not one of the five categories or their custom names; the
// error's message lists the valid types, and with [ErrConflict] when the
// category already has the code. Params without type, code or
// name are refused before sending with a [*ValidationError] matching
// [ErrInvalidParams].
// It is a write: it is retried only when the server surely did not act on
// it, and its error matches [ErrOutcomeUnknown] whenever the answer does not
// prove it was not applied.
//
// When the outcome is unknown, send the same params again: [ErrConflict]
// (the category already has the code) proves that the code exists.
//
// API: POST /v1/salesTrackingCodes
func (s *SalesTrackingCodesService) Create(ctx context.Context, params *CreateSalesTrackingCodeParams, opts ...RequestOption) (*SalesTrackingCode, error) {
	if err := params.validate(); err != nil {
		return nil, err
	}
	cl := &call{op: Operation{Name: "SalesTrackingCodes.Create", Method: http.MethodPost, PathTemplate: "/v1/salesTrackingCodes"},
		method: http.MethodPost, path: "/v1/salesTrackingCodes", body: params, write: true}
	return doInto[SalesTrackingCode](ctx, s.client, cl, opts, nil)
}

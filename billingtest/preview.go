package billingtest

import (
	"encoding/json"
	"net/http"

	"github.com/billingapi/billing-go/billingtest/internal/preview"
)

// The bulk price-change preview (section 4.11 of the reference) is
// computed by package preview, whose doc says what it lists. The
// reference does not show the answer; the fake's is a BulkPreview, with
// amounts as JSON numbers, which billing.BulkPriceChangePreview decodes.
type (
	// BulkPreview is the fake's answer to a bulk price-change preview.
	BulkPreview = preview.BulkPreview
	// BulkPreviewSubscription is one subscription whose prices would change.
	BulkPreviewSubscription = preview.BulkPreviewSubscription
	// BulkPreviewProduct is one plan product of a subscription whose price
	// would change.
	BulkPreviewProduct = preview.BulkPreviewProduct
)

// handleBulkPreview serves POST /v1/Subscribers/{planId}/PreviewBulkPriceChange.
func (s *Server) handleBulkPreview(r *http.Request) (any, error) {
	planID, err := pathID(r, "planId")
	if err != nil {
		return nil, err
	}
	queryText, _ := param(r.URL.Query(), "query")
	_, query, err := preview.Schema.Parse(queryText, false)
	if err != nil {
		return nil, badRequest("%s", err)
	}
	var raw json.RawMessage
	if err := decodeBody(r, &raw); err != nil {
		return nil, err
	}
	params, search, err := preview.Parse(raw, query)
	if err != nil {
		return nil, badRequest("%s", err)
	}
	s.mu.RLock()
	st := s.store
	out, found := preview.Run(planID, params, search, preview.Data{Order: st.subOrder, Subscriptions: st.subscriptions, Customers: st.customers, Codes: st.codes})
	s.mu.RUnlock()
	if !found {
		return nil, notFound("plan %d does not exist: no subscription belongs to it", planID)
	}
	return out, nil
}

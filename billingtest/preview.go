package billingtest

import (
	"encoding/json"
	"net/http"

	"github.com/billingapi/billing-go/billingtest/internal/preview"
)

// The reference does not show the preview's answer (section 4.11); the
// fake's is a BulkPreview, amounts as JSON numbers, which
// billing.BulkPriceChangePreview decodes. Package preview computes it.
type (
	// BulkPreview is the fake's preview answer: PlanID (planId),
	// SubscriptionCount (subscriptionCount, those listed), PlanProductCount
	// (planProductCount, distinct plan products whose price would change on
	// a listed subscription) and Subscriptions (by ascending id, never null).
	BulkPreview = preview.BulkPreview
	// BulkPreviewSubscription is one subscription whose prices would
	// change: SubscriptionID, CustomerID and PlanProducts, in the
	// subscription's order.
	BulkPreviewSubscription = preview.BulkPreviewSubscription
	// BulkPreviewProduct is one plan product whose price would change:
	// PlanProductID, SubscriptionProductID, Name, CurrentPrice (what the
	// subscription pays) and NewPrice (the plan's current price).
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
	out, found := preview.Run(planID, params, search, preview.Data{Subscriptions: st.subscriptions, Customers: st.customers, Codes: st.codes})
	s.mu.RUnlock()
	if !found {
		return nil, notFound("plan %d does not exist: no subscription belongs to it", planID)
	}
	return out, nil
}

package billing

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"reflect"

	"github.com/billingapi/billing-go/internal/jsonwire"
)

// SubscriptionItemsService lists the items of subscription products.
type SubscriptionItemsService struct{ service }

// SubscriptionProductItem is one item of a subscription product.
type SubscriptionProductItem struct {
	ID                    int64         `json:"id"`
	URI                   *string       `json:"uri"`
	Reference             ItemReference `json:"reference"`
	Name                  string        `json:"name"`
	Description           string        `json:"description"`
	SubscriptionProductID int64         `json:"subscriptionProductId"`
	SubscriptionID        int64         `json:"subscriptionId"`
	CustomerID            int64         `json:"customerId"`
	ProductID             int64         `json:"productId"`
	Status                ItemStatus    `json:"status"`
	CreatedDate           Timestamp     `json:"createdDate"`
	ModifiedDate          Timestamp     `json:"modifiedDate"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

func (v *SubscriptionProductItem) entityID() int64 { return v.ID }

// ItemReference is a subscription product item's reference, which the
// service sends as a string or as a number. It keeps which, so that it
// encodes back as it came.
type ItemReference struct {
	// Value is the reference as text; for a number, its JSON text exactly
	// (no float rounding).
	Value string
	// IsNumber is true when the service sent a JSON number.
	IsNumber bool
}

// String returns the reference as text.
func (r ItemReference) String() string { return r.Value }

// UnmarshalJSON accepts a string, a number or null (the zero reference).
func (r *ItemReference) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*r = ItemReference{}
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := jsonwire.Unmarshal(b, &s); err != nil {
			return err
		}
		*r = ItemReference{Value: s}
		return nil
	}
	if !isJSONNumber(string(b)) {
		return fmt.Errorf("billing: item reference must be a string or a number: %w",
			&json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeFor[ItemReference]()})
	}
	*r = ItemReference{Value: string(b), IsNumber: true}
	return nil
}

// jsonKind names the kind of the JSON value b, as encoding/json's
// UnmarshalTypeError does.
func jsonKind(b []byte) string {
	switch {
	case len(b) == 0:
		return "value"
	case b[0] == '{':
		return "object"
	case b[0] == '[':
		return "array"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	}
	return "value"
}

// MarshalJSON writes a number when the reference came as one, else a
// string.
func (r ItemReference) MarshalJSON() ([]byte, error) {
	if r.IsNumber {
		if !isJSONNumber(r.Value) {
			return nil, fmt.Errorf("billing: item reference %q is not a JSON number", r.Value)
		}
		return []byte(r.Value), nil
	}
	return jsonwire.Marshal(r.Value)
}

func isJSONNumber(s string) bool {
	return s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) && jsonwire.Valid([]byte(s))
}

// ListSubscriptionItemsParams are the parameters of
// [SubscriptionItemsService.List].
type ListSubscriptionItemsParams struct {
	ListOptions
	// Filter becomes the query parameter.
	Filter SubscriptionProductItemFilter `url:"query"`
}

// List returns one page of a subscription product's items. It fails with
// [ErrNotFound] for an unknown subscription product, and with a
// [*ValidationError] (matching [ErrInvalidParams]) for an id that is not
// positive or bad params, before sending anything.
//
// API: GET /v1/subscriptionProducts/{subscriptionProductId}/items
func (s *SubscriptionItemsService) List(ctx context.Context, subscriptionProductID int64, params *ListSubscriptionItemsParams, opts ...RequestOption) (*Page[SubscriptionProductItem], error) {
	return list[SubscriptionProductItem](ctx, s.client, subscriptionItemsList(subscriptionProductID, params), opts)
}

// subscriptionItemsList is
// GET /v1/subscriptionProducts/{subscriptionProductId}/items with params.
func subscriptionItemsList(subscriptionProductID int64, params *ListSubscriptionItemsParams) listCall {
	id, err := pathID("subscriptionProductId", subscriptionProductID)
	p := orZero(params)
	return listCall{
		op:   Operation{Name: "SubscriptionItems.List", Method: http.MethodGet, PathTemplate: "/v1/subscriptionProducts/{subscriptionProductId}/items"},
		path: "/v1/subscriptionProducts/" + id + "/items", params: &p, lo: p.ListOptions, filter: p.Filter, err: err,
	}
}

// Pages iterates over the pages of [SubscriptionItemsService.List], from
// params.PageNumber to the last page.
//
// API: GET /v1/subscriptionProducts/{subscriptionProductId}/items, once per page
func (s *SubscriptionItemsService) Pages(ctx context.Context, subscriptionProductID int64, params *ListSubscriptionItemsParams, opts ...IterOption) iter.Seq2[*Page[SubscriptionProductItem], error] {
	return pagesOf[SubscriptionProductItem](ctx, s.client, subscriptionItemsList(subscriptionProductID, params), opts)
}

// All iterates over every item of a subscription product, page by page.
// On error it yields the error once and stops.
//
// API: GET /v1/subscriptionProducts/{subscriptionProductId}/items, once per page
func (s *SubscriptionItemsService) All(ctx context.Context, subscriptionProductID int64, params *ListSubscriptionItemsParams, opts ...IterOption) iter.Seq2[SubscriptionProductItem, error] {
	return items(ctx, s.Pages(ctx, subscriptionProductID, params, opts...))
}

// Count returns the number of a subscription product's items matching
// params (X-Count), with a single one-item request.
//
// API: GET /v1/subscriptionProducts/{subscriptionProductId}/items?pageSize=1
func (s *SubscriptionItemsService) Count(ctx context.Context, subscriptionProductID int64, params *ListSubscriptionItemsParams, opts ...RequestOption) (int, error) {
	return countOf[SubscriptionProductItem](ctx, s.client, subscriptionItemsList(subscriptionProductID, params), opts)
}

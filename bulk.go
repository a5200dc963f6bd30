package billing

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/billingapi/billing-go/query"
)

// BulkService previews bulk price changes and submits bulk jobs.
type BulkService struct{ service }

// BulkPriceChangeParams are the parameters of [BulkService.PreviewPriceChange].
// The subscriptions are searched either with Query or with FilterOptions,
// not both.
type BulkPriceChangeParams struct {
	// PlanProductIDs are the plan products to push out; empty means all
	// (sent as [], as the field is required).
	PlanProductIDs []int64 `json:"planProductIds"`
	// SelectAll false: only SubscriptionIDs receive the push-out. true: all
	// subscriptions matching the search receive it, except SubscriptionIDs.
	SelectAll bool `json:"selectAll"`
	// SubscriptionIDs are included (SelectAll false) or excluded (SelectAll
	// true).
	SubscriptionIDs []int64 `json:"subscriptionIds,omitempty"`
	// FilterOptions searches subscriptions through the body.
	FilterOptions *BulkFilterOptions `json:"filterOptions,omitempty"`
	// Query searches subscriptions through the query parameter.
	Query SubscriberFilter `json:"-" url:"query"`
}

// BulkFilterOptions searches the subscriptions of a bulk price change. Each
// date pair keeps subscriptions whose date lies between start and end,
// both included; a zero time is not sent. Times are sent in UTC, as
// [Timestamp] writes them. The lists are sent comma-separated.
type BulkFilterOptions struct {
	// CustomerCreatedDateRangeStartDate and ...EndDate bound the customer's
	// creation time.
	CustomerCreatedDateRangeStartDate time.Time
	CustomerCreatedDateRangeEndDate   time.Time
	// SubscriptionCreatedDateRangeStartDate and ...EndDate bound the
	// subscription's creation time.
	SubscriptionCreatedDateRangeStartDate time.Time
	SubscriptionCreatedDateRangeEndDate   time.Time
	// NextBillingDateRangeStartDate and ...EndDate bound the subscription's
	// next billing date.
	NextBillingDateRangeStartDate time.Time
	NextBillingDateRangeEndDate   time.Time
	// CustomerStatuses keeps subscriptions of customers in these statuses.
	CustomerStatuses []CustomerStatus
	// SubscriptionStatuses keeps subscriptions in these statuses.
	SubscriptionStatuses []SubscriptionStatus
	// Intervals keeps subscriptions with these intervals.
	Intervals []Interval
	// ExcludedProducts keeps subscriptions that have none of these products.
	ExcludedProducts []string
	// Code1 to Code5 keep subscriptions of customers with these sales
	// tracking code ids of category 1 to 5.
	Code1, Code2, Code3, Code4, Code5 []int64
}

// bulkFilterOptionsWire is BulkFilterOptions as the API writes it.
type bulkFilterOptionsWire struct {
	CustomerCreatedDateRangeStartDate     Timestamp `json:"customerCreatedDateRangeStartDate,omitzero"`
	CustomerCreatedDateRangeEndDate       Timestamp `json:"customerCreatedDateRangeEndDate,omitzero"`
	SubscriptionCreatedDateRangeStartDate Timestamp `json:"subscriptionCreatedDateRangeStartDate,omitzero"`
	SubscriptionCreatedDateRangeEndDate   Timestamp `json:"subscriptionCreatedDateRangeEndDate,omitzero"`
	NextBillingDateRangeStartDate         Timestamp `json:"nextBillingDateRangeStartDate,omitzero"`
	NextBillingDateRangeEndDate           Timestamp `json:"nextBillingDateRangeEndDate,omitzero"`
	CustomerStatuses                      listText  `json:"customerStatuses,omitempty"`
	SubscriptionStatuses                  listText  `json:"subscriptionStatuses,omitempty"`
	Intervals                             listText  `json:"intervals,omitempty"`
	ExcludedProducts                      listText  `json:"excludedProducts,omitempty"`
	Code1                                 listText  `json:"code1,omitempty"`
	Code2                                 listText  `json:"code2,omitempty"`
	Code3                                 listText  `json:"code3,omitempty"`
	Code4                                 listText  `json:"code4,omitempty"`
	Code5                                 listText  `json:"code5,omitempty"`
}

// listText is a comma-separated list on the wire. It reads a JSON number
// too, as the service's binder turns one into its text (code1: 500).
type listText string

// UnmarshalJSON reads a JSON string, or a number as its text.
func (l *listText) UnmarshalJSON(b []byte) error {
	if isJSONNumber(string(b)) {
		*l = listText(b)
		return nil
	}
	return jsonwire.Unmarshal(b, (*string)(l))
}

// MarshalJSON writes the lists comma-separated, as the API expects.
func (o BulkFilterOptions) MarshalJSON() ([]byte, error) {
	return jsonwire.Marshal(bulkFilterOptionsWire{
		CustomerCreatedDateRangeStartDate:     NewTimestamp(o.CustomerCreatedDateRangeStartDate),
		CustomerCreatedDateRangeEndDate:       NewTimestamp(o.CustomerCreatedDateRangeEndDate),
		SubscriptionCreatedDateRangeStartDate: NewTimestamp(o.SubscriptionCreatedDateRangeStartDate),
		SubscriptionCreatedDateRangeEndDate:   NewTimestamp(o.SubscriptionCreatedDateRangeEndDate),
		NextBillingDateRangeStartDate:         NewTimestamp(o.NextBillingDateRangeStartDate),
		NextBillingDateRangeEndDate:           NewTimestamp(o.NextBillingDateRangeEndDate),
		CustomerStatuses:                      listText(joinStrings(o.CustomerStatuses)),
		SubscriptionStatuses:                  listText(joinStrings(o.SubscriptionStatuses)),
		Intervals:                             listText(joinStrings(o.Intervals)),
		ExcludedProducts:                      listText(joinStrings(o.ExcludedProducts)),
		Code1:                                 listText(joinInts(o.Code1)),
		Code2:                                 listText(joinInts(o.Code2)),
		Code3:                                 listText(joinInts(o.Code3)),
		Code4:                                 listText(joinInts(o.Code4)),
		Code5:                                 listText(joinInts(o.Code5)),
	})
}

// UnmarshalJSON reads the comma-separated lists back.
func (o *BulkFilterOptions) UnmarshalJSON(b []byte) error {
	var w bulkFilterOptionsWire
	if err := jsonwire.Unmarshal(b, &w); err != nil {
		return err
	}
	out := BulkFilterOptions{
		CustomerCreatedDateRangeStartDate:     w.CustomerCreatedDateRangeStartDate.Time,
		CustomerCreatedDateRangeEndDate:       w.CustomerCreatedDateRangeEndDate.Time,
		SubscriptionCreatedDateRangeStartDate: w.SubscriptionCreatedDateRangeStartDate.Time,
		SubscriptionCreatedDateRangeEndDate:   w.SubscriptionCreatedDateRangeEndDate.Time,
		NextBillingDateRangeStartDate:         w.NextBillingDateRangeStartDate.Time,
		NextBillingDateRangeEndDate:           w.NextBillingDateRangeEndDate.Time,
		CustomerStatuses:                      splitStrings[CustomerStatus](string(w.CustomerStatuses)),
		SubscriptionStatuses:                  splitStrings[SubscriptionStatus](string(w.SubscriptionStatuses)),
		Intervals:                             splitStrings[Interval](string(w.Intervals)),
		ExcludedProducts:                      splitStrings[string](string(w.ExcludedProducts)),
	}
	for i, pair := range []struct {
		dst *[]int64
		src string
	}{{&out.Code1, string(w.Code1)}, {&out.Code2, string(w.Code2)}, {&out.Code3, string(w.Code3)}, {&out.Code4, string(w.Code4)}, {&out.Code5, string(w.Code5)}} {
		ids, err := splitInts(pair.src)
		if err != nil {
			return fmt.Errorf("billing: filterOptions.code%d: %w", i+1, err)
		}
		*pair.dst = ids
	}
	*o = out
	return nil
}

func joinStrings[S ~string](vs []S) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = string(v)
	}
	return strings.Join(parts, ",")
}

func joinInts(vs []int64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(parts, ",")
}

func splitStrings[S ~string](s string) []S {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	out := make([]S, len(parts))
	for i, p := range parts {
		out[i] = S(strings.TrimSpace(p))
	}
	return out
}

func splitInts(s string) ([]int64, error) {
	var out []int64
	for _, p := range splitStrings[string](s) {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer id", p)
		}
		out = append(out, n)
	}
	return out, nil
}

func (p *BulkPriceChangeParams) validate() error {
	if p == nil {
		return invalid("BulkPriceChangeParams", "required")
	}
	expr, err := query.Build(p.Query)
	if err != nil {
		return &ValidationError{Field: "query", Reason: err.Error()}
	}
	if len(expr) > 0 && p.FilterOptions != nil {
		return invalid("filterOptions", "search with either the query filter or filterOptions, not both")
	}
	for _, id := range p.PlanProductIDs {
		if id <= 0 {
			return invalid("planProductIds", "must hold positive ids, got %d", id)
		}
	}
	for _, id := range p.SubscriptionIDs {
		if id <= 0 {
			return invalid("subscriptionIds", "must hold positive ids, got %d", id)
		}
	}
	return nil
}

// BulkPriceChangePreview is the answer of a bulk price-change preview. The
// API reference does not show its payload, so it is kept whole, as the
// service sent it.
type BulkPriceChangePreview struct {
	// Raw is the answer's JSON.
	Raw json.RawMessage
}

// UnmarshalJSON keeps the whole answer.
func (p *BulkPriceChangePreview) UnmarshalJSON(b []byte) error {
	p.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the answer back as it came.
func (p BulkPriceChangePreview) MarshalJSON() ([]byte, error) {
	if len(p.Raw) == 0 {
		return []byte("null"), nil
	}
	return p.Raw, nil
}

// Decode decodes the preview into v, for callers who know its shape,
// with the SDK's JSON rules, as [Extra.Decode] does.
func (p *BulkPriceChangePreview) Decode(v any) error {
	return jsonwire.Unmarshal(p.Raw, v)
}

// PreviewPriceChange previews pushing a plan's current prices out to its
// subscribers: which subscriptions and plan products would change. It
// changes nothing, so it is retried like a read. It fails with
// [ErrNotFound] for an unknown plan. Params with both Query and
// FilterOptions are refused before sending. The reference does not show
// the answer's shape: it is kept as it came, for [BulkPriceChangePreview.Decode].
// A bad id or params are refused before sending with a [*ValidationError]
// matching [ErrInvalidParams].
//
// API: POST /v1/Subscribers/{planId}/PreviewBulkPriceChange
func (s *BulkService) PreviewPriceChange(ctx context.Context, planID int64, params *BulkPriceChangeParams, opts ...RequestOption) (*BulkPriceChangePreview, error) {
	id, err := pathID("planId", planID)
	if err != nil {
		return nil, err
	}
	if err := params.validate(); err != nil {
		return nil, err
	}
	// Only the search filter travels in the URL; the rest is the body.
	q := url.Values{}
	if err := params.Query.EncodeValues("query", &q); err != nil {
		return nil, &ValidationError{Field: "query", Reason: err.Error()}
	}
	body := *params
	if body.PlanProductIDs == nil {
		body.PlanProductIDs = []int64{}
	}
	cl := &call{op: Operation{Name: "Bulk.PreviewPriceChange", Method: http.MethodPost, PathTemplate: "/v1/Subscribers/{planId}/PreviewBulkPriceChange"},
		method: http.MethodPost, path: "/v1/Subscribers/" + id + "/PreviewBulkPriceChange", query: q, body: &body}
	return doInto[BulkPriceChangePreview](ctx, s.client, cl, opts, nil)
}

// BulkJob is a bulk job. The API reference shows only its id; the other
// members the service sends are kept in Extra.
type BulkJob struct {
	// ID identifies the job.
	ID int64 `json:"id"`
	// Extra holds the members other than id; see [Extra].
	Extra Extra `json:"-"`
}

// Process submits a validated bulk job for processing and returns the job.
// A job that is not validated, or was already submitted, is refused by the
// service with [ErrConflict]; an unknown job with [ErrNotFound]. A job id
// that is not positive is refused before sending with a [*ValidationError]
// matching [ErrInvalidParams].
// It is a write: it is retried only when the server surely did not act on
// it, and its error matches [ErrOutcomeUnknown] whenever the answer does not
// prove it was not applied.
//
// An answer without an id (or with id 0) is about the job submitted: the
// job returned then carries jobID. Only an answer naming another job is a
// [*DecodeError] matching [ErrWrongResource].
//
// When the outcome is unknown, send it again: for a job that was
// validated when it was first sent, [ErrConflict] can only mean that it
// was already submitted, which proves the first attempt landed.
//
// API: POST /v1/BulkApi/Process
func (s *BulkService) Process(ctx context.Context, jobID int64, opts ...RequestOption) (*BulkJob, error) {
	if jobID <= 0 {
		return nil, invalid("id", "must be a positive id, got %d", jobID)
	}
	body := struct {
		ID int64 `json:"id"`
	}{jobID}
	cl := &call{op: Operation{Name: "Bulk.Process", Method: http.MethodPost, PathTemplate: "/v1/BulkApi/Process"},
		method: http.MethodPost, path: "/v1/BulkApi/Process", body: body, write: true}
	return doInto(ctx, s.client, cl, opts, func(job *BulkJob) error {
		if job.ID == 0 {
			// The service's processed job may carry no id: an answer
			// that names no job is about the one submitted. Only
			// another id is another resource.
			job.ID = jobID
		}
		return sameResource("bulk job", jobID, job.ID)
	})
}

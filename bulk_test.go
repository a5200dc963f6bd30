package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/query"
)

const (
	bkPreviewPath = "/v1/Subscribers/3/PreviewBulkPriceChange"
	bkProcessPath = "/v1/BulkApi/Process"
)

const bkPreviewResponse = `{"subscriptions":[{"subscriptionId":901,"planProductId":11,"currentAmount":10.125,"newAmount":12.50}],"totalCount":1,"note":null}`

func bkTS(y int, m time.Month, d, hh, mm, ss int, loc *time.Location) time.Time {
	return time.Date(y, m, d, hh, mm, ss, 0, loc)
}

func TestPreviewPriceChangeRequest(t *testing.T) {
	t.Parallel()
	plus2 := time.FixedZone("UTC+2", 2*60*60)
	tests := []struct {
		name      string
		params    *billing.BulkPriceChangeParams
		rawQuery  string
		wantQuery string
		body      string
	}{
		{
			name:     "nil plan product ids are sent as an empty list",
			params:   &billing.BulkPriceChangeParams{SubscriptionIDs: []int64{901, 902}},
			rawQuery: "",
			body:     `{"planProductIds":[],"selectAll":false,"subscriptionIds":[901,902]}`,
		},
		{
			name:     "empty plan product ids and no subscriptions",
			params:   &billing.BulkPriceChangeParams{PlanProductIDs: []int64{}, SelectAll: true},
			rawQuery: "",
			body:     `{"planProductIds":[],"selectAll":true}`,
		},
		{
			name: "select all with query filter and excluded subscriptions",
			params: &billing.BulkPriceChangeParams{
				PlanProductIDs:  []int64{11, 12},
				SelectAll:       true,
				SubscriptionIDs: []int64{903},
				Query: billing.SubscriberFilter{
					LastName:           query.Equals("Smith"),
					SubscriptionStatus: []billing.SubscriptionStatus{billing.SubscriptionStatusActive, billing.SubscriptionStatusProvisioning},
				},
			},
			rawQuery:  "query=LastName%3ASmith%3BSubscriptionStatus%3AActive%2CProvisioning",
			wantQuery: "LastName:Smith;SubscriptionStatus:Active,Provisioning",
			body:      `{"planProductIds":[11,12],"selectAll":true,"subscriptionIds":[903]}`,
		},
		{
			name: "filter options with comma-joined lists and offset-free timestamps",
			params: &billing.BulkPriceChangeParams{
				PlanProductIDs: []int64{11},
				SelectAll:      true,
				FilterOptions: &billing.BulkFilterOptions{
					CustomerCreatedDateRangeStartDate:     bkTS(2024, 1, 1, 0, 0, 0, time.UTC),
					CustomerCreatedDateRangeEndDate:       bkTS(2024, 6, 30, 23, 59, 59, time.UTC),
					SubscriptionCreatedDateRangeStartDate: bkTS(2024, 2, 1, 2, 0, 0, plus2), // 00:00 UTC
					NextBillingDateRangeEndDate:           time.Date(2024, 12, 31, 12, 0, 0, 500000000, time.UTC),
					CustomerStatuses:                      []billing.CustomerStatus{billing.CustomerStatusActive, billing.CustomerStatusHold},
					SubscriptionStatuses:                  []billing.SubscriptionStatus{billing.SubscriptionStatusActive},
					Intervals:                             []billing.Interval{billing.IntervalMonthly, billing.IntervalYearly},
					ExcludedProducts:                      []string{"PROD-A", "PROD-B"},
					Code1:                                 []int64{1, 2},
					Code3:                                 []int64{30},
					Code5:                                 []int64{50, 51, 52},
				},
			},
			rawQuery: "",
			body: `{"planProductIds":[11],"selectAll":true,"filterOptions":{
				"customerCreatedDateRangeStartDate":"2024-01-01T00:00:00",
				"customerCreatedDateRangeEndDate":"2024-06-30T23:59:59",
				"subscriptionCreatedDateRangeStartDate":"2024-02-01T00:00:00",
				"nextBillingDateRangeEndDate":"2024-12-31T12:00:00.5",
				"customerStatuses":"Active,Hold",
				"subscriptionStatuses":"Active",
				"intervals":"Monthly,Yearly",
				"excludedProducts":"PROD-A,PROD-B",
				"code1":"1,2","code3":"30","code5":"50,51,52"}}`,
		},
		{
			name: "empty filter options object",
			params: &billing.BulkPriceChangeParams{
				FilterOptions: &billing.BulkFilterOptions{},
			},
			rawQuery: "",
			body:     `{"planProductIds":[],"selectAll":false,"filterOptions":{}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.on(http.MethodPost, bkPreviewPath, http.StatusOK, bkPreviewResponse)
			if _, err := w.client.Bulk.PreviewPriceChange(context.Background(), 3, tt.params); err != nil {
				t.Fatalf("PreviewPriceChange: %v", err)
			}
			r := w.last()
			assertRequest(t, r, http.MethodPost, bkPreviewPath, tt.rawQuery, tt.body)
			if got := r.Query.Get("query"); got != tt.wantQuery {
				t.Errorf("query parameter = %q, want %q", got, tt.wantQuery)
			}
		})
	}
	t.Run("caller's nil plan product ids are left untouched", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodPost, bkPreviewPath, http.StatusOK, bkPreviewResponse)
		p := &billing.BulkPriceChangeParams{}
		if _, err := w.client.Bulk.PreviewPriceChange(context.Background(), 3, p); err != nil {
			t.Fatal(err)
		}
		if p.PlanProductIDs != nil {
			t.Errorf("params were changed: PlanProductIDs = %#v", p.PlanProductIDs)
		}
	})
}

func TestBulkFilterOptionsJSONRoundTrip(t *testing.T) {
	t.Parallel()
	in := billing.BulkFilterOptions{
		CustomerCreatedDateRangeStartDate: bkTS(2024, 1, 1, 0, 0, 0, time.UTC),
		CustomerStatuses:                  []billing.CustomerStatus{billing.CustomerStatusActive, billing.CustomerStatusDraft},
		ExcludedProducts:                  []string{"P1"},
		Code2:                             []int64{7, 8},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, b, `{"customerCreatedDateRangeStartDate":"2024-01-01T00:00:00","customerStatuses":"Active,Draft","excludedProducts":"P1","code2":"7,8"}`)
	var out billing.BulkFilterOptions
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !out.CustomerCreatedDateRangeStartDate.Equal(in.CustomerCreatedDateRangeStartDate) ||
		len(out.CustomerStatuses) != 2 || out.CustomerStatuses[1] != billing.CustomerStatusDraft ||
		len(out.Code2) != 2 || out.Code2[1] != 8 || len(out.ExcludedProducts) != 1 {
		t.Errorf("round trip = %+v", out)
	}
	t.Run("non-integer code id rejected", func(t *testing.T) {
		var o billing.BulkFilterOptions
		if err := json.Unmarshal([]byte(`{"code4":"1,x"}`), &o); err == nil {
			t.Errorf("decoded %+v, want an error", o)
		}
	})
	t.Run("a list given as a number reads as its text", func(t *testing.T) {
		var o billing.BulkFilterOptions
		if err := json.Unmarshal([]byte(`{"code1":500,"excludedProducts":103}`), &o); err != nil {
			t.Fatal(err)
		}
		if d := diff(billing.BulkFilterOptions{Code1: []int64{500}, ExcludedProducts: []string{"103"}}, o); d != "" {
			t.Errorf("decoded (-want +got):\n%s", d)
		}
	})
	t.Run("a list given as a boolean rejected", func(t *testing.T) {
		var o billing.BulkFilterOptions
		if err := json.Unmarshal([]byte(`{"intervals":true}`), &o); err == nil {
			t.Errorf("decoded %+v, want an error", o)
		}
	})
}

func TestPreviewPriceChangeDecodesResponse(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on(http.MethodPost, bkPreviewPath, http.StatusOK, bkPreviewResponse)
	preview, err := w.client.Bulk.PreviewPriceChange(context.Background(), 3, &billing.BulkPriceChangeParams{SelectAll: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("raw equals the body", func(t *testing.T) {
		if string(preview.Raw) != bkPreviewResponse {
			t.Errorf("Raw = %s\nwant %s", preview.Raw, bkPreviewResponse)
		}
	})
	t.Run("decode into a caller type keeps exact numbers", func(t *testing.T) {
		var v struct {
			Subscriptions []struct {
				SubscriptionID int64       `json:"subscriptionId"`
				NewAmount      json.Number `json:"newAmount"`
				CurrentAmount  json.Number `json:"currentAmount"`
			} `json:"subscriptions"`
			TotalCount int `json:"totalCount"`
		}
		if err := preview.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if v.TotalCount != 1 || len(v.Subscriptions) != 1 || v.Subscriptions[0].SubscriptionID != 901 ||
			v.Subscriptions[0].NewAmount != "12.50" || v.Subscriptions[0].CurrentAmount != "10.125" {
			t.Errorf("decoded = %+v", v)
		}
	})
	t.Run("re-marshals as received", func(t *testing.T) {
		b, err := json.Marshal(preview)
		if err != nil || string(b) != bkPreviewResponse {
			t.Errorf("marshal = %s, %v", b, err)
		}
	})
	t.Run("array payload is kept too", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodPost, bkPreviewPath, http.StatusOK, `[{"id":1},{"id":2}]`)
		p, err := w.client.Bulk.PreviewPriceChange(context.Background(), 3, &billing.BulkPriceChangeParams{})
		if err != nil {
			t.Fatal(err)
		}
		if string(p.Raw) != `[{"id":1},{"id":2}]` {
			t.Errorf("Raw = %s", p.Raw)
		}
	})
}

func TestPreviewPriceChangeValidation(t *testing.T) {
	t.Parallel()
	// bkPreview is the request of a preview: the plan and the params.
	type bkPreview struct {
		planID int64
		params *billing.BulkPriceChangeParams
	}
	send := func(c *billing.Client, r bkPreview) error {
		return errOf(c.Bulk.PreviewPriceChange(context.Background(), r.planID, r.params))
	}
	testRefused(t, endpoint{http.MethodPost, "=~^/v1/Subscribers/", bkPreviewResponse}, send, []paramsCase[bkPreview]{
		{"nil params", bkPreview{3, nil}, "BulkPriceChangeParams"},
		{"query filter and filter options together", bkPreview{3, &billing.BulkPriceChangeParams{
			Query:         billing.SubscriberFilter{CompanyName: query.StartsWith("Acme")},
			FilterOptions: &billing.BulkFilterOptions{Intervals: []billing.Interval{billing.IntervalMonthly}},
		}}, "filterOptions"},
		{"raw query and empty filter options together", bkPreview{3, &billing.BulkPriceChangeParams{
			Query:         billing.SubscriberFilter{Raw: "Interval:Monthly"},
			FilterOptions: &billing.BulkFilterOptions{},
		}}, "filterOptions"},
		{"plan id zero", bkPreview{0, &billing.BulkPriceChangeParams{}}, "planId"},
		{"plan id negative", bkPreview{-3, &billing.BulkPriceChangeParams{}}, "planId"},
		{"non-positive plan product id", bkPreview{3, &billing.BulkPriceChangeParams{PlanProductIDs: []int64{11, 0}}}, "planProductIds"},
		{"non-positive subscription id", bkPreview{3, &billing.BulkPriceChangeParams{SubscriptionIDs: []int64{-1}}}, "subscriptionIds"},
		{"empty time range in query", bkPreview{3, &billing.BulkPriceChangeParams{Query: billing.SubscriberFilter{
			NextBillingDate: query.TimeRange{From: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)},
		}}}, "query"},
	})
}

func TestProcessBulkJob(t *testing.T) {
	t.Parallel()
	const resp = `{"id":77,"status":"Processing","type":"PriceChange","createdTimestamp":"2024-03-01T10:00:00"}`
	t.Run("request and decoded job", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodPost, bkProcessPath, http.StatusOK, resp)
		job, err := w.client.Bulk.Process(context.Background(), 77)
		if err != nil {
			t.Fatalf("Process: %v", err)
		}
		r := w.last()
		assertWrite(t, r, http.MethodPost, bkProcessPath, `{"id":77}`)
		// The members other than the id are kept in Extra, as sent.
		want := &billing.BulkJob{ID: 77, Extra: billing.Extra{
			"status":           json.RawMessage(`"Processing"`),
			"type":             json.RawMessage(`"PriceChange"`),
			"createdTimestamp": json.RawMessage(`"2024-03-01T10:00:00"`),
		}}
		if d := diff(want, job); d != "" {
			t.Errorf("Process returned another job:\n%s", d)
		}
		// The id, then the other members in the order of their names.
		const again = `{"id":77,"createdTimestamp":"2024-03-01T10:00:00","status":"Processing","type":"PriceChange"}`
		if b, err := json.Marshal(job); err != nil || string(b) != again {
			t.Errorf("re-marshal = %s, %v; want %s", b, err, again)
		}
	})
	t.Run("job built in Go marshals as id", func(t *testing.T) {
		b, err := json.Marshal(billing.BulkJob{ID: 5})
		if err != nil || string(b) != `{"id":5}` {
			t.Errorf("marshal = %s, %v", b, err)
		}
	})
	t.Run("id zero and negative rejected before sending", func(t *testing.T) {
		for _, id := range []int64{0, -1} {
			w := newWire(t)
			w.on(http.MethodPost, bkProcessPath, http.StatusOK, resp)
			_, err := w.client.Bulk.Process(context.Background(), id)
			assertRefused(t, w, err, "id")
		}
	})
	t.Run("unvalidated job is ErrConflict", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodPost, bkProcessPath, http.StatusConflict, errorBody(409, "Api Error", "Bulk job 77 has not been validated"))
		_, err := w.client.Bulk.Process(context.Background(), 77)
		ae := pmAPIError(t, err, http.StatusConflict, billing.ErrConflict)
		if ae.Errors[0].Value != "Bulk job 77 has not been validated" || ae.Path != bkProcessPath || ae.Method != http.MethodPost {
			t.Errorf("APIError = %+v", ae)
		}
		if errors.Is(err, billing.ErrBadRequest) {
			t.Errorf("a 409 matches ErrBadRequest")
		}
	})
}

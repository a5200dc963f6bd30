package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/query"
	"github.com/jarcoal/httpmock"
)

const siPath = "/v1/subscriptionProducts/5/items"

// siItemsResponse holds items whose reference is a string, a number too big
// for a float64, a decimal and null, with timestamps in several forms.
const siItemsResponse = `[
 {"id":11,"uri":"https://billing.example.test/v1/subscriptionProductItems/11","reference":"ABC-1","name":"Gold seat","description":"Seat 1",
  "subscriptionProductId":5,"subscriptionId":77,"customerId":42,"productId":9,"status":"Active",
  "createdDate":"2024-01-15T08:30:00","modifiedDate":"2024-02-01T12:00:00.1234567Z"},
 {"id":12,"uri":null,"reference":12345678901234567890,"name":"Gold seat 2","description":"",
  "subscriptionProductId":5,"subscriptionId":77,"customerId":42,"productId":9,"status":"Deleted",
  "createdDate":"2024-01-15T10:30:00+02:00","modifiedDate":null},
 {"id":13,"uri":null,"reference":1.50,"name":"n","description":"d",
  "subscriptionProductId":5,"subscriptionId":77,"customerId":42,"productId":9,"status":"Suspended",
  "createdDate":"0001-01-01T00:00:00","modifiedDate":"2024-02-29T23:59:59.5"},
 {"id":14,"uri":null,"reference":null,"name":"n","description":"d",
  "subscriptionProductId":5,"subscriptionId":77,"customerId":42,"productId":9,"status":"Active",
  "createdDate":"2024-01-15T08:30:00","modifiedDate":"2024-01-15T08:30:00"}
]`

func TestListItemsQuery(t *testing.T) {
	t.Parallel()
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		params    *billing.ListSubscriptionItemsParams
		rawQuery  string
		wantQuery string // decoded value of the query parameter, "" for absent
	}{
		{
			name:     "nil params",
			params:   nil,
			rawQuery: "pageNumber=0",
		},
		{
			name:     "page number and size",
			params:   &billing.ListSubscriptionItemsParams{ListOptions: billing.ListOptions{PageNumber: 3, PageSize: 25}},
			rawQuery: "pageNumber=3&pageSize=25",
		},
		{
			name: "filter and sort on a string field",
			params: &billing.ListSubscriptionItemsParams{
				ListOptions: billing.ListOptions{PageNumber: 2, PageSize: 50, Sort: query.Sort{Field: "name", Order: query.Descending}},
				Filter: billing.SubscriptionProductItemFilter{
					CreatedTimestamp: query.TimeRange{From: from, To: to},
					Name:             query.StartsWith("Gold"),
					Status:           []billing.ItemStatus{billing.ItemStatusActive, billing.ItemStatusDeleted},
				},
			},
			rawQuery: "pageNumber=2&pageSize=50" +
				"&query=createdTimestamp%3A2024-01-01T00%3A00%3A00%7C2024-02-01T00%3A00%3A00%3Bname%3AGold%2A%3Bstatus%3AActive%2CDeleted" +
				"&sortExpression=name&sortOrder=Descending",
			wantQuery: "createdTimestamp:2024-01-01T00:00:00|2024-02-01T00:00:00;name:Gold*;status:Active,Deleted",
		},
		{
			name: "sort on a date field defaults to ascending",
			params: &billing.ListSubscriptionItemsParams{
				ListOptions: billing.ListOptions{Sort: query.Sort{Field: "modifiedTimestamp"}},
			},
			rawQuery: "pageNumber=0&sortExpression=modifiedTimestamp&sortOrder=Ascending",
		},
		{
			name: "values with reserved characters are escaped inside the expression",
			params: &billing.ListSubscriptionItemsParams{Filter: billing.SubscriptionProductItemFilter{
				Reference:   query.Equals("A&B, C;D"),
				Description: query.IsEmpty(),
			}},
			rawQuery:  "pageNumber=0&query=description%3A%5Bempty%5D%3Breference%3AA%2526B%252C+C%253BD",
			wantQuery: "description:[empty];reference:A%26B%2C C%3BD",
		},
		{
			name: "open-ended modified range",
			params: &billing.ListSubscriptionItemsParams{Filter: billing.SubscriptionProductItemFilter{
				ModifiedTimestamp: query.TimeRange{From: from},
			}},
			rawQuery:  "pageNumber=0&query=modifiedTimestamp%3A2024-01-01T00%3A00%3A00%7C",
			wantQuery: "modifiedTimestamp:2024-01-01T00:00:00|",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.on(http.MethodGet, siPath, http.StatusOK, "[]")
			if _, err := w.client.SubscriptionItems.List(context.Background(), 5, tt.params); err != nil {
				t.Fatalf("ListItems: %v", err)
			}
			r := w.last()
			assertRequest(t, r, http.MethodGet, siPath, tt.rawQuery, "")
			if got := r.Query.Get("query"); got != tt.wantQuery {
				t.Errorf("query parameter = %q, want %q", got, tt.wantQuery)
			}
		})
	}
}

func TestListItemsDecodesResponse(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on(http.MethodGet, siPath, http.StatusOK, siItemsResponse,
		"X-Count", "4", "X-MaxCount", "9", "X-CurrentPage", "0", "X-NextPage", "1", "X-PreviousPage", "-1",
		"X-PageSize", "4", "X-MaxPageIndex", "1", "X-SortOrder", "Ascending", "X-SortExpression", "name")
	page, err := w.client.SubscriptionItems.List(context.Background(), 5, nil)
	if err != nil {
		t.Fatalf("ListItems: %v", err)
	}
	if len(page.Items) != 4 {
		t.Fatalf("items = %d, want 4", len(page.Items))
	}
	it := page.Items

	t.Run("paging headers", func(t *testing.T) {
		want := billing.PageInfo{
			Count: 4, MaxCount: 9, CurrentPage: 0, NextPage: 1, PreviousPage: -1, PageSize: 4, MaxPageIndex: 1,
			SortOrder: query.Ascending, SortExpression: "name",
		}
		if d := diff(want, page.PageInfo); d != "" {
			t.Errorf("PageInfo differs:\n%s", d)
		}
		if page.Response.StatusCode != http.StatusOK {
			t.Errorf("Response.StatusCode = %d", page.Response.StatusCode)
		}
	})
	t.Run("items", func(t *testing.T) {
		ts := func(y int, m time.Month, d, h, mi, s, ns int) billing.Timestamp {
			return billing.NewTimestamp(time.Date(y, m, d, h, mi, s, ns, time.UTC))
		}
		item := func(id int64, ref billing.ItemReference, name, description string, status billing.ItemStatus, created, modified billing.Timestamp) billing.SubscriptionProductItem {
			return billing.SubscriptionProductItem{
				ID: id, Reference: ref, Name: name, Description: description,
				SubscriptionProductID: 5, SubscriptionID: 77, CustomerID: 42, ProductID: 9,
				Status: status, CreatedDate: created, ModifiedDate: modified,
			}
		}
		want := []billing.SubscriptionProductItem{
			item(11, billing.ItemReference{Value: "ABC-1"}, "Gold seat", "Seat 1", billing.ItemStatusActive,
				ts(2024, 1, 15, 8, 30, 0, 0),         // no offset
				ts(2024, 2, 1, 12, 0, 0, 123456700)), // a fraction and Z
			item(12, billing.ItemReference{Value: "12345678901234567890", IsNumber: true}, "Gold seat 2", "", billing.ItemStatusDeleted,
				ts(2024, 1, 15, 8, 30, 0, 0), // a numeric offset, converted to UTC
				billing.Timestamp{}),         // null
			item(13, billing.ItemReference{Value: "1.50", IsNumber: true}, "n", "d", "Suspended",
				billing.Timestamp{},                     // 0001-01-01 means none
				ts(2024, 2, 29, 23, 59, 59, 500000000)), // a leap day, one fractional digit
			item(14, billing.ItemReference{}, "n", "d", billing.ItemStatusActive, // a null reference is the zero reference
				ts(2024, 1, 15, 8, 30, 0, 0), ts(2024, 1, 15, 8, 30, 0, 0)),
		}
		want[0].URI = billing.Ptr("https://billing.example.test/v1/subscriptionProductItems/11")
		if d := diff(want, page.Items); d != "" {
			t.Errorf("items differ:\n%s", d)
		}
	})
	t.Run("status known and unknown", func(t *testing.T) {
		if it[0].Status != billing.ItemStatusActive || !it[0].Status.IsKnown() {
			t.Errorf("status[0] = %q", it[0].Status)
		}
		if it[1].Status != billing.ItemStatusDeleted || !it[1].Status.IsKnown() {
			t.Errorf("status[1] = %q", it[1].Status)
		}
		if it[2].Status != "Suspended" || it[2].Status.IsKnown() {
			t.Errorf("status[2] = %q (known %v), want Suspended kept and unknown", it[2].Status, it[2].Status.IsKnown())
		}
	})
	t.Run("reference as string", func(t *testing.T) {
		ref := it[0].Reference
		if ref.Value != "ABC-1" || ref.IsNumber || ref.String() != "ABC-1" {
			t.Errorf("reference = %+v", ref)
		}
		b, err := json.Marshal(ref)
		if err != nil || string(b) != `"ABC-1"` {
			t.Errorf("re-marshal = %s, %v; want \"ABC-1\"", b, err)
		}
	})
	t.Run("reference as big number keeps exact text", func(t *testing.T) {
		ref := it[1].Reference
		if ref.Value != "12345678901234567890" || !ref.IsNumber {
			t.Errorf("reference = %+v, want 12345678901234567890 as a number", ref)
		}
		b, err := json.Marshal(ref)
		if err != nil || string(b) != `12345678901234567890` {
			t.Errorf("re-marshal = %s, %v; want the bare number", b, err)
		}
		whole, err := json.Marshal(it[1])
		if err != nil || !strings.Contains(string(whole), `"reference":12345678901234567890`) {
			t.Errorf("item re-marshal = %s, %v", whole, err)
		}
	})
	t.Run("reference as decimal keeps trailing zero", func(t *testing.T) {
		ref := it[2].Reference
		if ref.Value != "1.50" || !ref.IsNumber {
			t.Errorf("reference = %+v, want 1.50 as a number", ref)
		}
		if b, _ := json.Marshal(ref); string(b) != "1.50" {
			t.Errorf("re-marshal = %s, want 1.50", b)
		}
	})
}

func TestItemReferenceJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		value    string
		isNumber bool
		out      string
	}{
		{`"R-1"`, "R-1", false, `"R-1"`},
		{`"12345"`, "12345", false, `"12345"`},
		{`12345678901234567890`, "12345678901234567890", true, `12345678901234567890`},
		{`-7`, "-7", true, `-7`},
		{`1e3`, "1e3", true, `1e3`},
		{`""`, "", false, `""`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var r billing.ItemReference
			if err := json.Unmarshal([]byte(tt.in), &r); err != nil {
				t.Fatal(err)
			}
			if r.Value != tt.value || r.IsNumber != tt.isNumber {
				t.Errorf("decoded %+v, want {%s %v}", r, tt.value, tt.isNumber)
			}
			b, err := json.Marshal(r)
			if err != nil || string(b) != tt.out {
				t.Errorf("marshal = %s, %v; want %s", b, err, tt.out)
			}
		})
	}
	for _, bad := range []string{`true`, `{}`, `[1]`} {
		t.Run("rejects "+bad, func(t *testing.T) {
			var r billing.ItemReference
			if err := json.Unmarshal([]byte(bad), &r); err == nil {
				t.Errorf("decoded %s as %+v, want an error", bad, r)
			}
			// As encoding/json reports it.
			var te *json.UnmarshalTypeError
			if err := r.UnmarshalJSON([]byte(bad)); !errors.As(err, &te) {
				t.Errorf("UnmarshalJSON(%s) = %v, want an *UnmarshalTypeError", bad, err)
			}
		})
	}
	t.Run("IsNumber with a non-number value fails to marshal", func(t *testing.T) {
		if b, err := json.Marshal(billing.ItemReference{Value: "abc", IsNumber: true}); err == nil {
			t.Errorf("marshal = %s, want an error", b)
		}
	})
}

func TestListItemsValidation(t *testing.T) {
	t.Parallel()
	// siList is the request of a list: the subscription product and the
	// params.
	type siList struct {
		id     int64
		params *billing.ListSubscriptionItemsParams
	}
	send := func(c *billing.Client, r siList) error {
		return errOf(c.SubscriptionItems.List(context.Background(), r.id, r.params))
	}
	testRefused(t, endpoint{http.MethodGet, siPath, "[]"}, send, []paramsCase[siList]{
		{"sort on enum field status", siList{5, &billing.ListSubscriptionItemsParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "status", Order: query.Ascending}}}}, "sortExpression"},
		{"sort on unknown field", siList{5, &billing.ListSubscriptionItemsParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "price"}}}}, "sortExpression"},
		{"sort order without field", siList{5, &billing.ListSubscriptionItemsParams{ListOptions: billing.ListOptions{Sort: query.Sort{Order: query.Descending}}}}, "sortOrder"},
		{"bad sort order", siList{5, &billing.ListSubscriptionItemsParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: "name", Order: "Up"}}}}, "sortOrder"},
		{"negative page number", siList{5, &billing.ListSubscriptionItemsParams{ListOptions: billing.ListOptions{PageNumber: -1}}}, "pageNumber"},
		{"negative page size", siList{5, &billing.ListSubscriptionItemsParams{ListOptions: billing.ListOptions{PageSize: -1}}}, "pageSize"},
		{"empty time range", siList{5, &billing.ListSubscriptionItemsParams{Filter: billing.SubscriptionProductItemFilter{
			CreatedTimestamp: query.TimeRange{From: time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
		}}}, "query"},
		{"subscription product id zero", siList{0, nil}, "subscriptionProductId"},
		{"subscription product id negative", siList{-5, nil}, "subscriptionProductId"},
	})
	for _, field := range []string{"name", "description", "reference", "createdTimestamp", "modifiedTimestamp"} {
		t.Run("sort on "+field+" accepted", func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.on(http.MethodGet, siPath, http.StatusOK, "[]")
			_, err := w.client.SubscriptionItems.List(context.Background(), 5,
				&billing.ListSubscriptionItemsParams{ListOptions: billing.ListOptions{Sort: query.Sort{Field: field}}})
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if got := w.last().Query.Get("sortExpression"); got != field {
				t.Errorf("sortExpression = %q, want %q", got, field)
			}
		})
	}
}
func TestListItemsErrors(t *testing.T) {
	t.Parallel()
	t.Run("unknown subscription product is ErrNotFound", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodGet, "/v1/subscriptionProducts/999/items", http.StatusNotFound,
			errorBody(404, "Api Error", "Subscription product 999 was not found"))
		_, err := w.client.SubscriptionItems.List(context.Background(), 999, nil)
		ae := pmAPIError(t, err, http.StatusNotFound, billing.ErrNotFound)
		if ae.Path != "/v1/subscriptionProducts/999/items" || ae.Method != http.MethodGet {
			t.Errorf("Method/Path = %s %s", ae.Method, ae.Path)
		}
		if !ae.HasKey("Api Error") || ae.Errors[0].Value != "Subscription product 999 was not found" {
			t.Errorf("Errors = %+v", ae.Errors)
		}
	})
	t.Run("invalid query is ErrBadRequest without the query string in the message", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodGet, siPath, http.StatusBadRequest, errorBody(400, "Api Error", "The query is not valid"))
		_, err := w.client.SubscriptionItems.List(context.Background(), 5, &billing.ListSubscriptionItemsParams{
			Filter: billing.SubscriptionProductItemFilter{Raw: "name:secretvalue"},
		})
		ae := pmAPIError(t, err, http.StatusBadRequest, billing.ErrBadRequest)
		if !ae.HasKey("Api Error") || ae.Errors[0].Value != "The query is not valid" {
			t.Errorf("Errors = %+v", ae.Errors)
		}
		if ae.Path != siPath || strings.Contains(err.Error(), "secretvalue") {
			t.Errorf("Path = %q, Error() = %q: must hold no query string", ae.Path, err.Error())
		}
		if got := w.last().Query.Get("query"); got != "name:secretvalue" {
			t.Errorf("query sent = %q", got)
		}
	})
}

func TestAllItemsFollowsPages(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	pages := map[string]string{
		"0": `[{"id":1,"reference":"a","status":"Active"},{"id":2,"reference":2,"status":"Active"}]`,
		"1": `[{"id":3,"reference":"c","status":"Deleted"}]`,
	}
	w.onResponder(http.MethodGet, siPath, func(req *http.Request) (*http.Response, error) {
		n := req.URL.Query().Get("pageNumber")
		body, ok := pages[n]
		if !ok {
			body = "[]"
		}
		resp := httpmock.NewStringResponse(http.StatusOK, body)
		resp.Header.Set("Content-Type", "application/json")
		resp.Header.Set("X-CurrentPage", n)
		resp.Header.Set("X-MaxPageIndex", "1")
		resp.Request = req
		return resp, nil
	})
	var ids []int64
	for item, err := range w.client.SubscriptionItems.All(context.Background(), 5,
		&billing.ListSubscriptionItemsParams{ListOptions: billing.ListOptions{PageSize: 2}}) {
		if err != nil {
			t.Fatalf("AllItems: %v", err)
		}
		ids = append(ids, item.ID)
	}
	if len(ids) != 3 || ids[0] != 1 || ids[1] != 2 || ids[2] != 3 {
		t.Errorf("ids = %v, want [1 2 3]", ids)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.requests) != 2 {
		t.Fatalf("requests = %d, want 2", len(w.requests))
	}
	for i, r := range w.requests {
		want := "pageNumber=" + strconv.Itoa(i) + "&pageSize=2"
		if r.Path != siPath || r.RawQuery != want {
			t.Errorf("request %d = %s?%s, want %s?%s", i, r.Path, r.RawQuery, siPath, want)
		}
	}
}

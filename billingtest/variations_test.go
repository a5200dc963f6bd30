package billingtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/rewrite"
	"github.com/shopspring/decimal"
)

// vtServer is a fake with the given options and one customer whose n
// invoices are all posted at the same instant, 250ms and 1234567ns into
// a second.
func vtServer(t *testing.T, n int, opts ...Option) (*Server, []int64) {
	t.Helper()
	srv, err := NewHandler(append([]Option{WithClock(func() time.Time { return time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC) })}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	cust, err := srv.AddCustomer(Customer{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 1, 1, 0, 0, 0, 251234567, time.UTC)
	var ids []int64
	for range n {
		id, err := srv.AddInvoice(Invoice{CustomerID: cust, PostedTimestamp: at, ModifiedTimestamp: at,
			Charges: []Charge{{Name: "Seat", Quantity: decimal.NewFromInt(1), UnitPrice: decimal.NewFromInt(10), Amount: decimal.NewFromInt(10)}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return srv, ids
}

// vtGet answers a GET of path.
func vtGet(t *testing.T, srv *Server, path string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("Authorization", "Basic "+DefaultAPIKey)
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
	}
	return w
}

// vtIDs reads the ids of a list answer.
func vtIDs(t *testing.T, w *httptest.ResponseRecorder) []int64 {
	t.Helper()
	var out []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(out))
	for i, v := range out {
		ids[i] = v.ID
	}
	return ids
}

const vtSorted = "/v1/Invoices?sortExpression=postedTimestamp&sortOrder=Ascending"

func TestTieOrders(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		order TieOrder
		want  func(ids []int64) []int64
	}{
		{TieByID, func(ids []int64) []int64 { return ids }},
		{TieByIDDescending, func(ids []int64) []int64 { r := slices.Clone(ids); slices.Reverse(r); return r }},
		{TieByInsertion, func(ids []int64) []int64 { return ids }},
	} {
		srv, ids := vtServer(t, 6, WithTieOrder(tt.order))
		if got, want := vtIDs(t, vtGet(t, srv, vtSorted)), tt.want(ids); !slices.Equal(got, want) {
			t.Errorf("order %d: %v, want %v", tt.order, got, want)
		}
	}
	// At random: every request a permutation of the same rows, and not
	// always the same one (30 rows: two equal orders in a row have
	// probability 1/30!, and 20 requests all equal far less).
	srv, ids := vtServer(t, 30, WithTieOrder(TieRandom))
	first := vtIDs(t, vtGet(t, srv, vtSorted))
	differs := false
	for range 20 {
		got := vtIDs(t, vtGet(t, srv, vtSorted))
		sorted := slices.Sorted(slices.Values(got))
		if !slices.Equal(sorted, ids) {
			t.Fatalf("random order %v is not a permutation of %v", got, ids)
		}
		differs = differs || !slices.Equal(got, first)
	}
	if !differs {
		t.Fatal("random tie order never changed")
	}
	if _, err := NewHandler(WithTieOrder(TieOrder(9))); err == nil {
		t.Fatal("unknown tie order accepted")
	}
}

func TestPageCapAndPagingHeaders(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		opts    []Option
		path    string
		ids     []int // indexes into the seeded ids
		headers map[string]string
	}{
		{"silent cap, page 0", []Option{WithPageCap(3, false)}, "/v1/Invoices?pageSize=4", []int{0, 1, 2},
			map[string]string{"X-PageSize": "4", "X-Count": "10", "X-NextPage": "1", "X-MaxPageIndex": "3"}},
		{"silent cap, page 1 starts at 4", []Option{WithPageCap(3, false)}, "/v1/Invoices?pageSize=4&pageNumber=1", []int{4, 5, 6},
			map[string]string{"X-PageSize": "4", "X-CurrentPage": "1"}},
		{"honest cap, page 1 starts at 3", []Option{WithPageCap(3, true)}, "/v1/Invoices?pageSize=4&pageNumber=1", []int{3, 4, 5},
			map[string]string{"X-PageSize": "3", "X-MaxPageIndex": "4"}},
		{"other headers, last page", []Option{WithOtherPagingHeaders()}, "/v1/Invoices?pageSize=4&pageNumber=2", []int{8, 9},
			map[string]string{"X-NextPage": "3", "X-MaxPageIndex": "2"}},
		{"default, last page", nil, "/v1/Invoices?pageSize=4&pageNumber=2", []int{8, 9},
			map[string]string{"X-NextPage": "-1", "X-MaxPageIndex": "3"}},
	} {
		srv, ids := vtServer(t, 10, tt.opts...)
		w := vtGet(t, srv, tt.path)
		var want []int64
		for _, i := range tt.ids {
			want = append(want, ids[i])
		}
		if got := vtIDs(t, w); !slices.Equal(got, want) {
			t.Errorf("%s: ids %v, want %v", tt.name, got, want)
		}
		for h, v := range tt.headers {
			if got := w.Header()[h]; len(got) != 1 || got[0] != v {
				t.Errorf("%s: %s = %q, want %s", tt.name, h, got, v)
			}
		}
	}
	if _, err := NewHandler(WithPageCap(0, false)); err == nil {
		t.Fatal("cap of 0 accepted")
	}
}

func TestTimestampDigits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		digits int
		zone   string
		want   string
	}{
		{0, ZoneNone, `"postedTimestamp":"2025-01-01T00:00:00"`},
		{3, ZoneZ, `"postedTimestamp":"2025-01-01T00:00:00.251Z"`},
		{7, ZoneUTC00, `"postedTimestamp":"2025-01-01T00:00:00.2512345+00:00"`},
		{-1, ZoneNone, `"postedTimestamp":"2025-01-01T00:00:00.2512345"`},
	} {
		srv, ids := vtServer(t, 1, WithTimestampDigits(tt.digits, tt.zone))
		for _, path := range []string{"/v1/Invoices", "/v1/Invoices/" + itoa(ids[0])} {
			if body := vtGet(t, srv, path).Body.String(); !strings.Contains(body, tt.want) {
				t.Errorf("digits %d zone %q, %s: no %s in %s", tt.digits, tt.zone, path, tt.want, body)
			}
		}
	}
	if got := rewrite.FormatStamp(time.Date(2025, 1, 1, 0, 0, 0, 500000000, time.UTC), -1); got != "2025-01-01T00:00:00.5" {
		t.Errorf("trimmed: %s", got)
	}
	for _, bad := range []Option{WithTimestampDigits(8, ""), WithTimestampDigits(-2, ""), WithTimestampDigits(1, "UTC")} {
		if _, err := NewHandler(bad); err == nil {
			t.Error("bad timestamp option accepted")
		}
	}
}

func TestUnknownMembers(t *testing.T) {
	t.Parallel()
	srv, ids := vtServer(t, 2, WithUnknownMembers())
	body := vtGet(t, srv, "/v1/Invoices/"+itoa(ids[0])).Body.Bytes()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, body)
	}
	objects := strings.Count(string(body), `{"`) - strings.Count(string(body), `{"billingtestUnlisted"`)
	if n := strings.Count(string(body), `"billingtestUnlisted"`); n == 0 || n < objects {
		t.Fatalf("%d unknown members for %d other objects: %s", n, objects, body)
	}
	// Inside strings nothing changes.
	if got := string(rewrite.AddMembers([]byte(`{"a":"x{\"y","b":{"c":1},"d":{}}`))); got != `{`+rewrite.UnknownMember+`"a":"x{\"y","b":{`+rewrite.UnknownMember+`"c":1},"d":{}}` {
		t.Fatalf("addMembers: %s", got)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestUnlistedEnumValues(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		var opts []Option
		if on {
			opts = append(opts, WithUnlistedEnumValues())
		}
		srv, _ := vtServer(t, 0, opts...)
		id, err := srv.AddSubscriptionProductItem(SubscriptionProductItem{SubscriptionProductID: 5, Name: "x", Status: billing.ItemStatus("Archived")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.AddSubscriptionProductItem(SubscriptionProductItem{SubscriptionProductID: 5, Name: "y", Status: billing.ItemStatusActive}); err != nil {
			t.Fatal(err)
		}
		r := httptest.NewRequest(http.MethodGet, "/v1/subscriptionProducts/5/items?query=status:archived", nil)
		r.Header.Set("Authorization", "Basic "+DefaultAPIKey)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		switch {
		case !on && w.Code != http.StatusBadRequest:
			t.Errorf("without the option: %d %s, want 400", w.Code, w.Body)
		case on && (w.Code != http.StatusOK || !slices.Equal(vtIDs(t, w), []int64{id})):
			t.Errorf("with the option: %d %s, want only item %d", w.Code, w.Body, id)
		case on && !strings.Contains(w.Body.String(), `"status":"Archived"`):
			t.Errorf("the value is not returned as given: %s", w.Body)
		}
	}
}

package billingtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/billingapi/billing-go/billingtest/internal/filter"
)

// A filter's cost per row is bounded: amounts beyond any the service can
// hold are refused before any row is visited, and so is a filter of more
// than filter.MaxConditions conditions. Before this bound,
// closingArBalance:|1e10000 compared every row with a 10,001-digit number.
func TestFilterCostIsBounded(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	conds := func(n int, c string) string {
		return strings.TrimSuffix(strings.Repeat(c+";", n), ";")
	}
	cases := []struct {
		query string
		want  int
	}{
		{"closingArBalance:|1e10000", http.StatusBadRequest},
		{"closingArBalance:1e-10000|", http.StatusBadRequest},
		{"closingArBalance:-1e10000|", http.StatusBadRequest},
		{"closingArBalance:1e10000", http.StatusBadRequest},
		{"Customer.Arbalance:|1E+10000", http.StatusBadRequest},
		{"closingArBalance:|1e29", http.StatusBadRequest},
		{"closingArBalance:|0.00000000000000000000000000001", http.StatusBadRequest},
		{"closingArBalance:|1" + strings.Repeat("0", 100), http.StatusBadRequest},
		{conds(300, "closingArBalance:|1e10000"), http.StatusBadRequest},
		{conds(filter.MaxConditions+1, "closingArBalance:0|"), http.StatusBadRequest},
		// Within the bounds: the largest and the smallest amounts, zero
		// with any exponent, trailing zeros past 28 places, as many
		// conditions as allowed.
		{"closingArBalance:|79228162514264337593543950335", http.StatusOK},
		{"closingArBalance:-99999999999999999999999999999|1e28", http.StatusOK},
		{"closingArBalance:0.0000000000000000000000000001|", http.StatusOK},
		{"closingArBalance:0e10000|", http.StatusOK},
		{"closingArBalance:1.0000000000000000000000000000000000|", http.StatusOK},
		{conds(filter.MaxConditions, "closingArBalance:0|"), http.StatusOK},
	}
	for _, c := range cases {
		r := ccDo(t, srv, http.MethodGet, "/v1/Invoices?query="+url.QueryEscape(c.query), "")
		if r.status != c.want {
			name := c.query
			if len(name) > 80 {
				name = name[:80] + "..."
			}
			t.Errorf("query %s: status %d, want %d; body %.200s", name, r.status, c.want, r.body)
		}
	}
}

// A list whose client has gone stops filtering and sends nothing: the
// filter is not tested on the rows that remain, and no page is written.
func TestListStopsWhenTheRequestContextEnds(t *testing.T) {
	t.Parallel()
	srv, err := NewHandler(WithGenerated(GenerateOptions{Seed: 1, Invoices: 2000}))
	if err != nil {
		t.Fatal(err)
	}
	// A customer with invoices: the one of the first invoice.
	first := httptest.NewRequest(http.MethodGet, "/v1/Invoices?pageSize=1", nil)
	first.Header.Set("Authorization", "Basic "+DefaultAPIKey)
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, first)
	var page []struct{ CustomerID int64 }
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || len(page) != 1 {
		t.Fatalf("first invoice: %v, %s", err, w.Body)
	}
	customer := page[0].CustomerID
	srv.ClearRequests()
	for _, path := range []string{
		"/v1/Invoices?query=closingArBalance:0|",
		"/v1/Invoices?query=closingArBalance:0|&sortExpression=poNumber",
		fmt.Sprintf("/v1/Customers/%d/Invoices?query=closingArBalance:0|", customer),
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil)
		r.Header.Set("Authorization", "Basic "+DefaultAPIKey)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Body.Len() != 0 {
			t.Errorf("GET %s after the client left: wrote %d bytes, want none", path, w.Body.Len())
		}
	}
	reqs := srv.Requests()
	for _, rq := range reqs {
		if rq.Status != 0 {
			t.Errorf("%s %s logged with status %d, want 0 (no answer)", rq.Method, rq.Path, rq.Status)
		}
	}
}

package query_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/billingapi/billing-go/query"
)

func TestSort(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		sort    query.Sort
		want    url.Values
		wantErr string
	}{
		{"zero", query.Sort{}, url.Values{}, ""},
		{"field only", query.Sort{Field: "postedTimestamp"}, url.Values{"sortExpression": {"postedTimestamp"}, "sortOrder": {"Ascending"}}, ""},
		{"ascending", query.Sort{Field: "erpId", Order: query.Ascending}, url.Values{"sortExpression": {"erpId"}, "sortOrder": {"Ascending"}}, ""},
		{"descending", query.Sort{Field: "Customer.CreatedTimestamp", Order: query.Descending}, url.Values{"sortExpression": {"Customer.CreatedTimestamp"}, "sortOrder": {"Descending"}}, ""},
		{"order without field", query.Sort{Order: query.Descending}, url.Values{}, "query: sort order Descending given without a sort field"},
		{"bad order", query.Sort{Field: "erpId", Order: "descending"}, url.Values{}, `query: sort order "descending" is neither Ascending nor Descending`},
		{"bad field", query.Sort{Field: "erpId;x"}, url.Values{}, `query: invalid sort field "erpId;x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.sort.Validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Errorf("Validate() = %v, want %q", err, tt.wantErr)
			}
			got := url.Values{}
			encErr := tt.sort.EncodeValues("sort", &got)
			if !reflect.DeepEqual(encErr, err) {
				t.Errorf("EncodeValues() = %v, Validate() = %v", encErr, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("EncodeValues set %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSortEncodeValuesEdgeCases(t *testing.T) {
	t.Parallel()
	s := query.Sort{Field: "erpId", Order: query.Descending}
	var nilMap url.Values
	if err := s.EncodeValues("", &nilMap); err != nil || nilMap.Get("sortOrder") != "Descending" {
		t.Errorf("EncodeValues into a nil map: %v, %v", err, nilMap)
	}
	if err := s.EncodeValues("", nil); err == nil || !strings.Contains(err.Error(), "non-nil") {
		t.Errorf("EncodeValues(nil) = %v", err)
	}
	// Encoding again replaces rather than repeats the parameters.
	v := url.Values{"sortExpression": {"old"}, "pageSize": {"10"}}
	if err := s.EncodeValues("", &v); err != nil {
		t.Fatal(err)
	}
	if got, want := v.Encode(), "pageSize=10&sortExpression=erpId&sortOrder=Descending"; got != want {
		t.Errorf("Encode() = %q, want %q", got, want)
	}
	if !(query.Sort{}).IsZero() || s.IsZero() {
		t.Errorf("IsZero is wrong")
	}
}

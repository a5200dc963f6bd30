package route

import (
	"reflect"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	providers := []string{"Paypal"}
	for _, tc := range []struct {
		name       string
		pattern    string
		path       string
		providers  []string
		wantValues map[string]string
		wantMask   uint64
		wantOK     bool
	}{
		{"literal, any case, trailing slash", "v1/Invoices", "/V1/invoices/", nil, nil, 0b11, true},
		{"parameter", "v1/Invoices/{invoiceId}", "/v1/Invoices/42", nil, map[string]string{"invoiceId": "42"}, 0b110, true},
		{"escaped parameter", "v1/x/{id}", "/v1/x/a%2Fb", nil, map[string]string{"id": "a/b"}, 0b110, true},
		{"provider in its configured spelling", "v1/{provider}", "/v1/PAYPAL", providers, map[string]string{"provider": "Paypal"}, 0b10, true},
		{"unknown provider", "v1/{provider}", "/v1/Invoices", providers, nil, 0, false},
		{"any provider of an added route", "v1/{provider}", "/v1/Invoices", nil, map[string]string{"provider": "Invoices"}, 0b10, true},
		{"other length", "v1/Invoices", "/v1/Invoices/1", nil, nil, 0, false},
		{"other literal", "v1/Invoices", "/v1/Customers", nil, nil, 0, false},
		{"empty segment", "v1/x/{id}", "/v1//x", nil, nil, 0, false},
		{"dot dot", "v1/{a}/{b}", "/v1/../x", nil, nil, 0, false},
		{"no leading slash", "v1/Invoices", "v1/Invoices", nil, nil, 0, false},
		{"backslashes separate", "v1/Invoices/{invoiceId}", `/v1\Invoices\42`, nil, map[string]string{"invoiceId": "42"}, 0b110, true},
		{"escaped backslash separates", "v1/Invoices/{invoiceId}", "/v1%5CInvoices/42%5c", nil, map[string]string{"invoiceId": "42"}, 0b110, true},
		{"mixed separators, trailing backslash", "v1/Invoices", `/v1\Invoices\`, nil, nil, 0b11, true},
		{"two trailing separators", "v1/Invoices", `/v1/Invoices/\`, nil, nil, 0, false},
		{"empty segment between backslashes", "v1/x/{id}", `/v1\\x`, nil, nil, 0, false},
		{"dot dot behind a backslash", "v1/{a}/{b}", `/v1\..\x`, nil, nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var values map[string]string
			var mask uint64
			parts, ok := SplitPath(tc.path)
			if ok {
				values, mask, ok = Match(strings.Split(tc.pattern, "/"), parts, tc.providers)
			}
			if ok != tc.wantOK || mask != tc.wantMask || !reflect.DeepEqual(values, tc.wantValues) {
				t.Errorf("got %v, %b, %v; want %v, %b, %v", values, mask, ok, tc.wantValues, tc.wantMask, tc.wantOK)
			}
		})
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern  string
		wantSegs []string
		wantErr  string
	}{
		{"/v1/Customers/{customerId}/Payments/", []string{"v1", "Customers", "{customerId}", "Payments"}, ""},
		{"v1/x", nil, "does not start with /"},
		{"/_FAKE/state", nil, "control API's /_fake/"},
		{"/v1/{id}/{id}", nil, "appears twice"},
		{"/v1/{a-b}", nil, `parameter "{a-b}"`},
		{"/v1//x", nil, `segment ""`},
		{"/v1/a%20b", nil, `segment "a%20b"`},
		{strings.Repeat("/a", MaxSegments+1), nil, "more than 32 segments"},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			t.Parallel()
			segs, err := Parse(tc.pattern, "_fake")
			if !reflect.DeepEqual(segs, tc.wantSegs) || (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("got %q, %v; want %q, an error with %q", segs, err, tc.wantSegs, tc.wantErr)
			}
		})
	}
}

func TestSameShape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"v1/Invoices/{invoiceId}", "V1/invoices/{x}", true},
		{"v1/{provider}", "v1/Invoices", false},
		{"v1/Invoices", "v1/Invoices/{x}", false},
	} {
		if got := SameShape(strings.Split(tc.a, "/"), strings.Split(tc.b, "/")); got != tc.want {
			t.Errorf("SameShape(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

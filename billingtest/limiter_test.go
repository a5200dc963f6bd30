package billingtest

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestRateLimitWindowsTurnOff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		opts              []Option
		statuses          []int
		minuteHdr, dayHdr bool
	}{
		{"both off", []Option{WithRateLimit(0, 0)}, []int{200, 200, 200, 200}, false, false},
		{"minute off", []Option{WithRateLimit(0, 2)}, []int{200, 200, 429, 429}, false, true},
		{"day off", []Option{WithRateLimit(2, 0)}, []int{200, 200, 429, 429}, true, false},
		{"both on", []Option{WithRateLimit(3, 2)}, []int{200, 200, 429, 429}, true, true},
	} {
		srv := ccServer(t, tc.opts...)
		var got []int
		for i := range tc.statuses {
			r := ccDo(t, srv, http.MethodGet, "/v1/Invoices?pageSize=1", "")
			got = append(got, r.status)
			if i == 0 && (r.header.Get("X-Rate-Limit-Limit-Minute") != "") != tc.minuteHdr || (r.header.Get("X-Rate-Limit-Limit-Day") != "") != tc.dayHdr {
				t.Errorf("%s: request %d headers %v, want minute %v day %v", tc.name, i, r.header, tc.minuteHdr, tc.dayHdr)
			}
		}
		wantSame(t, tc.name+": statuses", got, tc.statuses)
	}
}

func TestPDFRateLimitTurnsOff(t *testing.T) {
	t.Parallel()
	srv := ccServer(t, WithPDFRateLimit(0), WithRateLimit(0, 0))
	draft, err := srv.AddDraftInvoice(DraftInvoice{CustomerID: srv.Customers()[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	for i := range DefaultPDFRateLimitPerMinute + 5 {
		if r := ccDo(t, srv, http.MethodGet, "/v1/draftInvoices/pdf/"+strconv.FormatInt(draft, 10), ""); r.status != http.StatusOK {
			t.Fatalf("PDF %d: %d %s", i, r.status, r.body)
		}
	}
}

func TestRateLimitOptionsRefuseNegative(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opt  Option
		want string
	}{
		{WithRateLimit(-1, 0), "WithRateLimit: limits must not be negative, got -1 and 0"},
		{WithRateLimit(0, -1), "WithRateLimit: limits must not be negative, got 0 and -1"},
		{WithPDFRateLimit(-1), "WithPDFRateLimit: limit must not be negative, got -1"},
	} {
		_, err := NewHandler(tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}

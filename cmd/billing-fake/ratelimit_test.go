package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestRateLimitFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		args              []string
		statuses          []int
		minuteHdr, dayHdr bool
	}{
		{"defaults", nil, []int{200, 200, 200}, true, true},
		{"off", []string{"-rate-limit-minute", "0", "-rate-limit-day", "0"}, []int{200, 200, 200}, false, false},
		{"one a minute", []string{"-rate-limit-minute", "1"}, []int{200, 429, 429}, true, true},
		{"two a day", []string{"-rate-limit-minute", "0", "-rate-limit-day", "2"}, []int{200, 200, 429}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, stop := startFake(t, tc.args...)
			defer func() {
				if err := stop(); err != nil {
					t.Error(err)
				}
			}()
			var got []int
			for i := range tc.statuses {
				req, _ := http.NewRequest(http.MethodGet, url+"/v1/Invoices", nil)
				req.Header.Set("Authorization", "Basic billingtest-key")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				got = append(got, resp.StatusCode)
				if i == 0 && ((resp.Header.Get("X-Rate-Limit-Limit-Minute") != "") != tc.minuteHdr || (resp.Header.Get("X-Rate-Limit-Limit-Day") != "") != tc.dayHdr) {
					t.Errorf("headers %v, want minute %v, day %v", resp.Header, tc.minuteHdr, tc.dayHdr)
				}
				if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
					t.Error("429 without Retry-After")
				}
			}
			if !slices.Equal(got, tc.statuses) {
				t.Errorf("statuses %v, want %v", got, tc.statuses)
			}
		})
	}
}

func TestRateLimitFlagsRefuseNegative(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"-rate-limit-minute", "-rate-limit-day", "-pdf-rate-limit-minute"} {
		err := run(context.Background(), []string{flag, "-1"}, io.Discard, io.Discard)
		if err == nil || err.Error() != flag+" must not be negative (0 turns the limit off)" {
			t.Errorf("%s -1: %v", flag, err)
		}
	}
	var usage bytes.Buffer
	_ = run(context.Background(), []string{"-h"}, io.Discard, &usage)
	for _, flag := range []string{"-rate-limit-minute", "-rate-limit-day", "-pdf-rate-limit-minute"} {
		if !strings.Contains(usage.String(), flag) || !strings.Contains(usage.String(), "(0: no limit)") {
			t.Errorf("-h does not document %s: %s", flag, usage.String())
		}
	}
}

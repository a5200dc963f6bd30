package main

import (
	"net/http"
	"slices"
	"testing"

	"github.com/billingapi/billing-go/billingtest"
)

// TestChurnFlags: counts turn into a WithChurn the fake accepts, no count
// into no option, and a value it cannot mean is an error naming the flag.
func TestChurnFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args  []string
		churn bool
		bad   string
	}{
		{args: nil},
		{args: []string{"-churn-deletes", "1"}, churn: true},
		{args: []string{"-churn-seed", "-4", "-churn-every", "3", "-churn-inserts", "1", "-churn-deletes", "2", "-churn-rekeys", "3", "-churn-modifies", "4", "-churn-keep-count", "-churn-aim"}, churn: true},
		{args: []string{"-churn-every", "0", "-churn-modifies", "1"}, churn: true}, // 0 is every request, as in WithChurn
		{args: []string{"-churn-inserts", "-1"}, bad: "-churn-inserts"},
		{args: []string{"-churn-deletes", "-1"}, bad: "-churn-deletes"},
		{args: []string{"-churn-rekeys", "-1"}, bad: "-churn-rekeys"},
		{args: []string{"-churn-modifies", "-1"}, bad: "-churn-modifies"},
		{args: []string{"-churn-every", "-1", "-churn-inserts", "1"}, bad: "-churn-every"},
		{args: []string{"-churn-seed", "5"}, bad: "need a count"},
		{args: []string{"-churn-keep-count"}, bad: "need a count"},
		{args: []string{"-churn-aim"}, bad: "need a count"},
		{args: []string{"-churn-every", "2"}, bad: "need a count"},
	} {
		opt, err := parseFlags(t, tt.args, addChurnFlags).option()
		switch {
		case flagErrorChecked(t, tt.args, err, tt.bad):
		case (opt != nil) != tt.churn:
			t.Errorf("%q: option %v, want one: %v", tt.args, opt != nil, tt.churn)
		case opt != nil:
			if _, err := billingtest.NewHandler(opt); err != nil {
				t.Errorf("%q: the fake refuses the option: %v", tt.args, err)
			}
		}
	}
}

// The churn flags reach the fake: with two deletes a round, each list
// answer counts two invoices fewer than the one before.
func TestChurnFlagsOverTheBinary(t *testing.T) {
	t.Parallel()
	url, stop := startFake(t, "-generate", "20", "-churn-deletes", "2", "-churn-seed", "3")
	defer func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	}()
	var counts []string
	for range 3 {
		req, _ := http.NewRequest("GET", url+"/v1/Invoices", nil)
		req.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		counts = append(counts, resp.Header.Get("X-Count"))
	}
	if want := []string{"18", "16", "14"}; !slices.Equal(counts, want) {
		t.Errorf("X-Count %v, want %v", counts, want)
	}
}

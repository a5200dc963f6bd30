package billingtest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

var updateChurnPin = flag.Bool("fake.update-churn", false, "rewrite testdata/churn.golden from what the fake does now")

// The changes a seed makes, and the rows they leave, stay exactly what
// they were for every scope, sort field and setting: testdata/churn.golden
// holds the log of each case below and the list the last request answers.
// A change to the churn's random draws shows up here; it is a change of
// behaviour a seeded test relies on, so rewrite the file (-fake.update-churn)
// only on purpose.
func TestChurnPinsTheChangesOfASeed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		c     Churn
		path  string // {customer} and {product} as in TestChurnChangesWhatListsShow
		query []string
	}{
		{"all, seed 1", Churn{Seed: 1, Inserts: 2, Deletes: 1, Rekeys: 2, Modifies: 2}, "/v1/Invoices", nil},
		{"all, seed 2, by effective", Churn{Seed: 2, Inserts: 1, Deletes: 2, Rekeys: 2, Modifies: 3}, "/v1/Invoices", []string{"sortExpression", "effectiveTimestamp", "sortOrder", "Descending"}},
		{"all, aimed, keep count", Churn{Seed: 3, Inserts: 1, Deletes: 2, Rekeys: 1, Modifies: 1, KeepCount: true, Aim: true}, "/v1/Invoices", []string{"sortExpression", "postedTimestamp", "query", chSecond(1)}},
		{"all, aimed past the rows", Churn{Seed: 4, Inserts: 2, Rekeys: 2, Aim: true}, "/v1/Invoices", []string{"sortExpression", "postedTimestamp", "query", "postedTimestamp:2024-02-01T00:00:05|"}},
		{"customer's, by created", Churn{Seed: 5, Every: 2, Inserts: 2, Deletes: 1, Rekeys: 2, Modifies: 2}, "/v1/Customers/{customer}/Invoices/", []string{"sortExpression", "createdTimestamp"}},
		{"summaries, by modified", Churn{Seed: 6, Inserts: 1, Deletes: 1, Rekeys: 3, Modifies: 2, KeepCount: true}, "/v1/customers/{customer}/invoiceSummaries", []string{"sortExpression", "modifiedTimestamp"}},
		{"items", Churn{Seed: 7, Inserts: 2, Deletes: 1, Rekeys: 2, Modifies: 3}, "/v1/subscriptionProducts/{product}/items", nil},
		{"items, by modified, keep count", Churn{Seed: 8, Inserts: 1, Deletes: 2, Rekeys: 2, Modifies: 2, KeepCount: true}, "/v1/subscriptionProducts/{product}/items", []string{"sortExpression", "modifiedTimestamp"}},
	}
	var got bytes.Buffer
	for _, tt := range cases {
		w := chServer(t, tt.c)
		path := strings.NewReplacer("{customer}", strconv.FormatInt(w.customers[1], 10), "{product}", strconv.FormatInt(w.product, 10)).Replace(tt.path)
		var last string
		for range 4 {
			last = chGet(t, w.srv, path, tt.query...).Body.String()
		}
		fmt.Fprintf(&got, "== %s\n%s%s\n", tt.name, chFormat(w.srv.ChurnLog()), last)
	}
	const golden = "testdata/churn.golden"
	if *updateChurnPin {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n"); got.String() != string(want) {
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("line %d of %s:\n got %s\nwant %s", i+1, golden, g[i], w[i])
			}
		}
		t.Fatalf("%d lines, want %d lines of %s", len(g), len(w), golden)
	}
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/billingapi/billing-go/billingtest"
)

// TestKilledAndResumedExportsEveryInvoiceOnce stops the export after two
// batches (as a kill would, with a half-written batch left behind), starts
// it again, and checks that the file holds every invoice exactly once,
// while the fake posts and writes off invoices throughout.
func TestKilledAndResumedExportsEveryInvoiceOnce(t *testing.T) {
	for _, prefetch := range []string{"0", "4"} {
		t.Run("prefetch "+prefetch, func(t *testing.T) {
			t.Parallel()
			fake := billingtest.NewServer(billingtest.WithGenerated(billingtest.GenerateOptions{Seed: 7, Invoices: 3000}))
			t.Cleanup(fake.Close)
			var before []int64
			for inv, err := range fake.Client().Invoices.All(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				before = append(before, inv.ID)
			}
			out := filepath.Join(t.TempDir(), "invoices.jsonl")
			noEnv := func(string) string { return "" }
			args := []string{"-out", out, "-batch", "250", "-page", "100", "-prefetch", prefetch}
			if err := run(context.Background(), append(args, "-stop-after", "2"), io.Discard, noEnv, fake); err != nil {
				t.Fatal(err)
			}
			if got := len(readIDs(t, out)); got != 500 {
				t.Fatalf("after two batches the file has %d invoices, want 500", got)
			}
			// A batch written but not covered by a saved cursor.
			f, err := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(`{"id":1}` + "\n" + `{"id":2,"invoiceNu`); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := run(context.Background(), args, io.Discard, noEnv, fake); err != nil {
				t.Fatal(err)
			}
			ids := readIDs(t, out)
			seen := map[int64]bool{}
			for _, id := range ids {
				if seen[id] {
					t.Fatalf("invoice %d written twice", id)
				}
				seen[id] = true
			}
			for _, id := range before {
				if !seen[id] {
					t.Fatalf("invoice %d missing (file has %d of %d+)", id, len(ids), len(before))
				}
			}
		})
	}
}

func readIDs(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids []int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %d: %v", len(ids)+1, err)
		}
		ids = append(ids, v.ID)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

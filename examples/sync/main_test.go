package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billingapi/billing-go/billingtest"
)

// TestKilledAndResumedExportsEveryInvoiceOnce stops the export after two
// batches (as a kill would, with a half-written batch left behind), starts
// it again, and checks that the file holds every invoice exactly once,
// while the fake posts and writes off invoices throughout.
func TestKilledAndResumedExportsEveryInvoiceOnce(t *testing.T) {
	t.Parallel()
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

// TestProgressNeverPassesTheTotal checks the progress line when invoices
// posted during the export make the count of done ones pass the total
// taken at the start: the total shown grows with them.
func TestProgressNeverPassesTheTotal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		total, done int
		want        string
	}{
		{20001, 10000, "\r10000/20001 invoices"},
		{20001, 20001, "\r20001/20001 invoices"},
		{20001, 20022, "\r20022/20022 invoices"},
	} {
		var b strings.Builder
		p := progress{w: &b, start: time.Now(), total: tt.total}
		p.show(tt.done)
		if !strings.HasPrefix(b.String(), tt.want) {
			t.Errorf("total %d, done %d: %q, want it to start %q", tt.total, tt.done, b.String(), tt.want)
		}
	}
}

// TestDefaultOutputIsOutsideTheWorkingTree runs the export with no -out
// and checks that the file is written under os.TempDir, and said so.
func TestDefaultOutputIsOutsideTheWorkingTree(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.TempDir on Unix
	fake := billingtest.NewServer(billingtest.WithGenerated(billingtest.GenerateOptions{Seed: 3, Invoices: 50}))
	t.Cleanup(fake.Close)
	var stderr strings.Builder
	if err := run(context.Background(), []string{"-batch", "20"}, &stderr, func(string) string { return "" }, fake); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(tmp, "billing-sync", "invoices.jsonl")
	if ids := readIDs(t, want); len(ids) < 50 {
		t.Errorf("%s holds %d invoices, want at least 50", want, len(ids))
	}
	if !strings.Contains(stderr.String(), "invoices in "+want) {
		t.Errorf("stderr %q does not name %s", stderr.String(), want)
	}
}

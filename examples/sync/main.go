// Command sync exports every invoice of an account to a JSON Lines file,
// one invoice per line, with stable iteration: while the account keeps
// posting invoices, taking payments and writing off balances, no invoice
// is skipped or written twice.
//
//	go run ./examples/sync -out /tmp/invoices.jsonl
//
// Without -out it writes billing-sync/invoices.jsonl in the system's
// temporary directory (os.TempDir), never into the working tree, and says
// where when it ends. It writes in batches. After each batch is written and synced it saves
// its cursor, and the file's length, beside the file (invoices.jsonl.cursor)
// by writing a temporary file and renaming it. Killed at any point and
// started again with the same -out, it cuts off whatever the file holds
// beyond the saved length and continues from the cursor, so the file ends
// with every invoice exactly once. A progress line on standard error shows
// the invoices done out of the total (X-Count), the rate and the time left.
//
// With no configuration it runs against the bundled fake (package
// billingtest), seeded with generated invoices, which keeps posting and
// writing off invoices while the export runs. BILLING_BASE_URL and
// BILLING_API_KEY point it at a real account instead; it only reads.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

func main() {
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr, os.Getenv, nil); err != nil {
		log.Fatal("sync: ", err)
	}
}

// options are the command line flags.
type options struct {
	out       string
	batch     int
	pageSize  int
	prefetch  int
	stopAfter int // batches; 0: run to the end
	invoices  int // size of the fake
}

// run parses args and exports. fake, when not nil, is used instead of a
// fake of run's own (tests share one fake between runs).
func run(ctx context.Context, args []string, stderr io.Writer, getenv func(string) string, fake *billingtest.Server) error {
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.out, "out", filepath.Join(os.TempDir(), "billing-sync", "invoices.jsonl"), "the JSON Lines file to write; its cursor goes to <out>.cursor")
	fs.IntVar(&o.batch, "batch", 500, "invoices per flushed batch")
	fs.IntVar(&o.pageSize, "page", 1000, "page size")
	fs.IntVar(&o.prefetch, "prefetch", 4, "concurrent requests (Prefetch)")
	fs.IntVar(&o.stopAfter, "stop-after", 0, "stop after this many batches, as if killed (0: run to the end)")
	fs.IntVar(&o.invoices, "invoices", 20000, "invoices in the bundled fake")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.batch < 1 || o.out == "" {
		return errors.New("-batch must be at least 1 and -out not empty")
	}
	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
		return err
	}
	client, closeFake, err := connect(getenv, o, fake)
	if err != nil {
		return err
	}
	defer closeFake()
	return export(ctx, client, o, stderr)
}

// connect returns a client of the account named by the environment, or of
// a churning fake.
func connect(getenv func(string) string, o options, fake *billingtest.Server) (*billing.Client, func(), error) {
	if base, key := getenv("BILLING_BASE_URL"), getenv("BILLING_API_KEY"); base != "" && key != "" {
		c, err := billing.NewClient(key, billing.WithBaseURL(base), billing.WithUserAgent("billing-sync"))
		return c, func() {}, err
	}
	own := fake == nil
	if own {
		fake = billingtest.NewServer(billingtest.WithGenerated(billingtest.GenerateOptions{Seed: 1, Invoices: o.invoices}))
	}
	url, stop, err := churning(fake)
	if err != nil {
		return nil, nil, err
	}
	closeAll := func() {
		stop()
		if own {
			fake.Close()
		}
	}
	c, err := billing.NewClient(fake.APIKey(), billing.WithBaseURL(url))
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return c, closeAll, nil
}

// churning serves fake behind a handler that, before each list request,
// posts an invoice and writes off the oldest unsettled one it knows: an
// account that keeps changing while it is exported. Posted ids start from
// a base taken from the clock, so that runs in different processes, each
// with a fresh fake, never post the same id.
func churning(fake *billingtest.Server) (string, func(), error) {
	next := atomic.Int64{}
	next.Store(1_000_000_000 + time.Now().UnixMilli()%1_000_000_000*100)
	var writeOff atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.EqualFold(r.URL.Path, "/v1/Invoices") {
			cust := firstCustomer(fake)
			if cust != 0 {
				_, _ = fake.AddInvoice(billingtest.Invoice{ID: next.Add(1), CustomerID: cust, Notes: "posted during the export"})
			}
			// Write off the next unsettled invoice by id; ids of other
			// entities and settled invoices are passed over.
			for range 50 {
				if fake.WriteOffInvoice(writeOff.Add(1)) == nil {
					break
				}
			}
		}
		fake.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: h}
	ln, err := listen()
	if err != nil {
		return "", nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return "http://" + ln.Addr().String(), func() {
		_ = srv.Close()
		<-done
	}, nil
}

func firstCustomer(fake *billingtest.Server) int64 {
	cs := fake.Customers()
	if len(cs) == 0 {
		return 0
	}
	return cs[0].ID
}

// saved is what the cursor file holds.
type saved struct {
	Cursor string `json:"cursor"`
	Bytes  int64  `json:"bytes"` // the file's length when the cursor was saved
	Done   int    `json:"done"`
}

// export writes every invoice not exported yet to o.out.
func export(ctx context.Context, c *billing.Client, o options, stderr io.Writer) error {
	state, err := load(o.out + ".cursor")
	if err != nil {
		return err
	}
	var cur billing.Cursor
	if state.Cursor != "" {
		if err := cur.UnmarshalText([]byte(state.Cursor)); err != nil {
			return fmt.Errorf("%s.cursor: %w", o.out, err)
		}
	}
	f, err := os.OpenFile(o.out, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	// Drop a batch written after the last saved cursor: it comes again.
	if err := f.Truncate(state.Bytes); err != nil {
		return err
	}
	if _, err := f.Seek(state.Bytes, io.SeekStart); err != nil {
		return err
	}
	total, err := c.Invoices.Count(ctx, nil)
	if err != nil {
		return err
	}
	p := progress{w: stderr, start: time.Now(), startDone: state.Done, total: total}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	inBatch, batches := 0, 0
	flush := func() error {
		if err := w.Flush(); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		size, err := f.Seek(0, io.SeekCurrent)
		if err != nil {
			return err
		}
		text, err := cur.MarshalText()
		if err != nil {
			return err
		}
		state = saved{Cursor: string(text), Bytes: size, Done: state.Done}
		if err := save(o.out+".cursor", state); err != nil {
			return err
		}
		inBatch = 0
		batches++
		p.show(state.Done)
		return nil
	}
	params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: o.pageSize}}
	for inv, err := range c.Invoices.All(ctx, params, billing.Stable(&cur), billing.Prefetch(o.prefetch)) {
		if err != nil {
			return err
		}
		if err := enc.Encode(inv); err != nil {
			return err
		}
		state.Done++
		if inBatch++; inBatch == o.batch {
			if err := flush(); err != nil {
				return err
			}
			if o.stopAfter > 0 && batches == o.stopAfter {
				fmt.Fprintln(stderr)
				return nil
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "\n%d invoices in %s\n", state.Done, o.out)
	return nil
}

func load(path string) (saved, error) {
	var s saved
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil || s.Bytes < 0 {
		return s, fmt.Errorf("%s: not a cursor file", path)
	}
	return s, nil
}

// save replaces the cursor file atomically: a crash leaves the old one or
// the new one, never half of one.
func save(path string, s saved) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// progress writes "done/total, rate, time left" on one line. The total is
// the account's count when the export started; invoices posted since make
// done pass it, and then the total shown is done.
type progress struct {
	w                io.Writer
	start            time.Time
	startDone, total int
}

func (p *progress) show(done int) {
	p.total = max(p.total, done)
	elapsed := time.Since(p.start).Seconds()
	rate := float64(done-p.startDone) / max(elapsed, 1e-3)
	left := "?"
	if rate > 0 && p.total > done {
		left = (time.Duration(float64(p.total-done)/rate) * time.Second).Round(time.Second).String()
	} else if p.total <= done {
		left = "0s"
	}
	fmt.Fprintf(p.w, "\r%d/%d invoices, %.0f/s, %s left ", done, p.total, rate, left)
}

package billing_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// Every operation, succeeding, failing and cancelled, leaves no goroutine
// behind (verifyNoLeaks, from prefetch_test.go, checks when the test and
// its servers are done). Iterators are tested in iterate_stop_test.go, one
// client shared by many goroutines in concurrency_test.go.

// Each operation succeeds, fails with a server error, loses its
// connection, gets a cut-off answer and is cancelled while waiting: none
// leaves a goroutine behind.
func TestNoLeaksOperations(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	scenarios := []struct {
		name  string
		fault *billingtest.Fault
		// ctxTimeout, when set, ends the call's context after this long.
		ctxTimeout time.Duration
		check      func(t *testing.T, err error)
	}{
		{name: "success", check: func(t *testing.T, err error) {
			if err != nil {
				t.Fatal(err)
			}
		}},
		{name: "server error", fault: &billingtest.Fault{Status: 500, Times: 5}, check: func(t *testing.T, err error) {
			if !errors.Is(err, billing.ErrServer) {
				t.Fatalf("err = %v, want ErrServer", err)
			}
		}},
		{name: "dropped connection", fault: &billingtest.Fault{Drop: billingtest.DropBeforeApply, Times: 5}, check: func(t *testing.T, err error) {
			var reqErr *billing.RequestError
			if !errors.As(err, &reqErr) {
				t.Fatalf("err = %v (%T), want a *billing.RequestError", err, err)
			}
		}},
		{name: "cut-off answer", fault: &billingtest.Fault{Truncate: true, Times: 5}, check: func(t *testing.T, err error) {
			if err == nil {
				t.Fatal("a cut-off answer gave no error")
			}
		}},
		{name: "cancelled while waiting", fault: &billingtest.Fault{Delay: 10 * time.Second}, ctxTimeout: 50 * time.Millisecond, check: func(t *testing.T, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want context.DeadlineExceeded", err)
			}
		}},
	}
	for _, op := range leakOps() {
		for _, sc := range scenarios {
			t.Run(op.name+"/"+sc.name, func(t *testing.T) {
				verifyNoLeaks(t)
				srv, f := leakServer(t)
				if sc.fault != nil {
					if err := srv.InjectFault(op.route, *sc.fault); err != nil {
						t.Fatal(err)
					}
				}
				ctx := context.Background()
				if sc.ctxTimeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, sc.ctxTimeout)
					defer cancel()
				}
				sc.check(t, noHang(t, func() error { return op.call(ctx, leakClient(t, srv), f) }))
			})
		}
	}
}

// The PDF stream, closed half read or cancelled half read, lets its
// connection go.
func TestNoLeaksPDFStreamAbandoned(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	for _, cancelFirst := range []bool{false, true} {
		t.Run(fmt.Sprint("cancelled=", cancelFirst), func(t *testing.T) {
			verifyNoLeaks(t)
			srv, f := leakServer(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rc, err := leakClient(t, srv).DraftInvoices.PDF(ctx, f.draft, nil)
			if err != nil {
				t.Fatal(err)
			}
			var b [16]byte
			if _, err := io.ReadFull(rc, b[:]); err != nil || string(b[:5]) != "%PDF-" {
				t.Fatalf("read %q, %v", b, err)
			}
			if cancelFirst {
				cancel()
			}
			if err := rc.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

package billing_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	billing "github.com/billingapi/billing-go"
)

// One client used from many goroutines at once. Run under -race, these
// tests check that nothing the SDK shares between goroutines is touched
// without synchronisation.

// One client used from many goroutines at once, for every operation and
// iterator: the client is documented as safe for concurrent use, and the
// race detector checks that it is.
func TestClientSharedAcrossGoroutines(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	verifyNoLeaks(t)
	srv, f := leakServer(t)
	c := leakClient(t, srv)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 4 {
		for _, op := range leakOps() {
			wg.Go(func() {
				// Writes after the first of each kind are refused by the
				// fake's rules (a replaced card, a duplicate code): only
				// transport-level failures count here.
				err := op.call(context.Background(), c, f)
				var reqErr *billing.RequestError
				var decErr *billing.DecodeError
				if errors.As(err, &reqErr) || errors.As(err, &decErr) {
					errs <- fmt.Errorf("%s #%d: %w", op.name, i, err)
				}
			})
		}
		for _, it := range leakIterators() {
			wg.Go(func() {
				n := 0
				for _, err := range it.seq(context.Background(), c, f, billing.Prefetch(4)) {
					if err != nil {
						errs <- fmt.Errorf("%s #%d: %w", it.name, i, err)
						return
					}
					n++
				}
				if n != leakItems {
					errs <- fmt.Errorf("%s #%d: %d items, want %d", it.name, i, n, leakItems)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// CaptureResponse on an iterator that prefetches: every page's request
// stores its answer in the same Response. Under -race this shows whether
// those stores are synchronised.
func TestCaptureResponseWithPrefetchIsRaceFree(t *testing.T) {
	// Not parallel: goleak checks every goroutine of the process, so no other test may run alongside.
	verifyNoLeaks(t)
	srv, _ := leakServer(t)
	var resp billing.Response
	n := countAll(t, leakClient(t, srv).Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: listOpts(leakFixture{})}, billing.Prefetch(8), billing.CaptureResponse(&resp)))
	if n != leakItems || resp.StatusCode != 200 {
		t.Errorf("%d items, captured status %d", n, resp.StatusCode)
	}
}

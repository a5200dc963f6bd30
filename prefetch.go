package billing

import "fmt"

// Prefetch makes an iterator (All, Pages and their variants) fetch up to n
// pages ahead, concurrently, once the first page has told how many there
// are (X-Count). Pages are still yielded strictly in order and hold
// exactly the items a sequential iteration would yield; with [Stable],
// every guarantee of Stable holds.
//
// Cost and bounds: at most n requests are on the wire, retries included,
// and a bounded number of pages is held ahead of the one being yielded (2n
// by page number, 8n with Stable). A 429 pauses every request of the
// client, this iteration's included, for the wait the server asked for
// (see [RetryPolicy]). Breaking out of the loop or
// cancelling the context stops every request and waits for them, so no
// goroutine outlives the loop; [CaptureResponse] holds the answer of the
// last page yielded. n is between 0 and 64; below 2, or without X-Count,
// pages are read one at a time. A transport given with [WithHTTPClient]
// should keep n idle connections per host (MaxIdleConnsPerHost).
func Prefetch(n int) IterOption {
	return iterOnly(func(rc *requestConfig) error {
		if n < 0 || n > maxPrefetch {
			return fmt.Errorf("Prefetch: n must be between 0 and %d, got %d", maxPrefetch, n)
		}
		rc.prefetch = n
		return nil
	})
}

// maxPrefetch bounds the pipeline: more concurrency than this only adds
// load on the service and memory here.
const maxPrefetch = 64

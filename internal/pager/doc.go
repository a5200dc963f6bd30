// Package pager is the SDK's iteration engine: it pages through a list
// endpoint by page number (Pages) or by key (Stable), one request at a
// time or through a pipeline of concurrent requests. It knows no HTTP and
// keeps no state in a context: a Source fetches the page a Request names
// (page number, size, key range, and the Claim its attempts pass), and
// the SDK builds one Source per iteration from a list endpoint's path and
// params. This comment is the design; the SDK's Prefetch and Stable
// document the contract users rely on.
//
// # Page numbers
//
// Pages reads page first, then the pages its headers announce, and
// refuses (ErrPagination) a page other than the one asked for, or one
// that repeats the page before it, which is how a server ignoring
// pageNumber shows itself. A page shorter than asked while more items are
// announced after it (X-Count, else X-NextPage) is a page the server
// capped: the iteration goes on in pages of that length. When the server
// said so in X-PageSize, its page numbers count pages of that length;
// when it echoed the size asked for, a page other than page 0 may have
// started at either reckoning, so it is asked for again in the capped
// size (or, when no page of that size starts where it did, the iteration
// ends with ErrPagination). With prefetch n >= 2, once a page has told
// how many pages there are and the next one is its number plus one, the
// pages up to the last are the tasks of a pipeline, 2n at once, each page
// waiting in its task until it is the head (Config.Ahead 0): at most 2n
// pages are held beyond the one being yielded. If the last of them still
// announces more (the list grew), the iteration goes on one page at a
// time.
//
// # The pipeline
//
// A Pipeline runs tasks concurrently and delivers their results strictly
// in task order; the task whose results the consumer waits for is the
// head. Its Gate bounds the requests on the wire to n: every attempt,
// retries included, takes a slot before it is sent (Claim.Acquire) and
// gives it back once its answer has been read, before it is decoded
// (Claim.Release), since decoding is the client's own work and a slot
// held through it kept the pipeline below n on the wire whenever the CPU
// was busy. Tasks other than the head take one of n-1 further slots
// first, so the head always finds one; a task that becomes the head gives
// that one back at once. Tasks that send their first request at once
// take their first slot in task order (Config.InOrder), so that a late
// page does not hold up the ones before it. Decoding is bounded to the
// processors. A 429 pauses every request of the gate for the wait the
// service asked for (Claim.Pause), checked before and after a slot is
// taken. Results that tasks other than the head produce hold one of
// Config.Ahead places until the consumer takes them; a task that finds
// none free waits, holding its place among Config.Tasks. Stop cancels
// every task and waits for them; results that arrived ahead of a
// cancellation are dropped, as a sequential reading would not have
// fetched them.
//
// # Stable iteration
//
// Requests sort ascending on the key and filter on a key range [S, end)
// (merged by the SDK with the caller's own range on the key), where S is
// the second of the frontier: the key, at full precision, before which
// every item has been delivered. A page is a contiguous run of the
// server's order at the moment it was read, so every item whose key lies
// strictly between its first and last keys is on it (from the range's
// start, for page 0; to the range's end, for a page with nothing
// announced after it). A page whose first key is before the frontier (or
// page 0) carries the frontier to its last key; positions and the order
// of items with equal keys never enter that proof: positions only choose
// which page to read, and the ids delivered at or after the frontier,
// kept in the cursor with their keys, only keep items from being yielded
// twice at the same key.
//
// When more items share one second than half a page, the iteration pages
// by number inside that second (key range [S, S+1)), each page chosen to
// start before the frontier (stableWindow). Where a group of items with
// one and the same key is larger than a page, no page can reach across
// it: the second is read in passes from its start, and left only once a
// pass during which the second's X-Count stayed the same showed that
// many distinct items (or all passes since the count last changed did,
// together); after 3 passes in a row that show nothing new, the run ends
// with ErrPagination, as it does for items outside the range asked for
// or out of key order. A page shorter than asked while more are announced
// is a capped page: the iteration goes on in its size.
//
// With prefetch n >= 2, the key range still to read is split into
// windows of whole seconds, of about four pages each (the first and the
// last three one page), each read as a sequential stable iteration of its
// own range by a task of a pipeline: 2n windows at once, 8n pages held
// ahead of the head in all. A window starts at the second of the item at
// a page's start of the range, which a one-item request finds while
// earlier windows are read; a second never spans two windows, so each
// keeps every guarantee of the sequential iteration, and the last window
// is open-ended, so that items added at the end are read as
// sequentially. The first requests go out at once, before any answer
// has told how many items there are: page 0, which is the first window's
// first page, and the starts of the windows at pages 1, 5, 9 and so on (n
// requests, 8 at most). The first of those starts brings X-Count, which
// places the rest.
package pager

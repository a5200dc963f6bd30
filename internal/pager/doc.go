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
// processors. A 429 is not the pipeline's to handle: the service's pauses
// hold every request of the client (internal/throttle), and an attempt
// waits for them after it has taken its slot, so that one that waited
// for a slot through a pause does not go out inside it. Results that
// tasks other than the head produce hold one of Config.Ahead places
// until the consumer takes them; a task that finds none free waits,
// holding its place among Config.Tasks. Stop cancels
// every task and waits for them; results that arrived ahead of a
// cancellation are dropped, as a sequential reading would not have
// fetched them.
//
// # Stable iteration
//
// An answer is an atomic snapshot, and the iteration concludes only what
// one answer shows; counts compared across answers, positions and the
// order of equal keys prove nothing, and are never used as proof. Two
// facts are:
//
//  1. Page 0 of a range [S, end) sorted ascending on the key holds every
//     item of the range in a second before that of its last item: the
//     server's first items, whatever its page cap and its order of equal
//     keys.
//  2. An answer whose length reaches its X-Count (or that announces
//     nothing after it) holds every item its query matches.
//
// So every request is page 0 of [S, end), where S is the frontier's
// second (before it, every item has been delivered), merged by the SDK
// with the caller's own range on the key. Each item delivered moves the
// frontier to its own second; the ids delivered inside the frontier's
// second are kept in the cursor with their keys, so that none comes twice
// at one key and one whose key changed comes again. A page whose last
// second L is past S moves the frontier to L (fact 1), and the next
// request starts there.
//
// A page that does not leave its first second, or whose last second makes
// up more than half of it, shows a second that may be larger than the
// pages: it is read whole
// (readSecond). First all of it in one answer, of a page size that the
// last answer's count bounds (the reference only says the cap is at least
// 1,000; a server may give more), which fact 2 proves whole; an answer
// that stopped at the size asked is asked again for all it counts. Where
// the server caps the answer, the second is split on a split field of
// the endpoint (Source.Splits: numeric fields it filters by range) into
// parts that tile the field's whole domain (open ends, lower bounds
// inclusive, upper exclusive), cut at the values that divide the capped
// answer's items into groups of four fifths of its length; each part is
// read whole in one answer (fact 2), or split again on what its own
// answer shows. Once the server has capped such an answer in the run (the
// windows of Prefetch share it), a later second bound to be larger than
// that cap is counted with a one-item request instead, and split at once
// on the values of its items that the page before brought: asking for it
// whole would bring a capped answer only to split it anyway. An item that keeps its key and its split value lies in
// exactly one part, and is read. A part that the samples show to be one
// value is split on the next split field; with none left, or on an
// endpoint without one, the run ends with ErrPagination naming the second
// and the size of the group, never a silent loss. Then the frontier moves
// past the second, unless one of its answers' Date lay in it: the second
// could still receive writes (under a modification-time key, a change
// lands there), so the frontier stays in it and the next request probes
// from the second after; if that shows items and the second is over, it
// is read whole again first; if it shows none, the run ends there and a
// resumed run reads the second again.
//
// Each request either moves the frontier, or reads a second whole and
// leaves it; so a run ends whatever the list does between requests, in
// the pages needed plus, per dense second, one request for all of it and
// one per part. Items outside the range or the part asked for, or out of
// ascending key order by second, end the run with ErrPagination.
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
// sequentially. The first two requests go out at once, before any answer
// has told how many items there are: page 0, which is the first window's
// first page, and the start of the window at page 1, whose small answer
// brings X-Count, which places the rest.
package pager

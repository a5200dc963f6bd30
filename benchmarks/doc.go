// Package benchmarks measures the SDK against what a hand-written client
// would cost, and the fake against its latency budget. Its API is only
// DecodePageBody, the page of BenchmarkDecodePage, for the command
// benchmarks/decodecount: the benchmarks and tests are its content. BENCHMARKS.md, at the root of the
// module, has the figures, the machine they come from and what they mean.
//
// The figures of BENCHMARKS.md come from
//
//	go run ./benchmarks/interleave -rounds 7 -out bench.txt
//
// which runs each contender of a comparison once per round, in its own
// process, rotating the order every round, and gives each ratio's median
// and spread over the rounds (see that command's documentation). Plain
// go test -bench works too, but runs all counts of one contender before
// the next, which on a shared machine lets load from elsewhere fall on one
// side only.
//
// What is compared:
//
//   - BenchmarkListCall (a): one list call returning 100 invoices with
//     their charges, from an in-process httptest server that answers a
//     fixed body: the SDK (Invoices.ListByCustomer) against a hand-written
//     net/http + encoding/json call decoding into method-less structs of
//     the same shape, with exact decimals and parsed timestamps (Floor),
//     over the same *http.Client.
//   - BenchmarkDecodePage (b): decoding one page of 1,000 full invoices
//     with their charges (3.69 MB): the SDK's streaming decoder, with
//     exact decimals and parsed timestamps, against the SDK's decoder
//     before issue 10 (Before: a guard pass over every byte, then
//     encoding/json's streaming decoder by reflection into method-less
//     types of the same shape), encoding/json into plain structs of the same shape with
//     float64 amounts and string timestamps (FloatFloor), into
//     []map[string]any (Map), and the engine's tokenizer reading every
//     token and building nothing, with its default options, which also
//     check for repeated names (TokenPass), and with the SDK's, which do
//     not (TokenPassLax).
//   - BenchmarkIterate100k (c): iterating the fake's 100,000 invoices in
//     pages of 1,000, with 20 ms added to every request: one page at a
//     time (Sequential) against billing.Prefetch(8). Each reports
//     cpu-s/op, the process's CPU time per iteration; %cpu-floor, how
//     close the iteration comes to cpu-s/op ÷ GOMAXPROCS, the least time
//     that CPU allows; and %cpu-avail, the same against the CPU the rest of
//     a shared machine left (from /proc/stat).
//     BenchmarkIterate100kReplay is the same with the fake's answers
//     replayed from memory, to show the SDK's scaling without the fake's
//     CPU.
//   - BenchmarkStable100k (e): the same iteration in stable mode
//     (billing.Stable, keyed on postedTimestamp), one request at a time
//     (StableSequential) against billing.Prefetch(8), which reads
//     count-balanced key windows concurrently, with the metrics of (c).
//   - BenchmarkFakeFilteredSortedPage (d): the fake answering one
//     filtered, sorted middle page over 100,000 invoices, straight through
//     its Handler.
//
// The size of the code under the service methods (issue 21) is measured
// apart, by
//
//	go run ./benchmarks/pathfuncs
//
// which counts the functions of the module that one operation (Get, All
// and stable All, with and without Prefetch(8)) runs, each in a fresh
// process built with coverage against the fake, and the hand-written
// lines of the root package and of internal/ (see that command's
// documentation for how it counts). It is a command, not a test: go test
// never runs it.
//
// The tests run with every `go test`: TestPrefetchYieldsSameItemsInSameOrder
// checks that prefetching yields exactly the sequential items in the same
// order, TestIterationMemoryIsFlat that the live heap does not grow between
// the 10,000th and the 100,000th invoice of an iteration, and
// TestFloorMatchesSDK and TestShadowsMirrorInvoice that the floors
// decode what the SDK decodes. None of them asserts a duration.
package benchmarks

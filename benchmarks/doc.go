// Package benchmarks measures the SDK against what a hand-written client
// would cost, and the fake against its latency budget. It has no API: the
// benchmarks and tests are its content. BENCHMARKS.md, at the root of the
// module, has the figures, the machine they come from and what they mean.
//
// Run them with
//
//	go test -run '^$' -bench . -benchmem -count 6 ./benchmarks/ | tee bench.txt
//	go run golang.org/x/perf/cmd/benchstat@latest bench.txt
//
// What is compared, each pair in the same run:
//
//   - BenchmarkListCall (a): one list call returning 100 invoices with
//     their charges, from an in-process httptest server that answers a
//     fixed body: the SDK (Invoices.ListByCustomer) against a hand-written
//     net/http + encoding/json call decoding into the same billing.Invoice
//     structs (Floor), over the same *http.Client.
//   - BenchmarkDecodePage (b): decoding one page of 1,000 full invoices
//     (about 3.7 MB): the SDK's streaming decoder, with exact decimals and
//     parsed timestamps, against encoding/json into plain structs of the
//     same shape with float64 amounts and string timestamps (FloatFloor),
//     and into []map[string]any (Map).
//   - BenchmarkIterate100k (c): iterating the fake's 100,000 invoices in
//     pages of 1,000, with 20 ms added to every request: one page at a
//     time (Sequential) against billing.Prefetch(8).
//     BenchmarkIterate100kReplay is the same with the fake's answers
//     replayed from memory, to show the SDK's scaling without the fake's
//     CPU.
//   - BenchmarkFakeFilteredSortedPage (d): the fake answering one
//     filtered, sorted middle page over 100,000 invoices, straight through
//     its Handler.
//
// The tests run with every `go test`: TestPrefetchYieldsSameItemsInSameOrder
// checks that prefetching yields exactly the sequential items in the same
// order, TestIterationMemoryIsFlat that the live heap does not grow between
// the 10,000th and the 100,000th invoice of an iteration, and
// TestFloorMatchesSDK and TestFloatShadowMirrorsInvoice that the floors
// decode what the SDK decodes. None of them asserts a duration.
package benchmarks

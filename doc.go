// Package billing is a client for the subscription-billing API: invoices,
// draft invoices, payment methods, sales tracking codes, subscription product
// items and bulk jobs.
//
// A call, a filtered list read to the end, an error branch, and the test
// that runs them on the bundled fake ([github.com/billingapi/billing-go/billingtest]),
// with no network and no key:
//
//	func TestOpenBalance(t *testing.T) {
//		srv := billingtest.NewServer(billingtest.WithSampleAccount()) // the bundled fake, seeded
//		t.Cleanup(srv.Close)
//		c := srv.Client() // live: billing.NewClient(apiKey, billing.WithBaseURL(baseURL))
//
//		inv, err := c.Invoices.Get(t.Context(), 1007, nil) // one call
//		if err != nil {
//			t.Fatal(err)
//		}
//
//		// A filtered list, every page of it, as an iter.Seq2.
//		unpaid := &billing.ListInvoiceSummariesParams{Filter: billing.InvoiceSummaryFilter{
//			InvoiceStatus: []billing.InvoiceStatus{billing.InvoiceStatusDue, billing.InvoiceStatusOverdue},
//		}}
//		open := decimal.Zero
//		for s, err := range c.InvoiceSummaries.All(t.Context(), inv.CustomerID, unpaid) {
//			if err != nil {
//				t.Fatal(err)
//			}
//			open = open.Add(s.OutstandingBalance) // exact decimals, never floats
//		}
//		if !open.Equal(decimal.RequireFromString("318")) {
//			t.Errorf("open balance %s, want 318", open)
//		}
//
//		// Errors are typed: branch with errors.Is and errors.As.
//		_, err = c.Invoices.Get(t.Context(), 999999, nil)
//		if !errors.Is(err, billing.ErrNotFound) {
//			t.Errorf("err = %v, want billing.ErrNotFound", err)
//		}
//	}
//
// In production, build one client with NewClient(apiKey,
// WithBaseURL(baseURL)) and share it. To test code that uses the SDK: the
// fake keeps state and fails on demand (billingtest.NewServer,
// Server.InjectFault); billingtest.NewInProcess and Server.Transport serve
// it with no socket, also as httpmock's answer to what no responder
// matches; and a client reaches httpmock however it is wired (Activate
// before or after NewClient, or a MockTransport in [WithHTTPClient]).
//
// # Getting started
//
// Build one [Client] per API key and base URL and share it; it is safe for
// concurrent use and holds no package-level state, so clients for different
// accounts work side by side:
//
//	c, err := billing.NewClient(apiKey, billing.WithBaseURL("https://billing.example.com"))
//	if err != nil { ... }
//	inv, err := c.Invoices.Get(ctx, 42, &billing.GetInvoiceParams{GroupCharges: true})
//
// The operations are grouped into services that share the client:
// c.Invoices, c.InvoiceSummaries, c.DraftInvoices, c.PaymentMethods,
// c.SalesTrackingCodes, c.SubscriptionItems and c.Bulk. Every method takes a
// [context.Context] first and accepts [RequestOption] values last. For an
// endpoint the SDK does not wrap, [Client.Do] sends any request under /v1
// with the same authentication, retries, errors and logging.
//
// # Lists, filters and pages
//
// Every list endpoint has the same four methods: List returns one [Page];
// Pages iterates over every page and All over every item, following the X-*
// paging headers; Count returns X-Count. A list scoped to a parent keeps a
// suffix on all four (Invoices.ListByCustomer, PagesByCustomer,
// AllByCustomer, CountByCustomer).
// Filters are typed per endpoint (for example [InvoiceFilter]) and rendered
// with package [github.com/billingapi/billing-go/query], which escapes values
// so that no value can change the structure of the expression.
//
// Page numbers skip and repeat items when the list changes while it is
// read. The [Stable] option makes any iterator page by key instead, yielding
// every item exactly once while the account changes, and its [Cursor]
// resumes an iteration after a restart:
//
//	var cur billing.Cursor // or restored with cur.UnmarshalText(saved)
//	for inv, err := range c.Invoices.All(ctx, params, billing.Stable(&cur)) {
//		... handle inv, then save cur.MarshalText() now and then ...
//	}
//
// Iterators stop at the first error, which they yield once. Once ctx is
// done, All yields ctx's error in place of the next item, even one of a
// page already read, and Pages in place of the next page: cancelling
// stops the loop at once and nothing more is delivered.
//
// Which lists can be kept in sync by modification time: a customer's
// invoice summaries ([StableBy] "modifiedTimestamp"), and a subscription
// product's items (though a second holding more items than a page ends
// such a run with [ErrPagination], as they have no split field). The
// invoice lists cannot: the API filters them by created, effective and
// posted time only, so a payment made on an old invoice does not bring it
// back. To keep a copy of invoices fresh, sync each customer's invoice
// summaries by modification time (balances and status), and read with
// [InvoicesService.Get] the invoices whose charges you need; new invoices
// come from a [Stable] iteration of [InvoicesService.All] on
// postedTimestamp, resumed from its cursor.
//
// # Values on the wire
//
// Amounts and quantities are [decimal.Decimal] and travel as exact JSON
// numbers in both directions. Timestamps are [Timestamp]. Fields that the API
// returns as "string or null" are pointers; fields whose shape the API
// reference does not show are kept as [encoding/json.RawMessage] so nothing the
// server sent is lost. Enumerations are string types with constants for the
// documented values; a value the SDK does not know decodes without error.
//
// In request parameters, optional numbers, booleans and amounts are pointers
// (so 0 and false can be sent); an optional string that is empty is not sent.
//
// # Errors
//
// A non-2xx answer is an [*APIError]; use [errors.Is] with [ErrNotFound],
// [ErrBadRequest], [ErrUnauthorized], [ErrConflict], [ErrRateLimited] or
// [ErrServer], and [errors.As] for the details. Parameters that the API
// reference rules out are rejected before anything is sent, as a
// [*ValidationError]. A write whose outcome is unknown (the request may have
// reached the server but no answer came) matches [ErrOutcomeUnknown].
//
// # Retries
//
// Reads are retried on connection errors, 429, 500, 502, 503 and 504. Writes
// (write-off, replace card, wallet agreement, tracking code, bulk process) are
// retried only when the server surely did not act on them: after a 429, or
// when the request never left this process. A wait the service asks for
// holds every call of the client, not only the one it answered, so that
// callers sharing a [Client] do not each spend a 429 on one burst. See
// [RetryPolicy].
//
// # Tracing and metrics
//
// Each request carries its [Operation]: the SDK method's name, e.g.
// "Invoices.List", and its route template, e.g. "GET /v1/Invoices", which
// a transport in the client's http.Client reads with
// [OperationFromRequest] (a span name, a metric label). [WithAttemptObserver]
// hands each HTTP attempt, as an [Attempt], to any metrics or tracing
// library; the SDK depends on none. Neither holds the query string, the
// API key or card data. The module in examples/otel traces calls with
// OpenTelemetry.
//
// # Secrets
//
// The API key, card numbers and CVVs never appear in a log line, an error
// message or the fmt output of any value of this package.
package billing

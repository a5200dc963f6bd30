// Package billingtest is an in-memory fake of the billing API, for testing
// code that uses the SDK without the live service.
//
// Like [net/http/httptest], [NewServer] starts it on a loopback port;
// like a real account it keeps state, which tests seed and inspect through
// Go methods:
//
//	srv := billingtest.NewServer()
//	t.Cleanup(srv.Close)
//	cust, _ := srv.AddCustomer(billingtest.Customer{FirstName: "Ada"})
//	inv, _ := srv.AddInvoice(billingtest.Invoice{CustomerID: cust, Charges: charges})
//	client := srv.Client() // an SDK client wired to the fake
//	... run the code under test with client ...
//	got, _ := srv.Invoice(inv) // the invoice as the API would now return it
//
// The fake answers all twelve operations of the API reference as the
// reference states them; where the reference leaves a choice open, the
// fake's choice is written below. It is safe for concurrent use.
//
// # Seeding
//
// Three ways, which combine: the Add methods ([Server.AddCustomer],
// [Server.AddInvoice], ...); a JSON fixtures file ([Server.LoadFixtures],
// [WithFixtures], schema in LoadFixtures' documentation); and a
// deterministic generator of realistic data at scale ([Server.Generate],
// [WithGenerated]): 100,000 invoices take well under a second. The clock is
// injectable ([WithClock]); invoice statuses and throttling windows follow
// it.
//
// # Inspecting
//
// [Server.Invoice], [Server.InvoiceSummary], [Server.Customer],
// [Server.CreditCard], [Server.CreditCards], [Server.WalletMethods],
// [Server.SalesTrackingCodes], [Server.Subscriptions], [Server.BulkJob] and
// [Server.Counts] show the state; [Server.Requests] the requests received
// (card numbers and CVVs redacted); [Server.Events] the automated
// communications the writes would have sent.
//
// # Authentication and throttling
//
// Every request needs "Authorization: Basic <key>" with the fake's key
// ([DefaultAPIKey] unless [WithAPIKey]), compared in constant time. A
// missing or wrong key is 401; a header not of that form is 400. Requests
// are counted per key in minute and day windows ([WithRateLimit]); every
// answer carries X-Rate-Limit-{Limit,Remaining,Reset}-{Minute,Day}, Reset in
// seconds until the window ends, and a request beyond a limit gets 429 with
// Retry-After. The draft-invoice PDF has its own per-minute limit
// ([WithPDFRateLimit]).
//
// # Lists
//
// pageNumber is zero-based; absent means 0. pageSize absent or 0 means
// [DefaultPageSize]; above [MaxPageSize] it is cut to MaxPageSize. Both must
// be integers; anything else is 400. For page n of size s with c matching
// rows the headers are: X-Count c; X-MaxCount the rows of the endpoint
// without the query; X-CurrentPage n (also past the last page);
// X-NextPage n+1 when that page has rows, else -1; X-PreviousPage n-1, -1
// on page 0; X-PageSize s; X-MaxPageIndex ceil(c/s), the total number of
// pages as the reference describes it (0 when nothing matches);
// X-SortOrder Ascending unless asked otherwise; X-SortExpression the sort
// field, or "id". The body is always a JSON array, [] when empty.
//
// Filters are parsed with package query and evaluated on the endpoint's
// own filter names, which are those of the SDK's filter structs (compared
// case-insensitively); an unknown name, a malformed expression or a value
// of the wrong kind is 400 with Key "Api Error". Strings compare
// case-insensitively with * wildcards; [empty] matches null or empty (and
// a null id or date); sets list alternatives; ranges include the lower
// bound and exclude the upper, with open ends, and a date-only bound is
// midnight UTC; null never falls inside a range.
//
// sortExpression takes the endpoint's string and date filter names;
// sortOrder without sortExpression is 400. Strings order null or empty
// first, then those starting with a digit, then other non-letters, then
// letters, case-insensitively; Descending reverses that. Ties are broken by
// ascending id in both directions, so pages never overlap. Without a sort,
// rows come in ascending id.
//
// # Writes and events
//
// Writes follow the reference's rules (section 4): a write-off must equal
// the whole outstanding balance and answers 404 when the account lacks the
// permission ([WithWriteOffPermission]); a deleted or already replaced card
// cannot be replaced; a wallet agreement needs token or baid; a tracking
// code's type must be a category or its custom name; only a validated bulk
// job is processed, once (else 409). Each write records the [Event]s it
// would trigger; X-SUPPRESS-ALL-EVENTS: True records none.
//
// # Faults
//
// [Server.InjectFault] makes the next requests to a [Route] fail: a chosen
// status with a wait header, a delay, a dropped connection before or after
// the change is applied, or a truncated body, for testing retries and
// recovery.
//
// The same fake runs as a program: cmd/billing-fake.
package billingtest

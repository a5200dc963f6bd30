// Package billingtest is an in-memory fake of the billing API, for testing
// code that uses the SDK without the live service.
//
// Like [net/http/httptest], [NewServer] starts it on a loopback port;
// like a real account it keeps state, which tests seed and inspect through
// Go methods:
//
//	srv := billingtest.NewServer(billingtest.WithSampleAccount()) // a small account, in one line
//	t.Cleanup(srv.Close)
//	client := srv.Client() // an SDK client wired to the fake
//	... run the code under test with client, e.g. a write-off of invoice 1005 ...
//	got, _ := srv.Invoice(1005) // the invoice as the API would now return it
//
// [NewInProcess] is the same fake with no listener: its [Server.Transport]
// serves requests in process, whatever their URL, so it also answers, as
// httpmock's no-responder, every request a test does not pin:
// httpmock.RegisterNoResponder(srv.Transport().RoundTrip).
//
// The fake answers all twelve operations of the API reference as the
// reference states them, and as the live service (an ASP.NET stack)
// answers clients other than this SDK; where the reference leaves a
// choice open, the fake's choice is written below. It is safe for
// concurrent use.
//
// # Requests as clients send them
//
// Paths match as the service matches them: without regard to case and with
// or without one trailing slash, and with \ (or %5C) separating segments
// as / does, as IIS reads it, so /v1/invoices/42, /v1/Invoices/42/,
// /V1/INVOICES/42 and /v1\Invoices\42 are the same request. A literal
// segment wins over the wallet's provider segment: POST /v1/invoices is a
// 405 (Allow: GET), never a billing agreement. A path that exists for
// another method is 405 with Allow; any other path, including ones with
// empty, "." or ".." segments, is 404.
//
// The query string is read with & as the only separator, so a raw ; is
// part of its value (?query=name:Seat*;status:Deleted is one filter of two
// pairs); + is a space and %XX escapes are decoded. Parameter names are
// compared without regard to case (?PageSize=10); unknown parameters are
// ignored. pageSize and pageNumber may have white space around the number,
// as the service's integer binder allows. A boolean parameter
// (showTrackedItems, groupCharges) is true or false in any case; absent is
// false; any other value, 1, 0 and an empty value included, is 400 on
// every route, as the service's binder knows no other spelling.
//
// JSON bodies bind as the service's binder binds them: a leading UTF-8
// byte-order mark skipped, keys without regard to case, unknown keys
// ignored, numbers sent as strings converted
// ({"invoiceId":"910104","amount":"20.00"}), numbers accepted where a
// string is expected (a wallet token), and booleans sent as "true",
// "False" or a number. An empty string for a number is no value. A value
// that cannot convert is 400 with a message naming the field as it is on
// the wire (paymentCollectOptions.collectionAmount, planProductIds[1]),
// never quoting the value. A JSON body on a GET is ignored.
//
// Response headers go out spelled as the reference writes them
// (X-NextPage, X-MaxPageIndex, X-Rate-Limit-Remaining-Minute), not in
// Go's canonical form. Error bodies carry ErrorId 0, as every answer of
// the live service seen does, unless [WithNumberedErrors].
//
// # Seeding
//
// [WithSampleAccount] seeds a small, documented account in one line. Then
// three ways, which combine: the Add methods ([Server.AddCustomer],
// [Server.AddInvoice], ...); a JSON fixtures file ([Server.LoadFixtures],
// [WithFixtures], schema in LoadFixtures' documentation); and a
// deterministic generator of realistic data at scale ([Server.Generate],
// [WithGenerated]): 100,000 invoices take well under a second. The clock is
// injectable ([WithClock]); invoice statuses, throttling windows and every
// answer's Date header follow it. Every Add method takes the fake's own type of the entity
// ([Customer], [Invoice], [SalesTrackingCode], [SubscriptionProductItem],
// ...), never an SDK resource, with times as time.Time.
//
// What the fake accepts it can serve, and dump as fixtures that load
// back: the Add methods, [Server.UpdateInvoice] and fixtures refuse, with
// an error naming the field and leaving the state as it was, an entity
// that would need an id past the largest int64, a time outside the years
// 1 to 9999 (a due date from payment terms or from a late posting date
// included; terms are at most Net3652058), and an amount of more than
// 240 integer digits or 256 decimal places, which the SDK could not read
// (it refuses runs of more than 256 digits), the sums the fake derives for
// an invoice's one instalment included. The Add methods also take an enum
// value the reference does not list, which fixtures refuse as a typo: it
// is served, but its dump does not load back.
//
// # Inspecting
//
// One scheme for every kind of entity: AddX seeds one and returns its id,
// X(id) returns one and whether it exists, Xs() returns all by id
// ([Server.Customer], [Server.Customers], ...). Invoices, which can number
// hundreds of thousands, are read one at a time ([Server.Invoice],
// [Server.InvoiceSummary]); [Server.Counts] counts every kind.
// [Server.DumpFixtures] writes the whole state as a fixtures document.
// [Server.Requests] lists the requests received, card numbers and CVVs
// redacted, and [Server.Events] the automated communications the writes
// would have sent. [Server.ReplaceFixtures] replaces the whole state and
// [Server.Reset] goes back to the seeding options' data.
//
// # Changing data under a client
//
// A live account changes while clients page through it. Tests make those
// changes from Go, between two yields of the loop under test, so that they
// are deterministic: [Server.DeleteInvoice], [Server.UpdateInvoice] and
// [Server.WriteOffInvoice], besides the Add methods and the API's own
// writes. Sorting on a date compares the full timestamp and breaks ties by
// id, and a range bound is a whole second or date, lower inclusive: what
// stable iteration (billing.Stable) relies on.
//
// # Authentication and throttling
//
// A request's Host must name the fake: localhost (or a name under
// .localhost), a loopback address, or the address the request arrived on;
// any other is 400 before anything else is done, so that a web page the
// developer visits cannot drive the fake through DNS rebinding.
// [WithAllowedHosts] adds names (the one a container is reached by), or
// "*" for any; requests handed to Handler or Transport in process are not
// checked.
//
// Every request needs "Authorization: Basic <key>" with the fake's key
// ([DefaultAPIKey] unless [WithAPIKey]), compared in constant time. A
// missing or wrong key is 401; a header not of that form is 400. Requests
// are throttled per key as [WithRateLimit] and [WithPDFRateLimit] say
// (by default [DefaultRateLimitPerMinute] and [DefaultRateLimitPerDay]),
// with the reference's X-Rate-Limit-* headers and 429 with Retry-After.
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
// midnight UTC; null never falls inside a range. So that no query can
// stall the fake, a filter has at most 100 conditions and an amount in it
// is one the service's decimal type can hold (at most 28 decimal places
// and 29 integer digits, written in at most 100 characters); beyond
// either, 400. A list whose request's context ends (its client has gone)
// stops filtering and answers nothing.
//
// sortExpression takes the endpoint's string and date filter names;
// sortOrder without sortExpression is 400. Strings order null or empty
// first, then those starting with a digit, then other non-letters, then
// letters, case-insensitively; Descending reverses that. Ties are broken by
// ascending id in both directions, so pages never overlap. Without a sort,
// rows come in ascending id.
//
// # Variations: every service the reference allows
//
// Where the reference leaves the service's behaviour open, the fake makes
// the choices above by default, and the live service may make others.
// Code that works against one choice proves nothing about the others, so
// options make the fake each service the reference allows, one at a time
// or all at once ([WithAllVariations]), as do the cmd/billing-fake flags
// of the same names: the order of ties ([WithTieOrder]), a page cap
// ([WithPageCap]), the other reading of the paging headers
// ([WithOtherPagingHeaders]), the timestamps' digits and zone
// ([WithTimestampDigits]), members the reference does not list
// ([WithUnknownMembers]) and enum values it does not list
// ([WithUnlistedEnumValues]). [WithChurn] makes the fake a busy account
// instead, whose rows change before list answers ([Server.ChurnLog] says
// which); it is not part of WithAllVariations.
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
// [Server.InjectFault] makes the next requests to a [Route] fail (a
// status, a delay, a dropped connection, a truncated body), for testing
// retries and recovery.
//
// # Endpoints the SDK does not wrap
//
// Code that calls the rest of the service through billing.Client.Do is
// tested on the fake by adding the routes it calls: [Server.HandleFunc]
// serves a method and path pattern with a handler, as the fake's own
// routes are served, and POST /_fake/routes does the same with a canned
// answer for tests in other languages.
//
// # Control API
//
// Tests in other languages, which run the fake as the cmd/billing-fake
// program, seed, inspect and steer it over HTTP with the same methods. The
// control API lives under /_fake/, needs the fake's key like any other
// request, and is neither recorded, throttled nor faulted. Paths match
// without regard to case or a trailing slash.
//
//	GET    /_fake/state     the whole state as a fixtures document (Server.DumpFixtures)
//	GET    /_fake/state?kind=invoices  only the kinds named (see below)
//	PUT    /_fake/state     replace the state with a fixtures document (Server.ReplaceFixtures)
//	POST   /_fake/fixtures  add a fixtures document's entities (Server.LoadFixtures)
//	POST   /_fake/reset     back to the seed: data, events, requests, faults (Server.Reset)
//	GET    /_fake/events    [{"kind","operation","entityId","time"}] (Server.Events)
//	DELETE /_fake/events    forget them (Server.ClearEvents)
//	GET    /_fake/requests  [{"method","path","query","header","authorized","body","status","time"}] (Server.Requests)
//	DELETE /_fake/requests  forget them (Server.ClearRequests)
//	GET    /_fake/routes    [{"name","route"}]: the routes faults take, added ones included
//	POST   /_fake/routes    {"method","path","status","header","body"}: add a route with a canned answer (Server.HandleFunc)
//	DELETE /_fake/routes    remove the added routes (Server.ClearRoutes)
//	POST   /_fake/faults    {"route","times","status","retryAfterSeconds","delayMilliseconds","drop","truncate"} (Server.InjectFault)
//	DELETE /_fake/faults    remove pending faults (Server.ClearFaults)
//
// fake-control.openapi.yaml, at the root of the module, describes each
// in full: ?kind= takes keys of the fixtures document; an added route's
// path is a pattern as HandleFunc takes it, and its answer is canned; a
// fault's route is a name from /_fake/routes or a [Route] value. For
// example, to check what a write changed and which events it sent:
//
//	KEY='Authorization: Basic billingtest-key'
//	curl -s -H "$KEY" -X PUT "$URL/v1/paymentMethods/creditCard" -d @card.json
//	curl -s -H "$KEY" "$URL/_fake/state?kind=creditCards" | jq '.creditCards'
//	curl -s -H "$KEY" "$URL/_fake/events"
//
// The same fake runs as a program: cmd/billing-fake, whose
// -dump-fixtures flag writes generated data as a fixtures file to start
// from.
package billingtest

package billingtest

import (
	_ "embed"
	"fmt"
	"time"
)

// sampleAccount is the fixtures document of WithSampleAccount (a string,
// which nothing can change).
//
//go:embed sampleaccount.json
var sampleAccount string

// sampleAccountNow is the instant the sample account stands at, the
// fake's clock unless WithClock says otherwise.
func sampleAccountNow() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }

// WithSampleAccount seeds the fake with a small account of a software
// company, the same in every run, so that a test or an example starts
// from realistic data in one line:
//
//	srv := billingtest.NewServer(billingtest.WithSampleAccount())
//
// The account stands at noon UTC on 1 June 2025: the fake's clock is
// fixed there, so that the invoice statuses below hold whenever the test
// runs, unless [WithClock] is given too (in any order). A clock that
// stands still holds the throttling windows still as well, which matters
// only to a test that makes more than [DefaultRateLimitPerMinute]
// requests. It holds:
//
// Customers, each with a code of sales tracking code category 1, which
// the account names "Region" (codes 500 NORTH and 501 SOUTH):
//
//	100 Ada Lovelace     Analytical Engines Ltd   Active     NORTH
//	101 Grace Hopper     Compiler Systems Inc     Active     NORTH
//	102 Edsger Dijkstra  Shortest Path BV         Active     SOUTH
//	103 Barbara Liskov   Substitution Labs        Cancelled  SOUTH
//
// Posted invoices, numbered as their ids, Net30 terms; statuses as of
// 1 June 2025:
//
//	id    customer  posted      amount   paid  outstanding  status
//	1000  103       2025-01-05     29       0          29   Overdue
//	1001  102       2025-02-20   1200    1200           0   Paid
//	1002  101       2025-03-10     29      29           0   Paid
//	1003  100       2025-03-15    124     124           0   Paid
//	1004  101       2025-04-10     29       0          29   Overdue
//	1005  100       2025-04-15    124      50          74   Overdue
//	1006  101       2025-05-10     29       0          29   Due
//	1007  100       2025-05-15    244       0         244   Due
//	1008  102       2025-05-20    450       0         450   Due
//
// That is 855 outstanding in all. Ada's invoices charge the Platform fee
// (99) and 2 Additional users (12.50 each) of her subscription; 1007
// adds an Onboarding workshop (120) bought as purchase 7002, so that read
// with GroupCharges it has two charge groups, "Professional" and the
// purchase. Grace's and Barbara's charge the Starter plan (29) of their
// subscriptions; Edsger's are purchases: 2 Consulting days (600 each,
// purchase 7001) and a Code review (450, purchase 7003).
//
// Subscriptions, monthly:
//
//	200 Ada, plan 900 "Professional", Active: products 201 Platform fee (99)
//	    and 202 Additional user (12.50, where the plan now asks 14.00)
//	210 Grace, plan 910 "Starter", Active: product 211 Starter plan (29)
//	220 Barbara, plan 910 "Starter", Cancelled: product 221 Starter plan (29)
//
// Subscription product 202 has three items, the user seats 250
// "User seat: Charles Babbage" (reference "SEAT-0001"), 251
// "User seat: Mary Somerville" (reference 4711, a number) and 252
// "User seat: Augustus De Morgan" (reference "SEAT-0003", Deleted).
//
// Draft invoice 800 is Ada's June invoice: Platform fee 1 × 99 and
// Additional user 2 for 25. Credit card 300 is Ada's default, a Visa
// ending 4242 that expired in May 2025 (05/25); card 301 is Edsger's
// default, a Mastercard ending 4444 (11/27). Grace and Barbara have no
// payment method, and there are no wallet payment methods. Bulk job 400,
// a PriceChange, is validated and not processed.
//
// Entities created later, through the API or the Add methods without an
// id, get ids from 1009 on, in the order they are made. The other seeding
// options add to the account when they come after this one, e.g.
// WithSampleAccount(), WithGenerated(...); before it, their ids may clash
// with the account's, which [NewServer] reports. [Server.Reset] goes back
// to the account. [Server.DumpFixtures] writes it out as a fixtures
// document, a starting point for one of your own.
func WithSampleAccount() Option {
	return func(c *config) error {
		if c.sampleAccount {
			return fmt.Errorf("WithSampleAccount given twice")
		}
		c.sampleAccount = true
		c.seed = append(c.seed, func(s *Server) error {
			if err := s.loadFixtures([]byte(sampleAccount)); err != nil {
				return fmt.Errorf("WithSampleAccount: %w", err)
			}
			return nil
		})
		return nil
	}
}

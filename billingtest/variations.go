package billingtest

import (
	"cmp"
	"hash/maphash"

	"github.com/billingapi/billing-go/billingtest/internal/filter"
)

// What the reference leaves open, and the live service may do in any way
// it allows: the options below make the fake another such service than
// its default (see listRequest), as the package doc's Variations section
// describes them. [WithChurn] (churn.go) varies the data instead.

// TieOrder is the order in which a list sorted on a field gives the rows
// whose values of that field are equal. The reference says nothing about
// it.
type TieOrder int

const (
	// TieByID gives equal rows in ascending id order, in both directions
	// of the sort: the default.
	TieByID TieOrder = iota
	// TieByIDDescending gives them in descending id order.
	TieByIDDescending
	// TieByInsertion gives them in the order the fake stores them (for
	// invoices, their order of insertion).
	TieByInsertion
	// TieRandom gives them in a new random order on every request, as a
	// SQL paging query without a unique tie-breaker may.
	TieRandom
)

// WithTieOrder sets the order of rows with equal sort keys (default
// [TieByID]).
func WithTieOrder(o TieOrder) Option {
	return option(refuseIf(o < TieByID || o > TieRandom, "WithTieOrder: unknown order %d", o), func(c *config) { c.tie = o })
}

// WithPageCap makes n the largest page of every list instead of
// [MaxPageSize]; the live service's is at least 1,000, smaller values let
// a test meet the cap with few rows. With honest, X-PageSize says n when
// a larger page was asked for, and page numbers count pages of n. Without
// it the cap is silent: X-PageSize echoes the size asked for, and page p
// starts at row p × asked, of which the page holds the first n (so that
// page numbers past 0 skip rows). X-Count is the true count either way.
func WithPageCap(n int, honest bool) Option {
	return option(refuseIf(n < 1, "WithPageCap: cap must be positive, got %d", n), func(c *config) { c.pageCap, c.honestCap = n, honest })
}

// WithOtherPagingHeaders makes the fake read the reference's X-NextPage
// ("Number of the next page") and X-MaxPageIndex ("Total number of
// pages") the other way: X-NextPage is n+1 on every page, the last
// included, and X-MaxPageIndex is the index of the last page (one less
// than the number of pages, 0 when nothing matches).
func WithOtherPagingHeaders() Option {
	return option(nil, func(c *config) { c.otherHeaders = true })
}

// Zone suffixes of timestamps, for [WithTimestampDigits].
const (
	ZoneNone  = ""       // 2025-03-01T02:00:00.5
	ZoneZ     = "Z"      // 2025-03-01T02:00:00.5Z
	ZoneUTC00 = "+00:00" // 2025-03-01T02:00:00.5+00:00
)

// WithTimestampDigits makes every timestamp of every answer carry digits
// fractional digits (0 to 7, cut, not rounded, as a column of lower
// precision would hold them), or, with digits -1, up to 7 with trailing
// zeros trimmed, as .NET writes them; zone is [ZoneNone], [ZoneZ] or
// [ZoneUTC00]. The fake still sorts and filters on the full value. The
// default writes what the SDK's encoder writes.
func WithTimestampDigits(digits int, zone string) Option {
	err := cmp.Or(refuseIf(digits < -1 || digits > 7, "WithTimestampDigits: digits must be -1 or 0 to 7, got %d", digits),
		refuseIf(zone != ZoneNone && zone != ZoneZ && zone != ZoneUTC00, "WithTimestampDigits: zone must be \"\", \"Z\" or \"+00:00\", got %q", zone))
	return option(err, func(c *config) { c.stampDigits, c.stampZone, c.stamps = digits, zone, true })
}

// WithUnknownMembers adds a member the reference does not list to every
// JSON object of every successful answer (resources and the objects
// inside them), as a service that has grown new fields sends them.
func WithUnknownMembers() Option {
	return option(nil, func(c *config) { c.unknownMembers = true })
}

// WithUnlistedEnumValues makes the fake a service that knows enum values
// the reference does not list: a filter on an enum field may name any
// value (status:Archived), and matches the rows that carry it, instead of
// answering 400. Rows seeded with such values ([Server.AddCustomer],
// [Server.AddSubscriptionProductItem], ...) are stored and returned as
// given with or without this option.
func WithUnlistedEnumValues() Option {
	return option(nil, func(c *config) { c.unlistedEnums = true })
}

// WithAllVariations turns on a variation of each kind: ties in random
// order, a silent page cap of n, the other reading of the paging headers,
// timestamps of 7 digits without a zone, unknown members, and filters
// that accept unlisted enum values.
func WithAllVariations(n int) Option {
	return func(c *config) error {
		for _, o := range []Option{WithTieOrder(TieRandom), WithPageCap(n, false), WithOtherPagingHeaders(), WithTimestampDigits(7, ZoneNone), WithUnknownMembers(), WithUnlistedEnumValues()} {
			if err := o(c); err != nil {
				return err
			}
		}
		return nil
	}
}

// vary applies the paging variations to a checked list request.
func (s *Server) vary(lr *listRequest) {
	c, asked := &s.cfg, lr.asked
	lr.OffsetSize, lr.headerSize = lr.Size, lr.Size
	if c.pageCap > 0 {
		asked = cmp.Or(asked, DefaultPageSize) // never negative: see pagingInt
		lr.Size = min(asked, c.pageCap)
		lr.OffsetSize, lr.headerSize = lr.Size, lr.Size
		if !c.honestCap {
			lr.OffsetSize, lr.headerSize = asked, asked
		}
	}
	lr.otherHeaders = c.otherHeaders
	lr.Varied = c.tie != TieByID || c.pageCap > 0 // no fast path assuming the default paging and order
	switch c.tie {
	case TieByIDDescending:
		lr.Tie = func(a, b *filter.TieKey) int { return cmp.Compare(b.ID, a.ID) }
	case TieByInsertion:
		lr.Tie = func(a, b *filter.TieKey) int { return cmp.Compare(a.Seq, b.Seq) }
	case TieRandom:
		seed := maphash.MakeSeed()
		lr.Tie = func(a, b *filter.TieKey) int {
			return cmp.Compare(maphash.Comparable(seed, a.ID), maphash.Comparable(seed, b.ID))
		}
	}
}

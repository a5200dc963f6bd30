package pager

import (
	"context"
	"errors"
	"time"

	"github.com/shopspring/decimal"
)

// ErrPagination matches a failed iteration: the server's answers cannot be
// paged through without repeating or skipping items. The SDK exports it
// as billing.ErrPagination.
var ErrPagination = errors.New("billing: pagination failed")

// ErrEmptyRange is what a Source returns for a request whose key range,
// merged with the caller's own filter, can hold nothing: no request was
// needed, and the range is done.
var ErrEmptyRange = errors.New("billing: empty key range")

// Info is what one answer's paging headers said (-1 for a header it did
// not carry), and what was asked for.
type Info struct {
	Count, CurrentPage, NextPage, PageSize, MaxPageIndex int
	// NextHeader says X-NextPage was sent: -1 then means "no next page",
	// while an absent header says nothing.
	NextHeader bool
	// Requested is the page number asked for; it stands in for
	// CurrentPage when the server leaves that header out. RequestedSize is
	// the size asked for, 0 for the server's default.
	Requested, RequestedSize int
	// Date is the answer's Date header, the server's clock when it
	// answered (zero when absent): a key second before it can receive no
	// more writes.
	Date time.Time
}

// Page is one answer of a list endpoint.
type Page[T any] struct {
	Items []T
	Info  Info
	// Meta is the source's own record of the answer (the SDK's Response),
	// carried to the consumer untouched.
	Meta any
	// Cursor, on a page of a stable iteration, is the cursor whose pending
	// positions are this page's items: Cursor.Reached moves it item by item.
	Cursor *Cursor
}

// Request is one page to fetch: page Page of size Size (0: the size the
// caller's params ask for) of the items in [Lower, Upper) by key, each end
// open when zero (only stable iterations set them), and, when Parts is
// not empty, whose split fields lie in those ranges. Claim, inside a
// pipeline, is the gate every attempt of the request passes (Claim.Acquire
// before it is sent, Claim.Release once its answer is read); nil outside.
type Request struct {
	Page, Size   int
	Lower, Upper time.Time
	Parts        []Range
	Claim        *Claim
}

// Range is lower <= v < upper on the split field Source.Splits[Split], an
// end open when not Valid: one part of a second that holds more items
// than a page.
type Range struct {
	Split        int
	Lower, Upper decimal.NullDecimal
}

// contains reports whether v lies in r.
func (r Range) contains(v decimal.Decimal) bool {
	return (!r.Lower.Valid || !v.LessThan(r.Lower.Decimal)) && (!r.Upper.Valid || v.LessThan(r.Upper.Decimal))
}

// Split is a numeric field the endpoint can filter on by range: a second
// holding more items than a page is read in parts of its domain.
type Split[T any] struct {
	// Name is the filter name, e.g. closingArBalance.
	Name string
	// Value reads the item's value of the field.
	Value func(*T) decimal.Decimal
}

// Source is one list endpoint with the caller's criteria: how to fetch a
// page, and how to read an item's id and (for stable iteration) key.
type Source[T any] struct {
	Fetch func(ctx context.Context, r Request) (*Page[T], error)
	ID    func(*T) int64
	// Key reads the key a stable iteration pages on; KeyName names it in
	// errors.
	Key     func(*T) time.Time
	KeyName string
	// Splits are the fields a second that holds more items than a page is
	// split on, in the order tried; none: such a second cannot be proven
	// read, and the iteration ends with ErrPagination.
	Splits []Split[T]
}

// current is the page's number: CurrentPage, else the one asked for.
func (i Info) current() int {
	if i.CurrentPage >= 0 {
		return i.CurrentPage
	}
	return i.Requested
}

// HasNext reports whether another page follows a page of n items, from
// whichever headers the server sent: an empty page, an X-NextPage that
// does not move forward, an X-MaxPageIndex or X-Count that this page
// reaches, or (with none of those) a page shorter than its size all mean
// this is the last page.
func (i Info) HasNext(n int) bool {
	if n == 0 {
		return false
	}
	cur, size := i.current(), i.PageSize
	if size <= 0 {
		size = i.RequestedSize
	}
	switch {
	case i.NextHeader && (i.NextPage < 0 || i.NextPage <= cur):
		return false
	case i.MaxPageIndex >= 0 && cur >= i.MaxPageIndex:
		return false
	case i.Count >= 0 && size > 0 && (cur+1)*size >= i.Count:
		return false
	case !i.NextHeader && i.Count < 0 && i.MaxPageIndex < 0 && size > 0 && n < size:
		return false
	}
	return true
}

// NextPageNumber is the number of the page after this one: X-NextPage when
// it moves forward, else the current page plus one.
func (i Info) NextPageNumber() int {
	if cur := i.current(); i.NextPage > cur {
		return i.NextPage
	}
	return i.current() + 1
}

// lastPageIndex is the index of the last page as the headers tell it, or
// -1 when they do not.
func (i Info) lastPageIndex() int {
	size := i.PageSize
	if size <= 0 {
		size = i.RequestedSize
	}
	if i.Count <= 0 || size <= 0 {
		return -1
	}
	return (i.Count - 1) / size
}

// moreAfter reports whether the answer announces items after this page of
// n items, which starts at position start of the range asked for: X-Count
// says so when the server sends it, else the other paging headers. The
// length of the page says nothing: a server may cap it silently.
func (i Info) moreAfter(start, n int) bool {
	if i.Count >= 0 {
		return i.Count > start+n
	}
	return i.HasNext(n)
}

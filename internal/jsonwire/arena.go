package jsonwire

import (
	"unsafe"

	"github.com/shopspring/decimal"
)

// Arena hands out the small values one decode makes thousands of (string
// contents, raw JSON copies, the targets of *string and *int64 fields)
// from larger blocks, so that a page of invoices costs a few hundred
// allocations for them instead of tens of thousands. A value handed out
// keeps its block alive: a caller that keeps one string of a page keeps
// up to maxBlock bytes, never the page.
//
// An Arena lives for one decode; the zero Arena is ready to use. It is
// not safe for concurrent use.
type Arena struct {
	bytes []byte // the unused tail of the current block
	strs  []string
	ints  []int64
	next  int // the size of the next block of bytes
	// decimals are the amounts read so far, by their JSON text.
	decimals map[string]decimal.Decimal
}

const (
	minBlock = 512
	maxBlock = 16 << 10
	// maxArenaString is the longest value copied into a block; longer
	// ones get their own allocation.
	maxArenaString = 1 << 10
	ptrBlock       = 64
	// maxDecimals bounds the amounts remembered, and maxDecimalText the
	// length of one: prices, quantities and round totals repeat, long
	// numbers rarely do.
	maxDecimals    = 1024
	maxDecimalText = 24
)

// decimal parses the JSON text of an amount (see ParseDecimal). An amount
// seen before in this decode is not parsed again: it shares the earlier
// one's value, which is safe because a decimal.Decimal is immutable (its
// methods return new values and never change the big.Int it holds). A
// nil Arena only parses.
func (a *Arena) decimal(raw []byte) (decimal.Decimal, error) {
	if a == nil || len(raw) > maxDecimalText {
		return ParseDecimal(raw)
	}
	if d, ok := a.decimals[string(raw)]; ok {
		return d, nil
	}
	d, err := ParseDecimal(raw)
	if err != nil {
		return d, err
	}
	if a.decimals == nil {
		a.decimals = make(map[string]decimal.Decimal, 64)
	}
	if len(a.decimals) < maxDecimals {
		a.decimals[a.String(raw)] = d
	}
	return d, nil
}

// alloc returns n bytes from the current block, starting a new one when
// it is too small. The slice's capacity is n, so appending to it copies.
func (a *Arena) alloc(n int) []byte {
	if len(a.bytes) < n {
		if a.next < minBlock {
			a.next = minBlock
		}
		a.bytes = make([]byte, max(a.next, n))
		a.next = min(a.next*2, maxBlock)
	}
	b := a.bytes[:n:n]
	a.bytes = a.bytes[n:]
	return b
}

// String returns b as a string.
func (a *Arena) String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > maxArenaString {
		return string(b)
	}
	s := a.alloc(len(b))
	copy(s, b)
	// The block's bytes handed out are never written again.
	return unsafe.String(&s[0], len(s))
}

// Bytes returns a copy of b.
func (a *Arena) Bytes(b []byte) []byte {
	if len(b) > maxArenaString {
		return append([]byte(nil), b...)
	}
	s := a.alloc(len(b))
	copy(s, b)
	return s
}

// StringPtr returns a pointer to a new, empty string.
func (a *Arena) StringPtr() *string {
	if len(a.strs) == 0 {
		a.strs = make([]string, ptrBlock)
	}
	p := &a.strs[0]
	a.strs = a.strs[1:]
	return p
}

// Int64Ptr returns a pointer to a new zero int64.
func (a *Arena) Int64Ptr() *int64 {
	if len(a.ints) == 0 {
		a.ints = make([]int64, ptrBlock)
	}
	p := &a.ints[0]
	a.ints = a.ints[1:]
	return p
}

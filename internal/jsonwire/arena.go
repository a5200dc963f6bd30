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
	// decimals remembers amounts read before (see decimal); it is made
	// once the decode has read decimalsBeforeCache of them.
	decimals *[decimalSlots]decimalSlot
	read     int // the amounts read so far
}

// decimalSlot is an amount read before: its coefficient and exponent,
// and the Decimal made for them.
type decimalSlot struct {
	coef int64
	exp  int32
	d    decimal.Decimal
}

const (
	minBlock = 512
	maxBlock = 16 << 10
	// maxArenaString is the longest value copied into a block; longer
	// ones get their own allocation.
	maxArenaString = 1 << 10
	ptrBlock       = 64
	// The table of amounts read before has 1<<decimalSlotBits slots (a
	// page of 1,000 invoices has some 20,000 amounts, half of them
	// distinct); a decode makes it once it has read decimalsBeforeCache
	// amounts: a single resource has a few dozen.
	decimalSlotBits     = 12
	decimalSlots        = 1 << decimalSlotBits
	decimalsBeforeCache = 64
)

// decimal parses the JSON text of an amount (see ParseDecimal). Prices,
// quantities and round totals repeat within a page: an amount of up to
// 18 digits whose coefficient and exponent were read before shares the
// Decimal made then, which is safe because a decimal.Decimal is immutable
// (its methods return new values and never change the big.Int it holds).
// The table is direct-mapped by coefficient and exponent, so a look-up
// costs a multiplication, where hashing the text cost more than the
// allocation it saved. A nil Arena only parses.
func (a *Arena) decimal(raw []byte) (decimal.Decimal, error) {
	coef, exp, ok := shortDecimal(raw)
	switch {
	case !ok:
		return ParseDecimal(raw)
	case coef == 0 && exp == 0:
		return decimal.Decimal{}, nil // as decimal.New(0, 0), without a big.Int
	case a == nil:
		return decimal.New(coef, exp), nil
	}
	if a.decimals == nil {
		if a.read++; a.read < decimalsBeforeCache {
			return decimal.New(coef, exp), nil
		}
		a.decimals = new([decimalSlots]decimalSlot)
	}
	// An empty slot holds 0, 0, which never gets here.
	slot := &a.decimals[(uint64(coef)*0x9E3779B97F4A7C15+uint64(exp))>>(64-decimalSlotBits)]
	if slot.coef != coef || slot.exp != exp {
		*slot = decimalSlot{coef: coef, exp: exp, d: decimal.New(coef, exp)}
	}
	return slot.d, nil
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

// newIn returns a pointer to a new zero value from *block, which it
// refills ptrBlock values at a time: the targets of *string and *int64
// fields.
func newIn[T any](block *[]T) *T {
	if len(*block) == 0 {
		*block = make([]T, ptrBlock)
	}
	p := &(*block)[0]
	*block = (*block)[1:]
	return p
}

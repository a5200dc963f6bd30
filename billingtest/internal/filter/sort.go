package filter

import (
	"cmp"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/billingapi/billing-go/query"
)

// Sorting (sortExpression and sortOrder, section 4.0 of the reference).
//
// Only the endpoint's text and date filter names sort (the reference:
// "usable for string or date filtering"); the name is matched
// case-insensitively. Strings sort case-insensitively in classes, as the
// reference's rule 7 says (null first, then digits, then letters), with one
// choice of the fake's own for what the rule leaves out:
//
//  1. null and the empty string;
//  2. values that start with a digit;
//  3. values that start with anything else that is not a letter
//     (punctuation, symbols, spaces), placed between digits and letters;
//  4. values that start with a letter.
//
// Within a class values compare rune by rune on their lower-case forms.
// Dates sort chronologically, a missing date first. Descending reverses the
// whole order (letters first, null last). Rows that compare equal are
// always in ascending id order, in both directions, so that the order is
// total and consecutive pages never overlap or skip a row. Without
// sortExpression rows come in ascending id order.

// sortItem is a row with its sort key, computed once: a comparison of two
// items never reads the store or allocates. A date is kept as seconds and
// nanoseconds rather than a time.Time, which keeps the item small (a sort
// over every invoice holds one per invoice) and the missing date, the zero
// time, first.
type sortItem[T any] struct {
	row   T
	id    int64
	text  string
	sec   int64
	nsec  int32
	class uint8
	seq   int64 // the row's place in the order the fake stores rows
}

// stringClass is the class of a string in the order above.
func stringClass(s string) uint8 {
	if s == "" {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s)
	switch {
	case unicode.IsDigit(r):
		return 1
	case unicode.IsLetter(r):
		return 3
	}
	return 2
}

// sortKeyer fills an item's key from its row.
type sortKeyer[T any] func(it *sortItem[T])

// keyer returns how to key rows for sorting on field f, and how to compare
// two keyed items in the requested direction.
//
// tie orders rows whose keys are equal; nil means ascending id.
func keyer[T any](f *Field[T], desc bool, tie func(a, b *TieKey) int) (sortKeyer[T], func(a, b *sortItem[T]) int) {
	var key sortKeyer[T]
	var primary func(a, b *sortItem[T]) int
	switch f.Kind {
	case query.TimeField:
		get := f.Get.Time
		key = func(it *sortItem[T]) {
			t := get(it.row)
			it.sec, it.nsec = t.Unix(), int32(t.Nanosecond())
		}
		primary = func(a, b *sortItem[T]) int {
			if a.sec != b.sec {
				return cmp.Compare(a.sec, b.sec)
			}
			return cmp.Compare(a.nsec, b.nsec)
		}
	default: // text; parseListRequest admits no other kind
		get := f.Get.Text
		key = func(it *sortItem[T]) {
			it.text = get(it.row)
			it.class = stringClass(it.text)
		}
		primary = func(a, b *sortItem[T]) int {
			if a.class != b.class {
				return int(a.class) - int(b.class)
			}
			return CompareFold(a.text, b.text)
		}
	}
	compare := func(a, b *sortItem[T]) int {
		c := primary(a, b)
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		if tie != nil {
			if c := tie(&TieKey{a.id, a.seq}, &TieKey{b.id, b.seq}); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.id, b.id)
	}
	return key, compare
}

// selectWindow reorders items so that items[lo:hi] holds, in order, what a
// full sort would put there, and returns that window. One page of a large
// list is then a partition in linear time plus a sort of the page, not a
// sort of every match.
func selectWindow[T any](items []sortItem[T], lo, hi int, cmp func(a, b *sortItem[T]) int) []sortItem[T] {
	lo, hi = max(lo, 0), min(hi, len(items))
	if lo >= hi {
		return nil
	}
	if len(items) <= 256 || hi-lo > len(items)/2 {
		slices.SortFunc(items, func(a, b sortItem[T]) int { return cmp(&a, &b) })
		return items[lo:hi]
	}
	nthElement(items, lo, cmp)
	if hi < len(items) {
		nthElement(items[lo:], hi-lo, cmp)
	}
	win := items[lo:hi]
	slices.SortFunc(win, func(a, b sortItem[T]) int { return cmp(&a, &b) })
	return win
}

// nthElement reorders a so that a[k] is the element a full sort would put
// there, with nothing greater before it and nothing smaller after it. It is
// quickselect with a median-of-three pivot; should the input defeat that, it
// falls back to a full sort after 2·log2(n) rounds, so it never goes
// quadratic. cmp must be a total order (ties are broken by id).
func nthElement[T any](a []sortItem[T], k int, cmp func(a, b *sortItem[T]) int) {
	budget := 2 * bits.Len(uint(len(a)))
	for len(a) > 16 {
		if budget == 0 {
			slices.SortFunc(a, func(x, y sortItem[T]) int { return cmp(&x, &y) })
			return
		}
		budget--
		p := partition(a, cmp)
		switch {
		case k == p:
			return
		case k < p:
			a = a[:p]
		default:
			a, k = a[p+1:], k-p-1
		}
	}
	slices.SortFunc(a, func(x, y sortItem[T]) int { return cmp(&x, &y) })
}

// partition puts a median-of-three pivot at its final place and returns
// that place: smaller elements before it, greater ones after.
func partition[T any](a []sortItem[T], cmp func(a, b *sortItem[T]) int) int {
	n := len(a)
	m, last := n/2, n-1
	// Order a[0], a[m], a[last]; the median goes to last as the pivot.
	if cmp(&a[m], &a[0]) < 0 {
		a[m], a[0] = a[0], a[m]
	}
	if cmp(&a[last], &a[0]) < 0 {
		a[last], a[0] = a[0], a[last]
	}
	if cmp(&a[m], &a[last]) < 0 {
		a[m], a[last] = a[last], a[m]
	}
	pivot := &a[last]
	i := 0
	for j := 0; j < last; j++ {
		if cmp(&a[j], pivot) < 0 {
			a[i], a[j] = a[j], a[i]
			i++
		}
	}
	a[i], a[last] = a[last], a[i]
	return i
}

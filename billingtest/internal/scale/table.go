package scale

import "slices"

// invoiceChunk is how many records a chunk of an invoiceTable holds.
const invoiceChunk = 1024

// invoiceTable holds the store's invoice records, in fixed-size chunks
// that never move (a pointer to a record stays good until the record is
// replaced or deleted, and growing never copies the records), with an
// index of ids in ascending order beside it. Compared with a map of
// pointers it spends 12 bytes an invoice on finding one, not a map entry
// and a separate object, and it lists invoices in id order for free.
type invoiceTable struct {
	chunks []*[invoiceChunk]invoiceRecord
	// ids are the invoice ids, ascending; slots[i] is where the record
	// of ids[i] is.
	ids   []int64
	slots []int32
	// free are the slots of deleted records, reused first.
	free []int32
	used int32 // slots handed out, free ones included
}

// len is the number of invoices.
func (t *invoiceTable) len() int { return len(t.ids) }

func (t *invoiceTable) at(slot int32) *invoiceRecord {
	return &t.chunks[slot/invoiceChunk][slot%invoiceChunk]
}

// get returns the record of invoice id, or nil.
func (t *invoiceTable) get(id int64) *invoiceRecord {
	i, found := slices.BinarySearch(t.ids, id)
	if !found {
		return nil
	}
	return t.at(t.slots[i])
}

// byPosition returns the record of the i-th invoice in id order.
func (t *invoiceTable) byPosition(i int) *invoiceRecord { return t.at(t.slots[i]) }

// insert adds rec, whose id must not be in the table yet.
func (t *invoiceTable) insert(rec invoiceRecord) {
	var slot int32
	if n := len(t.free); n > 0 {
		slot, t.free = t.free[n-1], t.free[:n-1]
	} else {
		if int(t.used) == len(t.chunks)*invoiceChunk {
			t.chunks = append(t.chunks, new([invoiceChunk]invoiceRecord))
		}
		slot = t.used
		t.used++
	}
	*t.at(slot) = rec
	// Ids mostly come in ascending order: appending is the common case.
	if n := len(t.ids); n == 0 || t.ids[n-1] < rec.id {
		t.ids = append(t.ids, rec.id)
		t.slots = append(t.slots, slot)
		return
	}
	i, _ := slices.BinarySearch(t.ids, rec.id)
	t.ids = slices.Insert(t.ids, i, rec.id)
	t.slots = slices.Insert(t.slots, i, slot)
}

// delete removes invoice id and reports whether it was there.
func (t *invoiceTable) delete(id int64) bool {
	i, found := slices.BinarySearch(t.ids, id)
	if !found {
		return false
	}
	slot := t.slots[i]
	*t.at(slot) = invoiceRecord{} // let go of its charges and texts
	t.free = append(t.free, slot)
	t.ids = slices.Delete(t.ids, i, i+1)
	t.slots = slices.Delete(t.slots, i, i+1)
	return true
}

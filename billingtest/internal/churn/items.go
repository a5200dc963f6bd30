package churn

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	billing "github.com/billingapi/billing-go"
)

// ItemScope is the items of one subscription product, changed in the
// fake's store of them.
type ItemScope struct {
	// Stored is the fake's items by product, in the order added; Known
	// says whether the product exists.
	Stored    map[int64][]billing.SubscriptionProductItem
	ProductID int64
	Known     bool
	// Add adds an item as AddSubscriptionProductItem does.
	Add func(billing.SubscriptionProductItem) (int64, error)
}

// KeyField implements [Scope]: modifiedTimestamp when sorted on it, else
// createdTimestamp.
func (c ItemScope) KeyField(sorted string) string {
	if sorted == "modifiedTimestamp" {
		return sorted
	}
	return "createdTimestamp"
}

// itemKey is the date field of it, and where it is kept.
func itemKey(it *billing.SubscriptionProductItem, field string) *billing.Timestamp {
	if field == "modifiedTimestamp" {
		return &it.ModifiedDate
	}
	return &it.CreatedDate
}

// Rows implements [Scope].
func (c ItemScope) Rows(field string) []Row {
	items := c.Stored[c.ProductID]
	out := make([]Row, len(items))
	for i := range items {
		out[i] = Row{ID: items[i].ID, Key: itemKey(&items[i], field).Time}
	}
	slices.SortFunc(out, func(a, b Row) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// index is where item id is in the product's items, -1 for nowhere.
func (c ItemScope) index(id int64) int {
	return slices.IndexFunc(c.Stored[c.ProductID], func(it billing.SubscriptionProductItem) bool { return it.ID == id })
}

// item returns the stored item id.
func (c ItemScope) item(id int64) *billing.SubscriptionProductItem {
	if i := c.index(id); i >= 0 {
		return &c.Stored[c.ProductID][i]
	}
	return nil
}

// Insert implements [Scope]: a copy of item like, or a plain item.
func (c ItemScope) Insert(field string, like int64, key time.Time, _ *rand.Rand, now time.Time) (Row, bool) {
	if !c.Known {
		return Row{}, false // adding would make an unknown product known
	}
	it := billing.SubscriptionProductItem{SubscriptionProductID: c.ProductID, Name: "Item"}
	if l := c.item(like); l != nil {
		it = *l
	}
	it.ID = 0
	it.ModifiedDate = billing.NewTimestamp(now)
	*itemKey(&it, field) = billing.NewTimestamp(key)
	id, err := c.Add(it)
	if err != nil {
		return Row{}, false
	}
	return Row{ID: id, Key: itemKey(c.item(id), field).Time}, true
}

// Delete implements [Scope].
func (c ItemScope) Delete(id int64) bool {
	i := c.index(id)
	if i >= 0 {
		c.Stored[c.ProductID] = slices.Delete(c.Stored[c.ProductID], i, i+1)
	}
	return i >= 0
}

// SetKey implements [Scope].
func (c ItemScope) SetKey(field string, id int64, key, now time.Time) (time.Time, bool) {
	it := c.item(id)
	if it == nil {
		return time.Time{}, false
	}
	it.ModifiedDate = billing.NewTimestamp(now)
	*itemKey(it, field) = billing.NewTimestamp(key)
	return itemKey(it, field).Time, true
}

// Modify implements [Scope]: modifiedDate now, and sometimes the
// description.
func (c ItemScope) Modify(field string, id int64, rng *rand.Rand, now time.Time) (time.Time, bool) {
	it := c.item(id)
	if it == nil {
		return time.Time{}, false
	}
	it.ModifiedDate = billing.NewTimestamp(now)
	if rng.IntN(2) == 0 {
		it.Description = fmt.Sprintf("%s (revised %s)", it.Description, cents(rng))
	}
	return itemKey(it, field).Time, true
}

package billing

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/billingapi/billing-go/internal/pager"
	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

// Stable makes a list iterator (Pages, All and their variants) page by key
// instead of by page number, on the endpoint's default key
// (postedTimestamp for invoices and invoice summaries, createdTimestamp
// for subscription product items; [StableBy] picks another), and moves
// cur past each item before yielding it.
//
// Guarantees, within a run and across runs resumed from a saved cursor,
// whatever the service does where the API reference is silent (its page
// cap, the order of equal keys, its paging headers): every item that
// matches the filter for the whole run and keeps its key and its split
// field is yielded exactly once, or the run ends with an error matching
// [ErrPagination] that says why; no item is yielded twice at the same key;
// items come in ascending key order, by second. An item whose key changes
// during the run may be yielded again at its new key. The split field
// reads a second that holds more items than the server gives in a page:
// an invoice keeps its posted time and its closing balance, or its opening
// balance (closingArBalance, then openingArBalance, for both invoice
// lists); an invoice summary its invoice amount (invoiceAmount).
// Subscription product items have none: such a second ends the run with
// ErrPagination naming it. So does a second where more than a page of
// items share one value of every split field.
//
// Under a modification-time key (StableBy "modifiedTimestamp"), a run
// followed by a run resumed from its cursor yields the latest version of
// every item changed during the first: the cursor never moves past a
// second in which the service's clock (its Date header) still was when
// the second was read. An answer without a Date header is taken as
// coming after every second it lists. Known limit: the cursor tells a new
// version from the one it delivered by its key, so this holds where the
// service's timestamps carry fractions of a second. Where they are whole
// seconds, an item changed again within the second in which it was
// delivered comes back at the same key and is taken for the version
// already delivered; such a sync should read the cursor's last second
// again (a run without the cursor, filtered from that second).
//
// Cost: one request per page, each page starting at the second in which
// the page before ended (so, with pages of a few items, nearly one request
// per new item), plus, for each second that holds more than half a page,
// one asking for all of it (once the server has capped such an answer, a
// one-item request counting it instead), and where the server caps it one
// per part of about four fifths of a page. [Prefetch] reads windows of the
// key range at once. To resume, save cur.MarshalText after the items you
// handled and restore it with UnmarshalText ([Cursor] gives its size).
// Sort must be empty or the key ascending, PageNumber 0, PageSize 0
// (1,000) or at least 2; a cursor from another endpoint, filter or key is
// a [ValidationError].
func Stable(cur *Cursor) IterOption { return StableBy(cur, "") }

// StableBy is [Stable] on the given key field: a date filter name of the
// endpoint that it can sort on and that its items carry, e.g.
// modifiedTimestamp for invoice summaries. "" means the endpoint's default.
func StableBy(cur *Cursor, key string) IterOption {
	return iterOnly(func(rc *requestConfig) error {
		if cur == nil {
			return fmt.Errorf("Stable: nil *Cursor")
		}
		if key != "" && !validFilterName(key) {
			return fmt.Errorf("Stable: %q is not a filter name", key)
		}
		rc.stable = &stableConfig{cur: cur, key: key}
		return nil
	})
}

// stableConfig is what the Stable option asked for.
type stableConfig struct {
	cur *Cursor
	key string
}

// stableDefaultPageSize is the page size of a stable iteration whose params
// leave it to the server: the reference never caps a list below 1,000.
const stableDefaultPageSize = 1000

var (
	minKeySec = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	maxKeySec = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
)

// stableKey is one key field an endpoint offers.
type stableKey struct {
	name   string // filter name, e.g. postedTimestamp
	entity string // JSON name of the item field holding it
	def    bool
	// splits are the filter names of the endpoint's split fields (see
	// splitsOf), which pager.Range numbers.
	splits []string
}

// taggedFilters yields, in the order of the struct, the filter name (the
// `query` tag) and the value of tag of each field of a filter struct (or a
// pointer to one) that has tag; anything else yields nothing.
func taggedFilters(filter any, tag string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		t := reflect.TypeOf(filter)
		if t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			value, ok := f.Tag.Lookup(tag)
			if !ok {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("query"), ",")
			if !yield(name, value) {
				return
			}
		}
	}
}

// stableKeysOf reads the `stable:"<item field>[,default]"` tags of a filter
// struct: the date filters that stable iteration may key on.
func stableKeysOf(filter any) []stableKey {
	var keys []stableKey
	for name, tag := range taggedFilters(filter, "stable") {
		entity, opt, _ := strings.Cut(tag, ",")
		keys = append(keys, stableKey{name: name, entity: entity, def: opt == "default"})
	}
	return keys
}

// splitsOf reads the `split:"<item field>"` tags of a filter struct: the
// decimal range filters on which stable iteration splits a second that
// holds more items than a page, in the order of the struct.
func splitsOf[T any](filter any) ([]pager.Split[T], error) {
	var splits []pager.Split[T]
	for name, entity := range taggedFilters(filter, "split") {
		read, err := fieldReader[T, decimal.Decimal](entity)
		if err != nil {
			return nil, err
		}
		splits = append(splits, pager.Split[T]{Name: name, Value: func(v *T) decimal.Decimal { return *read(v) }})
	}
	return splits, nil
}

// resolveKey picks the key: the one asked for, else the cursor's, else the
// endpoint's default.
func resolveKey(filter any, asked, fromCursor string) (stableKey, error) {
	keys := stableKeysOf(filter)
	var names []string
	for _, k := range keys {
		names = append(names, k.name)
	}
	if asked != "" && fromCursor != "" && !strings.EqualFold(asked, fromCursor) {
		return stableKey{}, invalid("Cursor", "the cursor pages on %s, not %s; start from a new Cursor", fromCursor, asked)
	}
	want := asked
	if want == "" {
		want = fromCursor
	}
	for _, k := range keys {
		if (want == "" && k.def) || (want != "" && strings.EqualFold(want, k.name)) {
			return k, nil
		}
	}
	if want == "" {
		return stableKey{}, invalid("Stable", "this endpoint has no key field for stable iteration")
	}
	return stableKey{}, invalid("Stable", "%q is not a key field of this endpoint; use one of %s", want, strings.Join(names, ", "))
}

// bind binds the cursor to the endpoint, its filter and key, before any
// request: a page number or a page of one item, a cursor from another
// endpoint, filter or key, or a sort other than the key ascending, is
// refused. It returns the key.
func (cfg *stableConfig) bind(lc listCall, q url.Values) (stableKey, error) {
	switch {
	case lc.lo.PageNumber != 0:
		return stableKey{}, invalid("pageNumber", "stable iteration starts from its cursor; leave PageNumber 0")
	case lc.lo.PageSize == 1:
		return stableKey{}, invalid("pageSize", "stable iteration needs pages of at least 2 items")
	}
	st := &cfg.cur.c.State
	key, err := resolveKey(lc.filter, cfg.key, st.Key)
	if err != nil {
		return stableKey{}, err
	}
	if s := lc.lo.Sort; !s.IsZero() && (!strings.EqualFold(s.Field, key.name) || s.Order == query.Descending) {
		return stableKey{}, invalid("sortExpression", "stable iteration sorts ascending on its key %s; remove the sort or sort on that", key.name)
	}
	fp := fingerprint(lc.path, q)
	if st.Path != "" && (st.Path != lc.path || st.Fingerprint != fp) {
		return stableKey{}, invalid("Cursor", "the cursor comes from another endpoint or filter; start from a new Cursor")
	}
	st.Path, st.Fingerprint, st.Key = lc.path, fp, key.name
	return key, nil
}

// fingerprint identifies the endpoint's criteria: the query string without
// the paging and sorting controls, which stable mode sets itself.
func fingerprint(path string, q url.Values) string {
	c := url.Values{}
	for k, v := range q {
		switch k {
		case "pageNumber", "pageSize", "sortExpression", "sortOrder":
			continue
		}
		c[k] = v
	}
	sum := sha256.Sum256([]byte(path + "?" + c.Encode()))
	return hex.EncodeToString(sum[:fingerprintLen/2])
}

const keyLayout = "2006-01-02T15:04:05"

// mergeKeyRange adds lower <= key < upper to q's filter (see mergeRange);
// a caller's bound that is not a whole date or second is kept as is,
// beside the added range.
func mergeKeyRange(q url.Values, key string, lower, upper time.Time) error {
	return mergeRange(q, key, lower, upper, rangeBounds[time.Time]{
		parse: parseKeyBound, open: time.Time.IsZero, less: time.Time.Before, format: formatKeyBound,
	})
}

// rangeBounds is how mergeRange reads, compares and writes the bounds of
// one kind of range filter; an open end is the value open reports.
type rangeBounds[B any] struct {
	parse  func(string) (B, bool)
	open   func(B) bool
	less   func(a, b B) bool
	format func(B) string
}

// mergeRange adds lower <= name < upper (an end open when bounds.open
// says so) to q's filter. A range on name that the caller gave is merged
// into it (the tighter bound of each end wins), so that the name is sent
// once; a caller's range whose bounds cannot be read is kept as is,
// beside the added range. It returns pager.ErrEmptyRange when nothing can
// match.
func mergeRange[B any](q url.Values, name string, lower, upper B, bounds rangeBounds[B]) error {
	expr, err := query.Parse(q.Get("query"))
	if err != nil {
		return &ValidationError{Field: "query", Reason: err.Error()}
	}
	lo, hi := lower, upper
	var kept query.Expr
	for _, c := range expr {
		if c.Kind == query.Range && strings.EqualFold(c.Name, name) {
			l, okL := bounds.parse(c.Lower)
			u, okU := bounds.parse(c.Upper)
			if okL && okU {
				if !bounds.open(l) && (bounds.open(lo) || bounds.less(lo, l)) {
					lo = l
				}
				if !bounds.open(u) && (bounds.open(hi) || bounds.less(u, hi)) {
					hi = u
				}
				continue
			}
		}
		kept = append(kept, c)
	}
	if !bounds.open(lo) && !bounds.open(hi) && !bounds.less(lo, hi) {
		return pager.ErrEmptyRange
	}
	if !bounds.open(lo) || !bounds.open(hi) {
		kept = append(kept, query.CondRange(name, bounds.format(lo), bounds.format(hi)))
	}
	if len(kept) == 0 {
		q.Del("query")
	} else {
		q.Set("query", kept.String())
	}
	return nil
}

// parseKeyBound reads a range bound that is "", a date or a whole second.
func parseKeyBound(s string) (time.Time, bool) {
	switch len(s) {
	case 0:
		return time.Time{}, true
	case len(time.DateOnly):
		t, err := time.Parse(time.DateOnly, s)
		return t, err == nil
	case len(keyLayout):
		t, err := time.Parse(keyLayout, s)
		return t, err == nil
	}
	return time.Time{}, false
}

func formatKeyBound(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(keyLayout)
}

// keyReader returns how to read the key's item field from a T, by its JSON
// name.
func keyReader[T any](jsonName string) (func(*T) time.Time, error) {
	read, err := fieldReader[T, Timestamp](jsonName)
	if err != nil {
		return nil, err
	}
	return func(v *T) time.Time { return read(v).Time }, nil
}

// fieldReader returns how to reach the field of type F with the given JSON
// name in a T: through a pointer, since boxing the value itself would
// allocate for every item of every page.
func fieldReader[T, F any](jsonName string) (func(*T) *F, error) {
	t := reflect.TypeFor[T]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == jsonName && f.Type == reflect.TypeFor[F]() {
			return func(v *T) *F {
				return reflect.ValueOf(v).Elem().Field(i).Addr().Interface().(*F)
			}, nil
		}
	}
	return nil, fmt.Errorf("billing: %v has no %v field %q", t, reflect.TypeFor[F](), jsonName)
}

// mergeSplitRange adds lower <= name < upper (an end open when not
// Valid) to q's filter, merged with the caller's own range on name (see
// mergeRange).
func mergeSplitRange(q url.Values, name string, lower, upper decimal.NullDecimal) error {
	return mergeRange(q, name, lower, upper, rangeBounds[decimal.NullDecimal]{
		parse:  parseDecimalBound,
		open:   func(d decimal.NullDecimal) bool { return !d.Valid },
		less:   func(a, b decimal.NullDecimal) bool { return a.Decimal.LessThan(b.Decimal) },
		format: formatDecimalBound,
	})
}

// parseDecimalBound reads a range bound that is "" or a decimal.
func parseDecimalBound(s string) (decimal.NullDecimal, bool) {
	if s == "" {
		return decimal.NullDecimal{}, true
	}
	d, err := decimal.NewFromString(s)
	return decimal.NewNullDecimal(d), err == nil
}

func formatDecimalBound(d decimal.NullDecimal) string {
	if !d.Valid {
		return ""
	}
	return d.Decimal.String()
}

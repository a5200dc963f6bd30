package billing

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/billingapi/billing-go/internal/pager"
	"github.com/billingapi/billing-go/query"
)

// Stable makes a list iterator (Pages, All and their variants) page by key
// instead of by page number, on the endpoint's default key
// (postedTimestamp for invoices and invoice summaries, createdTimestamp
// for subscription product items; [StableBy] picks another), and moves
// cur past each item before yielding it.
//
// Guarantees, within a run and across runs resumed from a saved cursor,
// whatever the service does where the API reference is silent: every item
// that matches the filter for the whole run and keeps its key is yielded
// exactly once, or the run ends with an error matching [ErrPagination]
// that says why; no item is yielded twice at the same key (under a
// modification-time key, a changed item comes again); items come in
// ascending key order, by second. Items inserted or whose key changes
// during the run may or may not be yielded. Known gap, to be closed: in a
// second that holds more items than a page, an item deleted and another
// added to the same second between two requests (so that X-Count stays
// the same) may hide one item of that second, without an error.
//
// Cost: one request per page, plus about one per second that holds more
// than half a page; [Prefetch] reads windows of the key range at once.
// To resume, save cur.MarshalText after the items you handled and restore
// it with UnmarshalText ([Cursor] gives its size). Sort must be empty or
// the key ascending, PageNumber 0, PageSize 0 (1,000) or at least 2; a
// cursor from another endpoint, filter or key is a [ValidationError].
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
}

// stableKeysOf reads the `stable:"<item field>[,default]"` tags of a filter
// struct: the date filters that stable iteration may key on.
func stableKeysOf(filter any) []stableKey {
	t := reflect.TypeOf(filter)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var keys []stableKey
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("stable")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("query"), ",")
		entity, opt, _ := strings.Cut(tag, ",")
		keys = append(keys, stableKey{name: name, entity: entity, def: opt == "default"})
	}
	return keys
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

// mergeKeyRange adds lower <= key < upper to q's filter. A range on the key
// that the caller gave is merged into it (the tighter bound of each end
// wins), so that the name is sent once; a caller's bound that is not a
// whole date or second is kept as is, beside the added range. It returns
// pager.ErrEmptyRange when nothing can match.
func mergeKeyRange(q url.Values, key string, lower, upper time.Time) error {
	expr, err := query.Parse(q.Get("query"))
	if err != nil {
		return &ValidationError{Field: "query", Reason: err.Error()}
	}
	lo, hi := lower, upper
	var kept query.Expr
	for _, c := range expr {
		if c.Kind == query.Range && strings.EqualFold(c.Name, key) {
			l, okL := parseKeyBound(c.Lower)
			u, okU := parseKeyBound(c.Upper)
			if okL && okU {
				if !l.IsZero() && (lo.IsZero() || l.After(lo)) {
					lo = l
				}
				if !u.IsZero() && (hi.IsZero() || u.Before(hi)) {
					hi = u
				}
				continue
			}
		}
		kept = append(kept, c)
	}
	if !lo.IsZero() && !hi.IsZero() && !lo.Before(hi) {
		return pager.ErrEmptyRange
	}
	if !lo.IsZero() || !hi.IsZero() {
		kept = append(kept, query.CondRange(key, formatKeyBound(lo), formatKeyBound(hi)))
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
	t := reflect.TypeFor[T]()
	tsType := reflect.TypeFor[Timestamp]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == jsonName && f.Type == tsType {
			return func(v *T) time.Time {
				// Through a pointer: boxing the Timestamp itself would
				// allocate for every item of every page.
				return reflect.ValueOf(v).Elem().Field(i).Addr().Interface().(*Timestamp).Time
			}, nil
		}
	}
	return nil, fmt.Errorf("billing: %v has no timestamp field %q to page on", t, jsonName)
}

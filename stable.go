package billing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/billingapi/billing-go/query"
)

// Stable makes a list iterator (All, Pages and their variants on every list
// endpoint) page by key instead of by page number, so that it yields every
// item exactly once while the account keeps changing, and can resume from
// cur after a restart. It pages on the endpoint's default key field:
// postedTimestamp for invoices and invoice summaries, createdTimestamp for
// subscription product items (see each filter type); [StableBy] picks
// another.
//
// How: requests sort ascending on the key and add a range filter key:S|
// (merged with the caller's own range on the key, if any), where S is the
// second of the frontier: the key, at full precision, before which every
// item has been delivered. A page is a contiguous run of the server's
// order at the moment it is read, so it proves that every item whose key
// lies between its first and last keys is on it; the iterator moves the
// frontier only on such proof, never on positions or on the order of
// items with equal keys. When more items share one second than a page
// holds, it pages by number inside that second (key:S|S+1), each page
// chosen to start before the frontier. Where a group of items with one
// and the same key is larger than a page, no page can reach across it:
// the second is then read in passes from its start, and left only once a
// pass during which the second's X-Count stayed the same showed that many
// distinct items (or all passes since the count last changed did,
// together).
//
// Guarantees, within one run and across runs resumed from a saved cursor,
// for every behaviour the API reference allows the service where it is
// silent (any page cap, said in X-PageSize or not; any order of items
// with equal keys, stable or changing from one request to the next;
// either reading of X-NextPage and X-MaxPageIndex; 0 to 7 fractional
// digits in timestamps):
//
//   - no item is yielded twice at the same key; under a modification-time
//     key an item that really changed during the run is yielded again
//     after its change, also when it changed again within the second of
//     its earlier delivery, by design (an incremental "what changed
//     since" sync);
//   - every item that matches the filter for the whole run, and whose key
//     field does not change, is yielded exactly once, or the iteration
//     ends with an error that matches [ErrPagination] and says why,
//     whatever else happens meanwhile: inserts before, among and after
//     the items, deletions, changes to other fields, changes that take
//     other items out of the filter or move them inside the second being
//     read (the loop that writes off every unsettled invoice it is given
//     writes off all of them);
//   - items come in ascending key order (by second).
//
// ErrPagination ends a run that cannot prove it saw everything: a server
// that ignores the range filter or the sort, that keeps cutting the page
// size, or a group of equal keys larger than a page whose second changes
// during every pass while the service keeps changing their order (after
// 3 passes in a row that show nothing new). One case is beyond what any
// count can show: inside such a group, if during one pass an item already
// seen is deleted and another is added to the same second, leaving the
// count unchanged, while the service also reorders the group between
// requests, an item of the group may be missed. Items inserted during the
// run, or whose key changes, may or may not be yielded.
//
// Cost: one request per page of items, plus about one per second that
// holds more than half a page (where paging by number inside it starts)
// and, where items delivered earlier leave the second being read, a few
// to find the place again. A group of equal keys larger than a page
// costs a pass over its second (its items ÷ page size, plus one,
// requests) for each pass: usually two, more while the second changes or
// its order does (about ln(items) passes when the order is random on
// every request). The cursor's size is described at [Cursor].
//
// Rules: the caller's Sort must be empty or the key ascending, PageNumber
// must be 0 and PageSize 0 (meaning 1,000, the least maximum the reference
// promises) or at least 2; a cursor used with another endpoint, filter, or
// key than the one it came from is a [ValidationError], not a silent
// restart. The pages a Pages loop receives hold only the items not yielded
// before; their X-* headers describe the keyed request. With [Prefetch](n),
// n >= 2, the remaining key range is split into windows of whole seconds,
// of about four pages each, placed with one-item requests (the item at
// each boundary's position), and up to 2n windows are read at once, with
// at most n requests in flight (as [Prefetch] counts them), each with
// every guarantee above; items are still yielded in key order, and the
// windows ahead of the one being yielded hold at most 8n pages in all.
// The first page and the one-item requests that place the next windows
// (at pages 1, 5, 9 and so on; n requests, and 8 at most) go out
// together, before the number of items is known: on a list of fewer than
// 25 pages some of them find nothing.
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

// errEmptyKeyRange ends an iteration whose key range, merged with the
// caller's, holds nothing: no request is needed.
var errEmptyKeyRange = errors.New("billing: empty key range")

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

// stableRun is what the requests of one stable iteration share.
type stableRun struct {
	cfg *stableConfig
	mu  sync.Mutex
	key stableKey
	ok  bool // key resolved and cursor checked
}

// stableReq is one keyed request: the key range to add, each end open
// when zero.
type stableReq struct {
	run          *stableRun
	lower, upper time.Time
}

type stableReqKey struct{}

func withStableReq(ctx context.Context, r *stableReq) context.Context {
	return context.WithValue(ctx, stableReqKey{}, r)
}

func stableReqFrom(ctx context.Context) *stableReq {
	r, _ := ctx.Value(stableReqKey{}).(*stableReq)
	return r
}

// prepare checks a keyed request against the cursor and rewrites its query
// string: the key range merged into the filter, the sort on the key. It is
// called by listWith, below every list method, so that stable mode needs no
// code per endpoint.
func (r *stableReq) prepare(path string, q url.Values, lo ListOptions, filter any) error {
	run := r.run
	run.mu.Lock()
	defer run.mu.Unlock()
	if !run.ok {
		st := &run.cfg.cur.st
		key, err := resolveKey(filter, run.cfg.key, st.Key)
		if err != nil {
			return err
		}
		if !lo.Sort.IsZero() && (!strings.EqualFold(lo.Sort.Field, key.name) || lo.Sort.Order == query.Descending) {
			return invalid("sortExpression", "stable iteration sorts ascending on its key %s; remove the sort or sort on that", key.name)
		}
		fp := fingerprint(path, q)
		if st.Path != "" && (st.Path != path || st.Fingerprint != fp) {
			return invalid("Cursor", "the cursor comes from another endpoint or filter; start from a new Cursor")
		}
		st.Path, st.Fingerprint, st.Key = path, fp, key.name
		run.key, run.ok = key, true
	}
	if err := mergeKeyRange(q, run.key.name, r.lower, r.upper); err != nil {
		return err
	}
	q.Set("sortExpression", run.key.name)
	q.Set("sortOrder", string(query.Ascending))
	return nil
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
// errEmptyKeyRange when nothing can match.
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
		return errEmptyKeyRange
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

// idOf reads an item's id.
func idOf[T any](v *T) (int64, error) {
	e, ok := any(v).(identified) // the pointer: boxing *v would copy the item to the heap
	if !ok {
		return 0, fmt.Errorf("billing: %T has no id to page on", *v)
	}
	return e.entityID(), nil
}

// stableWindow picks, for paging inside one second, a page size up to w
// and a page number whose page holds position pos, where the next unread
// item is thought to be, as many positions after it as possible and, when
// it can, the two before it: a page that starts before the items at the
// frontier's key proves what follows it (see sequential), while one that
// starts at pos only delivers.
func stableWindow(pos, w int) (n, size int) {
	for back := min(pos, 2); back >= 0; back-- {
		best, anchor := 0, pos-back
		for l := w; l >= 2; l-- {
			k := anchor / l
			if gain := k*l + l - pos; gain > best {
				best, n, size = gain, k, l
			}
		}
		if best > 0 {
			return n, size
		}
	}
	return pos / w, w
}

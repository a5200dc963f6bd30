package billingtest

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// chNow is the clock of churn tests; chBase the second the first invoices
// are posted in.
var (
	chNow  = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	chBase = time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)
)

// chWorld is what chServer seeded: customers 1 and 2, invoices 3, 5, ...,
// 13 (each with a charge; two a second in chBase's first three seconds, 1
// ms apart, alternating customers), and items 15 to 17 of subscription
// product 100, created in those seconds.
type chWorld struct {
	srv             *Server
	customers       [2]int64
	invoices, items []int64
	product         int64
}

func chServer(t *testing.T, c Churn) chWorld {
	t.Helper()
	srv, err := NewHandler(WithClock(func() time.Time { return chNow }), WithChurn(c))
	if err != nil {
		t.Fatal(err)
	}
	must := ltMust(t)
	w := chWorld{srv: srv}
	w.customers[0] = must(srv.AddCustomer(Customer{FirstName: "Ada"}))
	w.customers[1] = must(srv.AddCustomer(Customer{FirstName: "Bo"}))
	for i := range 6 {
		at := chBase.Add(time.Duration(i/2)*time.Second + time.Duration(i%2)*time.Millisecond)
		w.invoices = append(w.invoices, must(srv.AddInvoice(Invoice{
			CustomerID: w.customers[i%2], PostedTimestamp: at, EffectiveTimestamp: at,
			Charges:          []Charge{{Name: "Plan", Quantity: decimal.NewFromInt(1), UnitPrice: decimal.NewFromInt(10), Amount: decimal.NewFromInt(10)}},
			OpeningArBalance: decimal.NewFromInt(100), ClosingArBalance: decimal.NewFromInt(110),
		})))
	}
	w.product = 100
	for i := range 3 {
		w.items = append(w.items, must(srv.AddSubscriptionProductItem(SubscriptionProductItem{
			SubscriptionProductID: w.product, Name: "Seat " + strconv.Itoa(i), CreatedDate: chBase.Add(time.Duration(i) * time.Second),
		})))
	}
	return w
}

// chGet answers a GET of path with the key, kv its query parameters.
func chGet(t *testing.T, srv *Server, path string, kv ...string) *httptest.ResponseRecorder {
	t.Helper()
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	r := httptest.NewRequest(http.MethodGet, path+"?"+q.Encode(), nil)
	r.Header.Set("Authorization", "Basic "+DefaultAPIKey)
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s?%s: %d %s", path, q.Encode(), w.Code, w.Body)
	}
	return w
}

// chSecond is the query of postedTimestamp in chBase's second s.
func chSecond(s int) string {
	at := chBase.Add(time.Duration(s) * time.Second)
	return "postedTimestamp:" + at.Format("2006-01-02T15:04:05") + "|" + at.Add(time.Second).Format("2006-01-02T15:04:05")
}

// chAt is chBase plus s seconds and n nanoseconds.
func chAt(s int, n int) time.Time {
	return chBase.Add(time.Duration(s)*time.Second + time.Duration(n))
}

func TestWithChurnChecksItsOptions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		c   Churn
		bad bool
	}{
		{c: Churn{}},
		{c: Churn{Seed: -5, Every: 3, Inserts: 1, Deletes: 2, Rekeys: 3, Modifies: 4, KeepCount: true, Aim: true}},
		{c: Churn{Every: -1}, bad: true},
		{c: Churn{Inserts: -1}, bad: true},
		{c: Churn{Deletes: -1}, bad: true},
		{c: Churn{Rekeys: -1}, bad: true},
		{c: Churn{Modifies: -1}, bad: true},
	} {
		_, err := NewHandler(WithChurn(tt.c))
		if (err != nil) != tt.bad || (err != nil && !strings.Contains(err.Error(), "WithChurn")) {
			t.Errorf("%+v: %v, want an error naming WithChurn: %v", tt.c, err, tt.bad)
		}
	}
}

// The same seed and the same requests give the same changes, those
// below; another seed gives others. Every 2 changes nothing before the
// odd requests.
func TestChurnIsDeterministic(t *testing.T) {
	t.Parallel()
	c := Churn{Seed: 7, Every: 2, Inserts: 1, Deletes: 1, Rekeys: 1, Modifies: 1}
	run := func(c Churn) []ChurnChange {
		w := chServer(t, c)
		for range 4 {
			chGet(t, w.srv, "/v1/Invoices", "sortExpression", "postedTimestamp")
		}
		return w.srv.ChurnLog()
	}
	got := run(c)
	const list = RouteInvoicesList
	want := []ChurnChange{
		{Request: 2, Route: list, Kind: ChurnDelete, ID: 5, Field: "postedTimestamp", OldKey: chAt(0, 1000000)},
		{Request: 2, Route: list, Kind: ChurnInsert, ID: 18, Field: "postedTimestamp", NewKey: chAt(0, 0)},
		{Request: 2, Route: list, Kind: ChurnRekey, ID: 18, Field: "postedTimestamp", OldKey: chAt(0, 0), NewKey: chAt(0, 997146100)},
		{Request: 2, Route: list, Kind: ChurnModify, ID: 11, Field: "postedTimestamp", OldKey: chAt(2, 0), NewKey: chAt(2, 0)},
		{Request: 4, Route: list, Kind: ChurnDelete, ID: 18, Field: "postedTimestamp", OldKey: chAt(0, 997146100)},
		{Request: 4, Route: list, Kind: ChurnInsert, ID: 20, Field: "postedTimestamp", NewKey: chAt(2, 0)},
		{Request: 4, Route: list, Kind: ChurnRekey, ID: 13, Field: "postedTimestamp", OldKey: chAt(2, 1000000), NewKey: chAt(2, 15536100)},
		{Request: 4, Route: list, Kind: ChurnModify, ID: 13, Field: "postedTimestamp", OldKey: chAt(2, 15536100), NewKey: chAt(2, 15536100)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("log:\n%s\nwant:\n%s", chFormat(got), chFormat(want))
	}
	if again := run(c); !reflect.DeepEqual(again, got) {
		t.Errorf("run again:\n%s\nfirst:\n%s", chFormat(again), chFormat(got))
	}
	c.Seed++
	if other := run(c); reflect.DeepEqual(other, got) {
		t.Errorf("seed %d gives the changes of seed %d", c.Seed, c.Seed-1)
	}
}

// chFormat writes a log as Go, to read or paste.
func chFormat(log []ChurnChange) string {
	var b strings.Builder
	for _, c := range log {
		fmt.Fprintf(&b, "{Request: %d, Route: %q, Kind: %q, ID: %d, Field: %q, OldKey: %s, NewKey: %s},\n",
			c.Request, c.Route, c.Kind, c.ID, c.Field, chGo(c.OldKey), chGo(c.NewKey))
	}
	return b.String()
}

func chGo(t time.Time) string {
	if t.IsZero() {
		return "time.Time{}"
	}
	if d := t.Sub(chBase); d >= 0 && d < time.Hour {
		return fmt.Sprintf("chAt(%d, %d)", d/time.Second, d%time.Second)
	}
	return fmt.Sprintf("time.Date(%d, %d, %d, %d, %d, %d, %d, time.UTC)", t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond())
}

// chRow is what churn tests read of a listed row: its key and when it
// was modified.
type chRow struct{ key, modified time.Time }

// chRows decodes a list answer into its rows by id, keyed by the JSON
// member key; modified is modifiedTimestamp, or modifiedDate for items.
func chRows(t *testing.T, w *httptest.ResponseRecorder, key string) map[int64]chRow {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	stamp := func(v any) time.Time {
		s, _ := v.(string)
		at, err := time.Parse("2006-01-02T15:04:05.9999999", strings.TrimSuffix(s, "Z"))
		if err != nil {
			t.Fatalf("timestamp %q: %v", s, err)
		}
		return at
	}
	out := map[int64]chRow{}
	for _, r := range rows {
		m := r["modifiedTimestamp"]
		if m == nil {
			m = r["modifiedDate"]
		}
		out[int64(r["id"].(float64))] = chRow{key: stamp(r[key]), modified: stamp(m)}
	}
	return out
}

// chApply is rows after the changes of log: what the next answer must
// show. A change to a row rows does not have is outside the list's scope.
func chApply(t *testing.T, rows map[int64]chRow, log []ChurnChange) map[int64]chRow {
	t.Helper()
	out := maps.Clone(rows)
	for _, c := range log {
		if _, ok := out[c.ID]; ok == (c.Kind == ChurnInsert) {
			t.Fatalf("%s of row %d, which the list has: %v", c.Kind, c.ID, ok)
		}
		switch c.Kind {
		case ChurnDelete:
			delete(out, c.ID)
		case ChurnInsert, ChurnRekey, ChurnModify:
			modified := chNow // every change is a write now...
			if c.Field == "modifiedTimestamp" {
				modified = c.NewKey // ...unless it set the modified key itself
			}
			out[c.ID] = chRow{key: c.NewKey, modified: modified}
		}
	}
	return out
}

// Every list shows the changes the log says were made before it, and only
// those, to rows of its own scope: through the cached encodings and the
// key index of the list of all invoices, which the first request fills.
// With Every 2 the first request changes nothing.
func TestChurnChangesWhatListsShow(t *testing.T) {
	t.Parallel()
	for i, tt := range []struct {
		name, path string // {customer} and {product} stand for chWorld's second customer and its product
		key, field string
		query      []string
	}{
		{name: "all", path: "/v1/Invoices", key: "postedTimestamp", field: "postedTimestamp"},
		{name: "all by posted", path: "/v1/Invoices", key: "postedTimestamp", field: "postedTimestamp", query: []string{"sortExpression", "postedTimestamp"}},
		{name: "all by effective, descending", path: "/v1/Invoices", key: "effectiveTimestamp", field: "effectiveTimestamp", query: []string{"sortExpression", "effectiveTimestamp", "sortOrder", "Descending"}},
		{name: "customer's", path: "/v1/Customers/{customer}/Invoices/", key: "postedTimestamp", field: "postedTimestamp"},
		{name: "summaries by modified", path: "/v1/customers/{customer}/invoiceSummaries", key: "modifiedTimestamp", field: "modifiedTimestamp", query: []string{"sortExpression", "modifiedTimestamp"}},
		{name: "items", path: "/v1/subscriptionProducts/{product}/items", key: "createdDate", field: "createdTimestamp"},
		{name: "items by modified", path: "/v1/subscriptionProducts/{product}/items", key: "modifiedDate", field: "modifiedTimestamp", query: []string{"sortExpression", "modifiedTimestamp"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := chServer(t, Churn{Seed: int64(i), Every: 2, Inserts: 2, Deletes: 1, Rekeys: 2, Modifies: 2})
			path := strings.NewReplacer("{customer}", strconv.FormatInt(w.customers[1], 10), "{product}", strconv.FormatInt(w.product, 10)).Replace(tt.path)
			before := chRows(t, chGet(t, w.srv, path, tt.query...), tt.key)
			if log := w.srv.ChurnLog(); len(log) != 0 {
				t.Fatalf("changes before request 2: %+v", log)
			}
			after := chRows(t, chGet(t, w.srv, path, tt.query...), tt.key)
			log := w.srv.ChurnLog()
			if len(log) != 7 {
				t.Errorf("%d changes, want 7: %+v", len(log), log)
			}
			for _, c := range log {
				if c.Request != 2 || c.Field != tt.field {
					t.Errorf("change %+v: want request 2, field %s", c, tt.field)
				}
			}
			if want := chApply(t, before, log); !reflect.DeepEqual(after, want) {
				t.Errorf("after the changes %+v\nthe list shows %v\nwant %v", log, after, want)
			}
		})
	}
}

// Aimed, the changes fall in the second being read; with KeepCount its
// X-Count stays what it was, every delete paired with an insert there.
func TestChurnAimsAtTheSecondBeingRead(t *testing.T) {
	t.Parallel()
	second := chSecond(1)
	inSecond := func(at time.Time) bool { return !at.Before(chAt(1, 0)) && at.Before(chAt(2, 0)) }
	for _, tt := range []struct {
		name string
		c    Churn
		// rounds is how many requests are read; every change of the
		// first checked ones must be in the second (a rekey may move a
		// row out, so later ones need not).
		rounds, checked int
		count           string // X-Count of every answer, "" for any
	}{
		{name: "keep count", c: Churn{Seed: 1, Aim: true, KeepCount: true, Deletes: 1, Modifies: 1}, rounds: 5, checked: 15, count: "2"},
		{name: "keep count, two deletes", c: Churn{Seed: 2, Aim: true, KeepCount: true, Deletes: 2}, rounds: 5, checked: 20, count: "2"},
		{name: "rekey", c: Churn{Seed: 3, Aim: true, Rekeys: 1}, rounds: 1, checked: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := chServer(t, tt.c)
			for range tt.rounds {
				got := chGet(t, w.srv, "/v1/Invoices", "sortExpression", "postedTimestamp", "query", second).Header().Get("X-Count")
				if tt.count != "" && got != tt.count {
					t.Errorf("X-Count %s, want %s", got, tt.count)
				}
			}
			log := w.srv.ChurnLog()
			if len(log) != tt.checked {
				t.Errorf("%d changes, want %d", len(log), tt.checked)
			}
			for _, c := range log[:min(tt.checked, len(log))] {
				key := c.OldKey
				if c.Kind == ChurnInsert {
					key = c.NewKey
				}
				if !inSecond(key) {
					t.Errorf("%s of %d at %v, outside the second being read", c.Kind, c.ID, key)
				}
			}
		})
	}
}

// A list of an unknown customer or product is a 404 still: churn adds
// nothing to a scope that does not exist.
func TestChurnLeavesUnknownScopesAlone(t *testing.T) {
	t.Parallel()
	w := chServer(t, Churn{Inserts: 2, Deletes: 1, Rekeys: 1, Modifies: 1})
	counts := w.srv.Counts()
	for _, path := range []string{"/v1/Customers/999/Invoices/", "/v1/customers/999/invoiceSummaries", "/v1/subscriptionProducts/999/items", "/v1/subscriptionProducts/999/items"} {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Header.Set("Authorization", "Basic "+DefaultAPIKey)
		rec := httptest.NewRecorder()
		w.srv.ServeHTTP(rec, r)
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, rec.Code)
		}
	}
	if log := w.srv.ChurnLog(); len(log) != 0 {
		t.Errorf("changes: %+v", log)
	}
	if got := w.srv.Counts(); !reflect.DeepEqual(got, counts) {
		t.Errorf("counts %v, want %v", got, counts)
	}
}

// Concurrent lists each get their own request number, and the log stays
// whole (run with -race).
func TestChurnUnderConcurrentLists(t *testing.T) {
	t.Parallel()
	w := chServer(t, Churn{Seed: 9, Inserts: 1, Deletes: 1, Rekeys: 1, Modifies: 1, KeepCount: true})
	const n = 16
	done := make(chan struct{})
	for i := range n {
		go func() {
			defer func() { done <- struct{}{} }()
			path := []string{"/v1/Invoices", fmt.Sprintf("/v1/Customers/%d/Invoices/", w.customers[i%2]), fmt.Sprintf("/v1/subscriptionProducts/%d/items", w.product)}[i%3]
			r := httptest.NewRequest(http.MethodGet, path, nil)
			r.Header.Set("Authorization", "Basic "+DefaultAPIKey)
			w.srv.ServeHTTP(httptest.NewRecorder(), r)
		}()
	}
	for range n {
		<-done
	}
	var requests []int
	for _, c := range w.srv.ChurnLog() {
		if len(requests) == 0 || requests[len(requests)-1] != c.Request {
			requests = append(requests, c.Request)
		}
	}
	if want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}; !reflect.DeepEqual(requests, want) {
		t.Errorf("rounds for requests %v, want %v", requests, want)
	}
}

// ChurnLog is nil without WithChurn and before the first change, not an
// empty log.
func TestChurnLogIsNilBeforeAChange(t *testing.T) {
	t.Parallel()
	plain, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	chGet(t, plain, "/v1/Invoices")
	busy := chServer(t, Churn{Every: 2, Deletes: 1})
	chGet(t, busy.srv, "/v1/Invoices")
	for name, log := range map[string][]ChurnChange{"without WithChurn": plain.ChurnLog(), "before a round": busy.srv.ChurnLog()} {
		if log != nil {
			t.Errorf("%s: ChurnLog() = %#v, want nil", name, log)
		}
	}
	chGet(t, busy.srv, "/v1/Invoices")
	if log := busy.srv.ChurnLog(); len(log) != 1 || log[0].Kind != ChurnDelete {
		t.Errorf("after a round: %+v, want one delete", log)
	}
}

// Reset starts churn over: no changes logged, and the first list request
// after it is churned as the first one after NewHandler was.
func TestResetStartsChurnOver(t *testing.T) {
	t.Parallel()
	srv, err := NewHandler(WithClock(func() time.Time { return chNow }), WithGenerated(GenerateOptions{Seed: 3, Invoices: 50}),
		WithChurn(Churn{Seed: 1, Inserts: 1, Deletes: 1, Modifies: 1}))
	if err != nil {
		t.Fatal(err)
	}
	first := chGet(t, srv, "/v1/Invoices", "pageSize", "100").Body.String()
	changes := srv.ChurnLog()
	if len(changes) == 0 {
		t.Fatal("the first list request made no change")
	}
	if err := srv.Reset(); err != nil {
		t.Fatal(err)
	}
	if log := srv.ChurnLog(); len(log) != 0 {
		t.Errorf("after Reset the log holds %d changes, want none", len(log))
	}
	if again := chGet(t, srv, "/v1/Invoices", "pageSize", "100").Body.String(); again != first {
		t.Errorf("the first list request after Reset answered\n%.300s\nwant what the first one did\n%.300s", again, first)
	}
	if again := srv.ChurnLog(); !reflect.DeepEqual(again, changes) {
		t.Errorf("changes after Reset:\n%s\nwant those of the first request:\n%s", chFormat(again), chFormat(changes))
	}
}

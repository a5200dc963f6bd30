package billingtest

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/billingtest/internal/ledger"
	"github.com/billingapi/billing-go/billingtest/internal/scale"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// engineListJSON is inv as the list of all invoices wrote it before the
// direct writer: rendered, then encoded by the JSON engine.
func engineListJSON(tb testing.TB, inv *Invoice, cust *Customer) []byte {
	tb.Helper()
	st := &store{customers: map[int64]*Customer{}}
	if cust != nil {
		st.customers[inv.CustomerID] = cust
	}
	b, err := jsonwire.Marshal(flat(st.renderInvoice(inv, chargesEmpty, false)))
	if err != nil {
		tb.Fatalf("engine: %v", err)
	}
	return b
}

// checkListInvoice compares the direct writer's bytes for inv with the
// engine's, appended after a prefix that must survive: from the invoice
// (scale.AppendListInvoice, and appendListInvoiceJSON with its engine
// fallback) and from a scale store's record of it. It reports whether
// the writer wrote the invoice itself.
func checkListInvoice(tb testing.TB, name string, inv *Invoice, cust *Customer) (direct bool) {
	tb.Helper()
	want := engineListJSON(tb, inv, cust)
	prefix := []byte(`[{"x":1},`)
	wantAll := append(bytes.Clone(prefix), want...)
	got, direct := scale.AppendListInvoice(bytes.Clone(prefix), inv, cust)
	if direct && !bytes.Equal(got, wantAll) {
		tb.Errorf("%s: direct writer differs from the engine:\n got %s\nwant %s%s\n%s", name, got, prefix, want, firstDiff(got[len(prefix):], want))
	}
	if !direct && !bytes.Equal(got, prefix) {
		tb.Errorf("%s: declined, but changed dst to %s", name, got)
	}
	st := &store{customers: map[int64]*Customer{}}
	if cust != nil {
		st.customers[inv.CustomerID] = cust
	}
	viaStore, err := st.appendListInvoiceJSON(bytes.Clone(prefix), inv)
	if err != nil || !bytes.Equal(viaStore, wantAll) {
		tb.Errorf("%s: appendListInvoiceJSON = %s, %v\nwant %s%s", name, viaStore, err, prefix, want)
	}
	sc := scale.New(customerGetters, func(int64) *Customer { return cust })
	sc.Insert(inv)
	fromRecord, err := sc.AppendListJSON(bytes.Clone(prefix), hitsOf(inv.ID), 0, st.appendListInvoiceJSON)
	if err != nil || !bytes.Equal(fromRecord, wantAll) {
		tb.Errorf("%s: from the scale store's record: %s, %v\nwant %s%s\n%s", name, fromRecord, err, prefix, want, firstDiff(fromRecord[min(len(prefix), len(fromRecord)):], want))
	}
	return direct
}

// firstDiff shows where two encodings part.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-40)
	return fmt.Sprintf("first difference at byte %d: got …%s…, want …%s…", i, got[from:min(len(got), i+40)], want[from:min(len(want), i+40)])
}

// TestListInvoiceEncodingMatchesEngineOnGeneratedAccounts checks the
// direct writer against the engine, byte for byte, on every invoice of
// generated accounts of several seeds, some of whose invoices are then
// written off (schedules WrittenOff, balance 0).
//
// Each account is kept by the plain store and by the scale store, whose
// own list writing (AppendListJSON) is compared too: from the invoices
// for the one, from the packed records for the other.
func TestListInvoiceEncodingMatchesEngineOnGeneratedAccounts(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3, 42, 1 << 40} {
		for _, kept := range storeOptions {
			t.Run(strconv.FormatUint(seed, 10)+"/"+kept.name, func(t *testing.T) {
				t.Parallel()
				srv, err := NewHandler(kept.option(), WithGenerated(GenerateOptions{Seed: seed, Invoices: 600}))
				if err != nil {
					t.Fatal(err)
				}
				var owing []int64 // every third invoice with a balance, to write off
				srv.mu.RLock()
				for i := range srv.store.invoices.Len() {
					if inv := srv.store.invoices.At(i); ledger.Outstanding(inv).IsPositive() && i%3 == 0 {
						owing = append(owing, inv.ID)
					}
				}
				srv.mu.RUnlock()
				for _, id := range owing {
					if err := srv.WriteOffInvoice(id); err != nil {
						t.Fatalf("WriteOffInvoice(%d): %v", id, err)
					}
				}
				var settled, unsettled, writtenOff int
				var ids []int64
				var wants [][]byte
				srv.mu.RLock()
				defer srv.mu.RUnlock()
				for i := range srv.store.invoices.Len() {
					inv := srv.store.invoices.At(i)
					if !checkListInvoice(t, fmt.Sprintf("invoice %d", inv.ID), inv, srv.store.customers[inv.CustomerID]) {
						t.Errorf("invoice %d: generated, but not written directly", inv.ID)
					}
					got, err := srv.store.invoices.AppendListJSON(nil, hitsOf(inv.ID), srv.mu.Version(), srv.store.appendListInvoiceJSON)
					want := engineListJSON(t, inv, srv.store.customers[inv.CustomerID])
					if err != nil || !bytes.Equal(got, want) {
						t.Errorf("invoice %d: the store's AppendListJSON = %s, %v\nwant %s", inv.ID, got, err, want)
					}
					ids, wants = append(ids, inv.ID), append(wants, want)
					switch {
					case inv.TotalWriteoffs.IsPositive():
						writtenOff++
					case ledger.Outstanding(inv).IsPositive():
						unsettled++
					default:
						settled++
					}
				}
				if settled == 0 || unsettled == 0 || writtenOff == 0 {
					t.Errorf("%d settled, %d unsettled, %d written-off invoices: want some of each", settled, unsettled, writtenOff)
				}
				page, err := srv.store.invoices.AppendListJSON(nil, hitsOf(ids...), srv.mu.Version(), srv.store.appendListInvoiceJSON)
				if want := bytes.Join(wants, []byte(",")); err != nil || !bytes.Equal(page, want) {
					t.Errorf("every invoice at once: the store's AppendListJSON = %s, %v\nwant %s", page, err, want)
				}
			})
		}
	}
}

// storeOptions keep a test's invoices in each of the fake's stores.
var storeOptions = []struct {
	name   string
	option func() Option
}{{"plain", WithPlainStore}, {"scale", WithScaleStore}}

// listEdgeInvoice is an invoice with a bit of everything, for the edge
// cases to change.
func listEdgeInvoice() (*Invoice, *Customer) {
	at := time.Date(2024, 3, 1, 10, 15, 0, 123456700, time.UTC)
	d := decimal.RequireFromString
	inv := &Invoice{
		ID: 7, CustomerID: 3, InvoiceNumber: 1001, PoNumber: "PO-1", CreatedTimestamp: at,
		EffectiveTimestamp: at, PostedTimestamp: at, ModifiedTimestamp: at.Add(time.Hour), Terms: "Net30",
		Charges: []Charge{
			{ID: 8, Name: "Plan", Amount: d("100.50"), Quantity: d("1"), UnitPrice: d("100.50")},
			{ID: 9, Name: "Extra", Amount: d("0.125"), Quantity: d("1"), UnitPrice: d("0.125")},
		},
		TotalTaxes: d("10.05"), TotalDiscount: d("5"), TotalPayments: d("20"), SumOfCreditNotes: d("1.5"),
		PaymentSchedules: []billing.PaymentSchedule{{
			DueDateTimestamp: billing.NewTimestamp(at.AddDate(0, 0, 30)), Status: billing.PaymentScheduleStatusDue,
			Amount: d("105.675"), OutstandingBalance: d("84.175"), DaysDueAfterTerm: 30,
		}},
		OpeningArBalance: d("-12.5"), ClosingArBalance: d("93.175"), ErpID: "ERP-1", CrmID: "CRM-1", AccountingID: 5, Notes: "note",
	}
	cust := &Customer{
		ID: 3, FirstName: "Ada", MiddleName: "B", LastName: "Lovelace", Suffix: "Jr", Title: "Dr", CompanyName: "Engines",
		PrimaryEmail: "ada@example.test", PrimaryPhone: "+1 555", Reference: "CUST-3", Status: billing.CustomerStatusActive,
		AccountStatus: billing.CustomerAccountStatusGood, ParentID: 2, Currency: "EUR", CreatedTimestamp: at.AddDate(-1, 0, 0),
		ModifiedTimestamp: at, MonthlyRecurringRevenue: d("99.90"), NetMRR: d("-0.001"), CrmID: "CRM-C", ErpID: "ERP-C",
	}
	return inv, cust
}

// TestListInvoiceEncodingMatchesEngineOnEdgeCases checks the direct
// writer against the engine on what generated data never holds: strings
// that need escaping or replacing, zero and odd times, amounts of many
// digits, negative ones and sums that leave the int64s, schedules nil,
// empty, several or with Extra members (left to the engine), written-off
// and forced statuses, a missing customer.
func TestListInvoiceEncodingMatchesEngineOnEdgeCases(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	texts := []string{
		"", "plain", "Zoë 東京 🚀", "\x00\x01\x07\b\t\n\v\f\r\x1b\x1f\x7f", `quote " backslash \ slash /`,
		`<script>alert("x&y")</script>`, "line\u2028para\u2029end", "\xff\xfe bad \xc3 utf8 \xe2\x82", "\ufffd kept",
		"\xed\xa0\x80 surrogate", "<>&", "\u00e9\u0301", "tab\tend",
	}
	zone := time.FixedZone("UTC+2", 2*3600)
	times := []time.Time{
		{}, time.Date(1, 1, 1, 1, 0, 0, 0, zone), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(2024, 2, 29, 23, 59, 59, 999999999, zone), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(2024, 3, 1, 0, 0, 0, 100, time.UTC), time.Date(2024, 3, 1, 0, 0, 0, 1_000_000, time.UTC),
		time.Date(2024, 3, 1, 0, 0, 0, 99, time.UTC), time.Date(1999, 12, 31, 9, 5, 7, 120_000_000, time.Local),
		time.Unix(0, 0), time.Date(-5, 6, 7, 8, 9, 10, 11, time.UTC), time.Date(12345, 1, 2, 3, 4, 5, 6, time.UTC),
		time.Date(10000, 1, 1, 1, 0, 0, 0, zone), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	amounts := []decimal.Decimal{
		decimal.Zero, d("0.000000000000000001"), d("123456789.123456789"), d("-12.50"), d("-0.0001"),
		d("999999999999999999"), d("-999999999999999999"), d("123456789012345678901234567890.123"),
		decimal.New(1, 40), decimal.New(-7, -40), decimal.New(5, 3), d("1e-30"),
	}

	type edge struct {
		name   string
		change func(inv *Invoice, cust *Customer) *Customer // returns the customer to use
	}
	cases := []edge{
		{"as made", func(_ *Invoice, c *Customer) *Customer { return c }},
		{"no customer", func(_ *Invoice, _ *Customer) *Customer { return nil }},
		{"empty customer", func(_ *Invoice, _ *Customer) *Customer { return &Customer{} }},
		{"empty invoice", func(inv *Invoice, c *Customer) *Customer { *inv = Invoice{}; return c }},
		{"nil schedules", func(inv *Invoice, c *Customer) *Customer { inv.PaymentSchedules = nil; return c }},
		{"empty schedules", func(inv *Invoice, c *Customer) *Customer {
			inv.PaymentSchedules = []billing.PaymentSchedule{}
			return c
		}},
		{"no charges", func(inv *Invoice, c *Customer) *Customer { inv.Charges = nil; return c }},
		{"written off", func(inv *Invoice, c *Customer) *Customer {
			inv.TotalWriteoffs = inv.PaymentSchedules[0].OutstandingBalance
			inv.PaymentSchedules[0].OutstandingBalance = decimal.Zero
			inv.PaymentSchedules[0].Status = billing.PaymentScheduleStatusWrittenOff
			return c
		}},
		{"several schedules", func(inv *Invoice, c *Customer) *Customer {
			ps := inv.PaymentSchedules[0]
			inv.PaymentSchedules = []billing.PaymentSchedule{ps, ps, ps, ps}
			inv.PaymentSchedules[1].Status, inv.PaymentSchedules[1].OutstandingBalance = ledger.StatusPaid, decimal.Zero
			inv.PaymentSchedules[2].Status, inv.PaymentSchedules[2].DueDateTimestamp = billing.PaymentScheduleStatusWrittenOff, billing.Timestamp{}
			inv.PaymentSchedules[3].Status, inv.PaymentSchedules[3].OutstandingBalance = "", d("-84.175")
			inv.PaymentSchedules[3].DaysDueAfterTerm = -3
			return c
		}},
		{"schedule with Extra", func(inv *Invoice, c *Customer) *Customer {
			inv.PaymentSchedules[0].Extra = billing.Extra{"zz": []byte(`{ "a" : "<b>" }`), "aa": []byte(`1`)}
			return c
		}},
		{"schedule with empty Extra", func(inv *Invoice, c *Customer) *Customer {
			inv.PaymentSchedules[0].Extra = billing.Extra{}
			return c
		}},
		{"extreme ids", func(inv *Invoice, c *Customer) *Customer {
			inv.ID, inv.InvoiceNumber, inv.CustomerID, c.ParentID = math.MaxInt64, math.MinInt64, -1, -1
			return c
		}},
		{"settled", func(inv *Invoice, c *Customer) *Customer {
			inv.PaymentSchedules[0].OutstandingBalance = decimal.Zero
			inv.PaymentSchedules[0].Status = ledger.StatusPaid
			return c
		}},
		{"sum overflows int64", func(inv *Invoice, c *Customer) *Customer {
			inv.Charges[0].Amount, inv.Charges[1].Amount = d("999999999999999999"), d("999999999999999999")
			inv.TotalDiscount = d("0.000000000000000001")
			inv.PaymentSchedules = append(inv.PaymentSchedules, inv.PaymentSchedules[0])
			inv.PaymentSchedules[0].OutstandingBalance = d("999999999999999999")
			inv.PaymentSchedules[1].OutstandingBalance = d("-999999999999999999.5")
			return c
		}},
		{"exponents far apart", func(inv *Invoice, c *Customer) *Customer {
			inv.Charges[0].Amount, inv.Charges[1].Amount = decimal.New(1, 100), decimal.New(1, -100)
			inv.TotalTaxes = decimal.New(-1, 100)
			return c
		}},
	}
	for _, terms := range []string{"", "Net30", "net30", "NET30", "Net45", "Net30 ", "30"} {
		cases = append(cases, edge{"terms " + strconv.Quote(terms), func(inv *Invoice, c *Customer) *Customer { inv.Terms = terms; return c }})
	}
	for _, status := range []billing.InvoiceStatus{billing.InvoiceStatusVoid, billing.InvoiceStatusDisputed, billing.InvoiceStatusPending, billing.InvoiceStatusPaid, "<odd>"} {
		cases = append(cases, edge{"status " + string(status), func(inv *Invoice, c *Customer) *Customer { inv.Status = status; return c }})
	}
	for i, s := range texts {
		cases = append(cases, edge{fmt.Sprintf("text %d %q", i, s), func(inv *Invoice, c *Customer) *Customer {
			inv.PoNumber, inv.Notes, inv.Terms, inv.ErpID = s, s, s, s
			c.FirstName, c.MiddleName, c.LastName, c.CompanyName, c.Suffix, c.Title = s, s, s, s, s, s
			c.PrimaryEmail, c.PrimaryPhone, c.Reference, c.CrmID, c.ErpID, c.Currency = s, s, s, s, s, s
			c.Status, c.AccountStatus = billing.CustomerStatus(s), billing.CustomerAccountStatus(s)
			inv.PaymentSchedules[0].Status = billing.PaymentScheduleStatus(s)
			return c
		}})
	}
	for i, at := range times {
		cases = append(cases, edge{fmt.Sprintf("time %d %s", i, at), func(inv *Invoice, c *Customer) *Customer {
			inv.EffectiveTimestamp, inv.PostedTimestamp, inv.ModifiedTimestamp = at, at, at
			c.CreatedTimestamp, c.ModifiedTimestamp = at, at
			inv.PaymentSchedules[0].DueDateTimestamp = billing.Timestamp{Time: at}
			return c
		}})
	}
	for i, a := range amounts {
		cases = append(cases, edge{fmt.Sprintf("amount %d %s", i, a), func(inv *Invoice, c *Customer) *Customer {
			inv.Charges[1].Amount, inv.TotalTaxes, inv.TotalDiscount, inv.TotalPayments = a, a, a.Neg(), a
			inv.SumOfCreditNotes, inv.OpeningArBalance, inv.ClosingArBalance, inv.TotalWriteoffs = a, a, a.Neg(), a
			inv.PaymentSchedules[0].Amount, inv.PaymentSchedules[0].OutstandingBalance = a, a
			c.MonthlyRecurringRevenue, c.NetMRR = a, a.Neg()
			return c
		}})
	}

	var direct, declined int
	for _, tc := range cases {
		inv, cust := listEdgeInvoice()
		cust = tc.change(inv, cust)
		if checkListInvoice(t, tc.name, inv, cust) {
			direct++
		} else {
			declined++
		}
	}
	if declined != 1 || direct != len(cases)-1 {
		t.Errorf("written directly %d, left to the engine %d: want only the schedule with Extra left", direct, declined)
	}
}

// TestListInvoiceEncodingDoesNotAllocate checks that writing an invoice
// into a buffer with room allocates nothing, from an invoice or from a
// scale store's packed record: the point of the writer.
func TestListInvoiceEncodingDoesNotAllocate(t *testing.T) { // not parallel: AllocsPerRun
	inv, cust := listEdgeInvoice()
	buf := make([]byte, 0, 1<<20)
	if allocs := testing.AllocsPerRun(100, func() { buf, _ = scale.AppendListInvoice(buf[:0], inv, cust) }); allocs != 0 {
		t.Errorf("AppendListInvoice allocated %.1f times an invoice, want 0", allocs)
	}
	srv, err := NewHandler(WithScaleStore(), WithGenerated(GenerateOptions{Seed: 1, Invoices: 200}))
	if err != nil {
		t.Fatal(err)
	}
	st := srv.store
	ids := make([]int64, st.invoices.Len())
	for i := range ids {
		ids[i] = st.invoices.At(i).ID
	}
	appendJSON := st.appendListInvoiceJSON // one method value, as the handler makes
	hits := hitsOf(ids...)
	allocs := testing.AllocsPerRun(10, func() {
		if buf, err = st.invoices.AppendListJSON(buf[:0], hits, srv.mu.Version(), appendJSON); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("the scale store's AppendListJSON allocated %.1f times for %d invoices, want 0", allocs, len(ids))
	}
}

// TestListOfAllInvoicesAnswersAsTheEngine checks the endpoint end to end:
// every page of the list of all invoices, asked twice and in pages of
// several sizes, is the engine's encoding of the page's invoices, from
// either store.
func TestListOfAllInvoicesAnswersAsTheEngine(t *testing.T) {
	t.Parallel()
	for _, kept := range storeOptions {
		t.Run(kept.name, func(t *testing.T) {
			t.Parallel()
			checkListOfAllInvoices(t, kept.option())
		})
	}
}

func checkListOfAllInvoices(t *testing.T, kept Option) {
	srv, err := NewHandler(kept, WithGenerated(GenerateOptions{Seed: 7, Invoices: 250}))
	if err != nil {
		t.Fatal(err)
	}
	srv.mu.RLock()
	encoded := make([][]byte, srv.store.invoices.Len())
	for i := range encoded {
		inv := srv.store.invoices.At(i)
		encoded[i] = engineListJSON(t, inv, srv.store.customers[inv.CustomerID])
	}
	srv.mu.RUnlock()
	for _, size := range []int{1, 7, 100, 1000} {
		for pass := range 2 {
			for page := 0; page*size < len(encoded); page++ {
				path := fmt.Sprintf("/v1/Invoices?pageSize=%d&pageNumber=%d", size, page)
				r := httptest.NewRequest(http.MethodGet, path, nil)
				r.Header.Set("Authorization", "Basic "+DefaultAPIKey)
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, r)
				want := append(append([]byte("["), bytes.Join(encoded[page*size:min(len(encoded), (page+1)*size)], []byte(","))...), ']')
				if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), want) {
					t.Fatalf("pass %d, GET %s: %d\n%s\nwant\n%s", pass, path, w.Code, w.Body, want)
				}
			}
		}
	}
}

// FuzzListInvoiceEncoding checks the direct writer against the engine on
// arbitrary strings and amounts.
func FuzzListInvoiceEncoding(f *testing.F) {
	f.Add("PO-1", "note", "Net30", "Ada", "Active", int64(10050), int8(-2), int64(-5), int8(0), "0.125")
	f.Add("<a&b>", "\u2028\u2029", "net30", "\xff\x00", "\"\\", int64(math.MaxInt64), int8(-18), int64(math.MinInt64), int8(3), "-1e-30")
	f.Add("", "", "", "", "", int64(0), int8(0), int64(0), int8(0), "123456789012345678901234567890.5")
	f.Fuzz(func(t *testing.T, po, notes, terms, name, status string, c1 int64, e1 int8, c2 int64, e2 int8, amount string) {
		a1, a2 := decimal.New(c1, int32(e1)), decimal.New(c2, int32(e2))
		a3, err := decimal.NewFromString(amount)
		if err != nil || len(amount) > 64 || a3.Exponent() < -200 || a3.Exponent() > 200 {
			a3 = decimal.Zero // the amount text is only a source of decimals
		}
		inv, cust := listEdgeInvoice()
		inv.PoNumber, inv.Notes, inv.Terms = po, notes, terms
		cust.FirstName, cust.CompanyName, cust.Reference, cust.Currency = name, po, notes, terms
		cust.Status, cust.AccountStatus = billing.CustomerStatus(status), billing.CustomerAccountStatus(name)
		inv.PaymentSchedules[0].Status = billing.PaymentScheduleStatus(status)
		inv.Charges[0].Amount, inv.Charges[1].Amount, inv.TotalTaxes, inv.TotalDiscount = a1, a2, a3, a2
		inv.TotalPayments, inv.OpeningArBalance, inv.ClosingArBalance = a1, a2, a3
		inv.PaymentSchedules = append(inv.PaymentSchedules, inv.PaymentSchedules[0])
		inv.PaymentSchedules[0].OutstandingBalance, inv.PaymentSchedules[1].OutstandingBalance = a1, a3
		cust.MonthlyRecurringRevenue, cust.NetMRR = a3, a1
		if !checkListInvoice(t, "fuzzed", inv, cust) {
			t.Error("fuzzed invoice not written directly")
		}
	})
}

// BenchmarkListInvoiceEncoding measures a page of 1,000 generated
// invoices of the list of all invoices, per invoice: unpacked from their
// records and encoded through the engine (the oldest path); unpacked and
// written directly (the path before the records were written); written
// from the records (the scale store's path); and copied from encodings
// kept aside, what the list cache that the fake once had cost.
func BenchmarkListInvoiceEncoding(b *testing.B) {
	const n = 1000
	srv, err := NewHandler(WithScaleStore(), WithGenerated(GenerateOptions{Seed: 1, Invoices: n}))
	if err != nil {
		b.Fatal(err)
	}
	st := srv.store
	ids := make([]int64, n)
	encoded := make([][]byte, n)
	for i := range ids {
		ids[i] = st.invoices.At(i).ID
		if encoded[i], err = st.invoices.AppendListJSON(nil, hitsOf(ids[i]), srv.mu.Version(), st.appendListInvoiceJSON); err != nil {
			b.Fatal(err)
		}
	}
	hits := hitsOf(ids...)
	buf := make([]byte, 0, 4<<20)
	for _, bc := range []struct {
		name  string
		write func(i int) ([]byte, error)
	}{
		{"engine", func(i int) ([]byte, error) {
			enc, err := jsonwire.Marshal(flat(st.renderInvoice(st.invoices.Get(ids[i]), chargesEmpty, false)))
			return append(buf, enc...), err
		}},
		{"unpacked", func(i int) ([]byte, error) { return st.appendListInvoiceJSON(buf, st.invoices.Get(ids[i])) }},
		{"record", func(i int) ([]byte, error) {
			return st.invoices.AppendListJSON(buf, hits[i:i+1], srv.mu.Version(), st.appendListInvoiceJSON)
		}},
		{"copy", func(i int) ([]byte, error) { return append(buf, encoded[i]...), nil }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buf = buf[:0]
				for i := range ids {
					if buf, err = bc.write(i); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/invoice")
		})
	}
}

// TestScaleStoreListsTheCustomerStoredNow checks that the scale store,
// which keeps what it encodes of a customer, writes the customer stored
// when it lists: one replaced since the last listing (the fake stores a
// new customer, never changes one in place), one deleted, one larger than
// any buffer the writers start with.
func TestScaleStoreListsTheCustomerStoredNow(t *testing.T) {
	t.Parallel()
	inv, first := listEdgeInvoice()
	second := &Customer{ID: first.ID, FirstName: "Grace", LastName: "Hopper", Reference: "CUST-3b",
		Status: billing.CustomerStatusSuspended, MonthlyRecurringRevenue: decimal.RequireFromString("12.345"),
		CreatedTimestamp: first.CreatedTimestamp}
	huge := &Customer{ID: first.ID, FirstName: strings.Repeat("é<\u2028", 30000), Title: "Dr", Currency: "EUR"}
	customers := map[int64]*Customer{inv.CustomerID: first}
	sc := scale.New(customerGetters, func(id int64) *Customer { return customers[id] })
	sc.Insert(inv)
	st := &store{customers: customers}
	for version, step := range []struct {
		name string
		cust *Customer
	}{
		{"first listing", first},
		{"listed again", first},
		{"replaced", second},
		{"deleted", nil},
		{"with values over 64 KiB", huge},
		{"replaced again", second},
		{"added back", first},
	} {
		// Each change takes the fake's write lock: a new version.
		if step.cust == nil {
			delete(customers, inv.CustomerID)
		} else {
			customers[inv.CustomerID] = step.cust
		}
		want := engineListJSON(t, inv, step.cust)
		got, err := sc.AppendListJSON(nil, hitsOf(inv.ID), uint64(version), st.appendListInvoiceJSON)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %s, %v\nwant %s\n%s", step.name, got, err, want, firstDiff(got, want))
		}
		if direct, _ := scale.AppendListInvoice(nil, inv, step.cust); !bytes.Equal(direct, want) {
			t.Fatalf("%s: written from the invoice: %s\nwant %s\n%s", step.name, direct, want, firstDiff(direct, want))
		}
	}
}

// TestScaleStoreEncodesCustomersConcurrently lists invoices of a few
// customers from many goroutines at once, as prefetching clients do under
// the fake's read lock, where the first listing of a customer fills its
// entry: every answer is the engine's (run it with -race).
func TestScaleStoreEncodesCustomersConcurrently(t *testing.T) {
	t.Parallel()
	inv, cust := listEdgeInvoice()
	customers := map[int64]*Customer{}
	sc := scale.New(customerGetters, func(id int64) *Customer { return customers[id] })
	st := &store{customers: customers}
	want := map[int64][]byte{}
	for i := range int64(40) {
		c, v := *cust, *inv
		c.ID, c.FirstName = 100+i%4, fmt.Sprint("Ada ", i%4)
		v.ID, v.CustomerID = 1000+i, c.ID
		customers[c.ID] = &c
		sc.Insert(&v)
		want[v.ID] = engineListJSON(t, &v, &c)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for id, w := range want {
				if got, err := sc.AppendListJSON(nil, hitsOf(id), 0, st.appendListInvoiceJSON); err != nil || !bytes.Equal(got, w) {
					t.Errorf("invoice %d: %s, %v\nwant %s", id, got, err, w)
				}
			}
		})
	}
	wg.Wait()
}

// hitsOf is the hits of a page of the invoices ids, in that order.
func hitsOf(ids ...int64) []filter.Hit {
	hits := make([]filter.Hit, len(ids))
	for i, id := range ids {
		hits[i] = filter.Hit{ID: id}
	}
	return hits
}

// TestScaleStoreWritesPagesAsItsInvoices lists pages of every length from
// every start over invoices of three customers, every third of them kept
// whole (a time outside UTC does not pack): a page is its invoices, each
// as the engine writes it, joined by commas, however its length compares
// with how far ahead AppendListJSON reads.
func TestScaleStoreWritesPagesAsItsInvoices(t *testing.T) {
	t.Parallel()
	inv, cust := listEdgeInvoice()
	customers := map[int64]*Customer{}
	sc := scale.New(customerGetters, func(id int64) *Customer { return customers[id] })
	st := &store{customers: customers}
	var ids []int64
	var want [][]byte
	whole := map[int64]bool{}
	for i := range int64(7) {
		c, v := *cust, *inv
		c.ID, c.FirstName = 100+i%3, fmt.Sprint("Ada ", i%3)
		v.ID, v.CustomerID = 1000+i, c.ID
		if i%3 == 1 {
			v.PostedTimestamp = v.PostedTimestamp.In(time.FixedZone("UTC+2", 2*60*60))
			whole[v.ID] = true
		}
		customers[c.ID] = &c
		sc.Insert(&v)
		ids = append(ids, v.ID)
		want = append(want, engineListJSON(t, &v, &c))
	}
	for start := range len(ids) + 1 {
		for end := start; end <= len(ids); end++ {
			var fromWhole []int64 // the invoices appendJSON wrote
			appendJSON := func(dst []byte, inv *Invoice) ([]byte, error) {
				fromWhole = append(fromWhole, inv.ID)
				return st.appendListInvoiceJSON(dst, inv)
			}
			got, err := sc.AppendListJSON([]byte("["), hitsOf(ids[start:end]...), 0, appendJSON)
			if w := append([]byte("["), bytes.Join(want[start:end], []byte(","))...); err != nil || !bytes.Equal(got, w) {
				t.Errorf("invoices %d to %d: %s, %v\nwant %s", start, end, got, err, w)
			}
			var wantWhole []int64
			for _, id := range ids[start:end] {
				if whole[id] {
					wantWhole = append(wantWhole, id)
				}
			}
			if !slices.Equal(fromWhole, wantWhole) {
				t.Errorf("invoices %d to %d: written whole %v, want %v", start, end, fromWhole, wantWhole)
			}
		}
	}
}

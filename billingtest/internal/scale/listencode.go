package scale

import (
	"cmp"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/billingtest/internal/prefetch"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// The list of all invoices (GET /v1/Invoices) is the answer an
// integration job reads page after page, every invoice of the account on
// every sweep. Rendering an invoice into billing.Invoice and encoding it
// through the JSON engine costs about 25 µs and a heap of garbage;
// unpacking a record into a seed.Invoice first (some 25 objects) cost
// another 4 to 7 µs and made the collector scan a large heap. This file
// writes the same bytes directly from a packed record, or from an
// invoice, and its customer, with no reflection and no allocation per
// invoice (but for amounts or sums beyond an int64 coefficient, which are
// added as decimals, as the engine's path adds them). One writer reads
// both, through listing, so that the plain store and the scale store
// cannot answer differently.

// InvoiceSignature is every invoice's signature (HTML, as the service
// sends it).
const InvoiceSignature = "<p>Thank you for your business.</p>"

// timestampLayout is how billing.Timestamp writes a time: UTC, without
// offset, the fraction trimmed of trailing zeros.
const timestampLayout = "2006-01-02T15:04:05.9999999"

// addressPreferenceJSON is the address preference the engine path gives an
// invoice with a customer, which is always the same.
const addressPreferenceJSON = `{"id":0,"uri":null,"contactName":null,"shippingInstructions":null,` +
	`"useBillingAddressAsShippingAddress":true,"billingAddress":null,"shippingAddress":null}`

// AppendListInvoice appends inv, whose customer is cust (nil when it has
// none), as the list of all invoices writes it: the bytes the fake's
// engine path gives (billing.Invoice rendered without charges, then
// "charges":[]), written directly. It reports false, and returns dst
// unchanged, for an invoice with a payment schedule that has Extra
// members: the engine reformats their raw JSON, which this writer does
// not reproduce.
func AppendListInvoice(dst []byte, inv *seed.Invoice, cust *seed.Customer) ([]byte, bool) {
	li, ok := invoiceListing(inv)
	if !ok {
		return dst, false
	}
	var buf [1024]byte // room for a customer of ordinary size: no allocation
	enc := encodeCustomer(buf[:0], cust)
	return appendListing(dst, &li, &enc), true
}

// AppendListJSON appends the invoices of hits, which are in the store,
// as the list of all invoices writes them, separated by commas: each
// written from its packed record, or, for a record kept whole, by
// appendJSON from a copy of the invoice. version is the version of the
// fake's state (pagecache.RWMutex.Version) under the lock the caller
// holds. Readers may call it concurrently.
//
// Design. At a million invoices and a hundred thousand customers, the
// customer's block that each invoice reads (customerCache) is almost
// never in the CPU's caches, and invoices name their customers at random,
// so reading it stalled the writer on a miss of the caches and the TLB
// per invoice: the largest single part of what a sequential sweep of a
// million paid more an invoice than one of ten thousand (BENCHMARKS.md,
// "The fake at scale"). So the records are looked up prefetchAhead
// invoices ahead of the one being written, and their customers' blocks
// and their texts prefetched (lookAhead): the misses then overlap with
// writing the invoices before them.
func (s *Store) AppendListJSON(dst []byte, hits []filter.Hit, version uint64, appendJSON func([]byte, *seed.Invoice) ([]byte, error)) ([]byte, error) {
	var ahead [prefetchAhead]*invoiceRecord // the records of hits[i] to hits[i+prefetchAhead-1], by index mod prefetchAhead
	for i := range min(prefetchAhead, len(hits)) {
		ahead[i] = s.lookAhead(hits[i].ID)
	}
	var err error
	for i := range hits {
		r := ahead[i%prefetchAhead]
		if j := i + prefetchAhead; j < len(hits) {
			ahead[i%prefetchAhead] = s.lookAhead(hits[j].ID)
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		if r.whole != nil {
			if dst, err = appendJSON(dst, r.invoice()); err != nil {
				return dst, err
			}
			continue
		}
		li := r.listing()
		enc := s.customers.get(r.customerSlot, r.customerID, version, s.customer)
		dst = appendListing(dst, &li, &enc)
	}
	return dst, nil
}

// prefetchAhead is how many invoices ahead of the one it writes
// AppendListJSON reads records and prefetches customers: writing one
// takes a few microseconds, far longer than a miss, so one would do and
// two leave a margin.
const prefetchAhead = 2

// lookAhead returns the record of invoice id, which is in the store, and
// prefetches its customer's block and its texts.
func (s *Store) lookAhead(id int64) *invoiceRecord {
	r := s.table.get(id)
	if r.whole == nil {
		s.customers.prefetch(r.customerSlot)
		r.prefetchText()
	}
	return r
}

// prefetchText asks the CPU to start reading r's texts, up to
// maxPrefetchText bytes of them. Records lie in id order, a stream the
// CPU's own prefetcher follows in a sweep, but each text is an allocation
// of its own, placed wherever its size class had room when the invoice
// was stored. At a million invoices, pages written with and without this
// prefetch in turn in one sequential sweep took 0.03 to 0.07 µs an
// invoice less with it, of some 1.6 (BENCHMARKS.md, "The fake at scale").
func (r *invoiceRecord) prefetchText() {
	prefetch.Lines(uintptr(unsafe.Pointer(unsafe.StringData(r.text))), uintptr(min(len(r.text), maxPrefetchText)))
}

// maxPrefetchText bounds the bytes of text prefetchText asks for: a
// generated invoice's texts take a few dozen, and a long note is read
// while it is written anyway.
const maxPrefetchText = 256

// listing is what the list of all invoices shows of an invoice, read from
// a record or from a seed.Invoice without copying either.
type listing struct {
	id, number, customerID      int64
	po, notes, terms            string
	effective, posted, modified time.Time
	amounts                     [recAmounts]amount // by the rec* indexes
	subtotal                    amount             // the sum of the charges
	// The schedules: packed, of a record, or those of an invoice.
	packed    []scheduleRecord
	schedules []billing.PaymentSchedule
}

func (r *invoiceRecord) listing() listing {
	li := listing{id: r.id, number: r.invoiceNumber, customerID: r.customerID,
		po: r.field(recPoNumber), notes: r.field(recNotes), terms: r.field(recTerms),
		effective: unpackTime(r.effective), posted: unpackTime(r.posted), modified: unpackTime(r.modified),
		packed: r.schedules}
	for i := range li.amounts {
		li.amounts[i] = amount{coef: r.amounts[i], exp: int32(r.exps[i])}
	}
	li.subtotal = amount{coef: r.subtotal, exp: int32(r.subtotalExp)}
	if r.subtotalWide {
		li.subtotal = r.chargesSum()
	}
	return li
}

// invoiceListing is inv's listing, and false when a schedule has Extra
// members.
func invoiceListing(inv *seed.Invoice) (listing, bool) {
	for i := range inv.PaymentSchedules {
		if len(inv.PaymentSchedules[i].Extra) > 0 {
			return listing{}, false
		}
	}
	li := listing{id: inv.ID, number: inv.InvoiceNumber, customerID: inv.CustomerID,
		po: inv.PoNumber, notes: inv.Notes, terms: inv.Terms,
		effective: inv.EffectiveTimestamp, posted: inv.PostedTimestamp, modified: inv.ModifiedTimestamp,
		schedules: inv.PaymentSchedules}
	for i, d := range amountsOf(inv) {
		li.amounts[i] = amountOf(d)
	}
	for i := range inv.Charges {
		li.subtotal = li.subtotal.plus(amountOf(inv.Charges[i].Amount))
	}
	return li, true
}

// listedSchedule is what a listing shows of a payment schedule.
type listedSchedule struct {
	due                 time.Time
	status              billing.PaymentScheduleStatus
	amount, outstanding amount
	days                int
}

func (li *listing) scheduleCount() int { return len(li.packed) + len(li.schedules) }

func (li *listing) schedule(i int) listedSchedule {
	if li.packed != nil {
		s := &li.packed[i]
		return listedSchedule{due: unpackTime(s.due), status: scheduleStatus(s.status), days: int(s.days),
			amount:      amount{coef: s.amount, exp: int32(s.exps[0])},
			outstanding: amount{coef: s.outstanding, exp: int32(s.exps[1])}}
	}
	s := &li.schedules[i]
	return listedSchedule{due: s.DueDateTimestamp.Time, status: s.Status, days: s.DaysDueAfterTerm,
		amount: amountOf(s.Amount), outstanding: amountOf(s.OutstandingBalance)}
}

// appendListing appends li, whose customer is encoded in cust: the
// members of billing.Invoice in their order, with the values the engine's
// path gives them, then "charges":[]; amounts as jsonwire writes
// decimals, times as billing.Timestamp writes them, strings escaped as
// the engine escapes them.
func appendListing(dst []byte, li *listing, cust *encodedCustomer) []byte {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, li.id, 10)
	dst = append(dst, `,"uri":"/v1/Invoices/`...)
	dst = strconv.AppendInt(dst, li.id, 10)
	dst = append(dst, `","invoiceNumber":`...)
	dst = strconv.AppendInt(dst, li.number, 10)
	dst = append(dst, `,"invoiceSignature":`...)
	dst = appendJSONString(dst, InvoiceSignature)
	dst = append(dst, `,"poNumber":`...)
	dst = appendOptString(dst, li.po)
	dst = append(dst, `,"effectiveTimestamp":`...)
	dst = appendTimestamp(dst, li.effective)
	dst = append(dst, `,"postedTimestamp":`...)
	dst = appendTimestamp(dst, li.posted)
	dst = append(dst, `,"modifiedTimestamp":`...)
	dst = appendTimestamp(dst, li.modified)

	// The invoice amount is the subtotal plus taxes minus discount, the
	// outstanding balance the sum of the schedules' balances.
	var outstanding amount
	for i := range li.scheduleCount() {
		outstanding = outstanding.plus(li.schedule(i).outstanding)
	}
	dst = append(dst, `,"subtotal":`...)
	dst = li.subtotal.append(dst)
	dst = append(dst, `,"invoiceAmount":`...)
	dst = li.subtotal.plus(li.amounts[recTaxes]).plus(li.amounts[recDiscount].neg()).append(dst)
	dst = append(dst, `,"totalPayments":`...)
	dst = li.amounts[recPayments].append(dst)
	dst = append(dst, `,"unsettled":`...)
	dst = strconv.AppendBool(dst, outstanding.positive())
	dst = append(dst, `,"outstandingBalance":`...)
	dst = outstanding.append(dst)
	dst = append(dst, `,"terms":`...)
	dst = appendJSONString(dst, li.terms)
	dst = append(dst, `,"defaultTerms":"Net30","isDefaultTerms":`...)
	dst = strconv.AppendBool(dst, strings.EqualFold(li.terms, "Net30"))
	dst = append(dst, `,"customerId":`...)
	dst = strconv.AppendInt(dst, li.customerID, 10)
	dst = append(dst, `,"invoiceCustomer":`...)
	dst = cust.appendSnapshot(dst)
	dst = append(dst, `,"sumOfCreditNotes":`...)
	dst = li.amounts[recCreditNotes].append(dst)
	dst = append(dst, `,"totalWriteoffs":`...)
	dst = li.amounts[recWriteoffs].append(dst)
	dst = append(dst, `,"taxes":[],"totalTaxes":`...)
	dst = li.amounts[recTaxes].append(dst)
	dst = append(dst, `,"totalDiscount":`...)
	dst = li.amounts[recDiscount].append(dst)
	dst = append(dst, `,"paymentSchedules":[`...)
	for i := range li.scheduleCount() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendSchedule(dst, li.schedule(i))
	}
	dst = append(dst, `],"notes":`...)
	dst = appendOptString(dst, li.notes)
	dst = append(dst, `,"customerReferenceValue":`...)
	dst = cust.appendReference(dst)
	dst = append(dst, `,"openingArBalance":`...)
	dst = li.amounts[recOpening].append(dst)
	dst = append(dst, `,"closingArBalance":`...)
	dst = li.amounts[recClosing].append(dst)
	dst = append(dst, `,"invoiceInMemoryOnly":false,"invoiceRevisions":[],"isSummarized":false,"rollUpPdf":false,"charges":[]}`...)
	return dst
}

// customerTemplate is the snapshot of a customer that each invoice of the
// list of all invoices carries (renderSnapshot's billing.InvoiceCustomer),
// then the invoice's "invoiceCustomerAddressPreference" member, with a NUL
// where each value of customerValues goes.
const customerTemplate = `{"id":0,"uri":null,"firstName":` + "\x00" + `,"middleName":` + "\x00" +
	`,"lastName":` + "\x00" + `,"companyName":` + "\x00" + `,"suffix":` + "\x00" +
	`,"primaryEmail":` + "\x00" + `,"primaryPhone":` + "\x00" +
	`,"secondaryEmail":null,"secondaryPhone":null,"title":` + "\x00" + `,"reference":` + "\x00" +
	`,"status":` + "\x00" + `,"customerAccountStatus":` + "\x00" + `,"currency":` + "\x00" +
	`,"customerReference":null,"customerAcquisition":null,"monthlyRecurringRevenue":` + "\x00" +
	`,"netMonthlyRecurringRevenue":` + "\x00" + `,"crmId":` + "\x00" +
	`,"crmAccountType":null,"crmSynchStatus":null,"erpId":` + "\x00" +
	`,"erpSynchStatus":null,"erpCustomerType":null,"portalUserName":null,"parentId":` + "\x00" +
	`,"accountingLatchType":null,"accountingId":null,"accountingSyncToken":null,` +
	`"marketingId":null,"marketingCompanyId":null,"telematicsId":null,"modifiedTimestamp":` + "\x00" +
	`,"createdTimestamp":` + "\x00" + `},"invoiceCustomerAddressPreference":` + addressPreferenceJSON

// customerValueCount is the number of values customerValues writes, one
// for each NUL of customerTemplate; the one at referenceValue, the
// customer's reference, is also the invoice's "customerReferenceValue".
const (
	customerValueCount = 19
	referenceValue     = 8
)

// customerValues appends the values of c that customerTemplate leaves
// out, one after the other, and where each ends.
func customerValues(dst []byte, c *seed.Customer) ([]byte, [customerValueCount]uint32) {
	var ends [customerValueCount]uint32
	n := 0
	next := func(b []byte) []byte {
		ends[n] = uint32(len(b))
		n++
		return b
	}
	for _, s := range [...]string{c.FirstName, c.MiddleName, c.LastName, c.CompanyName, c.Suffix,
		c.PrimaryEmail, c.PrimaryPhone, c.Title, c.Reference} {
		dst = next(appendOptString(dst, s))
	}
	dst = next(appendJSONString(dst, string(c.Status)))
	dst = next(appendJSONString(dst, string(c.AccountStatus)))
	dst = next(appendJSONString(dst, cmp.Or(c.Currency, "USD")))
	dst = next(jsonwire.AppendDecimal(dst, c.MonthlyRecurringRevenue))
	dst = next(jsonwire.AppendDecimal(dst, c.NetMRR))
	dst = next(appendOptString(dst, c.CrmID))
	dst = next(appendOptString(dst, c.ErpID))
	if c.ParentID != 0 {
		dst = next(strconv.AppendInt(dst, c.ParentID, 10))
	} else {
		dst = next(append(dst, "null"...))
	}
	dst = next(appendTimestamp(dst, c.ModifiedTimestamp))
	dst = next(appendTimestamp(dst, c.CreatedTimestamp))
	return dst, ends
}

// appendSchedule appends a payment schedule (without Extra members).
func appendSchedule(dst []byte, ps listedSchedule) []byte {
	dst = append(dst, `{"dueDateTimestamp":`...)
	dst = appendTimestamp(dst, ps.due)
	dst = append(dst, `,"status":`...)
	dst = appendJSONString(dst, string(ps.status))
	dst = append(dst, `,"amount":`...)
	dst = ps.amount.append(dst)
	dst = append(dst, `,"outstandingBalance":`...)
	dst = ps.outstanding.append(dst)
	dst = append(dst, `,"daysDueAfterTerm":`...)
	dst = strconv.AppendInt(dst, int64(ps.days), 10)
	return append(dst, '}')
}

// appendTimestamp appends t as billing.NewTimestamp(t) encodes: null for
// the zero time, else the UTC time without offset, its fraction cut to
// 100 ns and trimmed of trailing zeros. The digits are written by hand:
// time.Time.AppendFormat, which reads its layout on every call, was a
// third of the writer's time. Years outside 0-9999, which the layout
// writes differently, are left to AppendFormat.
func appendTimestamp(dst []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(dst, "null"...)
	}
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		dst = append(dst, '"')
		dst = t.AppendFormat(dst, timestampLayout)
		return append(dst, '"')
	}
	hour, minute, sec := t.Clock()
	dst = append(dst, '"',
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10))
	if frac := t.Nanosecond() / 100; frac != 0 {
		digits := [8]byte{'.'}
		for i := 7; i > 0; i-- {
			digits[i] = byte('0' + frac%10)
			frac /= 10
		}
		n := len(digits)
		for digits[n-1] == '0' {
			n--
		}
		dst = append(dst, digits[:n]...)
	}
	return append(dst, '"')
}

// appendOptString appends s as ptr(s) encodes: null for "", else the
// string.
func appendOptString(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, s)
}

// jsonPlain has a '0' for each byte that a JSON string holds as is, with
// the engine's escaping, and a '1' for the others: control characters,
// ", \, <, >, & and every byte of a multi-byte character (which may be
// invalid UTF-8, U+2028 or U+2029). A string, not an array, so that it
// cannot change.
const jsonPlain = "1111111111111111111111111111111100100010000000000000000000001010" +
	"0000000000000000000000000000100000000000000000000000000000000000" +
	"1111111111111111111111111111111111111111111111111111111111111111" +
	"1111111111111111111111111111111111111111111111111111111111111111"

// appendJSONString appends s quoted as the engine quotes a string with
// encoding/json's settings: ", \ and the control characters escaped (\b,
// \f, \n, \r, \t, else \u00XX), <, > and & escaped for HTML, U+2028 and
// U+2029 for JavaScript, and each byte of invalid UTF-8 replaced by U+FFFD.
// Runs of plain bytes, most strings whole, are copied at once.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0 // s[start:i] is still to be copied
	for i := 0; i < len(s); {
		c := s[i]
		if jsonPlain[c] == '0' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, `\b`...)
			case '\f':
				dst = append(dst, `\f`...)
			case '\n':
				dst = append(dst, `\n`...)
			case '\r':
				dst = append(dst, `\r`...)
			case '\t':
				dst = append(dst, `\t`...)
			default: // other control characters, < > &
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, "\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// amount is an exact decimal: coef×10^exp, an int64 coefficient, which
// adds without the big.Int a decimal.Decimal sum allocates, or, when the
// value does not fit one (wide), the decimal d.
type amount struct {
	coef int64
	exp  int32
	wide bool
	d    decimal.Decimal
}

func amountOf(d decimal.Decimal) amount {
	if d.NumDigits() > 18 {
		return amount{wide: true, d: d}
	}
	return amount{coef: d.CoefficientInt64(), exp: d.Exponent()}
}

func (a amount) decimal() decimal.Decimal {
	if a.wide {
		return a.d
	}
	return decimal.New(a.coef, a.exp)
}

// neg is -a. A coefficient of at most 18 digits, as every amount but a
// sum has, negates without overflow.
func (a amount) neg() amount {
	if a.wide {
		return amount{wide: true, d: a.d.Neg()}
	}
	return amount{coef: -a.coef, exp: a.exp}
}

// plus is a+b: in the int64s when the scaling to a common exponent and
// the sum fit, else exactly as decimals, with allocations.
func (a amount) plus(b amount) amount {
	if !a.wide && !b.wide {
		if sum, ok := addFixed(a, b); ok {
			return sum
		}
	}
	return amount{wide: true, d: a.decimal().Add(b.decimal())}
}

func (a amount) positive() bool {
	if a.wide {
		return a.d.IsPositive()
	}
	return a.coef > 0
}

// append writes a as jsonwire writes a decimal: the text depends on the
// value only, not on its exponent.
func (a amount) append(dst []byte) []byte {
	if a.wide {
		return jsonwire.AppendDecimal(dst, a.d)
	}
	return jsonwire.AppendFixed(dst, a.coef, a.exp)
}

// addFixed is f+g for two amounts that are not wide, and false when the
// sum or the scaling to a common exponent overflows an int64.
func addFixed(f, g amount) (amount, bool) {
	switch {
	case g.coef == 0:
		return f, true
	case f.coef == 0:
		return g, true
	}
	if f.exp < g.exp {
		f, g = g, f // scale the one with the larger exponent
	}
	var ok bool
	for ; f.exp > g.exp; f.exp-- {
		if f.coef, ok = times10(f.coef); !ok {
			return amount{}, false
		}
	}
	sum := f.coef + g.coef
	if (sum > f.coef) != (g.coef > 0) {
		return amount{}, false // overflow
	}
	return amount{coef: sum, exp: f.exp}, true
}

// times10 is 10c, and false when that overflows. A coefficient that is
// not 0 overflows after at most 19 steps, which bounds the scaling loops
// whatever the exponents.
func times10(c int64) (int64, bool) {
	if c > math.MaxInt64/10 || c < math.MinInt64/10 {
		return 0, false
	}
	return c * 10, true
}

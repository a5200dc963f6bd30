package billingtest

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// The list of all invoices (GET /v1/Invoices) is the answer an
// integration job reads page after page, every invoice of the account on
// every sweep. Rendering an invoice into billing.Invoice and encoding it
// through the JSON engine costs about 25 µs and a heap of garbage; at a
// million invoices that was most of the fake's CPU and memory. This file
// writes the same bytes directly from the stored invoice and its
// customer, with no reflection and no allocation per invoice (but for
// amounts or sums beyond an int64 coefficient, which are added as
// decimals, as renderInvoice adds them).

// invoiceSignature is every invoice's signature (HTML, as the service
// sends it).
const invoiceSignature = "<p>Thank you for your business.</p>"

// timestampLayout is how billing.Timestamp writes a time: UTC, without
// offset, the fraction trimmed of trailing zeros.
const timestampLayout = "2006-01-02T15:04:05.9999999"

// addressPreferenceJSON is the address preference renderInvoice gives an
// invoice with a customer, which is always the same.
const addressPreferenceJSON = `{"id":0,"uri":null,"contactName":null,"shippingInstructions":null,` +
	`"useBillingAddressAsShippingAddress":true,"billingAddress":null,"shippingAddress":null}`

// appendListInvoiceJSON appends inv as the list of all invoices writes it:
// the bytes of jsonwire.Marshal(flat(st.renderInvoice(inv, chargesEmpty,
// false))), written directly by appendListInvoice, or through the engine
// for the invoices appendListInvoice leaves to it. On error dst is
// returned as it was.
func (st *store) appendListInvoiceJSON(dst []byte, inv *Invoice) ([]byte, error) {
	if b, ok := appendListInvoice(dst, inv, st.customers[inv.CustomerID]); ok {
		return b, nil
	}
	b, err := jsonwire.Marshal(flat(st.renderInvoice(inv, chargesEmpty, false)))
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// appendListInvoice appends inv, whose customer is cust (nil when it has
// none), as a list-all answer writes it: the members of billing.Invoice
// in their order, with the values renderInvoice gives them, then
// "charges":[]; amounts as jsonwire writes decimals, times as
// billing.Timestamp writes them, strings escaped as the engine escapes
// them. It reports false, and returns dst unchanged, for an invoice with
// a payment schedule that has Extra members: the engine reformats their
// raw JSON, which this writer does not reproduce.
func appendListInvoice(dst []byte, inv *Invoice, cust *Customer) ([]byte, bool) {
	for i := range inv.PaymentSchedules {
		if len(inv.PaymentSchedules[i].Extra) > 0 {
			return dst, false
		}
	}
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, inv.ID, 10)
	dst = append(dst, `,"uri":"/v1/Invoices/`...)
	dst = strconv.AppendInt(dst, inv.ID, 10)
	dst = append(dst, `","invoiceNumber":`...)
	dst = strconv.AppendInt(dst, inv.InvoiceNumber, 10)
	dst = append(dst, `,"invoiceSignature":`...)
	dst = appendJSONString(dst, invoiceSignature)
	dst = append(dst, `,"poNumber":`...)
	dst = appendOptString(dst, inv.PoNumber)
	dst = append(dst, `,"effectiveTimestamp":`...)
	dst = appendTimestamp(dst, inv.EffectiveTimestamp)
	dst = append(dst, `,"postedTimestamp":`...)
	dst = appendTimestamp(dst, inv.PostedTimestamp)
	dst = append(dst, `,"modifiedTimestamp":`...)
	dst = appendTimestamp(dst, inv.ModifiedTimestamp)

	subtotal, amount, outstanding := listTotals(inv)
	dst = append(dst, `,"subtotal":`...)
	dst = subtotal.append(dst)
	dst = append(dst, `,"invoiceAmount":`...)
	dst = amount.append(dst)
	dst = append(dst, `,"totalPayments":`...)
	dst = jsonwire.AppendDecimal(dst, inv.TotalPayments)
	dst = append(dst, `,"unsettled":`...)
	dst = strconv.AppendBool(dst, outstanding.positive())
	dst = append(dst, `,"outstandingBalance":`...)
	dst = outstanding.append(dst)
	dst = append(dst, `,"terms":`...)
	dst = appendJSONString(dst, inv.Terms)
	dst = append(dst, `,"defaultTerms":"Net30","isDefaultTerms":`...)
	dst = strconv.AppendBool(dst, strings.EqualFold(inv.Terms, "Net30"))
	dst = append(dst, `,"customerId":`...)
	dst = strconv.AppendInt(dst, inv.CustomerID, 10)
	dst = append(dst, `,"invoiceCustomer":`...)
	if cust != nil {
		dst = appendInvoiceCustomer(dst, cust)
		dst = append(dst, `,"invoiceCustomerAddressPreference":`+addressPreferenceJSON...)
	} else {
		dst = append(dst, `null,"invoiceCustomerAddressPreference":null`...)
	}
	dst = append(dst, `,"sumOfCreditNotes":`...)
	dst = jsonwire.AppendDecimal(dst, inv.SumOfCreditNotes)
	dst = append(dst, `,"totalWriteoffs":`...)
	dst = jsonwire.AppendDecimal(dst, inv.TotalWriteoffs)
	dst = append(dst, `,"taxes":[],"totalTaxes":`...)
	dst = jsonwire.AppendDecimal(dst, inv.TotalTaxes)
	dst = append(dst, `,"totalDiscount":`...)
	dst = jsonwire.AppendDecimal(dst, inv.TotalDiscount)
	dst = append(dst, `,"paymentSchedules":[`...)
	for i := range inv.PaymentSchedules {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendSchedule(dst, &inv.PaymentSchedules[i])
	}
	dst = append(dst, `],"notes":`...)
	dst = appendOptString(dst, inv.Notes)
	dst = append(dst, `,"customerReferenceValue":`...)
	if cust != nil {
		dst = appendOptString(dst, cust.Reference)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"openingArBalance":`...)
	dst = jsonwire.AppendDecimal(dst, inv.OpeningArBalance)
	dst = append(dst, `,"closingArBalance":`...)
	dst = jsonwire.AppendDecimal(dst, inv.ClosingArBalance)
	dst = append(dst, `,"invoiceInMemoryOnly":false,"invoiceRevisions":[],"isSummarized":false,"rollUpPdf":false,"charges":[]}`...)
	return dst, true
}

// appendInvoiceCustomer appends the customer's snapshot, renderSnapshot's
// billing.InvoiceCustomer.
func appendInvoiceCustomer(dst []byte, c *Customer) []byte {
	dst = append(dst, `{"id":0,"uri":null,"firstName":`...)
	dst = appendOptString(dst, c.FirstName)
	dst = append(dst, `,"middleName":`...)
	dst = appendOptString(dst, c.MiddleName)
	dst = append(dst, `,"lastName":`...)
	dst = appendOptString(dst, c.LastName)
	dst = append(dst, `,"companyName":`...)
	dst = appendOptString(dst, c.CompanyName)
	dst = append(dst, `,"suffix":`...)
	dst = appendOptString(dst, c.Suffix)
	dst = append(dst, `,"primaryEmail":`...)
	dst = appendOptString(dst, c.PrimaryEmail)
	dst = append(dst, `,"primaryPhone":`...)
	dst = appendOptString(dst, c.PrimaryPhone)
	dst = append(dst, `,"secondaryEmail":null,"secondaryPhone":null,"title":`...)
	dst = appendOptString(dst, c.Title)
	dst = append(dst, `,"reference":`...)
	dst = appendOptString(dst, c.Reference)
	dst = append(dst, `,"status":`...)
	dst = appendJSONString(dst, string(c.Status))
	dst = append(dst, `,"customerAccountStatus":`...)
	dst = appendJSONString(dst, string(c.AccountStatus))
	dst = append(dst, `,"currency":`...)
	if c.Currency == "" {
		dst = append(dst, `"USD"`...)
	} else {
		dst = appendJSONString(dst, c.Currency)
	}
	dst = append(dst, `,"customerReference":null,"customerAcquisition":null,"monthlyRecurringRevenue":`...)
	dst = jsonwire.AppendDecimal(dst, c.MonthlyRecurringRevenue)
	dst = append(dst, `,"netMonthlyRecurringRevenue":`...)
	dst = jsonwire.AppendDecimal(dst, c.NetMRR)
	dst = append(dst, `,"crmId":`...)
	dst = appendOptString(dst, c.CrmID)
	dst = append(dst, `,"crmAccountType":null,"crmSynchStatus":null,"erpId":`...)
	dst = appendOptString(dst, c.ErpID)
	dst = append(dst, `,"erpSynchStatus":null,"erpCustomerType":null,"portalUserName":null,"parentId":`...)
	if c.ParentID != 0 {
		dst = strconv.AppendInt(dst, c.ParentID, 10)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"accountingLatchType":null,"accountingId":null,"accountingSyncToken":null,`+
		`"marketingId":null,"marketingCompanyId":null,"telematicsId":null,"modifiedTimestamp":`...)
	dst = appendTimestamp(dst, c.ModifiedTimestamp)
	dst = append(dst, `,"createdTimestamp":`...)
	dst = appendTimestamp(dst, c.CreatedTimestamp)
	return append(dst, '}')
}

// appendSchedule appends a payment schedule without Extra members.
func appendSchedule(dst []byte, ps *billing.PaymentSchedule) []byte {
	dst = append(dst, `{"dueDateTimestamp":`...)
	dst = appendTimestamp(dst, ps.DueDateTimestamp.Time)
	dst = append(dst, `,"status":`...)
	dst = appendJSONString(dst, string(ps.Status))
	dst = append(dst, `,"amount":`...)
	dst = jsonwire.AppendDecimal(dst, ps.Amount)
	dst = append(dst, `,"outstandingBalance":`...)
	dst = jsonwire.AppendDecimal(dst, ps.OutstandingBalance)
	dst = append(dst, `,"daysDueAfterTerm":`...)
	dst = strconv.AppendInt(dst, int64(ps.DaysDueAfterTerm), 10)
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

// appendOptString appends s as strPtr(s) encodes: null for "", else the
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

// listTotals are the invoice's subtotal (the sum of its charges), amount
// (subtotal plus taxes minus discount) and outstanding balance (the sum of
// its schedules' balances), as renderInvoice computes them.
func listTotals(inv *Invoice) (subtotal, amount, outstanding listAmount) {
	sub, subOK := fixed{}, true
	for i := range inv.Charges {
		sub, subOK = sub.plus(inv.Charges[i].Amount, subOK)
	}
	amt, amtOK := sub.plus(inv.TotalTaxes, subOK)
	amt, amtOK = amt.minus(inv.TotalDiscount, amtOK)
	out, outOK := fixed{}, true
	for i := range inv.PaymentSchedules {
		out, outOK = out.plus(inv.PaymentSchedules[i].OutstandingBalance, outOK)
	}
	subtotal, amount, outstanding = listAmount{fixed: sub}, listAmount{fixed: amt}, listAmount{fixed: out}
	// A sum that left the int64s is added again as decimals, exactly and
	// with allocations, as renderInvoice does.
	if !subOK {
		subtotal = listAmount{exact: sumCharges(inv), big: true}
	}
	if !amtOK {
		amount = listAmount{exact: invoiceAmount(inv), big: true}
	}
	if !outOK {
		outstanding = listAmount{exact: outstandingBalance(inv), big: true}
	}
	return subtotal, amount, outstanding
}

// listAmount is a total: an int64 fixed-point number, or a decimal when it
// does not fit one (big).
type listAmount struct {
	fixed fixed
	exact decimal.Decimal
	big   bool
}

func (a listAmount) append(dst []byte) []byte {
	if a.big {
		return jsonwire.AppendDecimal(dst, a.exact)
	}
	return jsonwire.AppendFixed(dst, a.fixed.coef, a.fixed.exp)
}

func (a listAmount) positive() bool {
	if a.big {
		return a.exact.IsPositive()
	}
	return a.fixed.coef > 0
}

// fixed is coef×10^exp: an exact decimal whose coefficient fits an int64,
// which adds without the big.Int a decimal.Decimal sum allocates.
type fixed struct {
	coef int64
	exp  int32
}

// plus is f+d, and whether it fits; ok false (an earlier sum did not fit)
// stays false.
func (f fixed) plus(d decimal.Decimal, ok bool) (fixed, bool) {
	if !ok || d.NumDigits() > 18 {
		return fixed{}, false
	}
	return f.add(fixed{coef: d.CoefficientInt64(), exp: d.Exponent()})
}

// minus is f-d, and whether it fits; ok false stays false.
func (f fixed) minus(d decimal.Decimal, ok bool) (fixed, bool) {
	if !ok || d.NumDigits() > 18 {
		return fixed{}, false
	}
	// d has at most 18 digits, so its negation fits.
	return f.add(fixed{coef: -d.CoefficientInt64(), exp: d.Exponent()})
}

// add is f+g, and false when the sum or the scaling to a common exponent
// overflows an int64.
func (f fixed) add(g fixed) (fixed, bool) {
	switch {
	case g.coef == 0:
		return f, true
	case f.coef == 0:
		return g, true
	}
	var ok bool
	for f.exp > g.exp {
		if f.coef, ok = times10(f.coef); !ok {
			return fixed{}, false
		}
		f.exp--
	}
	for g.exp > f.exp {
		if g.coef, ok = times10(g.coef); !ok {
			return fixed{}, false
		}
		g.exp--
	}
	sum := f.coef + g.coef
	if (sum > f.coef) != (g.coef > 0) {
		return fixed{}, false // overflow
	}
	return fixed{coef: sum, exp: f.exp}, true
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

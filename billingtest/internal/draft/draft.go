// Package draft lays out a draft invoice as the document of its PDF
// (section 4.5 of the reference), which package pdf renders.
package draft

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/billingapi/billing-go/billingtest/internal/pdf"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/shopspring/decimal"
)

// Document lays out a draft invoice: title, customer, one line per
// draft line, total. The total is the whole draft's: tracked lines are
// part of the invoice whether or not their details are shown, as the
// invoice reads' subtotal counts tracked charges too.
func Document(d *seed.DraftInvoice, cust *seed.Customer, showTracked bool) (pdf.Meta, []pdf.Line) {
	title := fmt.Sprintf("Draft invoice %d", d.ID)
	body := func(format string, args ...any) pdf.Line {
		return pdf.Line{Text: fmt.Sprintf(format, args...), Size: pdf.BodySize}
	}
	blank := pdf.Line{Size: pdf.BodySize}
	lines := []pdf.Line{{Text: title, Size: pdf.TitleSize}, blank}

	currency := "USD"
	if cust != nil {
		name := cmp.Or(strings.TrimSpace(cust.FirstName+" "+cust.LastName), cust.CompanyName)
		lines = append(lines, body("Customer: %s", name))
		if cust.CompanyName != "" && cust.CompanyName != name {
			lines = append(lines, body("Company: %s", cust.CompanyName))
		}
		currency = cmp.Or(cust.Currency, currency)
	}
	lines = append(lines, body("Customer id: %d", d.CustomerID))
	if !d.Created.IsZero() {
		lines = append(lines, body("Date: %s", d.Created.UTC().Format("2006-01-02")))
	}
	lines = append(lines, blank, body("Description / Quantity / Amount"))

	total := decimal.Zero
	for _, l := range d.Lines {
		total = total.Add(l.Amount)
		if l.Tracked && !showTracked {
			continue
		}
		text := fmt.Sprintf("%s   Qty %s   %s", l.Description, l.Quantity.String(), Money(l.Amount))
		if l.Tracked {
			text += "   (tracked item)"
		}
		lines = append(lines, body("%s", text))
	}
	lines = append(lines, blank, body("Total: %s %s", Money(total), currency))
	return pdf.Meta{Title: title, Created: d.Created}, lines
}

// Money prints an amount with at least two decimals and every decimal it
// has: 10 as 10.00, 10.125 as 10.125, never rounded.
func Money(d decimal.Decimal) string {
	places := int32(2)
	for places < -d.Exponent() && !d.Round(places).Equal(d) {
		places++
	}
	return d.StringFixed(places)
}

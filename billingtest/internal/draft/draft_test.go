package draft

import (
	"slices"
	"testing"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/pdf"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/shopspring/decimal"
)

func TestMoney(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"10": "10.00", "10.5": "10.50", "10.125": "10.125", "10.1250": "10.125", "-0.001": "-0.001",
		"0": "0.00", "1234567.891011": "1234567.891011",
	} {
		if got := Money(decimal.RequireFromString(in)); got != want {
			t.Errorf("Money(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestDocument lays out one draft with a tracked line, shown and hidden,
// and without its customer: the total always counts the tracked line.
func TestDocument(t *testing.T) {
	t.Parallel()
	created := time.Date(2024, 3, 5, 23, 30, 0, 0, time.FixedZone("x", -3*3600)) // the 6th in UTC
	d := &seed.DraftInvoice{ID: 9, CustomerID: 3, Created: created, Lines: []seed.DraftLine{
		{Description: "Plan", Quantity: decimal.New(2, 0), Amount: decimal.RequireFromString("20")},
		{Description: "Router", Quantity: decimal.New(1, 0), Amount: decimal.RequireFromString("5.125"), Tracked: true},
	}}
	cust := &seed.Customer{FirstName: "Ada", LastName: "Lovelace", CompanyName: "Engines Ltd", Currency: "EUR"}
	body := func(text string) pdf.Line { return pdf.Line{Text: text, Size: pdf.BodySize} }
	blank := pdf.Line{Size: pdf.BodySize}
	head := []pdf.Line{{Text: "Draft invoice 9", Size: pdf.TitleSize}, blank}
	tests := []struct {
		name        string
		cust        *seed.Customer
		showTracked bool
		want        []pdf.Line
	}{
		{"tracked shown", cust, true, slices.Concat(head, []pdf.Line{
			body("Customer: Ada Lovelace"), body("Company: Engines Ltd"), body("Customer id: 3"), body("Date: 2024-03-06"),
			blank, body("Description / Quantity / Amount"),
			body("Plan   Qty 2   20.00"), body("Router   Qty 1   5.125   (tracked item)"),
			blank, body("Total: 25.125 EUR")})},
		{"tracked hidden, counted", cust, false, slices.Concat(head, []pdf.Line{
			body("Customer: Ada Lovelace"), body("Company: Engines Ltd"), body("Customer id: 3"), body("Date: 2024-03-06"),
			blank, body("Description / Quantity / Amount"),
			body("Plan   Qty 2   20.00"),
			blank, body("Total: 25.125 EUR")})},
		{"a company's name only", &seed.Customer{CompanyName: "Engines Ltd"}, false, slices.Concat(head, []pdf.Line{
			body("Customer: Engines Ltd"), body("Customer id: 3"), body("Date: 2024-03-06"),
			blank, body("Description / Quantity / Amount"),
			body("Plan   Qty 2   20.00"),
			blank, body("Total: 25.125 USD")})},
		{"no customer", nil, false, slices.Concat(head, []pdf.Line{
			body("Customer id: 3"), body("Date: 2024-03-06"),
			blank, body("Description / Quantity / Amount"),
			body("Plan   Qty 2   20.00"),
			blank, body("Total: 25.125 USD")})},
	}
	for _, tc := range tests {
		meta, lines := Document(d, tc.cust, tc.showTracked)
		if meta != (pdf.Meta{Title: "Draft invoice 9", Created: created}) {
			t.Errorf("%s: meta = %+v", tc.name, meta)
		}
		if !slices.Equal(lines, tc.want) {
			t.Errorf("%s: lines\n got %+v\nwant %+v", tc.name, lines, tc.want)
		}
	}
}

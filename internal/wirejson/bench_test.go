package wirejson

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

type benchAddress struct {
	Line1      string `json:"line1"`
	Line2      string `json:"line2,omitempty"`
	City       string `json:"city"`
	PostalCode string `json:"postal_code"`
	Country    string `json:"country"`
}

type benchLine struct {
	ID          string           `json:"id"`
	Description string           `json:"description"`
	Quantity    int64            `json:"quantity"`
	UnitAmount  decimal.Decimal  `json:"unit_amount"`
	Amount      decimal.Decimal  `json:"amount"`
	TaxRate     float64          `json:"tax_rate"`
	Taxable     bool             `json:"taxable"`
	Discount    *decimal.Decimal `json:"discount,omitempty"`
	PeriodStart int64            `json:"period_start"`
	PeriodEnd   int64            `json:"period_end"`
	ProductCode string           `json:"product_code,omitempty"`
}

// benchInvoice is a typical API object: 30 fields and 20 line items.
type benchInvoice struct {
	ID              string            `json:"id"`
	Object          string            `json:"object"`
	Number          string            `json:"number"`
	Customer        string            `json:"customer"`
	CustomerEmail   string            `json:"customer_email"`
	CustomerName    string            `json:"customer_name"`
	Currency        string            `json:"currency"`
	Status          string            `json:"status"`
	Description     string            `json:"description,omitempty"`
	Subtotal        decimal.Decimal   `json:"subtotal"`
	Tax             decimal.Decimal   `json:"tax"`
	Total           decimal.Decimal   `json:"total"`
	AmountDue       decimal.Decimal   `json:"amount_due"`
	AmountPaid      decimal.Decimal   `json:"amount_paid"`
	AmountRemaining decimal.Decimal   `json:"amount_remaining"`
	Discount        *decimal.Decimal  `json:"discount,omitempty"`
	AttemptCount    int               `json:"attempt_count"`
	Attempted       bool              `json:"attempted"`
	Paid            bool              `json:"paid"`
	Livemode        bool              `json:"livemode"`
	Created         int64             `json:"created"`
	DueDate         *int64            `json:"due_date"`
	PeriodStart     int64             `json:"period_start"`
	PeriodEnd       int64             `json:"period_end"`
	Finalized       time.Time         `json:"finalized_at"`
	BillingAddress  benchAddress      `json:"billing_address"`
	ShippingAddress *benchAddress     `json:"shipping_address,omitempty"`
	Metadata        map[string]string `json:"metadata"`
	Footer          string            `json:"footer,omitempty"`
	Lines           []benchLine       `json:"lines"`
}

func newBenchInvoice() *benchInvoice {
	due := int64(1735689600)
	inv := &benchInvoice{
		ID: "in_1NqKk2LkdIwHu7ix", Object: "invoice", Number: "A1B2C3-0042",
		Customer: "cus_9s6XKzkNRiz8i3", CustomerEmail: "billing@example.com", CustomerName: "Example & Sons <Ltd>",
		Currency: "eur", Status: "open", Description: "Monthly subscription — October",
		Subtotal: decimal.RequireFromString("1234.50"), Tax: decimal.RequireFromString("234.5550"),
		Total: decimal.RequireFromString("1469.055"), AmountDue: decimal.RequireFromString("1469.06"),
		AmountPaid: decimal.Zero, AmountRemaining: decimal.RequireFromString("1469.06"),
		AttemptCount: 1, Attempted: true, Created: 1727740800, DueDate: &due,
		PeriodStart: 1727740800, PeriodEnd: 1730419200,
		Finalized:      time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC),
		BillingAddress: benchAddress{"1 Main St", "", "Berlin", "10115", "DE"},
		Metadata:       map[string]string{"order_id": "6735", "channel": "web"},
	}
	for i := range 20 {
		inv.Lines = append(inv.Lines, benchLine{
			ID: fmt.Sprintf("il_%08d", i), Description: "Seat license (Pro plan)", Quantity: int64(i + 1),
			UnitAmount: decimal.New(6172, -2), Amount: decimal.New(6172*int64(i+1), -2), TaxRate: 0.19, Taxable: true,
			PeriodStart: 1727740800, PeriodEnd: 1730419200,
		})
	}
	return inv
}

// BenchmarkMarshal compares Marshal with encoding/json on the same invoice
// (encoding/json writes the decimals quoted, through their MarshalJSON).
func BenchmarkMarshal(b *testing.B) {
	inv := newBenchInvoice()
	size := func(b *testing.B, out []byte) { b.SetBytes(int64(len(out))) }

	b.Run("wirejson", func(b *testing.B) {
		b.ReportAllocs()
		out, _ := Marshal(inv)
		size(b, out)
		for b.Loop() {
			if _, err := Marshal(inv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("wirejson_append_reused", func(b *testing.B) {
		b.ReportAllocs()
		buf, _ := Append(nil, inv)
		size(b, buf)
		for b.Loop() {
			var err error
			if buf, err = Append(buf[:0], inv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		out, _ := json.Marshal(inv)
		size(b, out)
		for b.Loop() {
			if _, err := json.Marshal(inv); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMarshalNoDecimals is the like-for-like comparison: identical
// output from both encoders, so only the encoding machinery differs.
func BenchmarkMarshalNoDecimals(b *testing.B) {
	type plainLine struct {
		ID          string  `json:"id"`
		Description string  `json:"description"`
		Quantity    int64   `json:"quantity"`
		UnitAmount  float64 `json:"unit_amount"`
		Taxable     bool    `json:"taxable"`
		PeriodEnd   int64   `json:"period_end,omitempty"`
	}
	v := struct {
		Address  benchAddress      `json:"address"`
		Metadata map[string]string `json:"metadata"`
		Lines    []plainLine       `json:"lines"`
	}{benchAddress{"1 Main St", "", "Berlin", "10115", "DE"}, map[string]string{"a": "b"}, nil}
	for i := range 20 {
		v.Lines = append(v.Lines, plainLine{fmt.Sprintf("il_%08d", i), "Seat <Pro>", int64(i), 61.72, true, 1730419200})
	}
	b.Run("wirejson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

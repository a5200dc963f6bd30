package query_test

import (
	"fmt"
	"net/url"
	"time"

	"github.com/billingapi/billing-go/query"
	"github.com/shopspring/decimal"
)

func Example() {
	e := query.Expr{
		query.CondEquals("customerId", "42"),
		query.CondStartsWith("erpId", "ABC;x"), // the ';' is data, not a separator
		query.CondIn("Customer.Status", "Active", "Draft"),
		query.CondIsEmpty("crmId"),
	}
	fmt.Println(e)

	v := url.Values{}
	v.Set("query", e.String())
	if err := (query.Sort{Field: "erpId", Order: query.Descending}).EncodeValues("", &v); err != nil {
		panic(err)
	}
	fmt.Println(v.Encode())
	// Output:
	// customerId:42;erpId:ABC%3Bx*;Customer.Status:Active,Draft;crmId:[empty]
	// query=customerId%3A42%3BerpId%3AABC%253Bx%2A%3BCustomer.Status%3AActive%2CDraft%3BcrmId%3A%5Bempty%5D&sortExpression=erpId&sortOrder=Descending
}

func ExampleBuild() {
	type CustomerStatus string
	type InvoiceFilter struct {
		CustomerID       query.Ints         `query:"customerId"`
		PostedTimestamp  query.TimeRange    `query:"postedTimestamp"`
		ErpID            query.Text         `query:"erpId"`
		ClosingArBalance query.DecimalRange `query:"closingArBalance"`
		Status           []CustomerStatus   `query:"Customer.Status"`
		Raw              string             `query:",raw"`
	}
	e, err := query.Build(InvoiceFilter{
		CustomerID: query.Ints{42},
		PostedTimestamp: query.TimeRange{
			From:     time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
			To:       time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC),
			DateOnly: true,
		},
		ErpID:            query.StartsWith("ABC"),
		ClosingArBalance: query.AtLeast(decimal.RequireFromString("-10.50")),
		Status:           []CustomerStatus{"Active", "Draft"},
		Raw:              "crmId:[empty]",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(e)
	// Output:
	// customerId:42;postedTimestamp:2024-01-01|2024-02-01;erpId:ABC*;closingArBalance:-10.5|;Customer.Status:Active,Draft;crmId:[empty]
}

func ExampleParse() {
	e, err := query.Parse("erpId:*A%2CB*;Customer.Status:Active,Draft;postedTimestamp:|2024-01-01T10:00:00")
	if err != nil {
		panic(err)
	}
	for _, c := range e {
		switch c.Kind {
		case query.Match:
			fmt.Printf("%s %v %q\n", c.Name, c.Kind, c.Pattern)
		case query.Set:
			fmt.Printf("%s %v %q\n", c.Name, c.Kind, c.Values)
		case query.Range:
			fmt.Printf("%s %v [%q, %q)\n", c.Name, c.Kind, c.Lower, c.Upper)
		}
	}

	_, err = query.Parse("a:b|c|d")
	fmt.Println(err)
	// Output:
	// erpId Match ["" "A,B" ""]
	// Customer.Status Set ["Active" "Draft"]
	// postedTimestamp Range ["", "2024-01-01T10:00:00")
	// query: syntax error at offset 5 in "a:b|c|d": more than one '|' in a range
}

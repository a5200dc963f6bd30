package benchmarks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// This file holds the floors the SDK is compared with: what a careful
// hand-written client would do without the SDK.

// floorPage is one page as the hand-written client returns it: the items
// and the nine X-* paging headers, read with strconv.
type floorPage struct {
	Items                           []billing.Invoice
	Count, MaxCount                 int
	CurrentPage, NextPage, PrevPage int
	PageSize, MaxPageIndex          int
	SortOrder, SortExpression       string
}

// floorClient is the hand-written client of benchmark (a): net/http and
// encoding/json, decoding into the SDK's own structs, so that the only
// difference from the SDK is the SDK's machinery (request building,
// retries, the streaming decoder, paging and rate-limit headers), not the
// cost of exact decimals and parsed timestamps, which both pay.
type floorClient struct {
	hc        *http.Client
	baseURL   string
	auth      string // "Basic <key>"
	userAgent string
}

// listByCustomer is GET /v1/Customers/{id}/Invoices/ with the same query,
// headers and decoding target as the SDK's ListByCustomer.
func (f *floorClient) listByCustomer(ctx context.Context, customerID int64, pageNumber, pageSize int) (*floorPage, error) {
	u := f.baseURL + "/v1/Customers/" + strconv.FormatInt(customerID, 10) + "/Invoices/?pageNumber=" +
		strconv.Itoa(pageNumber) + "&pageSize=" + strconv.Itoa(pageSize)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", f.auth)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", f.userAgent)
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	p := &floorPage{}
	if err := json.NewDecoder(resp.Body).Decode(&p.Items); err != nil {
		return nil, err
	}
	h := resp.Header
	for _, hv := range []struct {
		name string
		dst  *int
	}{
		{"X-Count", &p.Count}, {"X-MaxCount", &p.MaxCount}, {"X-CurrentPage", &p.CurrentPage},
		{"X-NextPage", &p.NextPage}, {"X-PreviousPage", &p.PrevPage}, {"X-PageSize", &p.PageSize},
		{"X-MaxPageIndex", &p.MaxPageIndex},
	} {
		n, err := strconv.Atoi(h.Get(hv.name))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", hv.name, err)
		}
		*hv.dst = n
	}
	p.SortOrder = h.Get("X-SortOrder")
	p.SortExpression = h.Get("X-SortExpression")
	return p, nil
}

// The float floor of benchmark (b): plain structs of the same shape as
// billing.Invoice and everything it holds, as a hand-written client that
// does not care about exact money would declare them: float64 for amounts,
// string for timestamps and enums. Raw JSON fields stay json.RawMessage,
// as in the SDK, so that both decode exactly the same document into the
// same number of fields.

type floatInvoice struct {
	ID                               int64                   `json:"id"`
	URI                              *string                 `json:"uri"`
	InvoiceNumber                    int64                   `json:"invoiceNumber"`
	InvoiceSignature                 string                  `json:"invoiceSignature"`
	PoNumber                         *string                 `json:"poNumber"`
	EffectiveTimestamp               string                  `json:"effectiveTimestamp"`
	PostedTimestamp                  string                  `json:"postedTimestamp"`
	ModifiedTimestamp                string                  `json:"modifiedTimestamp"`
	Charges                          []floatCharge           `json:"charges,omitempty"`
	ChargeGroups                     []floatChargeGroup      `json:"chargeGroups,omitempty"`
	Subtotal                         float64                 `json:"subtotal"`
	InvoiceAmount                    float64                 `json:"invoiceAmount"`
	TotalPayments                    float64                 `json:"totalPayments"`
	Unsettled                        bool                    `json:"unsettled"`
	OutstandingBalance               float64                 `json:"outstandingBalance"`
	Terms                            string                  `json:"terms"`
	DefaultTerms                     string                  `json:"defaultTerms"`
	IsDefaultTerms                   bool                    `json:"isDefaultTerms"`
	CustomerID                       int64                   `json:"customerId"`
	InvoiceCustomer                  *floatInvoiceCustomer   `json:"invoiceCustomer"`
	InvoiceCustomerAddressPreference *floatAddressPreference `json:"invoiceCustomerAddressPreference"`
	SumOfCreditNotes                 float64                 `json:"sumOfCreditNotes"`
	TotalWriteoffs                   float64                 `json:"totalWriteoffs"`
	Taxes                            json.RawMessage         `json:"taxes,omitempty"`
	TotalTaxes                       float64                 `json:"totalTaxes"`
	TotalDiscount                    float64                 `json:"totalDiscount"`
	PaymentSchedules                 []floatPaymentSchedule  `json:"paymentSchedules"`
	Notes                            *string                 `json:"notes"`
	CustomerReferenceValue           *string                 `json:"customerReferenceValue"`
	OpeningArBalance                 float64                 `json:"openingArBalance"`
	ClosingArBalance                 float64                 `json:"closingArBalance"`
	InvoiceInMemoryOnly              bool                    `json:"invoiceInMemoryOnly"`
	InvoiceRevisions                 json.RawMessage         `json:"invoiceRevisions,omitempty"`
	IsSummarized                     bool                    `json:"isSummarized"`
	RollUpPdf                        bool                    `json:"rollUpPdf"`
	CrmID                            *string                 `json:"crmId,omitempty"`
}

type floatChargeGroup struct {
	Name           string        `json:"name"`
	Description    *string       `json:"description"`
	Reference      *string       `json:"reference"`
	SubscriptionID *int64        `json:"subscriptionId,omitempty"`
	Charges        []floatCharge `json:"charges"`
}

type floatCharge struct {
	ID                  int64             `json:"id"`
	URI                 *string           `json:"uri"`
	Quantity            float64           `json:"quantity"`
	UnitPrice           float64           `json:"unitPrice"`
	Amount              float64           `json:"amount"`
	Name                string            `json:"name"`
	Description         *string           `json:"description"`
	GLCode              string            `json:"glCode"`
	EffectiveTimestamp  string            `json:"effectiveTimestamp"`
	ProratedUnitPrice   *float64          `json:"proratedUnitPrice"`
	StartServiceDate    string            `json:"startServiceDate"`
	EndServiceDate      string            `json:"endServiceDate"`
	RangeQuantity       *float64          `json:"rangeQuantity"`
	IsReversable        bool              `json:"isReversable"`
	Discount            json.RawMessage   `json:"discount,omitempty"`
	Discounts           json.RawMessage   `json:"discounts,omitempty"`
	SubscriptionProduct *floatResourceRef `json:"subscriptionProduct"`
	Purchase            json.RawMessage   `json:"purchase,omitempty"`
	ChargeTiers         []floatChargeTier `json:"chargeTiers"`
	ErpChargeItem       *string           `json:"erpChargeItem"`
	ErpLocationID       json.RawMessage   `json:"erpLocationId,omitempty"`
}

type floatResourceRef struct {
	ID  int64   `json:"id"`
	URI *string `json:"uri"`
}

type floatChargeTier struct {
	Label     string  `json:"label"`
	Quantity  float64 `json:"quantity"`
	UnitPrice float64 `json:"unitPrice"`
	Amount    float64 `json:"amount"`
}

type floatInvoiceCustomer struct {
	ID                         int64           `json:"id"`
	URI                        *string         `json:"uri"`
	FirstName                  *string         `json:"firstName"`
	MiddleName                 *string         `json:"middleName"`
	LastName                   *string         `json:"lastName"`
	CompanyName                *string         `json:"companyName"`
	Suffix                     *string         `json:"suffix"`
	PrimaryEmail               *string         `json:"primaryEmail"`
	PrimaryPhone               *string         `json:"primaryPhone"`
	SecondaryEmail             *string         `json:"secondaryEmail"`
	SecondaryPhone             *string         `json:"secondaryPhone"`
	Title                      *string         `json:"title"`
	Reference                  *string         `json:"reference"`
	Status                     string          `json:"status"`
	CustomerAccountStatus      string          `json:"customerAccountStatus"`
	Currency                   *string         `json:"currency"`
	CustomerReference          json.RawMessage `json:"customerReference,omitempty"`
	CustomerAcquisition        json.RawMessage `json:"customerAcquisition,omitempty"`
	MonthlyRecurringRevenue    float64         `json:"monthlyRecurringRevenue"`
	NetMonthlyRecurringRevenue float64         `json:"netMonthlyRecurringRevenue"`
	CrmID                      *string         `json:"crmId"`
	CrmAccountType             *string         `json:"crmAccountType"`
	CrmSynchStatus             *string         `json:"crmSynchStatus"`
	ErpID                      *string         `json:"erpId"`
	ErpSynchStatus             *string         `json:"erpSynchStatus"`
	ErpCustomerType            *string         `json:"erpCustomerType"`
	PortalUserName             *string         `json:"portalUserName"`
	ParentID                   *int64          `json:"parentId"`
	AccountingLatchType        *string         `json:"accountingLatchType"`
	AccountingID               *string         `json:"accountingId"`
	AccountingSyncToken        *string         `json:"accountingSyncToken"`
	MarketingID                *string         `json:"marketingId"`
	MarketingCompanyID         *string         `json:"marketingCompanyId"`
	TelematicsID               *string         `json:"telematicsId"`
	ModifiedTimestamp          string          `json:"modifiedTimestamp"`
	CreatedTimestamp           string          `json:"createdTimestamp"`
}

type floatAddressPreference struct {
	ID                                 int64         `json:"id"`
	URI                                *string       `json:"uri"`
	ContactName                        *string       `json:"contactName"`
	ShippingInstructions               *string       `json:"shippingInstructions"`
	UseBillingAddressAsShippingAddress bool          `json:"useBillingAddressAsShippingAddress"`
	BillingAddress                     *floatAddress `json:"billingAddress"`
	ShippingAddress                    *floatAddress `json:"shippingAddress"`
}

type floatAddress struct {
	ID                          int64   `json:"id"`
	URI                         *string `json:"uri"`
	CustomerAddressPreferenceID int64   `json:"customerAddressPreferenceId"`
	CompanyName                 *string `json:"companyName"`
	Line1                       *string `json:"line1"`
	Line2                       *string `json:"line2"`
	CountryID                   int64   `json:"countryId"`
	Country                     *string `json:"country"`
	StateID                     *int64  `json:"stateId"`
	State                       *string `json:"state"`
	City                        *string `json:"city"`
	PostalZip                   *string `json:"postalZip"`
	AddressType                 *string `json:"addressType"`
	Valid                       bool    `json:"valid"`
}

type floatPaymentSchedule struct {
	DueDateTimestamp   string  `json:"dueDateTimestamp"`
	Status             string  `json:"status"`
	Amount             float64 `json:"amount"`
	OutstandingBalance float64 `json:"outstandingBalance"`
	DaysDueAfterTerm   int     `json:"daysDueAfterTerm"`
}

// TestFloorMatchesSDK checks that benchmark (a) compares like with like:
// over the same server, the hand-written client and the SDK return the
// same invoices and the same paging figures.
func TestFloorMatchesSDK(t *testing.T) {
	bd := answerBodies(t)
	ts, hc := listServer(t, bd)
	ctx := context.Background()
	c, err := billing.NewClient(billingtest.DefaultAPIKey, billing.WithBaseURL(ts.URL), billing.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	sdk, err := c.Invoices.ListByCustomer(ctx, bd.listCustomer, &billing.ListCustomerInvoicesParams{ListOptions: billing.ListOptions{PageSize: listItems}})
	if err != nil {
		t.Fatal(err)
	}
	floor, err := newFloorClient(ts.URL, hc).listByCustomer(ctx, bd.listCustomer, 0, listItems)
	if err != nil {
		t.Fatal(err)
	}
	// Compared on the wire: the SDK reads the amount 0 as the zero
	// Decimal, encoding/json as a Decimal holding a big.Int 0, which are
	// the same number but not reflect.DeepEqual.
	sdkJSON, err1 := jsonwire.Marshal(sdk.Items)
	floorJSON, err2 := jsonwire.Marshal(floor.Items)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if len(sdk.Items) != listItems || !bytes.Equal(sdkJSON, floorJSON) {
		t.Errorf("the SDK and the floor decoded different invoices (%d and %d)", len(sdk.Items), len(floor.Items))
	}
	charges := 0
	for _, inv := range floor.Items {
		charges += len(inv.Charges)
	}
	if charges < listItems {
		t.Errorf("%d charges on %d invoices: the page should carry charges", charges, listItems)
	}
	got := []int{floor.Count, floor.MaxCount, floor.CurrentPage, floor.NextPage, floor.PrevPage, floor.PageSize, floor.MaxPageIndex}
	want := []int{sdk.Count, sdk.MaxCount, sdk.CurrentPage, sdk.NextPage, sdk.PreviousPage, sdk.PageSize, sdk.MaxPageIndex}
	if !slices.Equal(got, want) || floor.SortOrder != string(sdk.SortOrder) || floor.SortExpression != sdk.SortExpression {
		t.Errorf("paging headers: floor %v %s %s, SDK %v %s %s", got, floor.SortOrder, floor.SortExpression, want, sdk.SortOrder, sdk.SortExpression)
	}
}

// TestFloatShadowMirrorsInvoice checks that the float floor of benchmark
// (b) has the shape of billing.Invoice: the same JSON names, nested the
// same way, with float64 where the SDK has a decimal and string where it
// has a Timestamp or an enum, so that both decode the same document into
// as many fields.
func TestFloatShadowMirrorsInvoice(t *testing.T) {
	decimalType := reflect.TypeFor[decimal.Decimal]()
	timestampType := reflect.TypeFor[billing.Timestamp]()
	rawType := reflect.TypeFor[json.RawMessage]()
	extraType := reflect.TypeFor[billing.Extra]()
	var walk func(path string, sdk, shadow reflect.Type)
	walk = func(path string, sdk, shadow reflect.Type) {
		switch {
		case sdk == decimalType:
			if shadow.Kind() != reflect.Float64 {
				t.Errorf("%s: decimal mirrored as %v, want float64", path, shadow)
			}
			return
		case sdk == timestampType:
			if shadow.Kind() != reflect.String {
				t.Errorf("%s: Timestamp mirrored as %v, want string", path, shadow)
			}
			return
		case sdk == rawType:
			if shadow != rawType {
				t.Errorf("%s: json.RawMessage mirrored as %v", path, shadow)
			}
			return
		}
		if sdk.Kind() != shadow.Kind() {
			t.Errorf("%s: %v mirrored as %v", path, sdk, shadow)
			return
		}
		switch sdk.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(path+"[]", sdk.Elem(), shadow.Elem())
		case reflect.Struct:
			// Extra, the members the SDK does not model, has no
			// counterpart: it is empty on these pages.
			var fields []reflect.StructField
			for i := range sdk.NumField() {
				if f := sdk.Field(i); f.Type != extraType {
					fields = append(fields, f)
				}
			}
			if len(fields) != shadow.NumField() {
				t.Errorf("%s: %d fields mirrored by %d", path, len(fields), shadow.NumField())
				return
			}
			for i, a := range fields {
				b := shadow.Field(i)
				if a.Tag.Get("json") != b.Tag.Get("json") {
					t.Errorf("%s: field %d is %q in the SDK, %q in the shadow", path, i, a.Tag.Get("json"), b.Tag.Get("json"))
					continue
				}
				walk(path+"."+a.Name, a.Type, b.Type)
			}
		}
	}
	walk("Invoice", reflect.TypeFor[billing.Invoice](), reflect.TypeFor[floatInvoice]())
}

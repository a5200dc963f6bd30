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
	Items                           []exactInvoice
	Count, MaxCount                 int
	CurrentPage, NextPage, PrevPage int
	PageSize, MaxPageIndex          int
	SortOrder, SortExpression       string
}

// floorClient is the hand-written client of benchmark (a): net/http and
// encoding/json, decoding into exactInvoice, the shape of the SDK's
// structs with exact decimals and parsed timestamps, so that the
// difference from the SDK is the SDK's machinery (request building,
// retries, the streaming decoder, paging and rate-limit headers), not the
// cost of exact amounts and timestamps, which both pay.
type floorClient struct {
	hc        *http.Client
	baseURL   string
	auth      string // "Basic <key>"
	userAgent string
}

// listByCustomer is GET /v1/Customers/{id}/Invoices/ with the same query,
// headers as the SDK's ListByCustomer, decoding into the same shape.
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

// The floors' types (benchmarks (a) and (b)): plain structs of the same
// shape as billing.Invoice and everything it holds, as a hand-written
// client would declare them, without methods, so that encoding/json fills
// them by reflection. The resource types have generated UnmarshalJSON
// methods, which are the SDK's own decoder: decoding into them would make
// a floor measure the SDK. D is the type of amounts, T that of
// timestamps:
//
//   - floatInvoice, a client that does not care about exact money:
//     float64 amounts, string timestamps (and string enums);
//   - exactInvoice, one that does: decimal.Decimal amounts (the decimal
//     package's own UnmarshalJSON) and billing.Timestamp timestamps (a
//     time.Time cannot read the API's form, which has no offset).
//
// Raw JSON fields stay json.RawMessage, as in the SDK, so that both
// decode exactly the same document into the same number of fields.
type (
	floatInvoice = shadowInvoice[float64, string]
	exactInvoice = shadowInvoice[decimal.Decimal, billing.Timestamp]
)

type shadowInvoice[D, T any] struct {
	ID                               int64                          `json:"id"`
	URI                              *string                        `json:"uri"`
	InvoiceNumber                    int64                          `json:"invoiceNumber"`
	InvoiceSignature                 string                         `json:"invoiceSignature"`
	PoNumber                         *string                        `json:"poNumber"`
	EffectiveTimestamp               T                              `json:"effectiveTimestamp"`
	PostedTimestamp                  T                              `json:"postedTimestamp"`
	ModifiedTimestamp                T                              `json:"modifiedTimestamp"`
	Charges                          []shadowCharge[D, T]           `json:"charges,omitempty"`
	ChargeGroups                     []shadowChargeGroup[D, T]      `json:"chargeGroups,omitempty"`
	Subtotal                         D                              `json:"subtotal"`
	InvoiceAmount                    D                              `json:"invoiceAmount"`
	TotalPayments                    D                              `json:"totalPayments"`
	Unsettled                        bool                           `json:"unsettled"`
	OutstandingBalance               D                              `json:"outstandingBalance"`
	Terms                            string                         `json:"terms"`
	DefaultTerms                     string                         `json:"defaultTerms"`
	IsDefaultTerms                   bool                           `json:"isDefaultTerms"`
	CustomerID                       int64                          `json:"customerId"`
	InvoiceCustomer                  *shadowInvoiceCustomer[D, T]   `json:"invoiceCustomer"`
	InvoiceCustomerAddressPreference *shadowAddressPreference[D, T] `json:"invoiceCustomerAddressPreference"`
	SumOfCreditNotes                 D                              `json:"sumOfCreditNotes"`
	TotalWriteoffs                   D                              `json:"totalWriteoffs"`
	Taxes                            json.RawMessage                `json:"taxes,omitempty"`
	TotalTaxes                       D                              `json:"totalTaxes"`
	TotalDiscount                    D                              `json:"totalDiscount"`
	PaymentSchedules                 []shadowPaymentSchedule[D, T]  `json:"paymentSchedules"`
	Notes                            *string                        `json:"notes"`
	CustomerReferenceValue           *string                        `json:"customerReferenceValue"`
	OpeningArBalance                 D                              `json:"openingArBalance"`
	ClosingArBalance                 D                              `json:"closingArBalance"`
	InvoiceInMemoryOnly              bool                           `json:"invoiceInMemoryOnly"`
	InvoiceRevisions                 json.RawMessage                `json:"invoiceRevisions,omitempty"`
	IsSummarized                     bool                           `json:"isSummarized"`
	RollUpPdf                        bool                           `json:"rollUpPdf"`
	CrmID                            *string                        `json:"crmId,omitempty"`
}

type shadowChargeGroup[D, T any] struct {
	Name           string               `json:"name"`
	Description    *string              `json:"description"`
	Reference      *string              `json:"reference"`
	SubscriptionID *int64               `json:"subscriptionId,omitempty"`
	Charges        []shadowCharge[D, T] `json:"charges"`
}

type shadowCharge[D, T any] struct {
	ID                  int64                    `json:"id"`
	URI                 *string                  `json:"uri"`
	Quantity            D                        `json:"quantity"`
	UnitPrice           D                        `json:"unitPrice"`
	Amount              D                        `json:"amount"`
	Name                string                   `json:"name"`
	Description         *string                  `json:"description"`
	GLCode              string                   `json:"glCode"`
	EffectiveTimestamp  T                        `json:"effectiveTimestamp"`
	ProratedUnitPrice   *D                       `json:"proratedUnitPrice"`
	StartServiceDate    T                        `json:"startServiceDate"`
	EndServiceDate      T                        `json:"endServiceDate"`
	RangeQuantity       *D                       `json:"rangeQuantity"`
	IsReversable        bool                     `json:"isReversable"`
	Discount            json.RawMessage          `json:"discount,omitempty"`
	Discounts           json.RawMessage          `json:"discounts,omitempty"`
	SubscriptionProduct *shadowResourceRef[D, T] `json:"subscriptionProduct"`
	Purchase            json.RawMessage          `json:"purchase,omitempty"`
	ChargeTiers         []shadowChargeTier[D, T] `json:"chargeTiers"`
	ErpChargeItem       *string                  `json:"erpChargeItem"`
	ErpLocationID       json.RawMessage          `json:"erpLocationId,omitempty"`
}

type shadowResourceRef[D, T any] struct {
	ID  int64   `json:"id"`
	URI *string `json:"uri"`
}

type shadowChargeTier[D, T any] struct {
	Label     string `json:"label"`
	Quantity  D      `json:"quantity"`
	UnitPrice D      `json:"unitPrice"`
	Amount    D      `json:"amount"`
}

type shadowInvoiceCustomer[D, T any] struct {
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
	MonthlyRecurringRevenue    D               `json:"monthlyRecurringRevenue"`
	NetMonthlyRecurringRevenue D               `json:"netMonthlyRecurringRevenue"`
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
	ModifiedTimestamp          T               `json:"modifiedTimestamp"`
	CreatedTimestamp           T               `json:"createdTimestamp"`
}

type shadowAddressPreference[D, T any] struct {
	ID                                 int64                `json:"id"`
	URI                                *string              `json:"uri"`
	ContactName                        *string              `json:"contactName"`
	ShippingInstructions               *string              `json:"shippingInstructions"`
	UseBillingAddressAsShippingAddress bool                 `json:"useBillingAddressAsShippingAddress"`
	BillingAddress                     *shadowAddress[D, T] `json:"billingAddress"`
	ShippingAddress                    *shadowAddress[D, T] `json:"shippingAddress"`
}

type shadowAddress[D, T any] struct {
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

type shadowPaymentSchedule[D, T any] struct {
	DueDateTimestamp   T      `json:"dueDateTimestamp"`
	Status             string `json:"status"`
	Amount             D      `json:"amount"`
	OutstandingBalance D      `json:"outstandingBalance"`
	DaysDueAfterTerm   int    `json:"daysDueAfterTerm"`
}

// TestFloorMatchesSDK checks that benchmark (a) compares like with like:
// over the same server, the hand-written client and the SDK return the
// same invoices and the same paging figures.
func TestFloorMatchesSDK(t *testing.T) {
	t.Parallel()
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

// TestShadowsMirrorInvoice checks that the floors' types have the shape
// of billing.Invoice: the same JSON names, nested the same way, with the
// amount type where the SDK has a decimal, the timestamp type where it
// has a Timestamp and a string where it has an enum, so that they decode
// the same document into as many fields, and that none of them has a
// JSON method, which would take the decoding out of encoding/json's
// hands.
func TestShadowsMirrorInvoice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		shadow            reflect.Type
		amount, timestamp reflect.Type
	}{
		{"floatInvoice", reflect.TypeFor[floatInvoice](), reflect.TypeFor[float64](), reflect.TypeFor[string]()},
		{"exactInvoice", reflect.TypeFor[exactInvoice](), reflect.TypeFor[decimal.Decimal](), reflect.TypeFor[billing.Timestamp]()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			walkShadow(t, "Invoice", reflect.TypeFor[billing.Invoice](), tt.shadow, tt.amount, tt.timestamp)
		})
	}
}

// walkShadow compares the SDK's type sdk with its shadow, field by field.
func walkShadow(t *testing.T, path string, sdk, shadow, amount, timestamp reflect.Type) {
	t.Helper()
	decimalType := reflect.TypeFor[decimal.Decimal]()
	timestampType := reflect.TypeFor[billing.Timestamp]()
	rawType := reflect.TypeFor[json.RawMessage]()
	extraType := reflect.TypeFor[billing.Extra]()
	switch {
	case sdk == decimalType:
		if shadow != amount {
			t.Errorf("%s: decimal mirrored as %v, want %v", path, shadow, amount)
		}
		return
	case sdk == timestampType:
		if shadow != timestamp {
			t.Errorf("%s: Timestamp mirrored as %v, want %v", path, shadow, timestamp)
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
		walkShadow(t, path+"[]", sdk.Elem(), shadow.Elem(), amount, timestamp)
	case reflect.Struct:
		for _, m := range []reflect.Type{reflect.TypeFor[json.Unmarshaler](), reflect.TypeFor[json.Marshaler]()} {
			if reflect.PointerTo(shadow).Implements(m) {
				t.Errorf("%s: the shadow %v implements %v", path, shadow, m)
			}
		}
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
			walkShadow(t, path+"."+a.Name, a.Type, b.Type, amount, timestamp)
		}
	}
}

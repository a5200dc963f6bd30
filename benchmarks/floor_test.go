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
	Items                           reflect.Value // a slice of exactInvoice
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
	item      reflect.Type // exactInvoice
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
	items := reflect.New(reflect.SliceOf(f.item))
	if err := json.NewDecoder(resp.Body).Decode(items.Interface()); err != nil {
		return nil, err
	}
	p := &floorPage{Items: items.Elem()}
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

// The floors' types (benchmarks (a) and (b)) have the shape of
// billing.Invoice and everything it holds, as a hand-written client would
// declare them: the same fields, JSON names and nesting, without methods,
// so that encoding/json fills them by reflection. The resource types have
// generated UnmarshalJSON methods, which are the SDK's own decoder:
// decoding into them would make a floor measure the SDK. They are derived
// from the SDK's types (shadowOf) rather than written out, so that they
// cannot drift from them:
//
//   - floatInvoice, a client that does not care about exact money:
//     float64 amounts, string timestamps (and string enums);
//   - exactInvoice, one that does: decimal.Decimal amounts (the decimal
//     package's own UnmarshalJSON) and billing.Timestamp timestamps (a
//     time.Time cannot read the API's form, which has no offset).
//
// Raw JSON fields stay json.RawMessage, as in the SDK, so that both
// decode exactly the same document into the same number of fields.
func floatInvoice() reflect.Type {
	return shadowOf(reflect.TypeFor[billing.Invoice](), reflect.TypeFor[float64](), reflect.TypeFor[string]())
}

func exactInvoice() reflect.Type {
	return shadowOf(reflect.TypeFor[billing.Invoice](), reflect.TypeFor[decimal.Decimal](), reflect.TypeFor[billing.Timestamp]())
}

// shadowOf is the method-less type of sdk's shape, with amount where the
// SDK has a decimal, timestamp where it has a Timestamp and string where
// it has an enum (a string type). A struct built by reflect.StructOf has
// no methods, so none of the SDK's UnmarshalJSON methods is carried over.
// Extra, the members the SDK does not model, has no counterpart: it is
// empty on these pages. reflect.StructOf returns the same type for the
// same fields, so calling it again is cheap and yields an identical type.
func shadowOf(sdk, amount, timestamp reflect.Type) reflect.Type {
	switch sdk {
	case reflect.TypeFor[decimal.Decimal]():
		return amount
	case reflect.TypeFor[billing.Timestamp]():
		return timestamp
	case reflect.TypeFor[json.RawMessage]():
		return sdk
	}
	switch sdk.Kind() {
	case reflect.Pointer:
		return reflect.PointerTo(shadowOf(sdk.Elem(), amount, timestamp))
	case reflect.Slice:
		return reflect.SliceOf(shadowOf(sdk.Elem(), amount, timestamp))
	case reflect.String:
		return reflect.TypeFor[string]()
	case reflect.Struct:
		var fields []reflect.StructField
		for i := range sdk.NumField() {
			f := sdk.Field(i)
			if f.Type == reflect.TypeFor[billing.Extra]() {
				continue
			}
			fields = append(fields, reflect.StructField{Name: f.Name, Type: shadowOf(f.Type, amount, timestamp), Tag: f.Tag})
		}
		return reflect.StructOf(fields)
	}
	return sdk
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
	floorJSON, err2 := jsonwire.Marshal(floor.Items.Interface())
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if len(sdk.Items) != listItems || !bytes.Equal(sdkJSON, floorJSON) {
		t.Errorf("the SDK and the floor decoded different invoices (%d and %d)", len(sdk.Items), floor.Items.Len())
	}
	charges := 0
	for i := range floor.Items.Len() {
		charges += floor.Items.Index(i).FieldByName("Charges").Len()
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

// TestShadowOf checks that the floors' types put the amount type where
// the SDK has a decimal, the timestamp type where it has a Timestamp and a
// string where it has an enum, at every depth, and that none of their
// structs has a JSON method, which would take the decoding out of
// encoding/json's hands. That they decode the same document as the SDK,
// names and nesting included, is TestFloorMatchesSDK's and
// TestBeforeMatchesSDK's.
func TestShadowOf(t *testing.T) {
	t.Parallel()
	stringType := reflect.TypeFor[string]()
	tests := []struct {
		name   string
		shadow reflect.Type
		path   []string // field names, through pointers and slices
		want   reflect.Type
	}{
		{"float amount", floatInvoice(), []string{"Subtotal"}, reflect.TypeFor[float64]()},
		{"float timestamp", floatInvoice(), []string{"PostedTimestamp"}, stringType},
		{"float amount behind a pointer in a slice", floatInvoice(), []string{"Charges", "ProratedUnitPrice"}, reflect.TypeFor[*float64]()},
		{"float enum in a nested struct", floatInvoice(), []string{"InvoiceCustomer", "Status"}, stringType},
		{"exact amount", exactInvoice(), []string{"ChargeGroups", "Charges", "Amount"}, reflect.TypeFor[decimal.Decimal]()},
		{"exact timestamp", exactInvoice(), []string{"PaymentSchedules", "DueDateTimestamp"}, reflect.TypeFor[billing.Timestamp]()},
		{"exact enum", exactInvoice(), []string{"PaymentSchedules", "Status"}, stringType},
		{"raw JSON kept", exactInvoice(), []string{"Taxes"}, reflect.TypeFor[json.RawMessage]()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			typ := tt.shadow
			for _, name := range tt.path {
				for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
					typ = typ.Elem()
				}
				f, ok := typ.FieldByName(name)
				if !ok {
					t.Fatalf("no field %s in %v", name, typ)
				}
				typ = f.Type
			}
			if typ != tt.want {
				t.Errorf("%v is %v, want %v", tt.path, typ, tt.want)
			}
		})
	}
	for _, shadow := range []reflect.Type{floatInvoice(), exactInvoice()} {
		if _, ok := shadow.FieldByName("Extra"); ok {
			t.Errorf("%v keeps Extra", shadow)
		}
		assertNoJSONMethods(t, shadow)
	}
}

// assertNoJSONMethods fails if typ, or a struct it holds other than the
// amount and timestamp types, is one of the SDK's types or implements
// json.Unmarshaler or json.Marshaler.
func assertNoJSONMethods(t *testing.T, typ reflect.Type) {
	t.Helper()
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || typ == reflect.TypeFor[decimal.Decimal]() || typ == reflect.TypeFor[billing.Timestamp]() {
		return
	}
	if typ.Name() != "" {
		t.Errorf("%v is not a shadow", typ)
	}
	for _, m := range []reflect.Type{reflect.TypeFor[json.Unmarshaler](), reflect.TypeFor[json.Marshaler]()} {
		if reflect.PointerTo(typ).Implements(m) {
			t.Errorf("the shadow %v implements %v", typ, m)
		}
	}
	for i := range typ.NumField() {
		assertNoJSONMethods(t, typ.Field(i).Type)
	}
}

package billing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"testing"

	billing "github.com/billingapi/billing-go"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/shopspring/decimal"
)

// A resource reads and writes the same JSON whichever JSON API a user
// takes: encoding/json, github.com/go-json-experiment/json (and through
// it encoding/json/v2, see json_roundtrip_v2_test.go) and the SDK itself.
// Each case is a sample shape of the live service, with members the
// reference does not list, amounts of three or more decimals and
// timestamps in several spellings; nested resources are taken out of the
// invoice samples, so that a Charge alone behaves like one inside an
// Invoice.

// jsonAPI is one way to decode and encode a resource.
type jsonAPI struct {
	name      string
	unmarshal func(b []byte, v any) error
	marshal   func(v any) ([]byte, error)
}

// roundTripCase is a resource type and where its sample is.
type roundTripCase struct {
	file string
	path []any // the sample's place in the file: member names and indexes
	new  func() any
}

func newOf[T any]() func() any { return func() any { return new(T) } }

var roundTripCases = []roundTripCase{
	{"resources/invoice.json", nil, newOf[billing.Invoice]()},
	{"resources/invoice_grouped.json", nil, newOf[billing.Invoice]()},
	{"resources/invoice_grouped.json", []any{"chargeGroups", 0}, newOf[billing.ChargeGroup]()},
	{"resources/invoice.json", []any{"charges", 0}, newOf[billing.Charge]()},
	{"resources/invoice.json", []any{"charges", 1}, newOf[billing.Charge]()},
	{"resources/invoice.json", []any{"charges", 0, "subscriptionProduct"}, newOf[billing.ResourceRef]()},
	{"resources/invoice.json", []any{"charges", 0, "chargeTiers", 1}, newOf[billing.ChargeTier]()},
	{"resources/invoice.json", []any{"invoiceCustomer"}, newOf[billing.InvoiceCustomer]()},
	{"resources/invoice.json", []any{"invoiceCustomerAddressPreference"}, newOf[billing.AddressPreference]()},
	{"resources/invoice.json", []any{"invoiceCustomerAddressPreference", "shippingAddress"}, newOf[billing.Address]()},
	{"resources/invoice.json", []any{"paymentSchedules", 1}, newOf[billing.PaymentSchedule]()},
	{"resources/invoice_summary.json", nil, newOf[billing.InvoiceSummary]()},
	{"resources/credit_card.json", nil, newOf[billing.CreditCard]()},
	{"resources/wallet_payment_method.json", nil, newOf[billing.WalletPaymentMethod]()},
	{"resources/sales_tracking_code.json", nil, newOf[billing.SalesTrackingCode]()},
	{"resources/subscription_product_item.json", nil, newOf[billing.SubscriptionProductItem]()},
	{"resources/bulk_job.json", nil, newOf[billing.BulkJob]()},
}

// jsonAPIs are the JSON APIs every Go configuration has; the SDK's own
// reading and writing is checked apart, through Client.Do.
func jsonAPIs() []jsonAPI {
	return []jsonAPI{
		{"encoding/json", json.Unmarshal, json.Marshal},
		{"go-json-experiment", func(b []byte, v any) error { return jsonv2.Unmarshal(b, v) }, func(v any) ([]byte, error) { return jsonv2.Marshal(v) }},
	}
}

func TestResourcesReadAndWriteTheSameJSONEverywhere(t *testing.T) {
	t.Parallel()
	testRoundTrips(t, jsonAPIs())
}

func testRoundTrips(t *testing.T, apis []jsonAPI) {
	for _, tc := range roundTripCases {
		sample := sampleAt(t, tc.file, tc.path)
		name := fmt.Sprintf("%T@%s%v", tc.new(), tc.file, tc.path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// What the SDK decodes from the service's bytes is the value
			// every API must decode too.
			want := tc.new()
			sdkDecode(t, sample, want)
			if reflect.ValueOf(want).Elem().FieldByName("Extra").Len() == 0 {
				t.Fatalf("the sample has no member the SDK does not model: it proves nothing of Extra")
			}
			sdkOut := sdkEncode(t, want)
			assertSameDocument(t, "the SDK's encoding", sample, sdkOut)
			for _, api := range apis {
				got := tc.new()
				if err := api.unmarshal(sample, got); err != nil {
					t.Fatalf("%s: Unmarshal: %v", api.name, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: Unmarshal gives\n%+v\nthe SDK decodes\n%+v", api.name, got, want)
				}
				out, err := api.marshal(want)
				if err != nil {
					t.Fatalf("%s: Marshal: %v", api.name, err)
				}
				assertSameDocument(t, api.name+"'s encoding", sample, out)
				if canonical(t, out) != canonical(t, sdkOut) {
					t.Errorf("%s: Marshal writes\n%s\nthe SDK writes\n%s", api.name, out, sdkOut)
				}
				// And what it wrote decodes to a value that writes the
				// same again (raw members lose the sample's spaces).
				again := tc.new()
				if err := api.unmarshal(out, again); err != nil {
					t.Fatalf("%s: decoding its own output: %v", api.name, err)
				}
				if out2, err := api.marshal(again); err != nil || canonical(t, out2) != canonical(t, out) {
					t.Errorf("%s: a second round trip writes %s (%v), the first %s", api.name, out2, err, out)
				}
			}
		})
	}
}

// sampleAt returns the JSON value at path in testdata/file, as written.
func sampleAt(t *testing.T, file string, path []any) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	v := jsontext.Value(b)
	for _, step := range path {
		var err error
		switch step := step.(type) {
		case string:
			var members map[string]jsontext.Value
			err = jsonv2.Unmarshal(v, &members)
			v = members[step]
		case int:
			var elems []jsontext.Value
			err = jsonv2.Unmarshal(v, &elems)
			v = elems[step]
		}
		if err != nil || v == nil {
			t.Fatalf("%s: no value at %v (%v)", file, path, err)
		}
	}
	return bytes.Clone(v)
}

// sdkClient answers every request with body and keeps the last request's
// body in *sent.
func sdkClient(t *testing.T, body []byte, sent *[]byte) *billing.Client {
	t.Helper()
	rt := roundTrip(func(r *http.Request) (*http.Response, error) {
		if r.Body != nil {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				return nil, err
			}
			*sent = b
		}
		return &http.Response{
			StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:        http.Header{"Content-Type": {"application/json; charset=utf-8"}},
			Body:          io.NopCloser(bytes.NewReader(body)),
			ContentLength: int64(len(body)),
			Request:       r,
		}, nil
	})
	c, err := billing.NewClient("key-roundtrip", billing.WithBaseURL("http://127.0.0.1"), billing.WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// sdkDecode decodes body as the SDK decodes an answer into out.
func sdkDecode(t *testing.T, body []byte, out any) {
	t.Helper()
	var sent []byte
	c := sdkClient(t, body, &sent)
	if _, err := c.Do(context.Background(), &billing.Request{Method: http.MethodGet, Path: "/v1/Sample"}, out); err != nil {
		t.Fatalf("the SDK decoding the sample: %v", err)
	}
}

// sdkEncode returns the body the SDK sends for v.
func sdkEncode(t *testing.T, v any) []byte {
	t.Helper()
	var sent []byte
	c := sdkClient(t, []byte("{}"), &sent)
	if _, err := c.Do(context.Background(), &billing.Request{Method: http.MethodPost, Path: "/v1/Sample", Body: v}, nil); err != nil {
		t.Fatalf("the SDK encoding: %v", err)
	}
	return sent
}

// assertSameDocument checks that out says what the service's sample says:
// every member of the sample is in out, at any depth, with its value;
// numbers (amounts among them) are bare JSON numbers of the same exact
// value, timestamps are the same instant in the SDK's wire form (the
// service's "none", 0001-01-01T00:00:00, becomes null), and out has no
// member the sample lacks.
func assertSameDocument(t *testing.T, what string, sample, out []byte) {
	t.Helper()
	if diff := documentDiff("", tree(t, sample), tree(t, out)); diff != "" {
		t.Errorf("%s differs from the service's sample: %s\nsample: %s\n   out: %s", what, diff, sample, out)
	}
}

// tree decodes b keeping numbers as their text.
func tree(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

func documentDiff(at string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %v, want an object", at, got)
		}
		for k, wv := range w {
			if d := documentDiff(at+"/"+k, wv, g[k]); d != "" {
				return d
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				return fmt.Sprintf("%s/%s: not in the sample", at, k)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: %v, want %d elements", at, got, len(w))
		}
		for i := range w {
			if d := documentDiff(at+"/"+strconv.Itoa(i), w[i], g[i]); d != "" {
				return d
			}
		}
	case json.Number:
		g, ok := got.(json.Number)
		if !ok || !decimal.RequireFromString(string(w)).Equal(decimal.RequireFromString(string(g))) {
			return fmt.Sprintf("%s: %#v, want the number %s", at, got, w)
		}
	case string:
		var wt billing.Timestamp
		if wt.UnmarshalText([]byte(w)) == nil && len(w) >= len("2006-01-02T15:04:05") {
			if wt.IsZero() {
				if got != nil {
					return fmt.Sprintf("%s: %#v, want null for %q", at, got, w)
				}
				return ""
			}
			if got != wt.String() && got != w { // a raw member keeps its text
				return fmt.Sprintf("%s: %#v, want %q for %q", at, got, wt.String(), w)
			}
			return ""
		}
		if got != w {
			return fmt.Sprintf("%s: %#v, want %q", at, got, w)
		}
	default: // bool, nil
		if got != want {
			return fmt.Sprintf("%s: %#v, want %#v", at, got, want)
		}
	}
	return ""
}

// canonical is the compact form of b with strings written one way (the
// APIs differ only in escaping HTML characters) and numbers as they are.
func canonical(t *testing.T, b []byte) string {
	t.Helper()
	v := jsontext.Value(bytes.Clone(b))
	if err := v.Format(jsontext.EscapeForHTML(false)); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return string(v)
}

// TestExtraKeepsOnlyWhatCanBeWrittenBack checks that an unknown member
// holding invalid UTF-8, or the escape of half a surrogate pair, is kept
// as a modelled string would be, each replaced by U+FFFD, so that every
// JSON API can write it back (encoding/json/v2 refuses a lone half).
func TestExtraKeepsOnlyWhatCanBeWrittenBack(t *testing.T) {
	t.Parallel()
	in := []byte("{\"note\":\"a\xff\xfeb\",\"n\xffame\":[\"\xc3\"],\"half\":\"x\\ud800\",\"pair\":\"\\ud83d\\ude00\"}")
	want := billing.Extra{
		"note":       json.RawMessage("\"a\uFFFD\uFFFDb\""),
		"n\uFFFDame": json.RawMessage("[\"\uFFFD\"]"),
		"half":       json.RawMessage(`"x\ufffd"`),
		"pair":       json.RawMessage(`"\ud83d\ude00"`),
	}
	for _, tc := range roundTripCases {
		v := tc.new()
		sdkDecode(t, in, v)
		if got := reflect.ValueOf(v).Elem().FieldByName("Extra").Interface(); !reflect.DeepEqual(got, want) {
			t.Errorf("%T: Extra = %q, want %q", v, got, want)
		}
		for _, api := range jsonAPIs() {
			if out, err := api.marshal(v); err != nil {
				t.Errorf("%T: %s cannot write it back: %v", v, api.name, err)
			} else if !bytes.Contains(out, []byte("\"a\uFFFD\uFFFDb\"")) {
				t.Errorf("%T: %s writes %s, without the note", v, api.name, out)
			}
		}
	}
}

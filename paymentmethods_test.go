package billing_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

const (
	pmCardPath   = "/v1/paymentMethods/creditCard"
	pmWalletPath = "/v1/Paypal"
)

// pmCard is a replace-card request that passes validation, with every
// optional field set.
func pmCard() *billing.ReplaceCreditCardParams {
	return &billing.ReplaceCreditCardParams{
		ID:              1001,
		CustomerID:      42,
		CardNumber:      "4111111111111111",
		CVV:             "987",
		FirstName:       "Ada",
		LastName:        "Lovelace",
		ExpirationMonth: 7,
		ExpirationYear:  29,
		Address1:        "1 Main Street",
		Address2:        "Suite 200",
		CountryID:       billing.Ptr[int64](124),
		StateID:         billing.Ptr[int64](9),
		City:            "Toronto",
		PostalZip:       "M5V 2T6",
		IsDefault:       billing.Ptr(true),
		PaymentCollectOptions: &billing.PaymentCollectOptions{
			CollectionAmount: decimal.RequireFromString("0.125"),
		},
	}
}

// pmCardResponse is a realistic answer to a replace-card call.
const pmCardResponse = `{
  "id": 2002,
  "uri": "https://billing.example.test/v1/paymentMethods/2002",
  "customerId": 42,
  "maskedCardNumber": "************1111",
  "cardType": "Visa",
  "firstName": "Ada",
  "lastName": "Lovelace",
  "expirationMonth": 7,
  "expirationYear": 29,
  "address1": "1 Main Street",
  "address2": null,
  "countryId": 124,
  "country": "Canada",
  "stateId": 9,
  "state": "Ontario",
  "city": "Toronto",
  "postalZip": "M5V 2T6",
  "isDefault": true,
  "externalCustomerId": null,
  "externalCardId": "card_ext_9",
  "storedInServiceVault": true,
  "email": null,
  "modifiedDate": "2024-03-01T10:15:00.1234567",
  "originalPaymentMethodId": 1001,
  "isUsedForBillingPeriodOverride": false
}`

const pmWalletResponse = `{"firstName":"Ada","lastName":"Lovelace","customerId":42,"isDefault":true,"storedInServiceVault":false,"modifiedDate":"2024-03-01T10:15:00Z","id":3003}`

// pmAPIError asserts err is an *APIError with the given status and category.
func pmAPIError(t *testing.T, err error, status int, category error) *billing.APIError {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want an *APIError with status %d", status)
	}
	if !errors.Is(err, category) {
		t.Errorf("errors.Is(err, %v) = false; err = %v", category, err)
	}
	var ae *billing.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error = %v (%T), want *billing.APIError", err, err)
	}
	if ae.StatusCode != status {
		t.Errorf("StatusCode = %d, want %d", ae.StatusCode, status)
	}
	return ae
}

// pmReplace is PaymentMethods.ReplaceCreditCard, as the table tests send
// it: params builds the params afresh for each case.
func pmReplace(c *billing.Client, params func() *billing.ReplaceCreditCardParams) error {
	_, err := c.PaymentMethods.ReplaceCreditCard(context.Background(), params())
	return err
}

// pmCardBody is the JSON body of pmCard's params, with isDefault and the
// collection amount as the JSON literals given.
func pmCardBody(isDefault, collectionAmount string) string {
	return `{"id":1001,"customerId":42,"cardNumber":"4111111111111111","cvv":"987",
		"firstName":"Ada","lastName":"Lovelace","expirationMonth":7,"expirationYear":29,
		"address1":"1 Main Street","address2":"Suite 200","countryId":124,"stateId":9,
		"city":"Toronto","postalZip":"M5V 2T6","isDefault":` + isDefault + `,
		"paymentCollectOptions":{"collectionAmount":` + collectionAmount + `}}`
}

// pmCardEndpoint answers a replaced card.
var pmCardEndpoint = endpoint{http.MethodPut, pmCardPath, pmCardResponse}

func TestReplaceCreditCardRequest(t *testing.T) {
	t.Parallel()
	testBodies(t, pmCardEndpoint, pmReplace, []paramsCase[func() *billing.ReplaceCreditCardParams]{
		{
			name:   "every field with fractional collection amount",
			params: pmCard,
			want:   pmCardBody("true", "0.125"),
		},
		{
			name: "zero collection amount is sent as 0 and isDefault false is sent",
			params: func() *billing.ReplaceCreditCardParams {
				p := pmCard()
				p.IsDefault = billing.Ptr(false)
				p.PaymentCollectOptions = &billing.PaymentCollectOptions{CollectionAmount: decimal.Zero}
				return p
			},
			want: pmCardBody("false", "0"),
		},
		{
			name: "many decimals are kept exactly",
			params: func() *billing.ReplaceCreditCardParams {
				p := pmCard()
				p.PaymentCollectOptions.CollectionAmount = decimal.RequireFromString("1234567890.123456789")
				return p
			},
			want: pmCardBody("true", "1234567890.123456789"),
		},
		{
			name: "required fields only, year 00",
			params: func() *billing.ReplaceCreditCardParams {
				return &billing.ReplaceCreditCardParams{
					ID: 1001, CustomerID: 42, CardNumber: "4111111111111111", CVV: "987",
					ExpirationMonth: 12, ExpirationYear: 0,
				}
			},
			want: `{"id":1001,"customerId":42,"cardNumber":"4111111111111111","cvv":"987",
				"expirationMonth":12,"expirationYear":0}`,
		},
	})
}

func TestReplaceCreditCardDecodesResponse(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on(http.MethodPut, pmCardPath, http.StatusOK, pmCardResponse)
	card, err := w.client.PaymentMethods.ReplaceCreditCard(context.Background(), pmCard())
	if err != nil {
		t.Fatalf("ReplaceCreditCard: %v", err)
	}
	// The replacement: a new id, the replaced card's id as the original,
	// the number masked, nulls as nil, and a modified date with seven
	// fractional digits.
	want := &billing.CreditCard{
		ID:                             2002,
		URI:                            billing.Ptr("https://billing.example.test/v1/paymentMethods/2002"),
		CustomerID:                     42,
		MaskedCardNumber:               "************1111",
		CardType:                       "Visa",
		FirstName:                      "Ada",
		LastName:                       "Lovelace",
		ExpirationMonth:                7,
		ExpirationYear:                 29,
		Address1:                       billing.Ptr("1 Main Street"),
		CountryID:                      billing.Ptr[int64](124),
		Country:                        billing.Ptr("Canada"),
		StateID:                        billing.Ptr[int64](9),
		State:                          billing.Ptr("Ontario"),
		City:                           billing.Ptr("Toronto"),
		PostalZip:                      billing.Ptr("M5V 2T6"),
		IsDefault:                      true,
		ExternalCardID:                 billing.Ptr("card_ext_9"),
		StoredInServiceVault:           true,
		ModifiedDate:                   billing.NewTimestamp(time.Date(2024, 3, 1, 10, 15, 0, 123456700, time.UTC)),
		OriginalPaymentMethodID:        billing.Ptr[int64](1001),
		IsUsedForBillingPeriodOverride: false,
	}
	if d := diff(want, card); d != "" {
		t.Errorf("ReplaceCreditCard returned another card:\n%s", d)
	}
}

// pmWallet is the request of a wallet agreement: the provider, and the
// params built afresh for each case.
type pmWallet struct {
	provider billing.WalletProvider
	params   func() *billing.WalletAgreementParams
}

// pmCreateWallet is PaymentMethods.CreateWalletAgreement, as the table
// tests send it.
func pmCreateWallet(c *billing.Client, r pmWallet) error {
	_, err := c.PaymentMethods.CreateWalletAgreement(context.Background(), r.provider, r.params())
	return err
}

// pmPaypal is a wallet agreement with Paypal on params.
func pmPaypal(params *billing.WalletAgreementParams) pmWallet {
	return pmWallet{"Paypal", func() *billing.WalletAgreementParams { return params }}
}

// pmWalletEndpoint answers a created wallet payment method.
var pmWalletEndpoint = endpoint{http.MethodPost, pmWalletPath, pmWalletResponse}

func TestCreateWalletAgreementRequest(t *testing.T) {
	t.Parallel()
	testBodies(t, pmWalletEndpoint, pmCreateWallet, []paramsCase[pmWallet]{
		{
			name:   "token only",
			params: pmPaypal(&billing.WalletAgreementParams{Token: "EC-8TY45", CustomerID: 42, Source: billing.PaymentSourceManual}),
			want:   `{"token":"EC-8TY45","customerId":42,"source":"Manual"}`,
		},
		{
			name:   "baid only",
			params: pmPaypal(&billing.WalletAgreementParams{Baid: "B-5YH21", CustomerID: 42, Source: billing.PaymentSourceSelfServicePortal}),
			want:   `{"baid":"B-5YH21","customerId":42,"source":"SelfServicePortal"}`,
		},
		{
			name: "baid with collection amount",
			params: pmPaypal(&billing.WalletAgreementParams{
				Baid: "B-5YH21", CustomerID: 42, Source: billing.PaymentSourceAutomatic,
				PaymentCollectOptions: &billing.PaymentCollectOptions{CollectionAmount: decimal.RequireFromString("19.995")},
			}),
			want: `{"baid":"B-5YH21","customerId":42,"source":"Automatic","paymentCollectOptions":{"collectionAmount":19.995}}`,
		},
		{
			name: "token and baid with zero collection amount",
			params: pmPaypal(&billing.WalletAgreementParams{
				Token: "EC-1", Baid: "B-1", CustomerID: 7, Source: billing.PaymentSourceImport,
				PaymentCollectOptions: &billing.PaymentCollectOptions{},
			}),
			want: `{"token":"EC-1","baid":"B-1","customerId":7,"source":"Import","paymentCollectOptions":{"collectionAmount":0}}`,
		},
	})
}

func TestCreateWalletAgreementDecodesResponse(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.on(http.MethodPost, pmWalletPath, http.StatusOK, pmWalletResponse)
	pm, err := w.client.PaymentMethods.CreateWalletAgreement(context.Background(), "Paypal",
		&billing.WalletAgreementParams{Token: "EC-8TY45", CustomerID: 42, Source: billing.PaymentSourceManual})
	if err != nil {
		t.Fatalf("CreateWalletAgreement: %v", err)
	}
	want := billing.WalletPaymentMethod{
		ID: 3003, CustomerID: 42, FirstName: "Ada", LastName: "Lovelace", IsDefault: true,
		StoredInServiceVault: false,
		ModifiedDate:         billing.NewTimestamp(time.Date(2024, 3, 1, 10, 15, 0, 0, time.UTC)),
	}
	if d := diff(&want, pm); d != "" {
		t.Errorf("CreateWalletAgreement returned another payment method:\n%s", d)
	}
}
func TestReplaceCreditCardValidation(t *testing.T) {
	t.Parallel()
	long := func(n int, r string) string { return strings.Repeat(r, n) }
	// Each case changes pmCard's valid params.
	mutated := func(c *billing.Client, mutate func(*billing.ReplaceCreditCardParams)) error {
		return pmReplace(c, func() *billing.ReplaceCreditCardParams {
			p := pmCard()
			mutate(p)
			return p
		})
	}
	testRefused(t, pmCardEndpoint, mutated, []paramsCase[func(*billing.ReplaceCreditCardParams)]{
		{"firstName 51 chars", func(p *billing.ReplaceCreditCardParams) { p.FirstName = long(51, "a") }, "firstName"},
		{"lastName 51 chars", func(p *billing.ReplaceCreditCardParams) { p.LastName = long(51, "a") }, "lastName"},
		{"address1 51 chars", func(p *billing.ReplaceCreditCardParams) { p.Address1 = long(51, "a") }, "address1"},
		{"address2 51 chars", func(p *billing.ReplaceCreditCardParams) { p.Address2 = long(51, "a") }, "address2"},
		{"city 51 chars", func(p *billing.ReplaceCreditCardParams) { p.City = long(51, "a") }, "city"},
		{"postalZip 11 chars", func(p *billing.ReplaceCreditCardParams) { p.PostalZip = long(11, "1") }, "postalZip"},
		{"firstName 51 multibyte chars", func(p *billing.ReplaceCreditCardParams) { p.FirstName = long(51, "é") }, "firstName"},
		{"postalZip 11 multibyte chars", func(p *billing.ReplaceCreditCardParams) { p.PostalZip = long(11, "é") }, "postalZip"},
		{"firstName exactly 50 chars", func(p *billing.ReplaceCreditCardParams) { p.FirstName = long(50, "a") }, ""},
		{"lastName exactly 50 chars", func(p *billing.ReplaceCreditCardParams) { p.LastName = long(50, "a") }, ""},
		{"address1 exactly 50 chars", func(p *billing.ReplaceCreditCardParams) { p.Address1 = long(50, "a") }, ""},
		{"address2 exactly 50 chars", func(p *billing.ReplaceCreditCardParams) { p.Address2 = long(50, "a") }, ""},
		{"city exactly 50 chars", func(p *billing.ReplaceCreditCardParams) { p.City = long(50, "a") }, ""},
		{"postalZip exactly 10 chars", func(p *billing.ReplaceCreditCardParams) { p.PostalZip = long(10, "1") }, ""},
		{"firstName 50 é (100 bytes) accepted", func(p *billing.ReplaceCreditCardParams) { p.FirstName = long(50, "é") }, ""},
		{"city 50 é (100 bytes) accepted", func(p *billing.ReplaceCreditCardParams) { p.City = long(50, "é") }, ""},
		{"postalZip 10 é (20 bytes) accepted", func(p *billing.ReplaceCreditCardParams) { p.PostalZip = long(10, "é") }, ""},
		{"firstName 26 emoji (52 UTF-16 units)", func(p *billing.ReplaceCreditCardParams) { p.FirstName = long(26, "😀") }, "firstName"},
		{"firstName 25 emoji (50 UTF-16 units) accepted", func(p *billing.ReplaceCreditCardParams) { p.FirstName = long(25, "😀") }, ""},
		{"expiration month 0", func(p *billing.ReplaceCreditCardParams) { p.ExpirationMonth = 0 }, "expirationMonth"},
		{"expiration month 13", func(p *billing.ReplaceCreditCardParams) { p.ExpirationMonth = 13 }, "expirationMonth"},
		{"expiration month 1 accepted", func(p *billing.ReplaceCreditCardParams) { p.ExpirationMonth = 1 }, ""},
		{"expiration month 12 accepted", func(p *billing.ReplaceCreditCardParams) { p.ExpirationMonth = 12 }, ""},
		{"expiration year -1", func(p *billing.ReplaceCreditCardParams) { p.ExpirationYear = -1 }, "expirationYear"},
		{"expiration year 100", func(p *billing.ReplaceCreditCardParams) { p.ExpirationYear = 100 }, "expirationYear"},
		{"four-digit expiration year", func(p *billing.ReplaceCreditCardParams) { p.ExpirationYear = 2029 }, "expirationYear"},
		{"expiration year 99 accepted", func(p *billing.ReplaceCreditCardParams) { p.ExpirationYear = 99 }, ""},
		{"missing card number", func(p *billing.ReplaceCreditCardParams) { p.CardNumber = "" }, "cardNumber"},
		{"missing cvv", func(p *billing.ReplaceCreditCardParams) { p.CVV = "" }, "cvv"},
		{"id zero", func(p *billing.ReplaceCreditCardParams) { p.ID = 0 }, "id"},
		{"id negative", func(p *billing.ReplaceCreditCardParams) { p.ID = -1 }, "id"},
		{"customerId zero", func(p *billing.ReplaceCreditCardParams) { p.CustomerID = 0 }, "customerId"},
		{"customerId negative", func(p *billing.ReplaceCreditCardParams) { p.CustomerID = -42 }, "customerId"},
		{"negative collection amount", func(p *billing.ReplaceCreditCardParams) {
			p.PaymentCollectOptions.CollectionAmount = decimal.RequireFromString("-0.01")
		}, "paymentCollectOptions.collectionAmount"},
	})
	t.Run("nil params", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		_, err := w.client.PaymentMethods.ReplaceCreditCard(context.Background(), nil)
		assertRefused(t, w, err, "ReplaceCreditCardParams")
	})
}

func TestCreateWalletAgreementValidation(t *testing.T) {
	t.Parallel()
	ok := func() *billing.WalletAgreementParams {
		return &billing.WalletAgreementParams{Token: "EC-1", CustomerID: 42, Source: billing.PaymentSourceManual}
	}
	testRefused(t, pmWalletEndpoint, pmCreateWallet, []paramsCase[pmWallet]{
		{"nil params", pmWallet{"Paypal", func() *billing.WalletAgreementParams { return nil }}, "WalletAgreementParams"},
		{"neither token nor baid", pmWallet{"Paypal", func() *billing.WalletAgreementParams {
			p := ok()
			p.Token = ""
			return p
		}}, "token"},
		{"provider with slash", pmWallet{"Pay/pal", ok}, "provider"},
		{"provider path traversal", pmWallet{"../x", ok}, "provider"},
		{"empty provider", pmWallet{"", ok}, "provider"},
		{"provider with escaped dots", pmWallet{"%2e%2e", ok}, "provider"},
		{"provider with query", pmWallet{"Paypal?x=1", ok}, "provider"},
		{"provider with space", pmWallet{"Pay pal", ok}, "provider"},
		{"customerId zero", pmWallet{"Paypal", func() *billing.WalletAgreementParams {
			p := ok()
			p.CustomerID = 0
			return p
		}}, "customerId"},
		{"missing source", pmWallet{"Paypal", func() *billing.WalletAgreementParams {
			p := ok()
			p.Source = ""
			return p
		}}, "source"},
		{"negative collection amount", pmWallet{"Paypal", func() *billing.WalletAgreementParams {
			p := ok()
			p.PaymentCollectOptions = &billing.PaymentCollectOptions{CollectionAmount: decimal.RequireFromString("-1")}
			return p
		}}, "paymentCollectOptions.collectionAmount"},
	})
	t.Run("other provider names are used as the path segment", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodPost, "/v1/Wallet2", http.StatusOK, pmWalletResponse)
		if _, err := w.client.PaymentMethods.CreateWalletAgreement(context.Background(), "Wallet2", ok()); err != nil {
			t.Fatal(err)
		}
		if r := w.last(); r.Path != "/v1/Wallet2" {
			t.Errorf("path = %q", r.Path)
		}
	})
}

func TestPaymentMethodsErrors(t *testing.T) {
	t.Parallel()
	t.Run("replace on deleted payment method is 400 Api Error", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodPut, pmCardPath, http.StatusBadRequest,
			errorBody(400, "Api Error", "Payment method 1001 has been deleted and cannot be updated."))
		_, err := w.client.PaymentMethods.ReplaceCreditCard(context.Background(), pmCard())
		ae := pmAPIError(t, err, http.StatusBadRequest, billing.ErrBadRequest)
		if ae.ErrorID != 1234 {
			t.Errorf("ErrorID = %d, want 1234", ae.ErrorID)
		}
		if len(ae.Errors) != 1 || ae.Errors[0].Key != "Api Error" ||
			ae.Errors[0].Value != "Payment method 1001 has been deleted and cannot be updated." {
			t.Errorf("Errors = %+v", ae.Errors)
		}
		if ae.Method != http.MethodPut || ae.Path != pmCardPath {
			t.Errorf("Method/Path = %s %s", ae.Method, ae.Path)
		}
		if !ae.HasKey("api error") {
			t.Errorf("HasKey(api error) = false")
		}
		if errors.Is(err, billing.ErrNotFound) || errors.Is(err, billing.ErrConflict) {
			t.Errorf("a 400 matches another category")
		}
		if !strings.Contains(err.Error(), "has been deleted") || !strings.Contains(err.Error(), "400") {
			t.Errorf("Error() = %q, want the status and message", err.Error())
		}
	})
	t.Run("wallet without token or baid refused by server with key agreement", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodPost, pmWalletPath, http.StatusBadRequest,
			errorBody(400, "agreement", "Either a token or a baid must be supplied."))
		_, err := w.client.PaymentMethods.CreateWalletAgreement(context.Background(), "Paypal",
			&billing.WalletAgreementParams{Token: "EC-1", CustomerID: 42, Source: billing.PaymentSourceManual})
		ae := pmAPIError(t, err, http.StatusBadRequest, billing.ErrBadRequest)
		if !ae.HasKey("agreement") || !ae.HasKey("Agreement") {
			t.Errorf("HasKey(agreement) = false; Errors = %+v", ae.Errors)
		}
		if ae.HasKey("Api Error") {
			t.Errorf("HasKey(Api Error) = true for an agreement error")
		}
	})
	t.Run("replace card is not retried on 500", func(t *testing.T) {
		t.Parallel()
		w := newWire(t, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
		w.on(http.MethodPut, pmCardPath, http.StatusInternalServerError, errorBody(500, "Api Error", "boom"))
		_, err := w.client.PaymentMethods.ReplaceCreditCard(context.Background(), pmCard())
		pmAPIError(t, err, http.StatusInternalServerError, billing.ErrServer)
		if n := w.sent(); n != 1 {
			t.Errorf("requests sent = %d, want 1: a write must not be repeated after a 500", n)
		}
	})
}

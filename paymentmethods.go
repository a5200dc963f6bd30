package billing

import (
	"context"
	"net/http"
	"regexp"
	"unicode/utf16"

	"github.com/shopspring/decimal"
)

// PaymentMethodsService replaces credit cards and creates wallet billing
// agreements.
type PaymentMethodsService struct{ service }

// PaymentCollectOptions asks the service to collect an amount.
type PaymentCollectOptions struct {
	// CollectionAmount is collected when the card or agreement validates;
	// zero is sent as 0.
	CollectionAmount decimal.Decimal `json:"collectionAmount"`
}

// ReplaceCreditCardParams are the parameters of
// [PaymentMethodsService.ReplaceCreditCard].
//
// A read of a payment method returns a masked card number, so replacing a
// card needs the full CardNumber and CVV from the card holder. Both are
// masked in every fmt verb and in slog (see Format and LogValue); only the
// request body carries them.
//
// Lengths are in characters as the service counts them, in UTF-16 code
// units: "Müller" is 6, and a character beyond U+FFFF (an emoji, say) is
// 2.
type ReplaceCreditCardParams struct {
	// ID is the payment method to replace. Required.
	ID int64 `json:"id"`
	// CustomerID is the customer that owns it. Required.
	CustomerID int64 `json:"customerId"`
	// CardNumber is the full card number. Required.
	CardNumber string `json:"cardNumber"`
	// CVV is the card's verification value. Required.
	CVV string `json:"cvv"`
	// FirstName and LastName are at most 50 characters.
	FirstName string `json:"firstName,omitempty"`
	LastName  string `json:"lastName,omitempty"`
	// ExpirationMonth is 1 to 12. Required.
	ExpirationMonth int `json:"expirationMonth"`
	// ExpirationYear is the two-digit year (YY), 0 to 99. Required.
	ExpirationYear int `json:"expirationYear"`
	// Address1 and Address2 are at most 50 characters.
	Address1 string `json:"address1,omitempty"`
	Address2 string `json:"address2,omitempty"`
	// CountryID and StateID are the service's own country and state codes.
	CountryID *int64 `json:"countryId,omitempty"`
	StateID   *int64 `json:"stateId,omitempty"`
	// City is at most 50 characters; PostalZip at most 10. Both are
	// required by the service when address verification is in use.
	City      string `json:"city,omitempty"`
	PostalZip string `json:"postalZip,omitempty"`
	// IsDefault makes the new card the customer's default.
	IsDefault *bool `json:"isDefault,omitempty"`
	// PaymentCollectOptions collects an amount when the card validates.
	PaymentCollectOptions *PaymentCollectOptions `json:"paymentCollectOptions,omitempty"`
}

// cardFieldLimits are the reference's field length limits (section 8).
var cardFieldLimits = []struct {
	field string
	max   int
	get   func(*ReplaceCreditCardParams) string
}{
	{"firstName", 50, func(p *ReplaceCreditCardParams) string { return p.FirstName }},
	{"lastName", 50, func(p *ReplaceCreditCardParams) string { return p.LastName }},
	{"address1", 50, func(p *ReplaceCreditCardParams) string { return p.Address1 }},
	{"address2", 50, func(p *ReplaceCreditCardParams) string { return p.Address2 }},
	{"city", 50, func(p *ReplaceCreditCardParams) string { return p.City }},
	{"postalZip", 10, func(p *ReplaceCreditCardParams) string { return p.PostalZip }},
}

// utf16Len is the length of s as the service (.NET) counts characters:
// in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += max(utf16.RuneLen(r), 1)
	}
	return n
}

func (p *ReplaceCreditCardParams) validate() error {
	if p == nil {
		return invalid("ReplaceCreditCardParams", "required")
	}
	switch {
	case p.ID <= 0:
		return invalid("id", "must be a positive id, got %d", p.ID)
	case p.CustomerID <= 0:
		return invalid("customerId", "must be a positive id, got %d", p.CustomerID)
	case p.CardNumber == "":
		return invalid("cardNumber", "required: the full card number (reads return it masked)")
	case p.CVV == "":
		return invalid("cvv", "required")
	case p.ExpirationMonth < 1 || p.ExpirationMonth > 12:
		return invalid("expirationMonth", "must be 1 to 12, got %d", p.ExpirationMonth)
	case p.ExpirationYear < 0 || p.ExpirationYear > 99:
		return invalid("expirationYear", "must be a two-digit year (0 to 99), got %d", p.ExpirationYear)
	}
	for _, l := range cardFieldLimits {
		if n := utf16Len(l.get(p)); n > l.max {
			return invalid(l.field, "at most %d characters, got %d", l.max, n)
		}
	}
	if p.PaymentCollectOptions != nil && p.PaymentCollectOptions.CollectionAmount.IsNegative() {
		return invalid("paymentCollectOptions.collectionAmount", "must not be negative")
	}
	return nil
}

// CreditCard is a credit card payment method as the API returns it: the
// card number only masked, the CVV never.
type CreditCard struct {
	ID                             int64     `json:"id"`
	URI                            *string   `json:"uri"`
	CustomerID                     int64     `json:"customerId"`
	MaskedCardNumber               string    `json:"maskedCardNumber"`
	CardType                       string    `json:"cardType"`
	FirstName                      string    `json:"firstName"`
	LastName                       string    `json:"lastName"`
	ExpirationMonth                int       `json:"expirationMonth"`
	ExpirationYear                 int       `json:"expirationYear"`
	Address1                       *string   `json:"address1"`
	Address2                       *string   `json:"address2"`
	CountryID                      *int64    `json:"countryId"`
	Country                        *string   `json:"country"`
	StateID                        *int64    `json:"stateId"`
	State                          *string   `json:"state"`
	City                           *string   `json:"city"`
	PostalZip                      *string   `json:"postalZip"`
	IsDefault                      bool      `json:"isDefault"`
	ExternalCustomerID             *string   `json:"externalCustomerId"`
	ExternalCardID                 *string   `json:"externalCardId"`
	StoredInServiceVault           bool      `json:"storedInServiceVault"`
	Email                          *string   `json:"email"`
	ModifiedDate                   Timestamp `json:"modifiedDate"`
	OriginalPaymentMethodID        *int64    `json:"originalPaymentMethodId"`
	IsUsedForBillingPeriodOverride bool      `json:"isUsedForBillingPeriodOverride"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

// ReplaceCreditCard replaces a credit card payment method and returns the
// replacement, which has a new ID and a masked card number. It fails with
// [ErrBadRequest] when the payment method has been deleted or already
// replaced, or belongs to another customer, and with [ErrNotFound] for an
// unknown payment method. Params that
// the reference rules out (a missing id, card number or CVV, an expiry
// outside its range, a field over its length) are refused before sending with a
// [*ValidationError] matching [ErrInvalidParams]; neither error echoes the
// card number or CVV.
// It is a write: it is retried only when the server surely did not act on
// it, and its error matches [ErrOutcomeUnknown] whenever the answer does not
// prove it was not applied.
//
// When the outcome is unknown, send the same params again: the reference
// has no read of a payment method, but the service refuses to replace a
// card that was replaced, with [ErrBadRequest], so that answer proves the
// first attempt landed (params the SDK checks before sending cannot cause
// it). The new card's id was in the lost answer; the customer's payment
// methods in the billing application show it.
//
// API: PUT /v1/paymentMethods/creditCard
func (s *PaymentMethodsService) ReplaceCreditCard(ctx context.Context, params *ReplaceCreditCardParams, opts ...RequestOption) (*CreditCard, error) {
	if err := params.validate(); err != nil {
		return nil, err
	}
	cl := &call{
		op:     Operation{Name: "PaymentMethods.ReplaceCreditCard", Method: http.MethodPut, PathTemplate: "/v1/paymentMethods/creditCard"},
		method: http.MethodPut, path: "/v1/paymentMethods/creditCard", body: (*replaceCardWire)(params), write: true,
		secrets: newCallSecrets(params.CardNumber, params.CVV),
	}
	return doInto[CreditCard](ctx, s.client, cl, opts, nil)
}

// WalletAgreementParams are the parameters of
// [PaymentMethodsService.CreateWalletAgreement]. Token or Baid is required.
type WalletAgreementParams struct {
	// Token is the payee identifier at the wallet provider.
	Token string `json:"token,omitempty"`
	// Baid is the billing agreement identifier.
	Baid string `json:"baid,omitempty"`
	// PaymentCollectOptions collects an amount.
	PaymentCollectOptions *PaymentCollectOptions `json:"paymentCollectOptions,omitempty"`
	// CustomerID is the customer the agreement is for. Required.
	CustomerID int64 `json:"customerId"`
	// Source is where the payment comes from. Required.
	Source PaymentSource `json:"source"`
}

func (p *WalletAgreementParams) validate() error {
	switch {
	case p == nil:
		return invalid("WalletAgreementParams", "required")
	case p.Token == "" && p.Baid == "":
		return invalid("token", "token or baid is required")
	case p.CustomerID <= 0:
		return invalid("customerId", "must be a positive id, got %d", p.CustomerID)
	case p.Source == "":
		return invalid("source", "required (Manual, Automatic, SelfServicePortal or Import)")
	case p.PaymentCollectOptions != nil && p.PaymentCollectOptions.CollectionAmount.IsNegative():
		return invalid("paymentCollectOptions.collectionAmount", "must not be negative")
	}
	return nil
}

// WalletPaymentMethod is the payment method a wallet billing agreement
// creates.
type WalletPaymentMethod struct {
	ID                   int64     `json:"id"`
	CustomerID           int64     `json:"customerId"`
	FirstName            string    `json:"firstName"`
	LastName             string    `json:"lastName"`
	IsDefault            bool      `json:"isDefault"`
	StoredInServiceVault bool      `json:"storedInServiceVault"`
	ModifiedDate         Timestamp `json:"modifiedDate"`
	// Extra holds the members the service sent that the SDK does not
	// model; see [Extra].
	Extra Extra `json:"-"`
}

// WalletProvider names a payment-wallet provider: the path segment of its
// endpoint. The service matches it without regard to case, so "paypal"
// reaches the same endpoint as [WalletProviderPaypal].
type WalletProvider string

// WalletProviderPaypal is the provider the API reference names.
const WalletProviderPaypal WalletProvider = "Paypal"

// providerPattern keeps the provider a single path segment.
var providerPattern = regexp.MustCompile(`^[A-Za-z0-9]+$`)

// CreateWalletAgreement creates a payment-wallet billing agreement with the
// wallet provider (for example [WalletProviderPaypal]; letters and digits
// only) and returns the payment method it created.
//
// Before sending anything it rejects, with a [*ValidationError] matching
// [ErrInvalidParams], a provider that is not a single word, params without
// token or baid, a customerId that is not positive or a missing source.
// The service answers [ErrBadRequest] (key "agreement") when it cannot
// use the token or baid. It is a write: it is retried only when the
// server surely did not act on it, and its error matches
// [ErrOutcomeUnknown] when the agreement may have been created.
//
// When the outcome is unknown, do not send it again blindly: the
// reference has no read of an agreement and no rule against a second one,
// so a second call may create a second agreement. Look at the customer's
// payment methods in the billing application, or at the agreement with
// the wallet provider, first.
//
// API: POST /v1/{provider}
func (s *PaymentMethodsService) CreateWalletAgreement(ctx context.Context, provider WalletProvider, params *WalletAgreementParams, opts ...RequestOption) (*WalletPaymentMethod, error) {
	if !providerPattern.MatchString(string(provider)) {
		return nil, invalid("provider", "must be letters and digits only, e.g. Paypal")
	}
	if err := params.validate(); err != nil {
		return nil, err
	}
	cl := &call{op: Operation{Name: "PaymentMethods.CreateWalletAgreement", Method: http.MethodPost, PathTemplate: "/v1/{provider}"},
		method: http.MethodPost, path: "/v1/" + string(provider), body: params, write: true}
	return doInto[WalletPaymentMethod](ctx, s.client, cl, opts, nil)
}

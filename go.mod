module github.com/billingapi/billing-go

go 1.26

require (
	github.com/go-json-experiment/json v1.27.2
	github.com/google/go-querystring v1.2.0
	github.com/hashicorp/go-cleanhttp v0.5.2
	github.com/hashicorp/go-retryablehttp v0.7.8
	github.com/jarcoal/httpmock v1.4.2
	github.com/shopspring/decimal v1.6.0
	go.uber.org/goleak v1.3.0
)

require github.com/google/go-cmp v0.7.0

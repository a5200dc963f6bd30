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

require (
	github.com/getkin/kin-openapi v0.153.0
	github.com/google/go-cmp v0.7.0
)

require (
	github.com/go-openapi/jsonpointer v0.22.5 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	github.com/gorilla/mux v1.8.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.yaml.in/yaml/v4 v4.0.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)

package billing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
)

const tcPath = "/v1/salesTrackingCodes"

const tcActiveResponse = `{"type":"Sales Tracking Code 1","code":"SUMMER24","name":"Summer campaign","description":null,"email":null,"status":"Active","deletable":true,"id":501,"uri":"https://billing.example.test/v1/salesTrackingCodes/501"}`

// tcCreate is SalesTrackingCodes.Create, as the table tests send it.
func tcCreate(c *billing.Client, p *billing.CreateSalesTrackingCodeParams) error {
	_, err := c.SalesTrackingCodes.Create(context.Background(), p)
	return err
}

// tcEndpoint answers a created active code.
var tcEndpoint = endpoint{http.MethodPost, tcPath, tcActiveResponse}

func TestCreateSalesTrackingCodeRequest(t *testing.T) {
	t.Parallel()
	testBodies(t, tcEndpoint, tcCreate, []paramsCase[*billing.CreateSalesTrackingCodeParams]{
		{
			name:   "required fields only",
			params: &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "SUMMER24", Name: "Summer campaign"},
			want:   `{"type":"Sales Tracking Code 1","code":"SUMMER24","name":"Summer campaign"}`,
		},
		{
			name: "with description and email",
			params: &billing.CreateSalesTrackingCodeParams{
				Type: billing.TrackingCodeType5, Code: "REP-7", Name: "Rep 7",
				Description: "Western region rep", Email: "rep7@example.com",
			},
			want: `{"type":"Sales Tracking Code 5","code":"REP-7","name":"Rep 7","description":"Western region rep","email":"rep7@example.com"}`,
		},
		{
			name:   "with description only",
			params: &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType2, Code: "C", Name: "N", Description: "D"},
			want:   `{"type":"Sales Tracking Code 2","code":"C","name":"N","description":"D"}`,
		},
		{
			name:   "with email only",
			params: &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType3, Code: "C", Name: "N", Email: "a@b.example"},
			want:   `{"type":"Sales Tracking Code 3","code":"C","name":"N","email":"a@b.example"}`,
		},
		{
			name:   "custom category name and characters needing JSON escaping",
			params: &billing.CreateSalesTrackingCodeParams{Type: "Region", Code: `A&B "1"`, Name: "Nord <Ost>"},
			want:   `{"type":"Region","code":"A&B \"1\"","name":"Nord <Ost>"}`,
		},
	})
}

func TestCreateSalesTrackingCodeDecodesResponse(t *testing.T) {
	t.Parallel()
	t.Run("active code with null description and email", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodPost, tcPath, http.StatusOK, tcActiveResponse)
		code, err := w.client.SalesTrackingCodes.Create(context.Background(),
			&billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "SUMMER24", Name: "Summer campaign"})
		if err != nil {
			t.Fatal(err)
		}
		want := &billing.SalesTrackingCode{
			ID: 501, URI: billing.Ptr("https://billing.example.test/v1/salesTrackingCodes/501"),
			Type: billing.TrackingCodeType1, Code: "SUMMER24", Name: "Summer campaign",
			Description: nil, Email: nil, // null
			Status: billing.TrackingCodeStatusActive, Deletable: true,
		}
		if d := diff(want, code); d != "" {
			t.Errorf("Create returned another code:\n%s", d)
		}
		if !code.Status.IsKnown() {
			t.Errorf("Status %q is not known, want Active known", code.Status)
		}
	})
	t.Run("retired status is kept and not known", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodPost, tcPath, http.StatusOK,
			`{"type":"Region","code":"OLD","name":"Old region","description":"gone","email":"ops@example.com","status":"Retired","deletable":false,"id":502,"uri":null}`)
		code, err := w.client.SalesTrackingCodes.Create(context.Background(),
			&billing.CreateSalesTrackingCodeParams{Type: "Region", Code: "OLD", Name: "Old region"})
		if err != nil {
			t.Fatalf("an unknown status must decode without error: %v", err)
		}
		want := &billing.SalesTrackingCode{
			ID: 502, Type: "Region", Code: "OLD", Name: "Old region",
			Description: billing.Ptr("gone"), Email: billing.Ptr("ops@example.com"),
			Status: "Retired", // as sent
		}
		if d := diff(want, code); d != "" {
			t.Errorf("Create returned another code:\n%s", d)
		}
		if code.Status.IsKnown() {
			t.Errorf("Retired.IsKnown() = true, want false")
		}
	})
}
func TestCreateSalesTrackingCodeValidation(t *testing.T) {
	t.Parallel()
	testRefused(t, tcEndpoint, tcCreate, []paramsCase[*billing.CreateSalesTrackingCodeParams]{
		{"nil params", nil, "CreateSalesTrackingCodeParams"},
		{"missing type", &billing.CreateSalesTrackingCodeParams{Code: "C", Name: "N"}, "type"},
		{"missing code", &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Name: "N"}, "code"},
		{"missing name", &billing.CreateSalesTrackingCodeParams{Type: billing.TrackingCodeType1, Code: "C"}, "name"},
		{"all missing reports type first", &billing.CreateSalesTrackingCodeParams{Description: "d"}, "type"},
	})
}

func TestCreateSalesTrackingCodeErrors(t *testing.T) {
	t.Parallel()
	t.Run("invalid type lists the valid types", func(t *testing.T) {
		msg := "Type 'Sales Tracking Code 9' is not valid. Valid types are: Sales Tracking Code 1, Sales Tracking Code 2, Region, Sales Tracking Code 4, Sales Tracking Code 5"
		w := newWire(t)
		w.on(http.MethodPost, tcPath, http.StatusBadRequest, errorBody(400, "Api Error", msg))
		_, err := w.client.SalesTrackingCodes.Create(context.Background(),
			&billing.CreateSalesTrackingCodeParams{Type: "Sales Tracking Code 9", Code: "C", Name: "N"})
		ae := pmAPIError(t, err, http.StatusBadRequest, billing.ErrBadRequest)
		if len(ae.Errors) != 1 || ae.Errors[0].Key != "Api Error" || ae.Errors[0].Value != msg {
			t.Errorf("Errors = %+v, want the message kept whole", ae.Errors)
		}
		if ae.ErrorID != 1234 || ae.Method != http.MethodPost || ae.Path != tcPath {
			t.Errorf("ErrorID/Method/Path = %d %s %s", ae.ErrorID, ae.Method, ae.Path)
		}
		if !strings.Contains(err.Error(), "Valid types are: Sales Tracking Code 1") {
			t.Errorf("Error() = %q, want the server's message", err.Error())
		}
	})
}

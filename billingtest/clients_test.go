package billingtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// These tests send requests the way third-party clients of the API do
// (JavaScript and PHP SDKs, curl, the service's own documentation URLs),
// with a plain net/http client, and check the answers against the
// reference and the live service's ASP.NET conventions, not against what
// the SDK happens to send.

// ccFixtures is a small account with one of everything the routes read.
const ccFixtures = `{
  "customers": [{"id": 7, "firstName": "Ada", "lastName": "Lovelace"}, {"id": 8, "firstName": "Alan", "lastName": "Turing"}],
  "subscriptions": [{"id": 20, "customerId": 7, "planId": 9, "name": "Team",
    "products": [{"id": 21, "planProductId": 31, "name": "Seats", "price": 10, "planPrice": 12}]}],
  "invoices": [
    {"id": 42, "customerId": 7, "poNumber": "PO-1", "postedTimestamp": "2024-03-01T00:00:00",
     "charges": [{"name": "Seats", "quantity": 2, "unitPrice": 10, "subscriptionProductId": 21},
                 {"name": "SIM", "amount": 5, "purchaseId": 77, "tracked": true}]},
    {"id": 43, "customerId": 7, "poNumber": "PO-2", "postedTimestamp": "2024-03-02T00:00:00",
     "charges": [{"name": "Setup", "amount": 20, "purchaseId": 78}]},
    {"id": 44, "customerId": 8, "poNumber": "PO-3", "postedTimestamp": "2024-03-03T00:00:00",
     "charges": [{"name": "Setup", "amount": 30, "purchaseId": 79}]}
  ],
  "draftInvoices": [{"id": 3, "customerId": 7, "lines": [{"description": "Seats", "amount": 20}, {"description": "SIM", "amount": 5, "tracked": true}]}],
  "creditCards": [{"id": 910600, "customerId": 7, "last4": "4242", "cardType": "Visa", "expirationMonth": 12, "expirationYear": 27}],
  "subscriptionProductItems": [
    {"id": 90, "subscriptionProductId": 21, "name": "Seat A"},
    {"id": 91, "subscriptionProductId": 21, "name": "Seat B", "status": "Deleted"},
    {"id": 92, "subscriptionProductId": 21, "name": "Desk", "status": "Deleted"},
    {"id": 93, "subscriptionProductId": 21, "name": "Seat C"}
  ],
  "bulkJobs": [{"id": 910602, "type": "PriceChange", "validated": true}]
}`

var ccNow = time.Date(2024, 3, 15, 10, 0, 30, 0, time.UTC)

func ccServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	srv := NewServer(append([]Option{WithClock(func() time.Time { return ccNow })}, opts...)...)
	t.Cleanup(srv.Close)
	if err := srv.LoadFixtures(strings.NewReader(ccFixtures)); err != nil {
		t.Fatal(err)
	}
	return srv
}

// ccDo sends a request as written: the path and query are put on the
// wire byte for byte (Opaque), as a client that builds URLs by hand does.
func ccDo(t *testing.T, srv *Server, method, pathAndQuery, body string) wireAnswer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL, rd)
	if err != nil {
		t.Fatal(err)
	}
	path, query, _ := strings.Cut(pathAndQuery, "?")
	if strings.HasPrefix(path, "//") {
		// An opaque "//x/..." goes out in absolute form, naming host x:
		// name the fake's, so that the path is sent as it is.
		path = "//" + req.URL.Host + path
	}
	req.URL.Opaque, req.URL.RawQuery = path, query
	req.Header.Set("Authorization", "Basic "+srv.APIKey())
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	// The server's own client: httptest.Server.Close closes the idle
	// connections of http.DefaultTransport, which would break a request
	// of a parallel test on a reused connection.
	return readAnswer(t, srv.ts.Client(), req)
}

func TestClientsReadPathsInAnyCasing(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	cases := []struct {
		canonical string
		variants  []string
	}{
		{"/v1/Invoices?pageSize=2", []string{"/v1/invoices?pageSize=2", "/V1/INVOICES?pageSize=2", "/v1/Invoices/?pageSize=2", "/v1/invoices/?PageSize=2"}},
		{"/v1/Customers/7/Invoices/", []string{"/v1/Customers/7/Invoices", "/v1/customers/7/invoices", "/v1/customers/7/invoices/", "/V1/CUSTOMERS/7/INVOICES"}},
		{"/v1/Invoices/42", []string{"/v1/invoices/42", "/v1/Invoices/42/", "/v1/INVOICES/42?groupCharges=false", `/v1\Invoices\42`, `/v1/Invoices\42\`, "/v1%5CInvoices%5c42"}},
		{"/v1/Invoices/42?groupCharges=true", []string{"/v1/invoices/42/?groupcharges=True", "/v1/Invoices/42?GroupCharges=TRUE"}},
		{"/v1/customers/7/invoiceSummaries", []string{"/v1/Customers/7/InvoiceSummaries", "/v1/customers/7/invoicesummaries/", "/v1/CUSTOMERS/7/INVOICESUMMARIES"}},
		{"/v1/subscriptionProducts/21/items", []string{"/v1/subscriptionproducts/21/items", "/v1/SubscriptionProducts/21/Items/", "/v1/subscriptionProducts/21/items?unknownParam=1"}},
		{"/v1/draftInvoices/pdf/3", []string{"/v1/draftinvoices/pdf/3", "/v1/DraftInvoices/Pdf/3/", "/v1/DRAFTINVOICES/PDF/3"}},
	}
	for _, tc := range cases {
		want := ccDo(t, srv, http.MethodGet, tc.canonical, "")
		if want.status != http.StatusOK {
			t.Fatalf("GET %s: status %d, body %s", tc.canonical, want.status, want.body)
		}
		for _, v := range tc.variants {
			t.Run(v, func(t *testing.T) {
				t.Parallel()
				got := ccDo(t, srv, http.MethodGet, v, "")
				if got.status != want.status || !bytes.Equal(got.body, want.body) {
					t.Errorf("GET %s: status %d, body %.200s; want the answer to GET %s: %d, %.200s", v, got.status, got.body, tc.canonical, want.status, want.body)
				}
				for _, h := range []string{"X-Count", "X-MaxCount", "X-NextPage", "X-MaxPageIndex", "X-PageSize"} {
					if got.header.Get(h) != want.header.Get(h) {
						t.Errorf("GET %s: %s = %q, want %q", v, h, got.header.Get(h), want.header.Get(h))
					}
				}
			})
		}
	}
}

func TestClientsWritePathsInAnyCasing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		method, path, body string
	}{
		{"POST", "/v1/Invoices/writeoff", `{"invoiceId":43,"amount":20}`},
		{"POST", "/v1/INVOICES/WRITEOFF/", `{"invoiceId":43,"amount":20}`},
		{"PUT", "/v1/PaymentMethods/CreditCard", `{"id":910600,"customerId":7,"cardNumber":"4111111111111111","cvv":"123","expirationMonth":1,"expirationYear":30}`},
		{"PUT", "/v1/paymentmethods/creditcard/", `{"id":910600,"customerId":7,"cardNumber":"4111111111111111","cvv":"123","expirationMonth":1,"expirationYear":30}`},
		{"POST", "/v1/paypal", `{"token":"EC-1","customerId":7,"source":"Manual"}`},
		{"POST", "/v1/PAYPAL/", `{"baid":"B-1","customerId":7,"source":"manual"}`},
		{"POST", "/v1/SalesTrackingCodes/", `{"type":"Sales Tracking Code 1","code":"N","name":"North"}`},
		{"POST", "/v1/salestrackingcodes", `{"type":"sales tracking code 1","code":"S","name":"South"}`},
		{"POST", "/v1/subscribers/9/previewbulkpricechange/", `{"planProductIds":[],"selectAll":true}`},
		{"POST", "/v1/bulkapi/process", `{"id":910602}`},
		{"POST", "/v1/BULKAPI/PROCESS/", `{"id":910602}`},
		{"POST", `/v1\bulkapi\process`, `{"id":910602}`},
		// A body may start with a byte-order mark, as a .NET client's does.
		{"POST", "/v1/Invoices/writeoff", "\uFEFF" + `{"invoiceId":43,"amount":20}`},
		{"POST", "/v1/salestrackingcodes", "\uFEFF" + `{"type":"Sales Tracking Code 1","code":"B","name":"Marked"}`},
		{"POST", "/v1/bulkapi/process", "\uFEFF" + `{"id":910602}`},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			srv := ccServer(t)
			got := ccDo(t, srv, tc.method, tc.path, tc.body)
			if got.status != http.StatusOK {
				t.Errorf("status %d, body %s; want 200", got.status, got.body)
			}
		})
	}
}

func TestClientsUnknownPathsAndMethods(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	cases := []struct {
		method, path string
		status       int
		allow        string
	}{
		// A literal segment wins over the wallet's provider, in any case.
		{"POST", "/v1/invoices", http.StatusMethodNotAllowed, "GET"},
		{"POST", "/v1/INVOICES/", http.StatusMethodNotAllowed, "GET"},
		{"GET", "/v1/paypal", http.StatusMethodNotAllowed, "POST"},
		{"GET", "/v1/salesTrackingCodes", http.StatusMethodNotAllowed, "POST"},
		{"DELETE", "/v1/Invoices/42", http.StatusMethodNotAllowed, "GET"},
		{"POST", "/v1/Stripe", http.StatusNotFound, ""},
		{"GET", "/v1/nosuch", http.StatusNotFound, ""},
		{"GET", "/v1/Invoices//", http.StatusNotFound, ""},
		{"GET", "//v1/Invoices", http.StatusNotFound, ""},
		{"GET", "/v1/./Invoices", http.StatusNotFound, ""},
		{"GET", "/v1/Invoices/42/extra", http.StatusNotFound, ""},
		{"GET", "/v2/Invoices", http.StatusNotFound, ""},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			got := ccDo(t, srv, tc.method, tc.path, "")
			if got.status != tc.status || got.header.Get("Allow") != tc.allow {
				t.Errorf("status %d, Allow %q; want %d, %q (body %s)", got.status, got.header.Get("Allow"), tc.status, tc.allow, got.body)
			}
			wireError(t, got)
		})
	}
}

func TestClientsRawSemicolonInQuery(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	cases := []struct {
		name, raw, encoded string
		count              string
	}{
		{"items", "/v1/subscriptionProducts/21/items?query=name:Seat*;status:Deleted", "/v1/subscriptionProducts/21/items?query=name%3ASeat%2A%3Bstatus%3ADeleted", "1"},
		{"items after another parameter", "/v1/subscriptionproducts/21/items?pageSize=10&query=name:Seat*;status:Active&pageNumber=0", "/v1/subscriptionProducts/21/items?pageSize=10&pageNumber=0&query=name%3ASeat*%3Bstatus%3AActive", "2"},
		{"invoices", "/v1/Invoices?query=customerId:7;poNumber:PO-2", "/v1/Invoices?query=customerId%3A7%3BpoNumber%3APO-2", "1"},
		{"by customer", "/v1/customers/7/invoices?query=poNumber:PO*;invoiceNumber:42", "/v1/Customers/7/Invoices/?query=poNumber%3APO*%3BinvoiceNumber%3A42", "1"},
		{"summaries", "/v1/customers/7/invoiceSummaries?query=invoiceNumber:42,43;Id:43", "/v1/customers/7/invoiceSummaries?query=invoiceNumber%3A42%2C43%3BId%3A43", "1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw, enc := ccDo(t, srv, http.MethodGet, tc.raw, ""), ccDo(t, srv, http.MethodGet, tc.encoded, "")
			if raw.status != http.StatusOK || !bytes.Equal(raw.body, enc.body) {
				t.Fatalf("raw: %d %s; encoded: %d %s; want the same 200 answer", raw.status, raw.body, enc.status, enc.body)
			}
			if got := raw.header.Get("X-Count"); got != tc.count {
				t.Errorf("X-Count = %s, want %s: the filter was not applied", got, tc.count)
			}
		})
	}
	t.Run("a bad filter after ; is a 400, not an unfiltered list", func(t *testing.T) {
		t.Parallel()
		got := ccDo(t, srv, http.MethodGet, "/v1/subscriptionProducts/21/items?query=name:Seat*;nosuch:1", "")
		if got.status != http.StatusBadRequest || !strings.Contains(wireError(t, got).Value, "nosuch") {
			t.Errorf("status %d, body %s; want 400 naming nosuch", got.status, got.body)
		}
	})
	t.Run("bulk preview", func(t *testing.T) {
		t.Parallel()
		body := `{"planProductIds":[],"selectAll":true}`
		raw := ccDo(t, srv, http.MethodPost, "/v1/Subscribers/9/PreviewBulkPriceChange?query=FirstName:Ada;LastName:Nobody", body)
		enc := ccDo(t, srv, http.MethodPost, "/v1/Subscribers/9/PreviewBulkPriceChange?query=FirstName%3AAda%3BLastName%3ANobody", body)
		all := ccDo(t, srv, http.MethodPost, "/v1/Subscribers/9/PreviewBulkPriceChange?query=FirstName:Ada", body)
		if raw.status != http.StatusOK || !bytes.Equal(raw.body, enc.body) || bytes.Equal(raw.body, all.body) {
			t.Errorf("raw %d %s, encoded %s, first pair only %s: want raw = encoded != first pair only", raw.status, raw.body, enc.body, all.body)
		}
	})
}

func TestClientsSendNumbersAsStrings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path, body string
		check                    func(t *testing.T, srv *Server, r wireAnswer)
	}{
		{"write-off", "POST", "/v1/invoices/writeoff", `{"invoiceId":"43","amount":"20.00"}`, func(t *testing.T, srv *Server, r wireAnswer) {
			if inv, _ := srv.Invoice(43); !inv.OutstandingBalance.IsZero() {
				t.Errorf("outstanding balance %s after the write-off, want 0", inv.OutstandingBalance)
			}
		}},
		{"replace card", "PUT", "/v1/paymentMethods/creditCard", `{"id":"910600","customerId":"7","cardNumber":"4111111111111111","cvv":"123","expirationMonth":"1","expirationYear":"30","isDefault":"true"}`, func(t *testing.T, srv *Server, r wireAnswer) {
			var card struct{ ID, ExpirationMonth, ExpirationYear int64 }
			if err := json.Unmarshal(r.body, &card); err != nil || card.ExpirationMonth != 1 || card.ExpirationYear != 30 {
				t.Errorf("card %s, want expiration 1/30", r.body)
			}
			if old, _ := srv.CreditCard(910600); old.ReplacedBy != card.ID {
				t.Errorf("old card replaced by %d, want %d", old.ReplacedBy, card.ID)
			}
		}},
		{"wallet with numbers for strings", "POST", "/v1/Paypal", `{"token":910104,"customerId":"7","source":"Manual"}`, func(t *testing.T, srv *Server, r wireAnswer) {
			if ws := srv.WalletMethods(); len(ws) != 1 || ws[0].Token != "910104" {
				t.Errorf("wallet methods %+v, want one with token 910104", ws)
			}
		}},
		{"bulk process", "POST", "/v1/BulkApi/Process", `{"id":"910602"}`, func(t *testing.T, srv *Server, r wireAnswer) {
			if job, _ := srv.BulkJob(910602); !job.Processed {
				t.Error("job not processed")
			}
		}},
		{"preview", "POST", "/v1/Subscribers/9/PreviewBulkPriceChange", `{"planProductIds":["31"],"selectAll":"True","subscriptionIds":[]}`, nil},
		{"tracking code", "POST", "/v1/salesTrackingCodes", `{"type":"Sales Tracking Code 1","code":1001,"name":"North"}`, func(t *testing.T, srv *Server, r wireAnswer) {
			if codes := srv.SalesTrackingCodes(); len(codes) != 1 || codes[0].Code != "1001" {
				t.Errorf("codes %+v, want one with code 1001", codes)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := ccServer(t)
			r := ccDo(t, srv, tc.method, tc.path, tc.body)
			if r.status != http.StatusOK {
				t.Fatalf("status %d, body %s; want 200", r.status, r.body)
			}
			if tc.check != nil {
				tc.check(t, srv, r)
			}
		})
	}
}

func TestClientsGetClearErrorsForValuesThatDoNotConvert(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	cases := []struct {
		name, method, path, body string
		want                     string
	}{
		{"invoiceId", "POST", "/v1/invoices/writeoff", `{"invoiceId":"INV-43","amount":20}`, "invoiceId must be an integer"},
		{"amount", "POST", "/v1/invoices/writeoff", `{"invoiceId":43,"amount":"twenty"}`, "amount must be a number"},
		{"amount as an object", "POST", "/v1/invoices/writeoff", `{"invoiceId":43,"amount":{"value":20}}`, "amount must be a number"},
		{"expirationYear", "PUT", "/v1/paymentMethods/creditCard", `{"id":910600,"customerId":7,"cardNumber":"4111111111111111","cvv":"123","expirationMonth":1,"expirationYear":"20x30"}`, "expirationYear must be an integer"},
		{"collectionAmount", "PUT", "/v1/paymentMethods/creditCard", `{"id":910600,"cardNumber":"4111111111111111","cvv":"123","expirationMonth":1,"expirationYear":30,"paymentCollectOptions":{"collectionAmount":"lots"}}`, "paymentCollectOptions.collectionAmount must be a number"},
		{"selectAll", "POST", "/v1/Subscribers/9/PreviewBulkPriceChange", `{"planProductIds":[],"selectAll":"yes"}`, "selectAll must be true or false"},
		{"planProductIds element", "POST", "/v1/Subscribers/9/PreviewBulkPriceChange", `{"planProductIds":[31,"x"],"selectAll":true}`, "planProductIds[1] must be an integer"},
		{"bulk id overflows", "POST", "/v1/BulkApi/Process", `{"id":"99999999999999999999"}`, "id must be an integer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := ccDo(t, srv, tc.method, tc.path, tc.body)
			if r.status != http.StatusBadRequest {
				t.Fatalf("status %d, body %s; want 400", r.status, r.body)
			}
			msg := wireError(t, r).Value
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message %q, want it to contain %q", msg, tc.want)
			}
			for _, goWord := range []string{"Go struct", "int64", "decimal.Decimal", "Params", "4111111111111111", "json:"} {
				if strings.Contains(msg, goWord) {
					t.Errorf("message %q holds %q", msg, goWord)
				}
			}
		})
	}
}

func TestClientsBooleansInQueryStrings(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	routes := []struct{ path, param string }{
		{"/v1/Customers/7/Invoices/", "showTrackedItems"},
		{"/v1/Invoices/42", "showTrackedItems"},
		{"/v1/Invoices/42", "groupCharges"},
		{"/v1/draftInvoices/pdf/3", "showTrackedItems"},
	}
	for _, rt := range routes {
		canonical := map[bool]wireAnswer{
			true:  ccDo(t, srv, http.MethodGet, rt.path+"?"+rt.param+"=true", ""),
			false: ccDo(t, srv, http.MethodGet, rt.path+"?"+rt.param+"=false", ""),
		}
		if canonical[true].status != 200 || canonical[false].status != 200 || bytes.Equal(canonical[true].body, canonical[false].body) {
			t.Fatalf("%s: %s=true and =false give %d and %d with the same body", rt.path, rt.param, canonical[true].status, canonical[false].status)
		}
		absent := ccDo(t, srv, http.MethodGet, rt.path, "")
		if !bytes.Equal(absent.body, canonical[false].body) {
			t.Errorf("%s without %s differs from %s=false", rt.path, rt.param, rt.param)
		}
		for _, tc := range []struct {
			value string
			want  int // 1 true, 0 false, -1 a 400
		}{
			{"True", 1}, {"TRUE", 1}, {"tRuE", 1}, {"False", 0}, {"FALSE", 0}, {"%20true%20", 1},
			{"1", -1}, {"0", -1}, {"", -1}, {"yes", -1},
		} {
			t.Run(rt.path+"?"+rt.param+"="+tc.value, func(t *testing.T) {
				t.Parallel()
				got := ccDo(t, srv, http.MethodGet, rt.path+"?"+rt.param+"="+tc.value, "")
				if tc.want < 0 {
					if got.status != http.StatusBadRequest || !strings.Contains(wireError(t, got).Value, rt.param+" must be true or false") {
						t.Errorf("status %d, body %s; want 400 saying %s must be true or false", got.status, got.body, rt.param)
					}
					return
				}
				if want := canonical[tc.want == 1]; got.status != 200 || !bytes.Equal(got.body, want.body) {
					t.Errorf("status %d; want the answer to %s=%v", got.status, rt.param, tc.want == 1)
				}
			})
		}
	}
}

func TestClientsGetWithJSONBody(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	for _, path := range []string{"/v1/Invoices", "/v1/Invoices/42", "/v1/customers/7/invoices", "/v1/subscriptionProducts/21/items", "/v1/draftInvoices/pdf/3"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			without := ccDo(t, srv, http.MethodGet, path, "")
			with := ccDo(t, srv, http.MethodGet, path, `{"pageSize":"1","query":"nosuch:1"}`)
			if with.status != http.StatusOK || !bytes.Equal(with.body, without.body) {
				t.Errorf("with a body: %d %.200s; want the answer without one", with.status, with.body)
			}
		})
	}
}

func TestClientsPageUntilAnEmptyPage(t *testing.T) {
	t.Parallel()
	srv := NewServer(WithClock(func() time.Time { return ccNow }), WithGenerated(GenerateOptions{Seed: 3, Invoices: 57}))
	t.Cleanup(srv.Close)
	for _, base := range []string{"/v1/invoices/?pageSize=10", "/v1/Invoices?PAGESIZE=10&sortExpression=poNumber&sortOrder=descending"} {
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			seen := map[int64]bool{}
			var count, pages int
			for page := 0; ; page++ {
				r := ccDo(t, srv, http.MethodGet, base+"&pageNumber="+strconv.Itoa(page), "")
				if r.status != http.StatusOK {
					t.Fatalf("page %d: status %d, body %s", page, r.status, r.body)
				}
				var rows []struct{ ID int64 }
				if err := json.Unmarshal(r.body, &rows); err != nil {
					t.Fatal(err)
				}
				if page == 0 {
					count, _ = strconv.Atoi(r.header.Get("X-Count"))
					pages, _ = strconv.Atoi(r.header.Get("X-MaxPageIndex"))
				}
				next := r.header.Get("X-NextPage")
				if len(rows) == 0 {
					if next != "-1" || page != pages {
						t.Errorf("empty page %d: X-NextPage %s, X-MaxPageIndex %d; want -1 on page %d", page, next, pages, pages)
					}
					break
				}
				if wantNext := strconv.Itoa(page + 1); page+1 == pages {
					wantNext = "-1"
					if next != wantNext {
						t.Errorf("last page %d: X-NextPage %s, want -1", page, next)
					}
				} else if next != wantNext {
					t.Errorf("page %d: X-NextPage %s, want %s", page, next, wantNext)
				}
				for _, row := range rows {
					if seen[row.ID] {
						t.Fatalf("invoice %d on two pages", row.ID)
					}
					seen[row.ID] = true
				}
				if page > 100 {
					t.Fatal("the loop does not end")
				}
			}
			if len(seen) != count || count != 57 {
				t.Errorf("read %d invoices, X-Count %d; want 57", len(seen), count)
			}
		})
	}
}

// TestClientsSeeHeaderNamesAsTheReferenceWritesThem reads the answer's
// header block off the socket: net/http's client would canonicalise the
// names and hide the difference.
func TestClientsSeeHeaderNamesAsTheReferenceWritesThem(t *testing.T) {
	t.Parallel()
	srv := ccServer(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /v1/invoices?pageSize=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic %s\r\nConnection: close\r\n\r\n", srv.APIKey())
	rd := bufio.NewReader(conn)
	names := map[string]bool{}
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if name, _, ok := strings.Cut(line, ":"); ok {
			names[name] = true
		}
	}
	for _, want := range []string{
		"X-Count", "X-MaxCount", "X-CurrentPage", "X-NextPage", "X-PreviousPage", "X-PageSize", "X-MaxPageIndex", "X-SortOrder", "X-SortExpression",
		"X-Rate-Limit-Limit-Minute", "X-Rate-Limit-Remaining-Minute", "X-Rate-Limit-Reset-Minute",
		"X-Rate-Limit-Limit-Day", "X-Rate-Limit-Remaining-Day", "X-Rate-Limit-Reset-Day",
	} {
		if !names[want] {
			t.Errorf("header %s not sent byte for byte; sent %v", want, names)
		}
	}
}

func TestClientsErrorID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []Option
		want []int64
	}{
		{"default", nil, []int64{0, 0, 0}},
		{"numbered", []Option{WithNumberedErrors()}, []int64{1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := ccServer(t, tc.opts...)
			var got []int64
			for range tc.want {
				r := ccDo(t, srv, http.MethodGet, "/v1/Invoices/999", "")
				var body struct{ ErrorId int64 }
				if err := json.Unmarshal(r.body, &body); err != nil {
					t.Fatal(err)
				}
				got = append(got, body.ErrorId)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("ErrorIds %v, want %v", got, tc.want)
			}
		})
	}
}

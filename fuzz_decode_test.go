package billing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// The fuzz targets of this file: go test -run '^$' -fuzz '^FuzzDecodeResponses$' .
// and go test -run '^$' -fuzz '^FuzzDecimalJSON$' . (package billing, the
// module root). Their seeds are the f.Add calls below; inputs that failed
// once are kept under testdata/fuzz/<Target>/.

const (
	fuzzKey  = "sk_fuzz_DECODE_5a6b7c"
	fuzzCard = "4111111111111111"
	fuzzCVV  = "987"
)

// fuzzIDs are the ids an operation is called with. The fuzz target answers
// from memory, so there they only shape the request; for the seeds they
// name entities of billingtest/testdata/fixtures.json, or entities the
// fake does not have.
type fuzzIDs struct {
	customer, invoice, draft, card, plan, product, job int64
	provider                                           string
	amount                                             decimal.Decimal
	codeType                                           billing.TrackingCodeType
	code                                               string
}

// fuzzFixtureIDs name entities of the fixtures file that every operation
// succeeds on (card 700 is replaceable, job 950 validated and not yet
// processed, invoice 500 has 66.165 outstanding).
var fuzzFixtureIDs = fuzzIDs{
	customer: 100, invoice: 500, draft: 600, card: 700, plan: 900, product: 202, job: 950,
	provider: "Paypal", amount: decimal.RequireFromString("66.165"),
	codeType: billing.TrackingCodeType1, code: "FUZZ-1",
}

// fuzzOps are the table's operations as the fuzz target calls them,
// indexed by op % len(fuzzOps) in FuzzDecodeResponses.
var fuzzOps = func() []fuzzOp {
	var ops []fuzzOp
	for _, op := range apiOperations() {
		ops = append(ops, fuzzOp{op.name, op.fuzz})
	}
	return ops
}()

// fuzzOp is one operation as the fuzz target calls it. call returns the
// decoded result, or for the PDF the stream, which the caller reads and
// closes.
type fuzzOp struct {
	name string
	call func(ctx context.Context, c *billing.Client, ids fuzzIDs) (any, io.ReadCloser, error)
}

// fuzzAnswer is one HTTP answer, as the fuzz target replays it.
type fuzzAnswer struct {
	status      int
	contentType string
	body        []byte
}

// fuzzRoundTripper answers every request from memory.
type fuzzRoundTripper func(*http.Request) (*http.Response, error)

func (f fuzzRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// fuzzRecordingFake serves requests with the fake's handler, without a
// listener, and keeps the last answer.
type fuzzRecordingFake struct {
	h    http.Handler
	last fuzzAnswer
}

func (f *fuzzRecordingFake) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil {
		r.Body = http.NoBody // as a server hands it to its handlers
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, r)
	resp := rec.Result()
	f.last = fuzzAnswer{status: rec.Code, contentType: rec.Header().Get("Content-Type"), body: bytes.Clone(rec.Body.Bytes())}
	resp.Request = r
	return resp, nil
}

// fuzzFakeAnswers runs the operations against the fake seeded with the
// fixtures file and returns the answers it gave, per operation: the real
// bodies (successes, then 404, 400 and 409 error bodies) that seed the
// decoder.
func fuzzFakeAnswers(tb testing.TB) [][]fuzzAnswer {
	tb.Helper()
	srv, err := billingtest.NewHandler(
		billingtest.WithAPIKey(fuzzKey),
		billingtest.WithFixtures("billingtest/testdata/fixtures.json"),
		billingtest.WithClock(func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }),
	)
	if err != nil {
		tb.Fatalf("billingtest.NewHandler: %v", err)
	}
	rt := &fuzzRecordingFake{h: srv.Handler()}
	c, err := newFuzzClient(rt)
	if err != nil {
		tb.Fatalf("NewClient: %v", err)
	}
	missing := fuzzIDs{
		customer: 99999, invoice: 99998, draft: 99997, card: 99996, plan: 99995, product: 99994, job: 99993,
		provider: "Venmo", amount: decimal.RequireFromString("1.00"), codeType: "Sales Tracking Code 9", code: "NOPE",
	}
	refused := fuzzFixtureIDs
	refused.card, refused.job, refused.amount, refused.code = 701, 951, decimal.RequireFromString("1.00"), "FUZZ-1"
	grouped := fuzzFixtureIDs
	grouped.invoice = 501

	answers := make([][]fuzzAnswer, len(fuzzOps))
	for i, op := range fuzzOps {
		// ok; the same call again (a write is now refused: written off,
		// replaced, duplicate, processed); unknown ids; a refusal (deleted
		// card, job not validated, partial write-off); another invoice.
		for _, ids := range []fuzzIDs{fuzzFixtureIDs, fuzzFixtureIDs, missing, refused, grouped} {
			rt.last = fuzzAnswer{}
			_, rc, _ := op.call(context.Background(), c, ids)
			if rc != nil {
				_, _ = io.Copy(io.Discard, rc)
				_ = rc.Close()
			}
			if rt.last.status != 0 {
				answers[i] = append(answers[i], rt.last)
			}
		}
	}
	return answers
}

// fuzzEdgeBodies are bodies every decoder must refuse or accept cleanly.
var fuzzEdgeBodies = []string{
	"", " ", "null", "[]", "{}", "[null]", "[{}]", "[[]]", "[1,2,3]", `[""]`, `"text"`, "0", "-1", "true",
	"[", "{", `{"id":`, `[{"id":1},`, `[{"id":1}]]`, `{"id":1}{"id":2}`, `[{"id":1}] trailing`,
	`{"id":"1"}`, `{"id":1.5}`, `{"id":1e3}`, `{"id":99999999999999999999}`, `{"id":-9223372036854775808}`,
	`{"subtotal":"abc"}`, `{"subtotal":1e400}`, `{"subtotal":"1e-400"}`, `{"subtotal":[]}`, `{"subtotal":{}}`,
	`{"subtotal":0.1e2147483647}`, `{"invoiceAmount":-0.0}`,
	`{"modifiedDate":"2024-13-01T00:00:00"}`, `{"modifiedDate":12}`,
	`{"postedTimestamp":"2024-03-01T10:15:30.1234567890"}`, `{"createdDate":"0001-01-01T00:00:00Z"}`,
	`[{"reference":1e999}]`, `[{"reference":{"a":1}}]`, `[{"reference":null,"status":"Bogus"}]`,
	`{"charges":[{"quantity":"x"}]}`, `{"chargeGroups":null,"charges":null}`, `{"taxes":[1,{"a":[]}]}`,
	`{"filterOptions":{"code1":"1,x"}}`, `{"planId":1,"subscriptions":"no"}`,
	"\xff\xfe\x00{", "\ufeff{}", `{"a":"\ud800"}`, strings.Repeat("[", 2000) + strings.Repeat("]", 2000),
	`{"ErrorId":1234,"HttpStatusCode":404,"Errors":[{"Key":"Api Error","Value":"not found"}]}`,
	`{"ErrorId":0,"HttpStatusCode":0,"Errors":[]}`, `{"Errors":null}`, `{"Errors":[{"Key":1}]}`,
	`{"ErrorId":"x","Errors":[{"Key":"k","Value":"v"}]}`,
	`{"Errors":[{"Key":"Api Error","Value":"card ` + fuzzCard + ` cvv ` + fuzzCVV + ` key ` + fuzzKey + `"}]}`,
	"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
	"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF",
}

// fuzzEdgeAnswers are statuses and content types at the edges.
var fuzzEdgeAnswers = []fuzzAnswer{
	{200, "application/json", nil}, {200, "", nil}, {200, "text/html; charset=utf-8", nil},
	{200, "application/json; charset=utf-8", nil}, {201, "application/problem+json", nil},
	{200, "text/json", nil}, {200, "application/pdf", nil}, {200, "application/octet-stream", nil},
	{200, "application/json;;", nil}, {200, "APPLICATION/JSON", nil}, {200, "multipart/mixed; boundary=", nil},
	{204, "", nil}, {299, "application/json", nil}, {100, "", nil}, {101, "", nil}, {199, "", nil},
	{301, "text/html", nil}, {304, "", nil}, {399, "", nil},
	{400, "application/json", nil}, {401, "application/json", nil}, {404, "application/json; charset=utf-8", nil},
	{409, "application/json", nil}, {413, "", nil}, {429, "application/json", nil}, {499, "text/plain", nil},
	{500, "text/html", nil}, {502, "", nil}, {503, "application/json", nil}, {599, "", nil}, {999, "", nil},
	{0, "", nil}, {-1, "", nil}, {1 << 30, "application/json", nil},
}

func FuzzDecodeResponses(f *testing.F) {
	seen := map[string]bool{}
	add := func(op int, status int, contentType string, body []byte) {
		key := fmt.Sprintf("%d|%d|%s|%s", op%len(fuzzOps), status, contentType, body)
		if !seen[key] {
			seen[key] = true
			f.Add(byte(op%len(fuzzOps)), status, contentType, body)
		}
	}
	// What the fake answers each operation: successes and error bodies.
	for op, answers := range fuzzFakeAnswers(f) {
		for _, a := range answers {
			add(op, a.status, a.contentType, a.body)
		}
	}
	// The committed invoice bodies, as the answer of the calls that return
	// an invoice or a list of them, and of one that returns something else.
	for _, name := range []string{"testdata/invoice.json", "testdata/invoice_grouped.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		list := append(append([]byte("["), b...), ']')
		for _, op := range []int{2, 5} { // Get, WriteOff
			add(op, 200, "application/json; charset=utf-8", b)
		}
		for _, op := range []int{0, 1, 3, 9} { // the lists
			add(op, 200, "application/json", list)
		}
		add(6, 200, "application/json", b)
		add(11, 201, "", b)
	}
	// Edge bodies, each for two operations as a 200 and for a third with
	// an edge status or content type.
	for i, body := range fuzzEdgeBodies {
		add(i, 200, "application/json", []byte(body))
		add(i+5, 200, "application/json; charset=utf-8", []byte(body))
		a := fuzzEdgeAnswers[i%len(fuzzEdgeAnswers)]
		add(i+7, a.status, a.contentType, []byte(body))
	}
	// Edge statuses and content types, with a body that decodes and with
	// the API's error body.
	for i, a := range fuzzEdgeAnswers {
		add(i, a.status, a.contentType, []byte(`{"id":1}`))
		add(i+6, a.status, a.contentType, []byte(`{"ErrorId":7,"HttpStatusCode":400,"Errors":[{"Key":"Api Error","Value":"refused"}]}`))
	}

	f.Fuzz(func(t *testing.T, op byte, status int, contentType string, body []byte) {
		// A status on the wire has three digits.
		if status < 100 || status > 999 {
			status = 100 + int(uint(status)%900)
		}
		rt := fuzzRoundTripper(func(req *http.Request) (*http.Response, error) {
			if req.Body != nil {
				_, _ = io.Copy(io.Discard, req.Body)
				_ = req.Body.Close()
			}
			h := http.Header{}
			if contentType != "" {
				h.Set("Content-Type", contentType)
			}
			return &http.Response{
				Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
				StatusCode:    status,
				Proto:         "HTTP/1.1",
				ProtoMajor:    1,
				ProtoMinor:    1,
				Header:        h,
				Body:          io.NopCloser(bytes.NewReader(body)),
				ContentLength: int64(len(body)),
				Request:       req,
			}, nil
		})
		c, err := newFuzzClient(rt)
		if err != nil {
			t.Fatalf("NewClient: %v", err)
		}
		o := fuzzOps[int(op)%len(fuzzOps)]
		res, stream, err := o.call(context.Background(), c, fuzzFixtureIDs)
		if stream != nil {
			// Reading the stream must not panic; a read error is allowed
			// (the body may be cut, or too large).
			_, _ = io.Copy(io.Discard, stream)
			if cerr := stream.Close(); cerr != nil {
				t.Errorf("%s: closing the PDF stream: %v", o.name, cerr)
			}
		}
		if err == nil {
			if res == nil && stream == nil {
				t.Fatalf("%s: no error and no result", o.name)
			}
			if status < 200 || status > 299 {
				t.Fatalf("%s: status %d answered without error", o.name, status)
			}
			return
		}
		if res != nil && !fuzzIsNilPointer(res) || stream != nil {
			t.Errorf("%s: both a result and an error (%v)", o.name, err)
		}
		var (
			apiErr *billing.APIError
			decErr *billing.DecodeError
			reqErr *billing.RequestError
			valErr *billing.ValidationError
		)
		switch {
		case errors.As(err, &apiErr):
			if apiErr.StatusCode != status {
				t.Errorf("%s: APIError.StatusCode = %d, want %d", o.name, apiErr.StatusCode, status)
			}
			if status >= 200 && status <= 299 {
				t.Errorf("%s: APIError for a %d answer: %v", o.name, status, err)
			}
		case errors.As(err, &decErr):
			if status < 200 || status > 299 {
				t.Errorf("%s: DecodeError for a %d answer: %v", o.name, status, err)
			}
		case errors.As(err, &reqErr), errors.As(err, &valErr):
		default:
			t.Fatalf("%s: error %T is none of *APIError, *DecodeError, *RequestError, *ValidationError: %v", o.name, err, err)
		}
		msg := err.Error()
		if strings.TrimSpace(msg) == "" {
			t.Fatalf("%s: empty error message (%T)", o.name, err)
		}
		if !strings.HasPrefix(msg, "billing: ") {
			t.Errorf("%s: error message %q does not say where it comes from", o.name, msg)
		}
		// The SDK promises that the API key, and the card number of a card
		// replacement, never appear in an error message, even when the
		// server echoes them.
		if strings.Contains(msg, fuzzKey) {
			t.Errorf("%s: error message holds the API key: %q", o.name, msg)
		}
		if o.name == "PaymentMethods.ReplaceCreditCard" && strings.Contains(msg, fuzzCard) {
			t.Errorf("%s: error message holds the card number: %q", o.name, msg)
		}
	})
}

// newFuzzClient is a client whose requests rt answers, without retries.
func newFuzzClient(rt http.RoundTripper) (*billing.Client, error) {
	return billing.NewClient(fuzzKey,
		billing.WithBaseURL("https://billing.example.test"),
		billing.WithHTTPClient(&http.Client{Transport: rt}),
		billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: billing.NoRetries}),
	)
}

// fuzzIsNilPointer reports whether v is a typed nil pointer, which is what the
// operations return with an error.
func fuzzIsNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// fuzzJSONNumber is the JSON number grammar (RFC 8259, section 6).
var fuzzJSONNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// fuzzLongDigitRun is a run of digits the SDK refuses to parse.
var fuzzLongDigitRun = regexp.MustCompile(fmt.Sprintf("[0-9]{%d}", jsonwire.MaxDigitRun+1))

// fuzzMaxExpandedDigits bounds the re-encoding check, which writes every digit
// ("1e6" is a 1 and six zeros). The decoder refuses exponents beyond
// decimal.MaxDecodeExponent (10,000), so every decodable amount is within
// the bound unless that limit is raised; the bound keeps the target fast
// if it ever is.
const fuzzMaxExpandedDigits = 1 << 16

func FuzzDecimalJSON(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "1", "-1", "10.125", "10.50", "0.1", "0.000001", "123456789012345678901234567890.123456789",
		"-99999999999999999999.99999999999999999999", "1e2", "1E2", "1e+2", "1e-2", "-1.5e-3", "0e10", "0.0e-10",
		"12.34e5", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
		"1e400", "1e-400", "4.9e-324", "1.7976931348623157e308", "1e2147483647", "1e-2147483648", "1e2147483648",
		"0.1e2147483647", "1e99999999999", "1e10000", "1e10001", "1e-10000", "-1.5e-10001", "123.456e9999", "00", "01", "1.", ".1", "+1", "-", "1e", "1e+", "--1", "0x10", "1_000",
		"NaN", "Infinity", "-Infinity", `"10.125"`, `"abc"`, `""`, "null", "true", "[]", "{}", " 1 ", "1 2",
		"\u0661", "1\x00", "١٢٣", "1,5", "1e1e1",
	} {
		f.Add(s)
	}
	// The amounts of the committed invoice bodies.
	numRe := regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`)
	for _, name := range []string{"testdata/invoice.json", "testdata/invoice_grouped.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range numRe.FindAll(b, 40) {
			f.Add(string(m))
		}
	}

	f.Fuzz(func(t *testing.T, n string) {
		// The SDK's decoder and encoder, as an answer and a request body
		// go through them.
		var inv billing.Invoice
		decErr := jsonwire.Unmarshal([]byte(`{"subtotal":`+n+`}`), &inv)
		if !fuzzJSONNumber.MatchString(n) {
			return // anything else only must not panic
		}
		if fuzzLongDigitRun.MatchString(n) {
			// Parsing it would cost time superlinear in its length.
			if !errors.Is(decErr, jsonwire.ErrNumberTooLong) {
				t.Fatalf("%q: a run of more than %d digits gave %v, want ErrNumberTooLong", n, jsonwire.MaxDigitRun, decErr)
			}
			return
		}
		want, wantErr := decimal.NewFromString(n)
		if wantErr != nil {
			// A JSON number decimal cannot hold (an exponent past int32):
			// decoding must fail too, not make up a value.
			if decErr == nil {
				t.Fatalf("%q: decoded as %s, but decimal.NewFromString refuses it: %v", n, inv.Subtotal.String(), wantErr)
			}
			return
		}
		if decErr != nil {
			t.Fatalf("%q: a valid JSON number did not decode: %v", n, decErr)
		}
		if !inv.Subtotal.Equal(want) {
			t.Fatalf("%q: decoded %s, want %s", n, inv.Subtotal.String(), want.String())
		}
		if inv.Subtotal.Exponent() != want.Exponent() || inv.Subtotal.Coefficient().Cmp(want.Coefficient()) != 0 {
			t.Fatalf("%q: decoded coefficient %s exponent %d, want %s and %d (digits changed)",
				n, inv.Subtotal.Coefficient(), inv.Subtotal.Exponent(), want.Coefficient(), want.Exponent())
		}
		if fuzzExpandedDigits(want) > fuzzMaxExpandedDigits {
			return
		}
		b, err := jsonwire.Marshal(inv)
		if err != nil {
			t.Fatalf("%q: jsonwire.Marshal: %v", n, err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatalf("%q: re-encoded invoice is not JSON: %v\n%s", n, err, b)
		}
		wire := string(raw["subtotal"])
		if !fuzzJSONNumber.MatchString(wire) || strings.ContainsAny(wire, "eE") {
			t.Fatalf("%q: subtotal re-encoded as %s, want a plain JSON number", n, wire)
		}
		var back billing.Invoice
		if fuzzLongDigitRun.MatchString(wire) {
			// 1e300 written out: the SDK writes what it cannot read back.
			if err := jsonwire.Unmarshal(b, &back); !errors.Is(err, jsonwire.ErrNumberTooLong) {
				t.Fatalf("%q: decoding %d digits gave %v, want ErrNumberTooLong", n, len(wire), err)
			}
			return
		}
		if err := jsonwire.Unmarshal(b, &back); err != nil {
			t.Fatalf("%q: decoding the re-encoded invoice: %v", n, err)
		}
		if !back.Subtotal.Equal(want) {
			t.Fatalf("%q: round trip gave %s (wire %s), want %s", n, back.Subtotal.String(), wire, want.String())
		}
		// The re-encoding is canonical: encoding again gives the same text.
		b2, err := jsonwire.Marshal(back)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("%q: encoding is not stable: %s vs %s (%v)", n, b, b2, err)
		}
	})
}

// fuzzExpandedDigits is how many characters the plain form of d has, about.
func fuzzExpandedDigits(d decimal.Decimal) int {
	exp := int64(d.Exponent())
	if exp < 0 {
		exp = -exp
	}
	return int(min(exp, 1<<40)) + d.NumDigits()
}

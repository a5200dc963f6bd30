package billing_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/shopspring/decimal"
)

// The card number, the CVV and the API key appear in no fmt or slog output
// of any value, no error and no log line of the client. Secrets a server
// echoes back: the tests of scrubbing below; every operation, failing and
// retried: secrets_sweep_test.go.

// secAddr matches heap addresses as fmt prints them, with or without 0x,
// so that a pointer that happens to contain the digits 987 is not a leak.
var secAddr = regexp.MustCompile(`(0x)?c[0-9a-f]{9,11}`)

// secAssertNoSecrets fails if out holds the card number, the CVV or the API
// key, in clear or hex-encoded.
func secAssertNoSecrets(t *testing.T, what, out string) {
	t.Helper()
	clean := secAddr.ReplaceAllString(out, "ADDR")
	for _, s := range []string{secCard, testKey} {
		if strings.Contains(clean, s) {
			t.Errorf("%s leaks %q:\n%s", what, s, out)
		}
		if h := hex.EncodeToString([]byte(s)); strings.Contains(strings.ToLower(clean), h) {
			t.Errorf("%s leaks %q hex-encoded:\n%s", what, s, out)
		}
	}
	if leaksCVV(clean, secCVV) {
		t.Errorf("%s leaks the CVV %q:\n%s", what, secCVV, out)
	}
	if h := hex.EncodeToString([]byte(secCVV)); strings.Contains(strings.ToLower(clean), h) {
		t.Errorf("%s leaks the CVV hex-encoded:\n%s", what, out)
	}
}

// secJob is a caller's struct that holds replace-card params.
type secJob struct {
	Params billing.ReplaceCreditCardParams
}

// secLockedBuffer is a bytes.Buffer safe for concurrent writes.
type secLockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *secLockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *secLockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestSecretsFmtReplaceCreditCardParams(t *testing.T) {
	t.Parallel()
	p := secParams()
	type holder struct {
		Name   string
		Params billing.ReplaceCreditCardParams
		Ptr    *billing.ReplaceCreditCardParams
	}
	values := []struct {
		name         string
		v            any
		showsLastFor bool // the masked number (last four digits) must be visible
	}{
		{"value", p, true},
		{"pointer", &p, true},
		{"nested in a struct", holder{Name: "job", Params: p, Ptr: &p}, true},
		{"nested in a struct pointer", &holder{Name: "job", Params: p}, true},
		{"slice of values", []billing.ReplaceCreditCardParams{p, p}, true},
		{"slice of pointers", []*billing.ReplaceCreditCardParams{&p}, false},
		{"map value", map[string]billing.ReplaceCreditCardParams{"k": p}, true},
		{"in an interface slice", []any{p, &p}, true},
	}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%X", "%q", "%10.3v", "%T"}
	for _, v := range values {
		for _, verb := range verbs {
			t.Run(v.name+"/"+verb, func(t *testing.T) {
				t.Parallel()
				out := fmt.Sprintf(verb, v.v)
				secAssertNoSecrets(t, fmt.Sprintf("Sprintf(%q)", verb), out)
				if v.showsLastFor && (verb == "%v" || verb == "%+v" || verb == "%#v" || verb == "%s" || verb == "%q") {
					if !strings.Contains(out, "************1111") {
						t.Errorf("masked card number with last four digits missing from %s output:\n%s", verb, out)
					}
				}
			})
		}
	}
	t.Run("Sprint and Sprintln", func(t *testing.T) {
		t.Parallel()
		secAssertNoSecrets(t, "Sprint", fmt.Sprint(p, &p))
		secAssertNoSecrets(t, "Sprintln", fmt.Sprintln(p, &p))
	})
	t.Run("String and GoString", func(t *testing.T) {
		t.Parallel()
		s, g := p.String(), p.GoString()
		secAssertNoSecrets(t, "String", s)
		secAssertNoSecrets(t, "GoString", g)
		if !strings.Contains(s, "1111") || !strings.Contains(g, "billing.ReplaceCreditCardParams") {
			t.Errorf("String = %s\nGoString = %s", s, g)
		}
	})
	t.Run("short card number is fully redacted", func(t *testing.T) {
		t.Parallel()
		q := secParams()
		q.CardNumber = "41111"
		out := fmt.Sprintf("%+v", q)
		if strings.Contains(out, "41111") || !strings.Contains(out, "[REDACTED]") {
			t.Errorf("out = %s", out)
		}
	})
	t.Run("nil pointer prints as nil", func(t *testing.T) {
		t.Parallel()
		var np *billing.ReplaceCreditCardParams
		if out := fmt.Sprintf("%v", np); out != "<nil>" {
			t.Errorf("out = %q, want <nil>", out)
		}
	})
	t.Run("printing does not change the params", func(t *testing.T) {
		t.Parallel()
		_ = fmt.Sprintf("%v %+v %#v", p, &p, []any{p})
		if p.CardNumber != secCard || p.CVV != secCVV {
			t.Errorf("params changed: %q %q", p.CardNumber, p.CVV)
		}
	})
}

func TestSecretsSlogReplaceCreditCardParams(t *testing.T) {
	t.Parallel()
	p := secParams()
	attrs := []struct {
		name string
		attr slog.Attr
	}{
		{"value", slog.Any("params", p)},
		{"pointer", slog.Any("params", &p)},
		{"in a group", slog.Group("request", slog.Any("params", p), slog.String("op", "replace"))},
		{"nested in a struct", slog.Any("job", secJob{Params: p})},
		{"in a slice", slog.Any("batch", []billing.ReplaceCreditCardParams{p})},
	}
	handlers := []struct {
		name string
		new  func(*bytes.Buffer) slog.Handler
	}{
		// The time attribute is dropped: a timestamp's fraction (.987) could
		// otherwise pass for the CVV and make the check flaky.
		{"json", func(b *bytes.Buffer) slog.Handler {
			return slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: secDropTime})
		}},
		{"text", func(b *bytes.Buffer) slog.Handler {
			return slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: secDropTime})
		}},
	}
	for _, h := range handlers {
		for _, a := range attrs {
			t.Run(h.name+"/"+a.name, func(t *testing.T) {
				var buf bytes.Buffer
				logger := slog.New(h.new(&buf))
				logger.LogAttrs(context.Background(), slog.LevelDebug, "replacing card", a.attr)
				out := buf.String()
				if out == "" {
					t.Fatal("nothing logged")
				}
				secAssertNoSecrets(t, "slog output", out)
				if !strings.Contains(out, "1111") {
					t.Errorf("last four digits missing:\n%s", out)
				}
			})
		}
	}
	t.Run("json fields of the logged value", func(t *testing.T) {
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})).Debug("replacing card", "params", p)
		var line struct {
			Params map[string]any `json:"params"`
		}
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatalf("log line is not JSON: %v\n%s", err, buf.String())
		}
		if line.Params["cardNumber"] != "************1111" || line.Params["cvv"] != "[REDACTED]" {
			t.Errorf("params = %v", line.Params)
		}
		if line.Params["id"] != float64(1001) || line.Params["customerId"] != float64(42) {
			t.Errorf("non-secret fields missing: %v", line.Params)
		}
	})
}

// TestSecretsMarshalJSON checks the masked encoding that loggers and
// tools get: the request body's form, amounts as bare numbers, with the
// card number masked and the CVV redacted.
func TestSecretsMarshalJSON(t *testing.T) {
	t.Parallel()
	p := billing.ReplaceCreditCardParams{
		ID: 1001, CustomerID: 42, CardNumber: secCard, CVV: secCVV, ExpirationMonth: 12, ExpirationYear: 30,
		PaymentCollectOptions: &billing.PaymentCollectOptions{CollectionAmount: decimal.RequireFromString("19.50")},
	}
	got, err := json.Marshal(p)
	want := `{"id":1001,"customerId":42,"cardNumber":"************1111","cvv":"[REDACTED]",` +
		`"expirationMonth":12,"expirationYear":30,"paymentCollectOptions":{"collectionAmount":19.5}}`
	if err != nil || string(got) != want {
		t.Errorf("json.Marshal = %s, %v\nwant %s", got, err, want)
	}
}

func TestSecretsClientFmt(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	c := w.client
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
		t.Run("pointer "+verb, func(t *testing.T) {
			out := fmt.Sprintf(verb, c)
			secAssertNoSecrets(t, "client", out)
		})
		t.Run("value "+verb, func(t *testing.T) {
			out := fmt.Sprintf(verb, *c)
			secAssertNoSecrets(t, "client value", out)
		})
	}
	t.Run("services", func(t *testing.T) {
		out := fmt.Sprintf("%+v %#v %+v", c.PaymentMethods, c.Bulk, *c.PaymentMethods)
		secAssertNoSecrets(t, "service", out)
	})
	t.Run("slog", func(t *testing.T) {
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("client", "client", c, "value", *c)
		secAssertNoSecrets(t, "slog of client", buf.String())
	})
}

func TestClientPrintsNoKey(t *testing.T) {
	t.Parallel()
	c, err := billing.NewClient(testKey, billing.WithBaseURL(testBaseURL))
	if err != nil {
		t.Fatal(err)
	}
	// The client keeps the key's longest run of letters and digits apart,
	// to search answers for it: that part of the key must not show either.
	const run = "7f3a9c"
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
		for _, v := range []any{c, *c, c.Invoices, *c.Invoices} {
			if out := fmt.Sprintf(format, v); strings.Contains(out, testKey) || strings.Contains(out, run) || strings.Contains(out, hex.EncodeToString([]byte(run))) {
				t.Errorf("%s of %T leaks the key: %s", format, v, out)
			}
		}
	}
}

func TestSecretsErrors(t *testing.T) {
	t.Parallel()
	echo := "Card " + secCard + " with CVV " + secCVV + " was declined for key " + testKey
	t.Run("400 echoing card, cvv and key in the envelope", func(t *testing.T) {
		t.Parallel()
		p := secParams()
		ae, err := secRefusedCard(t, &p, errorBody(400, "Api Error", echo))
		secAssertNoSecrets(t, "err.Error()", err.Error())
		secAssertNoSecrets(t, "%+v of the error", fmt.Sprintf("%+v", err))
		for i, d := range ae.Errors {
			secAssertNoSecrets(t, fmt.Sprintf("Errors[%d]", i), d.Key+" "+d.Value)
		}
		if len(ae.Errors) != 1 || !strings.Contains(ae.Errors[0].Value, "[REDACTED]") || !strings.Contains(ae.Errors[0].Value, "was declined") {
			t.Errorf("Errors = %+v, want the message kept with the secrets redacted", ae.Errors)
		}
		if p.CardNumber != secCard || p.CVV != secCVV {
			t.Errorf("caller's params changed")
		}
	})
	t.Run("400 echoing secrets in a body that is not the envelope", func(t *testing.T) {
		t.Parallel()
		ae, err := secRefusedCard(t, new(secParams()), "<html><body>Bad request: "+echo+"</body></html>")
		secAssertNoSecrets(t, "err.Error()", err.Error())
		secAssertNoSecrets(t, "APIError.Body", ae.Body)
		if !strings.Contains(ae.Body, "was declined") {
			t.Errorf("Body = %q, want the excerpt kept", ae.Body)
		}
	})
	t.Run("card number cut by the excerpt limit of a non-envelope body", func(t *testing.T) {
		// The excerpt keeps 512 bytes; the card number starts at byte 500,
		// so the excerpt ends inside it and holds its first 12 digits.
		ae, err := secRefusedCard(t, new(secParams()), strings.Repeat("x", 500)+secCard+" declined")
		for _, s := range []string{ae.Body, err.Error()} {
			if strings.Contains(s, secCard[:12]) {
				t.Errorf("the first 12 digits of the card number survive redaction: %q", s[max(0, len(s)-40):])
			}
		}
	})
	t.Run("secrets echoed in the error key", func(t *testing.T) {
		t.Parallel()
		_, err := secRefusedCard(t, new(secParams()), errorBody(400, secCard, "declined"))
		secAssertNoSecrets(t, "err.Error()", err.Error())
	})
	t.Run("401 echoing the api key", func(t *testing.T) {
		t.Parallel()
		w := newWire(t)
		w.on(http.MethodPost, pmWalletPath, http.StatusUnauthorized, errorBody(401, "Api Error", "API key "+testKey+" is not valid"))
		_, err := w.client.PaymentMethods.CreateWalletAgreement(context.Background(), "Paypal",
			&billing.WalletAgreementParams{Token: "EC-1", CustomerID: 42, Source: billing.PaymentSourceManual})
		if !errors.Is(err, billing.ErrUnauthorized) {
			t.Fatalf("err = %v, want ErrUnauthorized", err)
		}
		secAssertNoSecrets(t, "err.Error()", err.Error())
	})
	t.Run("validation errors", func(t *testing.T) {
		for _, mutate := range []func(*billing.ReplaceCreditCardParams){
			func(p *billing.ReplaceCreditCardParams) { p.ExpirationMonth = 13 },
			func(p *billing.ReplaceCreditCardParams) { p.ExpirationYear = 2029 },
			func(p *billing.ReplaceCreditCardParams) { p.FirstName = strings.Repeat(secCard, 4) },
			func(p *billing.ReplaceCreditCardParams) { p.PostalZip = secCard },
			func(p *billing.ReplaceCreditCardParams) { p.ID = 0 },
			func(p *billing.ReplaceCreditCardParams) { p.CVV = "" },
		} {
			w := newWire(t)
			p := secParams()
			mutate(&p)
			_, err := w.client.PaymentMethods.ReplaceCreditCard(context.Background(), &p)
			var ve *billing.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want *billing.ValidationError", err)
			}
			secAssertNoSecrets(t, "ValidationError", err.Error())
			secAssertNoSecrets(t, "%#v of ValidationError", fmt.Sprintf("%#v", ve))
		}
	})
}

// secLogLines decodes the JSON log lines in out.
func secLogLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %v\n%s", err, sc.Text())
		}
		lines = append(lines, m)
	}
	return lines
}

// secRefusedCard replaces a card with p on a wire that answers with a 400
// carrying body, and returns the error, which must be an *APIError, as
// both.
func secRefusedCard(t *testing.T, p *billing.ReplaceCreditCardParams, body string) (*billing.APIError, error) {
	t.Helper()
	w := newWire(t)
	w.on(http.MethodPut, pmCardPath, http.StatusBadRequest, body)
	_, err := w.client.PaymentMethods.ReplaceCreditCard(context.Background(), p)
	var ae *billing.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v (%T), want *billing.APIError", err, err)
	}
	return ae, err
}

// secClientLog checks the client's log in buf: no secret in it, and n
// JSON lines, which it returns.
func secClientLog(t *testing.T, buf *secLockedBuffer, n int) []map[string]any {
	t.Helper()
	out := buf.String()
	secAssertNoSecrets(t, "client log", out)
	lines := secLogLines(t, out)
	if len(lines) != n {
		t.Fatalf("log lines = %d, want %d:\n%s", len(lines), n, out)
	}
	return lines
}

func secAssertAttemptLine(t *testing.T, m map[string]any, status, attempt int, level string) {
	t.Helper()
	if m["method"] != http.MethodPut || m["path"] != pmCardPath {
		t.Errorf("method/path = %v %v", m["method"], m["path"])
	}
	if m["status"] != float64(status) {
		t.Errorf("status = %v, want %d", m["status"], status)
	}
	if m["attempt"] != float64(attempt) {
		t.Errorf("attempt = %v, want %d", m["attempt"], attempt)
	}
	if d, ok := m["duration"].(float64); !ok || d < 0 {
		t.Errorf("duration = %v (%T), want a non-negative number", m["duration"], m["duration"])
	}
	if m["level"] != level {
		t.Errorf("level = %v, want %s", m["level"], level)
	}
}

func TestSecretsClientLogs(t *testing.T) {
	t.Parallel()
	newLogged := func(t *testing.T, opts ...billing.Option) (*wire, *secLockedBuffer) {
		buf := &secLockedBuffer{}
		logger := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		return newWire(t, append([]billing.Option{billing.WithLogger(logger)}, opts...)...), buf
	}
	t.Run("success", func(t *testing.T) {
		w, buf := newLogged(t)
		w.on(http.MethodPut, pmCardPath, http.StatusOK, pmCardResponse)
		p := secParams()
		if _, err := w.client.PaymentMethods.ReplaceCreditCard(context.Background(), &p); err != nil {
			t.Fatal(err)
		}
		lines := secClientLog(t, buf, 1)
		if out := buf.String(); strings.Contains(out, "Basic") {
			t.Errorf("log holds the Authorization scheme:\n%s", out)
		}
		secAssertAttemptLine(t, lines[0], 200, 1, "DEBUG")
	})
	t.Run("failure echoing secrets", func(t *testing.T) {
		w, buf := newLogged(t)
		w.on(http.MethodPut, pmCardPath, http.StatusBadRequest,
			errorBody(400, "Api Error", "Card "+secCard+" cvv "+secCVV+" key "+testKey))
		p := secParams()
		_, err := w.client.PaymentMethods.ReplaceCreditCard(context.Background(), &p)
		if !errors.Is(err, billing.ErrBadRequest) {
			t.Fatalf("err = %v, want ErrBadRequest", err)
		}
		lines := secClientLog(t, buf, 1)
		secAssertAttemptLine(t, lines[0], 400, 1, "WARN")
	})
	t.Run("retried 429 logs each attempt", func(t *testing.T) {
		w, buf := newLogged(t, billing.WithRetryPolicy(billing.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
		calls := 0
		w.onResponder(http.MethodPut, pmCardPath, func(req *http.Request) (*http.Response, error) {
			calls++
			status, body := http.StatusOK, pmCardResponse
			if calls == 1 {
				status, body = http.StatusTooManyRequests, errorBody(429, "Api Error", "slow down "+secCard)
			}
			resp := &http.Response{
				StatusCode: status, Request: req,
				Header: http.Header{"Content-Type": {"application/json"}},
				Body:   ioNopCloser(body),
			}
			return resp, nil
		})
		p := secParams()
		if _, err := w.client.PaymentMethods.ReplaceCreditCard(context.Background(), &p); err != nil {
			t.Fatalf("ReplaceCreditCard: %v", err)
		}
		lines := secClientLog(t, buf, 2)
		secAssertAttemptLine(t, lines[0], 429, 1, "WARN")
		if lines[0]["retry"] != true {
			t.Errorf("first attempt retry = %v, want true", lines[0]["retry"])
		}
		secAssertAttemptLine(t, lines[1], 200, 2, "DEBUG")
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.requests) != 2 {
			t.Fatalf("requests = %d, want 2", len(w.requests))
		}
		if !bytes.Equal(w.requests[0].Body, w.requests[1].Body) || !bytes.Contains(w.requests[1].Body, []byte(secCard)) {
			t.Errorf("the retry did not resend the same body")
		}
	})
	t.Run("validation failure logs nothing", func(t *testing.T) {
		w, buf := newLogged(t)
		p := secParams()
		p.ExpirationMonth = 0
		if _, err := w.client.PaymentMethods.ReplaceCreditCard(context.Background(), &p); err == nil {
			t.Fatal("want a validation error")
		}
		if out := buf.String(); out != "" {
			t.Errorf("log = %s, want nothing: no request was sent", out)
		}
	})
}

func ioNopCloser(s string) *secBody { return &secBody{Reader: strings.NewReader(s)} }

type secBody struct{ *strings.Reader }

func (*secBody) Close() error { return nil }

// secDropTime removes the time attribute from log records.
func secDropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// Secrets a server or a proxy echoes back, in a body or in headers, are
// scrubbed from errors, logs and captured responses, whatever their
// grouping; the numbers the SDK reads are left alone.

// echoCard is a card number long and distinctive enough not to turn up by
// chance; echoCVV likewise, and the test looks for it only as a whole
// number.
const (
	echoCard = "4929381761045378"
	echoCVV  = "8146"
)

// leaksCard reports whether s holds the card's digits in order, with any
// separators between them.
func leaksCard(s string) bool {
	var digits strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			digits.WriteRune(r)
		} else if !strings.ContainsRune(" -.", r) {
			digits.WriteByte('|')
		}
	}
	return strings.Contains(digits.String(), echoCard)
}

// A card number the server echoes back is scrubbed whatever its grouping,
// from the error, every fmt verb of it and the log; the CVV is scrubbed
// where it stands as a number, and other numbers that contain its digits
// are left alone.
func TestEchoedCardNumberIsScrubbedInAnyFormat(t *testing.T) {
	t.Parallel()
	grouped := "4929 3817 6104 5378"
	echoes := []struct{ name, sent, echo string }{
		{"spaces", echoCard, grouped},
		{"dashes", echoCard, "4929-3817-6104-5378"},
		{"dots", echoCard, "4929.3817.6104.5378"},
		{"mixed", echoCard, "4929 - 3817 - 6104 - 5378"},
		{"plain digits for a spaced number", grouped, echoCard},
		{"grouped differently", grouped, "49293 81761 045378"},
	}
	for _, e := range echoes {
		for _, where := range []string{"envelope", "html", "header"} {
			t.Run(e.name+"/"+where, func(t *testing.T) {
				t.Parallel()
				msg := fmt.Sprintf("card %s with cvv %s refused for invoice 1%s2 of %s.50", e.echo, echoCVV, echoCVV, echoCVV)
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					switch where {
					case "envelope":
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusBadRequest)
						_, _ = io.WriteString(w, errorBody(400, "cardNumber "+e.echo, msg))
					case "html":
						w.Header().Set("Content-Type", "text/html")
						w.WriteHeader(http.StatusBadGateway)
						_, _ = io.WriteString(w, "<html><body>"+msg+"</body></html>")
					case "header":
						w.Header().Set("X-Debug", msg)
						w.WriteHeader(http.StatusConflict)
					}
				}))
				t.Cleanup(srv.Close)
				var logs bytes.Buffer
				c := hostileClient(t, srv.URL, billing.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
				p := secParams()
				p.CardNumber, p.CVV = e.sent, echoCVV
				_, err := c.PaymentMethods.ReplaceCreditCard(context.Background(), &p)
				var apiErr *billing.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("err = %v, want an *APIError", err)
				}
				outs := map[string]string{"log": logs.String()}
				for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
					outs["err "+verb] = fmt.Sprintf(verb, err)
					outs["*APIError "+verb] = fmt.Sprintf(verb, apiErr)
					outs["APIError "+verb] = fmt.Sprintf(verb, *apiErr)
				}
				for what, out := range outs {
					if leaksCard(out) {
						t.Errorf("%s leaks the card number:\n%s", what, out)
					}
					if leaksCVV(out, echoCVV) {
						t.Errorf("%s leaks the CVV:\n%s", what, out)
					}
				}
				// Other numbers stay, even where they contain the CVV's digits.
				if where != "header" && !strings.Contains(err.Error(), "1"+echoCVV+"2") || where != "header" && !strings.Contains(err.Error(), echoCVV+".50") {
					t.Errorf("numbers that merely contain the CVV were scrubbed: %v", err)
				}
			})
		}
	}
}

// echoGroupings are the ways an echoing proxy writes echoCard back.
var echoGroupings = []string{echoCard, "4929 3817 6104 5378", "4929-3817-6104-5378", "4929.3817.6104.5378", "49293 81761 045378"}

// echoingServer answers every request with status, echoing its
// Authorization header and the card number (in every grouping) and CVV in
// response headers, as a debugging proxy might.
func echoingServer(t *testing.T, status int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h.Set("X-Echo-Authorization", r.Header.Get("Authorization"))
		h["X-Echo-Card"] = echoGroupings
		h.Set("X-Echo-Cvv", echoCVV)
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The Response of CaptureResponse, the one Client.Do returns and a page's
// Response hold the answer's headers scrubbed like APIError.Header: the
// API key wherever it is echoed, and the call's card number (in any
// grouping) and CVV, in every fmt verb.
func TestCapturedResponsesAreScrubbed(t *testing.T) {
	t.Parallel()
	replaceCard := func(ctx context.Context, c *billing.Client, captured *billing.Response) []any {
		p := secParams()
		p.CardNumber, p.CVV = "4929 3817 6104 5378", echoCVV
		r, err := c.PaymentMethods.ReplaceCreditCard(ctx, &p, billing.CaptureResponse(captured))
		return []any{r, err}
	}
	tests := []struct {
		name   string
		status int
		body   string
		card   bool // the call knows the card: it must be scrubbed too
		call   func(ctx context.Context, c *billing.Client, captured *billing.Response) []any
	}{
		{"ReplaceCreditCard 200", http.StatusOK, `{"id":1001}`, true, replaceCard},
		{"ReplaceCreditCard 409", http.StatusConflict, errorBody(409, "Api Error", "refused"), true, replaceCard},
		{"Invoices.Get 503", http.StatusServiceUnavailable, errorBody(503, "Api Error", "busy"), false,
			func(ctx context.Context, c *billing.Client, captured *billing.Response) []any {
				r, err := c.Invoices.Get(ctx, 7, nil, billing.CaptureResponse(captured))
				return []any{r, err}
			}},
		{"Client.Do 200", http.StatusOK, `{"id":42}`, false,
			func(ctx context.Context, c *billing.Client, captured *billing.Response) []any {
				var out json.RawMessage
				r, err := c.Do(ctx, &billing.Request{Method: http.MethodGet, Path: "/v1/Customers/42"}, &out, billing.CaptureResponse(captured))
				return []any{r, err}
			}},
		{"Invoices.Pages", http.StatusOK, `[{"id":1}]`, false,
			func(ctx context.Context, c *billing.Client, captured *billing.Response) []any {
				var got []any
				for p, err := range c.Invoices.Pages(ctx, nil, billing.CaptureResponse(captured)) {
					got = append(got, p, err)
				}
				return got
			}},
		{"Invoices.Pages with Prefetch", http.StatusOK, `[{"id":1}]`, false,
			func(ctx context.Context, c *billing.Client, captured *billing.Response) []any {
				var got []any
				for p, err := range c.Invoices.Pages(ctx, nil, billing.CaptureResponse(captured), billing.Prefetch(2)) {
					got = append(got, p, err)
				}
				return got
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := echoingServer(t, tt.status, tt.body)
			var captured billing.Response
			values := tt.call(context.Background(), hostileClient(t, srv.URL), &captured)
			if captured.StatusCode != tt.status || captured.Header.Get("X-Echo-Authorization") == "" {
				t.Fatalf("captured %d with X-Echo-Authorization %q, want %d and the echo, scrubbed",
					captured.StatusCode, captured.Header.Get("X-Echo-Authorization"), tt.status)
			}
			values = append(values, captured, &captured)
			for _, v := range values {
				for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
					out := fmt.Sprintf(verb, v)
					if strings.Contains(out, testKey) {
						t.Errorf("%s of %T leaks the API key:\n%s", verb, v, out)
					}
					if tt.card && leaksCard(out) {
						t.Errorf("%s of %T leaks the card number:\n%s", verb, v, out)
					}
					if tt.card && leaksCVV(out, echoCVV) {
						t.Errorf("%s of %T leaks the CVV:\n%s", verb, v, out)
					}
				}
			}
		})
	}
}

// Scrubbing the headers leaves the numbers the SDK reads alone, even
// where one equals the CVV (a three- or four-digit number turns up there
// by chance): a 429 to a card replacement whose Retry-After and rate-limit
// headers read 8146 still asks for 8146 s, which ends the retries, and the
// captured rate limits keep their values. An echo of the CVV elsewhere is
// scrubbed.
func TestScrubbingKeepsTheNumbersTheSDKReads(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h := w.Header()
		h.Set("Retry-After", echoCVV)
		h.Set("X-Rate-Limit-Remaining-Day", echoCVV)
		h.Set("X-Rate-Limit-Limit-Day", "1"+echoCVV)
		h.Set("X-Echo-Cvv", echoCVV)
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	t.Cleanup(srv.Close)
	p := secParams()
	p.CVV = echoCVV
	var captured billing.Response
	_, err := hostileClient(t, srv.URL).PaymentMethods.ReplaceCreditCard(context.Background(), &p, billing.CaptureResponse(&captured))
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != 8146*time.Second {
		t.Fatalf("err = %v, want an *APIError asking for 8146s", err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("requests = %d, want 1: a wait beyond the cap ends the retries", n)
	}
	want := billing.RateLimitWindow{Present: true, Limit: 18146, Remaining: 8146}
	if got := captured.RateLimit.Day; got != want {
		t.Errorf("captured RateLimit.Day = %+v, want %+v", got, want)
	}
	for what, h := range map[string]http.Header{"captured": captured.Header, "APIError": apiErr.Header} {
		if got := h.Get("X-Echo-Cvv"); got == echoCVV {
			t.Errorf("%s X-Echo-Cvv = %q: the CVV is not scrubbed", what, got)
		}
		if got := h.Get("Retry-After"); got != echoCVV {
			t.Errorf("%s Retry-After = %q, want %s as sent", what, got, echoCVV)
		}
	}
}

package billingtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/draft"
	"github.com/billingapi/billing-go/billingtest/internal/pdf"
)

// pdfParsed is what the structural check of a PDF finds.
type pdfParsed struct {
	pages [][]string // text lines of each page, in drawing order
	info  string     // the information dictionary
}

var (
	pdfRefRE    = regexp.MustCompile(`/(Root|Pages|Contents|Info|Parent) (\d+) 0 R`)
	pdfSizeRE   = regexp.MustCompile(`/Size (\d+)`)
	pdfLengthRE = regexp.MustCompile(`^<< /Length (\d+) >>\r?\nstream\r?\n`)
	pdfKidsRE   = regexp.MustCompile(`/Kids \[([^\]]*)\]`)
	pdfCountRE  = regexp.MustCompile(`/Count (\d+)`)
)

// pdfParse checks a PDF's structure the way a reader relies on it: the
// header, %%EOF at the end, startxref pointing at the xref table, every
// in-use xref entry pointing at its "N 0 obj", a trailer whose /Size
// matches the table and whose /Root is the catalog, the page tree, and
// each content stream's /Length. It returns the text the pages draw.
func pdfParse(t *testing.T, b []byte) pdfParsed {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("%PDF-1.")) {
		t.Fatalf("no %%PDF-1. header: %q", b[:min(len(b), 20)])
	}
	if !bytes.HasSuffix(bytes.TrimRight(b, "\r\n"), []byte("%%EOF")) {
		t.Fatalf("does not end with %%%%EOF: %q", b[max(0, len(b)-20):])
	}
	sx := bytes.LastIndex(b, []byte("startxref"))
	if sx < 0 {
		t.Fatal("no startxref")
	}
	fields := strings.Fields(string(b[sx+len("startxref"):]))
	if len(fields) != 2 || fields[1] != "%%EOF" {
		t.Fatalf("startxref section %q", b[sx:])
	}
	xref, err := strconv.Atoi(fields[0])
	if err != nil || xref <= 0 || xref >= sx {
		t.Fatalf("startxref %q", fields[0])
	}
	if !bytes.HasPrefix(b[xref:], []byte("xref")) {
		t.Fatalf("startxref %d does not point at the xref table: %q", xref, b[xref:min(len(b), xref+20)])
	}

	// The table: "xref", "0 N", then N entries of exactly 20 bytes.
	rest := b[xref+len("xref"):]
	rest = bytes.TrimLeft(rest, "\r\n")
	nl := bytes.IndexByte(rest, '\n')
	var first, count int
	if _, err := fmt.Sscanf(string(rest[:nl]), "%d %d", &first, &count); err != nil || first != 0 || count < 2 {
		t.Fatalf("xref subsection header %q", rest[:nl])
	}
	rest = rest[nl+1:]
	offsets := make([]int, count)
	for i := range count {
		entry := rest[i*20 : i*20+20]
		if entry[18] != '\r' && entry[18] != ' ' || entry[19] != '\n' && entry[19] != '\r' {
			t.Fatalf("xref entry %d is not 20 bytes: %q", i, entry)
		}
		off, err1 := strconv.Atoi(string(entry[0:10]))
		gen, err2 := strconv.Atoi(string(entry[11:16]))
		kind := string(entry[17])
		if err1 != nil || err2 != nil || entry[10] != ' ' || entry[16] != ' ' {
			t.Fatalf("xref entry %d %q is malformed", i, entry)
		}
		if i == 0 {
			if kind != "f" || gen != 65535 {
				t.Fatalf("xref entry 0 %q, want the free-list head", entry)
			}
			continue
		}
		if kind != "n" {
			t.Fatalf("xref entry %d %q is not in use", i, entry)
		}
		want := fmt.Sprintf("%d 0 obj", i)
		if off <= 0 || off >= xref || !bytes.HasPrefix(b[off:], []byte(want)) {
			t.Fatalf("xref entry %d offset %d points at %q, want %q", i, off, b[off:min(len(b), off+12)], want)
		}
		offsets[i] = off
	}
	trailer := rest[count*20:]
	if !bytes.HasPrefix(trailer, []byte("trailer")) {
		t.Fatalf("no trailer after the xref table: %q", trailer[:min(len(trailer), 20)])
	}
	trailer = trailer[:bytes.Index(trailer, []byte("startxref"))]
	if m := pdfSizeRE.FindSubmatch(trailer); m == nil || string(m[1]) != strconv.Itoa(count) {
		t.Fatalf("trailer %q: /Size does not match the %d xref entries", trailer, count)
	}
	refs := func(body []byte) map[string]int {
		out := map[string]int{}
		for _, m := range pdfRefRE.FindAllSubmatch(body, -1) {
			n, _ := strconv.Atoi(string(m[2]))
			out[string(m[1])] = n
		}
		return out
	}
	object := func(n int) []byte {
		t.Helper()
		if n <= 0 || n >= count {
			t.Fatalf("reference to object %d outside the xref table", n)
		}
		body := b[offsets[n]+len(fmt.Sprintf("%d 0 obj", n)):]
		end := bytes.Index(body, []byte("endobj"))
		if end < 0 {
			t.Fatalf("object %d has no endobj", n)
		}
		return bytes.TrimSpace(body[:end])
	}

	var out pdfParsed
	tr := refs(trailer)
	if info, ok := tr["Info"]; ok {
		out.info = string(object(info))
	}
	catalog := object(tr["Root"])
	if !bytes.Contains(catalog, []byte("/Type /Catalog")) {
		t.Fatalf("/Root is not the catalog: %q", catalog)
	}
	pagesObj := object(refs(catalog)["Pages"])
	kidsM, countM := pdfKidsRE.FindSubmatch(pagesObj), pdfCountRE.FindSubmatch(pagesObj)
	if !bytes.Contains(pagesObj, []byte("/Type /Pages")) || kidsM == nil || countM == nil {
		t.Fatalf("page tree %q", pagesObj)
	}
	kids := strings.Fields(strings.ReplaceAll(string(kidsM[1]), "0 R", ""))
	if strconv.Itoa(len(kids)) != string(countM[1]) {
		t.Fatalf("page tree %q: /Count does not match /Kids", pagesObj)
	}
	for _, kid := range kids {
		n, _ := strconv.Atoi(kid)
		page := object(n)
		if !bytes.Contains(page, []byte("/Type /Page ")) || !bytes.Contains(page, []byte("/MediaBox [0 0 612 792]")) {
			t.Fatalf("page %d: %q", n, page)
		}
		font := regexp.MustCompile(`/F1 (\d+) 0 R`).FindSubmatch(page)
		if font == nil {
			t.Fatalf("page %d has no /F1 font resource: %q", n, page)
		}
		fn, _ := strconv.Atoi(string(font[1]))
		if f := object(fn); !bytes.Contains(f, []byte("/Type /Font")) || !bytes.Contains(f, []byte("/BaseFont /Helvetica")) {
			t.Fatalf("font object %q", f)
		}
		stream := object(refs(page)["Contents"])
		m := pdfLengthRE.FindSubmatch(stream)
		if m == nil {
			t.Fatalf("content stream of page %d: %q", n, stream[:min(len(stream), 40)])
		}
		length, _ := strconv.Atoi(string(m[1]))
		data := stream[len(m[0]):]
		if len(data) < length || !bytes.Equal(bytes.TrimLeft(data[length:], "\r\n"), []byte("endstream")) {
			t.Fatalf("content stream of page %d: /Length %d does not end at endstream: %q", n, length, data[min(length, len(data)):])
		}
		out.pages = append(out.pages, pdfText(t, data[:length]))
	}
	return out
}

// pdfText interprets a content stream's text operators, checking that
// text is drawn inside BT/ET with a font set, and returns the strings
// shown, one per line.
func pdfText(t *testing.T, content []byte) []string {
	t.Helper()
	var lines []string
	inText, fontSet := false, false
	s := string(content)
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '(':
			str, n := pdfLiteral(t, s[i:])
			i += n
			op := strings.Fields(s[i:])
			if len(op) == 0 || op[0] != "Tj" {
				t.Fatalf("string %q not followed by Tj", str)
			}
			if !inText || !fontSet {
				t.Fatalf("Tj outside BT/ET or before Tf: %q", str)
			}
			lines = append(lines, str)
		case c == ' ' || c == '\n' || c == '\r':
			i++
		default:
			end := strings.IndexAny(s[i:], " \n\r")
			if end < 0 {
				end = len(s) - i
			}
			switch tok := s[i : i+end]; tok {
			case "BT":
				inText = true
			case "ET":
				inText = false
			case "Tf":
				fontSet = true
			}
			i += end
		}
	}
	if inText {
		t.Fatal("BT without ET")
	}
	return lines
}

// pdfLiteral reads a PDF literal string at the start of s and returns it
// unescaped and its length in s.
func pdfLiteral(t *testing.T, s string) (string, int) {
	t.Helper()
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
		case '(':
			if depth > 0 {
				b.WriteByte(c)
			}
			depth++
		case ')':
			depth--
			if depth == 0 {
				return b.String(), i + 1
			}
			b.WriteByte(c)
		default:
			if c < 0x20 || c > 0x7e {
				t.Fatalf("byte %#x in a string: text must be ASCII", c)
			}
			b.WriteByte(c)
		}
	}
	t.Fatalf("unterminated string %q", s)
	return "", 0
}

func pdfAllText(p pdfParsed) []string {
	var out []string
	for _, page := range p.pages {
		out = append(out, page...)
	}
	return out
}

// pdfSeed adds a customer and a draft with a tracked line, an escaped
// description and a non-ASCII one.
func pdfSeed(t *testing.T, srv *Server) int64 {
	t.Helper()
	cust := wtMust(srv.AddCustomer(Customer{FirstName: "Zoë", LastName: "O'Brien (Ops)", Currency: "EUR"}))
	return wtMust(srv.AddDraftInvoice(DraftInvoice{
		CustomerID: cust,
		Created:    time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC),
		Lines: []DraftLine{
			{Description: "Pro plan (monthly)", Quantity: wtDec("1"), Amount: wtDec("49")},
			{Description: `Back\slash – café`, Quantity: wtDec("2.5"), Amount: wtDec("10.125")},
			{Description: "Tracked widget", Quantity: wtDec("3"), Amount: wtDec("0"), Tracked: true},
			{Description: "日本", Quantity: wtDec("1"), Amount: wtDec("1.1")},
		},
	}))
}

func TestDraftPDF(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query         string
		wantTracked   bool
		wantSubstrs   []string
		unwantSubstrs []string
	}{
		{"", false, nil, []string{"Tracked widget"}},
		{"?showTrackedItems=false", false, nil, []string{"Tracked widget"}},
		{"?showTrackedItems=true", true, []string{"Tracked widget   Qty 3   0.00   (tracked item)"}, nil},
		{"?showTrackedItems=True", true, []string{"Tracked widget"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			srv := wtServer(t)
			id := pdfSeed(t, srv)
			r := wtDo(t, srv, "GET", fmt.Sprintf("/v1/draftInvoices/pdf/%d%s", id, tt.query), "")
			wtWantStatus(t, r, http.StatusOK)
			if ct := r.header.Get("Content-Type"); ct != "application/pdf" {
				t.Errorf("Content-Type %q", ct)
			}
			if cl := r.header.Get("Content-Length"); cl != strconv.Itoa(len(r.body)) {
				t.Errorf("Content-Length %q, body %d bytes", cl, len(r.body))
			}
			p := pdfParse(t, r.body)
			if len(p.pages) != 1 {
				t.Errorf("%d pages, want 1", len(p.pages))
			}
			if !strings.Contains(p.info, fmt.Sprintf("/Title (Draft invoice %d)", id)) {
				t.Errorf("info %q", p.info)
			}
			text := strings.Join(pdfAllText(p), "\n")
			want := append([]string{
				fmt.Sprintf("Draft invoice %d", id),
				"Customer: Zoe O'Brien (Ops)",
				"Date: 2024-03-01",
				"Pro plan (monthly)   Qty 1   49.00",
				`Back\slash - cafe   Qty 2.5   10.125`,
				"??   Qty 1   1.10",
				"Total: 60.225 EUR", // tracked lines count whether shown or not
			}, tt.wantSubstrs...)
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("PDF text lacks %q:\n%s", w, text)
				}
			}
			for _, u := range tt.unwantSubstrs {
				if strings.Contains(text, u) {
					t.Errorf("PDF text has %q:\n%s", u, text)
				}
			}
			pdfToText(t, r.body, want...)
		})
	}
}

// pdfToText runs pdftotext when it is installed, as a second opinion from
// a real reader; the structural check above always runs.
func pdfToText(t *testing.T, doc []byte, want ...string) {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		return
	}
	path := filepath.Join(t.TempDir(), "draft.pdf")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-layout", path, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	text := squash(string(out))
	for _, w := range want {
		if !strings.Contains(text, squash(w)) {
			t.Errorf("pdftotext output lacks %q:\n%s", w, out)
		}
	}
}

// Lines that overflow a page go on to the next; none is lost.
func TestDraftPDFPagination(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	cust := wtMust(srv.AddCustomer(Customer{CompanyName: "Many Lines Inc"}))
	lines := make([]DraftLine, 150)
	for i := range lines {
		lines[i] = DraftLine{Description: fmt.Sprintf("Line %03d", i), Quantity: wtDec("1"), Amount: wtDec("1")}
	}
	lines[0].Description = strings.Repeat("long-description ", 20) // wraps
	id := wtMust(srv.AddDraftInvoice(DraftInvoice{CustomerID: cust, Lines: lines}))
	r := wtDo(t, srv, "GET", fmt.Sprintf("/v1/draftInvoices/pdf/%d", id), "")
	wtWantStatus(t, r, http.StatusOK)
	p := pdfParse(t, r.body)
	if len(p.pages) < 3 {
		t.Fatalf("%d pages for 150 lines, want at least 3", len(p.pages))
	}
	for i, page := range p.pages {
		if len(page) == 0 {
			t.Errorf("page %d is empty", i)
		}
		for _, l := range page {
			if len(l) > pdf.WrapWidth(pdf.BodySize) {
				t.Errorf("line %q longer than %d characters", l, pdf.WrapWidth(pdf.BodySize))
			}
		}
	}
	text := strings.Join(pdfAllText(p), "\n")
	for i := 1; i < len(lines); i++ {
		if !strings.Contains(text, fmt.Sprintf("Line %03d   Qty 1   1.00", i)) {
			t.Errorf("line %d missing", i)
		}
	}
	for _, w := range []string{"Customer: Many Lines Inc", "Total: 150.00 USD"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q", w)
		}
	}
	if got := strings.Count(text, "long-description"); got != 20 {
		t.Errorf("wrapped line holds %d of 20 words", got)
	}
	pdfToText(t, r.body, "Line 149")
}

func TestDraftPDFErrors(t *testing.T) {
	t.Parallel()
	srv := wtServer(t)
	id := pdfSeed(t, srv)
	tests := []struct {
		path     string
		status   int
		contains string
	}{
		{"/v1/draftInvoices/pdf/987654", 404, "draft invoice 987654 does not exist"},
		{"/v1/draftInvoices/pdf/0", 404, "does not exist"},
		{"/v1/draftInvoices/pdf/abc", 404, "does not exist"},
		{fmt.Sprintf("/v1/draftInvoices/pdf/%d?showTrackedItems=maybe", id), 400, "showTrackedItems must be true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			wtWantError(t, wtDo(t, srv, "GET", tt.path, ""), tt.status, errorKeyAPI, tt.contains)
		})
	}
}

// The PDF has its own per-minute limit: the third read in a minute is
// refused with 429 and Retry-After until the minute ends, while other
// endpoints go on.
func TestDraftPDFThrottled(t *testing.T) {
	t.Parallel()
	srv := wtServer(t, WithPDFRateLimit(2))
	id := pdfSeed(t, srv)
	path := fmt.Sprintf("/v1/draftInvoices/pdf/%d", id)
	wtWantStatus(t, wtDo(t, srv, "GET", path, ""), http.StatusOK)
	wtWantStatus(t, wtDo(t, srv, "GET", path, ""), http.StatusOK)
	r := wtDo(t, srv, "GET", path, "")
	wtWantError(t, r, http.StatusTooManyRequests, errorKeyAPI, "rate limit")
	if ra := r.header.Get("Retry-After"); ra != "30" { // wtNow is 30 s into its minute
		t.Errorf("Retry-After %q, want 30", ra)
	}
	wtWantStatus(t, wtDo(t, srv, "POST", "/v1/salesTrackingCodes", `{"type":"Sales Tracking Code 1","code":"C","name":"N"}`), http.StatusOK)

	// Through the SDK, with retries off so that it does not wait.
	_, err := srv.Client().DraftInvoices.PDF(context.Background(), id, nil, billing.WithRetries(billing.RetryPolicy{MaxRetries: billing.NoRetries}))
	var apiErr *billing.APIError
	if !errors.Is(err, billing.ErrRateLimited) || !errors.As(err, &apiErr) || apiErr.RetryAfter != 30*time.Second {
		t.Errorf("SDK: %v, want ErrRateLimited with RetryAfter 30s", err)
	}
}

func TestPDFWriterUnits(t *testing.T) {
	t.Parallel()
	t.Run("empty document has one page", func(t *testing.T) {
		p := pdfParse(t, pdf.Render(pdf.Meta{}, nil))
		if len(p.pages) != 1 || len(p.pages[0]) != 0 {
			t.Errorf("pages %q", p.pages)
		}
	})
	t.Run("money", func(t *testing.T) {
		for in, want := range map[string]string{"10": "10.00", "10.5": "10.50", "10.125": "10.125", "10.1000": "10.10", "-3.14159": "-3.14159", "0": "0.00"} {
			if got := draft.Money(wtDec(in)); got != want {
				t.Errorf("money(%s) = %s, want %s", in, got, want)
			}
		}
	})
}

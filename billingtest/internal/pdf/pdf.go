// Package pdf writes the fake's draft-invoice PDFs: text lines laid out
// on Letter pages in one standard font.
package pdf

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The fake writes its PDFs itself rather than depending on a
// PDF library: the document only needs text, and a minimal PDF 1.4 file
// (one standard font, uncompressed content streams) is small enough to
// write by hand and stays readable to tests and to tools like pdftotext.

// Page geometry, in points: US Letter with one-inch margins.
const (
	pdfPageWidth  = 612
	pdfPageHeight = 792
	pdfMargin     = 72
)

// Font sizes of the two kinds of line the fake prints.
const (
	TitleSize = 16
	BodySize  = 11
)

// Line is one line of text and its font size; an empty Text is a blank
// line.
type Line struct {
	Text string
	Size int
}

// Meta is what goes into the document information dictionary.
type Meta struct {
	Title   string
	Created time.Time
}

// leading is the distance between baselines for a font size, the usual
// 1.2 to 1.4 times the size rounded to whole points.
func leading(size int) int { return size + size*3/10 + 1 }

// WrapWidth is how many characters fit on a line at a font size. Helvetica
// averages about half an em per character; 0.6 em leaves room for wide
// letters, so wrapped lines never run off the page.
func WrapWidth(size int) int {
	return int(float64(pdfPageWidth-2*pdfMargin) / (float64(size) * 0.6))
}

// Render lays lines out on as many pages as they need and returns the
// PDF file.
func Render(meta Meta, lines []Line) []byte {
	pages := paginate(lines)

	// Objects: 1 catalog, 2 page tree, 3 font, 4 info, then a page object
	// and its content stream for each page. Numbering them up front lets
	// the page tree name its kids before they are written.
	const firstPage = 5
	var w pdfWriter
	w.header()

	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", firstPage+2*i)
	}
	w.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.object(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	w.object(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	info := "<< /Producer (billingtest)"
	if meta.Title != "" {
		info += " /Title (" + pdfString(meta.Title) + ")"
	}
	if !meta.Created.IsZero() {
		info += " /CreationDate (D:" + meta.Created.UTC().Format("20060102150405") + "Z)"
	}
	w.object(4, info+" >>")
	for i, page := range pages {
		pageNum, contentNum := firstPage+2*i, firstPage+2*i+1
		w.object(pageNum, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>",
			pdfPageWidth, pdfPageHeight, contentNum))
		w.stream(contentNum, contentStream(page))
	}
	w.trailer(4)
	return w.buf.Bytes()
}

// paginate wraps the lines to the page width and cuts them into pages.
// A document with no lines still has one (empty) page: a PDF without
// pages is not a document viewers open.
func paginate(lines []Line) [][]Line {
	var pages [][]Line
	var page []Line
	room := pdfPageHeight - 2*pdfMargin
	for _, l := range lines {
		for _, text := range wrap(transliterate(l.Text), WrapWidth(l.Size)) {
			need := leading(l.Size)
			if len(page) > 0 && need > room {
				pages = append(pages, page)
				page, room = nil, pdfPageHeight-2*pdfMargin
			}
			page = append(page, Line{Text: text, Size: l.Size})
			room -= need
		}
	}
	return append(pages, page)
}

// contentStream draws one page's lines top to bottom. Each line moves the
// text position down by its own leading with Td, so lines of different
// sizes can share a page.
func contentStream(lines []Line) []byte {
	var b bytes.Buffer
	b.WriteString("BT\n")
	size := 0
	for i, l := range lines {
		if l.Size != size {
			fmt.Fprintf(&b, "/F1 %d Tf\n", l.Size)
			size = l.Size
		}
		if i == 0 {
			// The first baseline sits one leading below the top margin.
			fmt.Fprintf(&b, "%d %d Td\n", pdfMargin, pdfPageHeight-pdfMargin-leading(l.Size))
		} else {
			fmt.Fprintf(&b, "0 -%d Td\n", leading(l.Size))
		}
		if l.Text != "" {
			fmt.Fprintf(&b, "(%s) Tj\n", pdfString(l.Text))
		}
	}
	b.WriteString("ET\n")
	return b.Bytes()
}

// wrap breaks text into lines of at most width characters, at spaces when
// it can, mid-word when a word is longer than a line. text is ASCII here.
func wrap(text string, width int) []string {
	if len(text) <= width {
		return []string{text}
	}
	var out []string
	var line strings.Builder
	for _, word := range strings.Fields(text) {
		for len(word) > width {
			if line.Len() > 0 {
				out = append(out, line.String())
				line.Reset()
			}
			out = append(out, word[:width])
			word = word[width:]
		}
		switch {
		case line.Len() == 0:
			line.WriteString(word)
		case line.Len()+1+len(word) <= width:
			line.WriteByte(' ')
			line.WriteString(word)
		default:
			out = append(out, line.String())
			line.Reset()
			line.WriteString(word)
		}
	}
	if line.Len() > 0 {
		out = append(out, line.String())
	}
	return out
}

// pdfString escapes text, ASCII already, for a PDF literal string: the
// delimiters and the escape character itself.
func pdfString(text string) string { return pdfEscaper.Replace(text) }

var pdfEscaper = strings.NewReplacer("(", `\(`, ")", `\)`, `\`, `\\`)

// transliterate makes text printable ASCII. The standard Helvetica font
// has no glyphs beyond its 8-bit encoding, and a byte outside it would
// print as garbage, so accented letters and typographic punctuation get
// their nearest ASCII spelling and anything else a '?'.
func transliterate(text string) string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		default:
			if s, ok := asciiFor[r]; ok {
				b.WriteString(s)
			} else {
				b.WriteByte('?')
			}
		}
	}
	return b.String()
}

// asciiFor maps the letters and punctuation common in names, addresses
// and product descriptions to ASCII.
var asciiFor = func() map[rune]string {
	m := map[rune]string{
		'Æ': "AE", 'æ': "ae", 'Œ': "OE", 'œ': "oe", 'ß': "ss", 'Þ': "Th", 'þ': "th",
		'Ð': "D", 'ð': "d", 'Đ': "D", 'đ': "d", 'Ł': "L", 'ł': "l", 'ı': "i",
		'€': "EUR", '£': "GBP", '¥': "JPY", '¢': "c", '…': "...", '•': "*", '·': "*",
		'×': "x", '÷': "/", '©': "(c)", '®': "(R)", '™': "(TM)", '°': "o", '§': "S",
		'«': "<<", '»': ">>", '‹': "<", '›': ">", '¡': "!", '¿': "?",
	}
	groups := []struct{ from, to string }{
		{"ÀÁÂÃÄÅĀĂĄ", "A"}, {"àáâãäåāăą", "a"}, {"ÇĆĈĊČ", "C"}, {"çćĉċč", "c"},
		{"ĎĐ", "D"}, {"ď", "d"}, {"ÈÉÊËĒĔĖĘĚ", "E"}, {"èéêëēĕėęě", "e"},
		{"ĜĞĠĢ", "G"}, {"ĝğġģ", "g"}, {"ĤĦ", "H"}, {"ĥħ", "h"},
		{"ÌÍÎÏĨĪĬĮİ", "I"}, {"ìíîïĩīĭį", "i"}, {"Ĵ", "J"}, {"ĵ", "j"}, {"Ķ", "K"}, {"ķ", "k"},
		{"ĹĻĽĿ", "L"}, {"ĺļľŀ", "l"}, {"ÑŃŅŇ", "N"}, {"ñńņň", "n"},
		{"ÒÓÔÕÖØŌŎŐ", "O"}, {"òóôõöøōŏő", "o"}, {"ŔŖŘ", "R"}, {"ŕŗř", "r"},
		{"ŚŜŞŠȘ", "S"}, {"śŝşšș", "s"}, {"ŢŤŦȚ", "T"}, {"ţťŧț", "t"},
		{"ÙÚÛÜŨŪŬŮŰŲ", "U"}, {"ùúûüũūŭůűų", "u"}, {"Ŵ", "W"}, {"ŵ", "w"},
		{"ÝŶŸ", "Y"}, {"ýÿŷ", "y"}, {"ŹŻŽ", "Z"}, {"źżž", "z"},
		{"‘’‚‛′", "'"}, {"“”„‟″", `"`}, {"‐‑‒–—―−", "-"},
		{"\u00a0\u2002\u2003\u2009\u202f", " "},
	}
	for _, g := range groups {
		for _, r := range g.from {
			m[r] = g.to
		}
	}
	return m
}()

// pdfWriter writes objects and remembers where each starts, for the
// cross-reference table.
type pdfWriter struct {
	buf     bytes.Buffer
	offsets []int // by object number; index 0 is the free-list head
}

func (w *pdfWriter) header() {
	// The comment of high bytes after the version line tells transfer
	// tools the file is binary, as the PDF specification recommends.
	w.buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
}

// begin records the offset of object num, which must be the next number.
func (w *pdfWriter) begin(num int) {
	for len(w.offsets) <= num {
		w.offsets = append(w.offsets, 0)
	}
	w.offsets[num] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n", num)
}

func (w *pdfWriter) object(num int, body string) {
	w.begin(num)
	w.buf.WriteString(body)
	w.buf.WriteString("\nendobj\n")
}

func (w *pdfWriter) stream(num int, data []byte) {
	w.begin(num)
	fmt.Fprintf(&w.buf, "<< /Length %d >>\nstream\n", len(data))
	w.buf.Write(data)
	w.buf.WriteString("\nendstream\nendobj\n")
}

// trailer writes the cross-reference table and the trailer. Every entry
// is exactly 20 bytes, as readers that seek into the table require.
func (w *pdfWriter) trailer(infoNum int) {
	xref := w.buf.Len()
	size := len(w.offsets)
	fmt.Fprintf(&w.buf, "xref\n0 %d\n", size)
	w.buf.WriteString("0000000000 65535 f \n")
	for _, off := range w.offsets[1:] {
		fmt.Fprintf(&w.buf, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&w.buf, "trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\n", size, infoNum)
	w.buf.WriteString("startxref\n" + strconv.Itoa(xref) + "\n%%EOF\n")
}

package billing

import (
	"bytes"
	"strings"
	"testing"
)

func TestReplaceEscapedFindsTheSecretHoweverEscaped(t *testing.T) {
	t.Parallel()
	const key = "sk+live/Zq=="
	tests := []struct {
		name, in, want string
	}{
		{"as sent", "key sk+live/Zq== refused", "key [R] refused"},
		{"percent-encoded", "?k=sk%2Blive%2FZq%3D%3D&x=1", "?k=[R]&x=1"},
		{"percent-encoded in lower case", "sk%2blive%2fZq%3d%3d", "[R]"},
		{"every byte percent-encoded", "%73%6B%2B%6C%69%76%65%2F%5A%71%3D%3D", "[R]"},
		{"JSON-escaped by .NET", `"sk\u002Blive/Zq\u003D\u003D"`, `"[R]"`},
		{"JSON-escaped, lower case, solidus escaped", `"sk\u002blive\/Zq=="`, `"[R]"`},
		{"HTML entities", "sk&#43;live&#x2F;Zq&#61;&#X3d;", "[R]"},
		{"twice", "sk+live/Zq== and sk%2Blive/Zq==", "[R] and [R]"},
		{"behind a near miss", "sk+live/Zsk+live/Zq==", "sk+live/Z[R]"},
		{"escape of another byte", "sk%2Clive/Zq==", "sk%2Clive/Zq=="},
		{"cut short", "sk+live/Zq=", "sk+live/Zq="},
		{"an escape cut short", "sk+live/Zq=%3", "sk+live/Zq=%3"},
		{"an entity without its semicolon", "sk&#43live/Zq==", "sk&#43live/Zq=="},
		{"nothing", "no secret here: 100% & \\n", "no secret here: 100% & \\n"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := replaceEscaped(tt.in, key, "[R]"); got != tt.want {
				t.Errorf("replaceEscaped(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestIndexEscapedStartsFromTheOffsetGiven(t *testing.T) {
	t.Parallel()
	s := []byte("ab%63 abc")
	for _, tt := range []struct{ from, start, end int }{{0, 0, 5}, {1, 6, 9}, {7, -1, -1}} {
		if start, end := indexEscaped(s, "abc", tt.from); start != tt.start || end != tt.end {
			t.Errorf("indexEscaped(%q, from %d) = %d, %d; want %d, %d", s, tt.from, start, end, tt.start, tt.end)
		}
	}
	if start, end := indexEscaped(s, "", 0); start != -1 || end != -1 {
		t.Errorf("an empty secret is found at %d, %d", start, end)
	}
}

func TestScrubRawJSONKeepsTheShape(t *testing.T) {
	t.Parallel()
	scrub := newCallSecrets("4929381761045378", "8146").scrub
	tests := []struct {
		name, in, want string
	}{
		{"a string", `"card 4929 3817 6104 5378"`, `"card [REDACTED]"`},
		{"the CVV as a number", `8146`, `"[REDACTED]"`},
		{"the CVV among other numbers", `{"cvv":8146,"id":81460,"amount":8146.5,"n":[8146,7]}`, `{"amount":8146.5,"cvv":"[REDACTED]","id":81460,"n":["[REDACTED]",7]}`},
		{"the card as a number, in a name", `{"4929381761045378":4929381761045378}`, `{"[REDACTED]":"[REDACTED]"}`},
		{"no secret", `{"b":[true,null],"a":"x"}`, `{"a":"x","b":[true,null]}`},
		{"not JSON", `{"cvv":8146`, `"[REDACTED]"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := string(scrubRawJSON([]byte(tt.in), scrub)); got != tt.want {
				t.Errorf("scrubRawJSON(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestLongestPlainRun(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"sk+live/Zq==": "live", "abc": "abc", "a+bc+d": "bc", "+/=": "", "": "", "ab+cd": "ab",
	} {
		if got := longestPlainRun(in); got != want {
			t.Errorf("longestPlainRun(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkScrubEchoes is what a 2xx answer pays for being searched for
// the key: a page that holds no secret, without the key's longest plain
// run (the common case: one fast search), and with it (every escape
// looked at).
func BenchmarkScrubEchoes(b *testing.B) {
	c, err := NewClient("sk+live/Zq==", WithBaseURL("http://127.0.0.1:1"))
	if err != nil {
		b.Fatal(err)
	}
	item := `{"id":1,"notes":"Caf\u00e9 \u0026 co, 50% off","poNumber":"PO-1","amount":12.5,"status":"Paid"},`
	for _, tt := range []struct{ name, item string }{{"clean", item}, {"holding the run", item + `{"notes":"live"},`}} {
		page := []byte("[" + strings.Repeat(tt.item, 999) + `{"id":2}]`)
		b.Run(tt.name, func(b *testing.B) {
			cl := &call{}
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				if bytes.Contains(page, []byte(*c.cfg.keyRun)) { // as decodeJSON does
					c.scrubEchoes(cl, page, nil)
				}
			}
		})
	}
}

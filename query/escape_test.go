package query

import (
	"regexp"
	"testing"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		keepColon bool
		want      string
	}{
		{"", false, ""},
		{"plain", false, "plain"},
		{"%", false, "%25"},
		{";", false, "%3B"},
		{":", false, "%3A"},
		{":", true, ":"},
		{"|", false, "%7C"},
		{",", false, "%2C"},
		{"*", false, "%2A"},
		{"[", false, "%5B"},
		{"]", false, "%5D"},
		{"&", false, "%26"},
		{"=", false, "%3D"},
		{"+", false, "%2B"},
		{"#", false, "%23"},
		{"?", false, "%3F"},
		{"\x00", false, "%00"},
		{"\n", false, "%0A"},
		{"\x1f", false, "%1F"},
		{"\x7f", false, "%7F"},
		{"a b.c-d'e\"f/g\\h", false, "a b.c-d'e\"f/g\\h"},
		{"Müller 東京 €", false, "Müller 東京 €"},
		{"\u0085", false, "\u0085"}, // only C0 controls and DEL are escaped
		{"\xff", false, "%FF"},      // invalid UTF-8 is kept out of the text
		{"a\xc3", false, "a%C3"},
		{"2024-01-01T10:00:00", true, "2024-01-01T10:00:00"},
		{"2024-01-01T10:00:00", false, "2024-01-01T10%3A00%3A00"},
		{"[empty]", false, "%5Bempty%5D"},
	}
	for _, tt := range tests {
		if got := escape(tt.in, tt.keepColon); got != tt.want {
			t.Errorf("escape(%q, %v) = %q, want %q", tt.in, tt.keepColon, got, tt.want)
		}
	}
}

func TestUnescape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
		bad  int
	}{
		{"", "", -1},
		{"abc", "abc", -1},
		{"%3B%3b", ";;", -1},
		{"a+b", "a+b", -1},
		{"%41%2a", "A*", -1},
		{"%", "", 0},
		{"a%4", "", 1},
		{"ab%zz", "", 2},
		{"%4g", "", 0},
		{"%41%", "", 3},
	}
	for _, tt := range tests {
		got, bad := unescape(tt.in)
		if got != tt.want || bad != tt.bad {
			t.Errorf("unescape(%q) = %q, %d; want %q, %d", tt.in, got, bad, tt.want, tt.bad)
		}
	}
}

func TestEscapeUnescapeAllBytes(t *testing.T) {
	t.Parallel()
	for b := range 256 {
		s := "x" + string([]byte{byte(b)}) + "y"
		got, bad := unescape(escape(s, false))
		if bad >= 0 || got != s {
			t.Errorf("byte %#x: unescape(escape(%q)) = %q, %d", b, s, got, bad)
		}
	}
}

// The hand-written name check must agree with the reference expression the
// package documents.
func TestValidNameMatchesRegexp(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$`)
	names := []string{
		"", "a", "A", "a1", "a_", "_a", "1a", "a.b", "a.", ".a", "a..b", "a.1",
		"Customer.CustomerReference.Reference1", "customer.Status", "a-b", "a b",
		"a:b", "a;b", "é", "a.b_c.D9", "a.b.", "Id",
	}
	for _, n := range names {
		if got, want := validName(n), re.MatchString(n); got != want {
			t.Errorf("validName(%q) = %v, regexp says %v", n, got, want)
		}
	}
}

func FuzzValidName(f *testing.F) {
	re := regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$`)
	for _, s := range []string{"", "a", "a.b", "a..b", "1", "a_1.B", "a."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validName(s), re.MatchString(s); got != want {
			t.Errorf("validName(%q) = %v, regexp says %v", s, got, want)
		}
	})
}

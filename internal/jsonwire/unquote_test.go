package jsonwire

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// TestIsPlain checks the word-at-a-time isPlain against its definition:
// no backslash and valid UTF-8, wherever in the string (first, in a full
// word, in the tail) the offending byte sits.
func TestIsPlain(t *testing.T) {
	t.Parallel()
	want := func(s []byte) bool { return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) }
	tests := []struct {
		s    string
		want bool
	}{
		{"", true},
		{"abc", true},
		{"exactly8", true},
		{"sixteen bytes ok", true},
		{`a\nb`, false},
		{`01234567\`, false},
		{`\01234567`, false},
		{"0123456\\89abcdef", false},
		{"café au lait, s'il vous plaît", true},
		{"0123456789\xff", false},
		{"01234567\xc3", false},
		{"\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f", true},
		{"]]]]]]]]\x5c", false},
		{"[[[[[[[[]]]]]]]]", true},
	}
	for _, tt := range tests {
		if got := isPlain([]byte(tt.s)); got != tt.want {
			t.Errorf("isPlain(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("az09 \\\"\x5b\x5d\x7f\x80\xc3\xa9\xff\x00")
	for range 200_000 {
		s := make([]byte, r.IntN(40))
		for i := range s {
			if r.IntN(8) == 0 {
				s[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				s[i] = 'a' + byte(r.IntN(26))
			}
		}
		if got := isPlain(s); got != want(s) {
			t.Fatalf("isPlain(%q) = %v, want %v", s, got, !got)
		}
	}
}

// TestValidSurrogates checks that a lone half of a surrogate pair is
// written as U+FFFD, as encoding/json reads it, and that what comes out
// is a value the strict encoder accepts.
func TestValidSurrogates(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`"plain"`, `"plain"`},
		{`"\u00e9 \n"`, `"\u00e9 \n"`},
		{`"\ud83d\ude00"`, `"\ud83d\ude00"`},
		{`"\uD83D\uDE00"`, `"\uD83D\uDE00"`},
		{`"\ud800"`, `"\ufffd"`},
		{`"\udc00x"`, `"\ufffdx"`},
		{`"\ud800\ud800\udc00"`, `"\ufffd\ud800\udc00"`},
		{`"\ud800\u0041"`, `"\ufffd\u0041"`},
		{`"\\ud800"`, `"\\ud800"`},
		{`{"a":["\ude00",1],"\ud83d\ude00":"x\udbff"}`, `{"a":["\ufffd",1],"\ud83d\ude00":"x\ufffd"}`},
	}
	for _, tt := range tests {
		got := string(ValidSurrogates([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("ValidSurrogates(%s) = %s, want %s", tt.in, got, tt.want)
		}
		if !jsontext.Value(got).IsValid() {
			t.Errorf("ValidSurrogates(%s) = %s, which the strict encoder refuses", tt.in, got)
		}
	}
}

package pdf

import (
	"strings"
	"testing"
)

func TestWriterUnits(t *testing.T) {
	t.Parallel()
	t.Run("escape", func(t *testing.T) {
		if got := pdfString(`a(b)c\d`); got != `a\(b\)c\\d` {
			t.Errorf("pdfString: %q", got)
		}
	})
	t.Run("transliterate", func(t *testing.T) {
		tests := map[string]string{
			"Café Ærø":     "Cafe AEro",
			"“quoted” – x": `"quoted" - x`,
			"tab\there":    "tab here",
			"€5 ™":         "EUR5 (TM)",
			"日本\x00":       "???",
			"plain ASCII~": "plain ASCII~",
		}
		for in, want := range tests {
			if got := transliterate(in); got != want {
				t.Errorf("transliterate(%q) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("wrap", func(t *testing.T) {
		tests := []struct {
			in    string
			width int
			want  []string
		}{
			{"", 10, []string{""}},
			{"short", 10, []string{"short"}},
			{"aaa bbb ccc", 7, []string{"aaa bbb", "ccc"}},
			{"abcdefghij k", 4, []string{"abcd", "efgh", "ij k"}},
		}
		for _, tt := range tests {
			if got := wrap(tt.in, tt.width); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("wrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
			}
		}
	})
}

package pager

import (
	"fmt"
	"reflect"
	"strings"
)

// diff compares whole values, as cmp.Diff would (the module does not
// depend on go-cmp): "" when they are deeply equal, else a line diff of
// their printed forms, a slice or array one element a line, marked - for
// want and + for got.
func diff(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	w, g := lines(want), lines(got)
	if strings.Join(w, "\n") == strings.Join(g, "\n") {
		// Equal in print, not in value (nil against empty, say).
		return fmt.Sprintf("-want %#v\n+got  %#v", want, got)
	}
	return lineDiff(w, g)
}

// lines prints v, a slice or array one element a line.
func lines(v any) []string {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return strings.Split(fmt.Sprintf("%+v", v), "\n")
	}
	out := make([]string, rv.Len())
	for i := range out {
		out[i] = fmt.Sprintf("%+v", rv.Index(i).Interface())
	}
	return out
}

// lineDiff is the shortest edit script from a to b, one line each.
func lineDiff(a, b []string) string {
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var sb strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			fmt.Fprintf(&sb, "  %s\n", a[i])
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(&sb, "+ %s\n", b[j])
			j++
		default:
			fmt.Fprintf(&sb, "- %s\n", a[i])
			i++
		}
	}
	return sb.String()
}

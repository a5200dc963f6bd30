package billing

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOneJSONEngine guards the rule that JSON is encoded and decoded by
// one engine, behind internal/jsonwire, in the SDK and in the fake: the
// shipped code may name encoding/json's types (Extra is a map of its
// RawMessage), but must not call into it. The benchmarks, whose floor
// contenders use encoding/json on purpose, and the examples are left out.
func TestOneJSONEngine(t *testing.T) {
	t.Parallel()
	allowed := map[string]bool{"RawMessage": true, "Marshaler": true, "Unmarshaler": true, "Number": true, "UnmarshalTypeError": true}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "benchmarks", "examples", "testdata":
				return filepath.SkipDir
			}
			if path != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p != "encoding/json" {
				continue
			}
			name := "json"
			if imp.Name != nil {
				name = imp.Name.Name
			}
			if name == "." {
				t.Errorf("%s: dot-imports encoding/json", fset.Position(imp.Pos()))
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && !allowed[sel.Sel.Name] {
						t.Errorf("%s: uses encoding/json.%s; go through internal/jsonwire", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

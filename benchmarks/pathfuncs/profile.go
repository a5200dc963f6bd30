package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// A function of the module, as go tool cover -func names it.
type function struct {
	file string // import path of its package, slash, file name
	line int
	name string
}

func (f function) String() string { return fmt.Sprintf("%s:%d: %s", f.file, f.line, f.name) }

// block is one line of a text coverage profile.
type block struct {
	startLine, startCol, endLine, endCol int
	stmts                                int
	count                                uint64
}

// parseProfile reads a text profile (go tool covdata textfmt, or go test
// -coverprofile) into its blocks by file.
func parseProfile(r io.Reader) (map[string][]block, error) {
	blocks := map[string][]block{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 && strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		file, b, err := parseBlock(line)
		if err != nil {
			return nil, fmt.Errorf("profile line %d: %w", n, err)
		}
		blocks[file] = append(blocks[file], b)
	}
	return blocks, sc.Err()
}

// parseBlock reads "file:l0.c0,l1.c1 stmts count".
func parseBlock(line string) (string, block, error) {
	colon := strings.LastIndexByte(line, ':')
	if colon < 0 {
		return "", block{}, fmt.Errorf("%q: no file", line)
	}
	var b block
	_, err := fmt.Sscanf(line[colon+1:], "%d.%d,%d.%d %d %d", &b.startLine, &b.startCol, &b.endLine, &b.endCol, &b.stmts, &b.count)
	if err != nil {
		return "", block{}, fmt.Errorf("%q: %w", line, err)
	}
	return line[:colon], b, nil
}

// extent is a function's span in its file.
type extent struct {
	function
	startLine, startCol, endLine, endCol int
}

// funcExtents lists the functions with a body declared in a file, as
// go tool cover -func does: function literals belong to the declaration
// they are in.
func funcExtents(fset *token.FileSet, f *ast.File, file string) []extent {
	var out []extent
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
		out = append(out, extent{
			function:  function{file: file, line: start.Line, name: fd.Name.Name},
			startLine: start.Line, startCol: start.Column,
			endLine: end.Line, endCol: end.Column,
		})
	}
	return out
}

// ran reports whether a block of the function that holds statements ran:
// go tool cover -func gives such a function more than 0.0%.
func (e extent) ran(blocks []block) bool {
	for _, b := range blocks {
		if b.startLine > e.endLine || b.startLine == e.endLine && b.startCol >= e.endCol {
			continue // after the function
		}
		if b.endLine < e.startLine || b.endLine == e.startLine && b.endCol <= e.startCol {
			continue // before it
		}
		if b.stmts > 0 && b.count > 0 {
			return true
		}
	}
	return false
}

// sourceFile is a parsed source file of the module.
type sourceFile struct {
	funcs     []extent
	generated bool
}

// module resolves the files a profile names to the module's sources.
type module struct {
	path, dir string
	files     map[string]*sourceFile
}

func newModule(modPath, dir string) *module {
	return &module{path: modPath, dir: dir, files: map[string]*sourceFile{}}
}

// rel is file (import path/name) relative to the module root.
func (m *module) rel(file string) (string, bool) {
	rel, ok := strings.CutPrefix(file, m.path+"/")
	return rel, ok
}

func (m *module) source(file string) (*sourceFile, error) {
	if sf, ok := m.files[file]; ok {
		return sf, nil
	}
	rel, ok := m.rel(file)
	if !ok {
		return nil, fmt.Errorf("%s is not in module %s", file, m.path)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(m.dir, filepath.FromSlash(rel)), nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	sf := &sourceFile{funcs: funcExtents(fset, f, file), generated: ast.IsGenerated(f)}
	m.files[file] = sf
	return sf, nil
}

// ranFuncs returns the functions of the module that ran in a profile.
func (m *module) ranFuncs(blocks map[string][]block) (map[function]bool, error) {
	ran := map[function]bool{}
	for file, bs := range blocks {
		sf, err := m.source(file)
		if err != nil {
			return nil, err
		}
		for _, e := range sf.funcs {
			if e.ran(bs) {
				ran[e.function] = true
			}
		}
	}
	return ran, nil
}

// Where a function is, for the split of the counts.
const (
	areaRoot        = "root"        // package billing
	areaQuery       = "query"       // query/...
	areaInternal    = "internal"    // internal/...
	areaOther       = "other"       // any other package of the SDK
	areaBillingtest = "billingtest" // the fake
	areaTool        = "tool"        // benchmarks/..., this command itself: never counted
)

// sdkAreas are the areas of the headline count, in the order reported.
var sdkAreas = []string{areaRoot, areaQuery, areaInternal, areaOther}

func (m *module) area(file string) string {
	rel, _ := m.rel(file)
	dir := path.Dir(rel)
	top, _, _ := strings.Cut(dir, "/")
	switch {
	case dir == ".":
		return areaRoot
	case top == "query":
		return areaQuery
	case top == "internal":
		return areaInternal
	case top == "billingtest":
		return areaBillingtest
	case top == "benchmarks", top == "cmd", top == "examples":
		return areaTool
	}
	return areaOther
}

// tally is a count of functions by area.
type tally map[string]int

func (m *module) tally(funcs map[function]bool) tally {
	t := tally{}
	for f := range funcs {
		a := m.area(f.file)
		t[a]++
		if a == areaRoot && m.files[f.file].generated {
			t[areaRootGenerated]++
		}
	}
	return t
}

// areaRootGenerated counts the root functions that are in generated
// files (resources_json.go), which a refactor of the hand-written code
// does not change.
const areaRootGenerated = "root-generated"

// sdk is the headline: every area but the fake and the tool.
func (t tally) sdk() int {
	n := 0
	for _, a := range sdkAreas {
		n += t[a]
	}
	return n
}

func itoa(n int) string { return strconv.Itoa(n) }

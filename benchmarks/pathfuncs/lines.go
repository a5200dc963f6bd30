package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// lineCount is the size of a set of Go files.
type lineCount struct {
	files, lines int
}

func (c *lineCount) add(o lineCount) { c.files += o.files; c.lines += o.lines }

// packageLines counts the lines (as wc -l counts them: comments and blank
// lines included) of the non-test .go files in dir, hand-written and
// generated apart. A file is generated if it has the "// Code generated
// ... DO NOT EDIT." comment of go generate before its package clause.
func packageLines(dir string) (hand, generated lineCount, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return hand, generated, err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		file := filepath.Join(dir, name)
		src, err := os.ReadFile(file)
		if err != nil {
			return hand, generated, err
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return hand, generated, err
		}
		n := lineCount{files: 1, lines: bytes.Count(src, []byte("\n"))}
		if len(src) > 0 && src[len(src)-1] != '\n' {
			n.lines++
		}
		if ast.IsGenerated(f) {
			generated.add(n)
		} else {
			hand.add(n)
		}
	}
	return hand, generated, nil
}

// packageDirs lists the directories under root that hold non-test Go
// files, relative to root, sorted, skipping testdata.
func packageDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		if !slices.Contains(dirs, rel) {
			dirs = append(dirs, rel)
		}
		return nil
	})
	slices.Sort(dirs)
	return dirs, err
}

// lineReport is the size of the root package and of each internal
// package.
type lineReport struct {
	root, rootGenerated lineCount
	internal            map[string]lineCount // by directory, hand-written only
	internalGenerated   lineCount
}

func countLines(modDir string) (lineReport, error) {
	var r lineReport
	var err error
	if r.root, r.rootGenerated, err = packageLines(modDir); err != nil {
		return r, err
	}
	dirs, err := packageDirs(filepath.Join(modDir, "internal"))
	if err != nil {
		return r, err
	}
	r.internal = map[string]lineCount{}
	for _, d := range dirs {
		hand, gen, err := packageLines(filepath.Join(modDir, "internal", d))
		if err != nil {
			return r, err
		}
		r.internal[filepath.ToSlash(filepath.Join("internal", d))] = hand
		r.internalGenerated.add(gen)
	}
	return r, nil
}

func (r lineReport) print() {
	fmt.Println("Hand-written lines of non-test .go files (wc -l: comments and blank lines included; generated files apart):")
	fmt.Printf("  %-22s %6d lines in %2d files (generated, not counted: %d lines in %d files)\n", "root package billing", r.root.lines, r.root.files, r.rootGenerated.lines, r.rootGenerated.files)
	var total lineCount
	for _, d := range slices.Sorted(maps.Keys(r.internal)) {
		c := r.internal[d]
		fmt.Printf("  %-22s %6d lines in %2d files\n", d, c.lines, c.files)
		total.add(c)
	}
	fmt.Printf("  %-22s %6d lines in %2d files (generated, not counted: %d lines in %d files)\n", "internal/... in all", total.lines, total.files, r.internalGenerated.lines, r.internalGenerated.files)
}

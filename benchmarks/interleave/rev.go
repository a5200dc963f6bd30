package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
)

// currentLabel names the binary built from the tree the command runs in.
const currentLabel = "current"

// revision is a contender built from a git revision: -rev label=commit.
type revision struct {
	label  string // how the output names it, e.g. "before"
	commit string // anything git rev-parse accepts: a hash, a tag, HEAD~1
}

// revFlags collects the -rev flags, in the order given.
type revFlags []revision

// String is the flag's current value, for flag's usage text.
func (r *revFlags) String() string {
	var parts []string
	for _, v := range *r {
		parts = append(parts, v.label+"="+v.commit)
	}
	return strings.Join(parts, ",")
}

// Set parses one -rev label=commit. The label names the contender in the
// output, so it must be a plain word, not the current tree's label and
// not one given before; the commit must not look like an option of git.
func (r *revFlags) Set(s string) error {
	label, commit, ok := strings.Cut(s, "=")
	if !ok || label == "" || commit == "" {
		return fmt.Errorf("want label=commit, got %q", s)
	}
	for _, c := range label {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("label %q: only letters, digits, '-', '_' and '.'", label)
		}
	}
	if label == currentLabel {
		return fmt.Errorf("label %q names the current tree", label)
	}
	if strings.HasPrefix(commit, "-") || strings.ContainsAny(commit, " \t\n") {
		return fmt.Errorf("commit %q: not a revision", commit)
	}
	for _, v := range *r {
		if v.label == label {
			return fmt.Errorf("label %q given twice", label)
		}
	}
	*r = append(*r, revision{label: label, commit: commit})
	return nil
}

// binary is one benchmarks test binary and the directory it runs in (its
// own tree's benchmarks directory, so that it reads its own test data).
type binary struct {
	label  string
	path   string
	dir    string
	commit string // the full hash it was built from, with "+dirty" for a changed tree
}

// buildBenchmarks builds the benchmarks' test binary of the module at
// root into out.
func buildBenchmarks(root, out string, log io.Writer) error {
	cmd := exec.Command("go", "test", "-c", "-o", out, "./benchmarks")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go test -c ./benchmarks in %s: %w", root, err)
	}
	return nil
}

// buildRevision checks rev out into a temporary git worktree of the
// repository at repo, under dir, and builds its benchmarks there. The
// worktree stays while the binary runs (it is the binary's working
// directory); remove takes it away and forgets it in the repository.
func buildRevision(repo, dir string, rev revision, log io.Writer) (b binary, remove func() error, err error) {
	hash, err := git(repo, "rev-parse", "--verify", "--end-of-options", rev.commit+"^{commit}")
	if err != nil {
		return binary{}, nil, fmt.Errorf("-rev %s=%s: %w", rev.label, rev.commit, err)
	}
	wt := filepath.Join(dir, "worktree-"+rev.label)
	if _, err := git(repo, "worktree", "add", "--detach", wt, hash); err != nil {
		return binary{}, nil, fmt.Errorf("-rev %s=%s: %w", rev.label, rev.commit, err)
	}
	remove = func() error {
		_, err := git(repo, "worktree", "remove", "--force", wt)
		return err
	}
	b = binary{
		label:  rev.label,
		path:   filepath.Join(dir, "bench-"+rev.label+".test"),
		dir:    filepath.Join(wt, "benchmarks"),
		commit: hash,
	}
	if err := buildBenchmarks(wt, b.path, log); err != nil {
		return binary{}, nil, errors.Join(err, remove())
	}
	return b, remove, nil
}

// treeCommit is the commit the tree at dir is at, with "+dirty" when its
// tracked files differ from it, or "unknown" outside git.
func treeCommit(dir string) string {
	hash, err := git(dir, "rev-parse", "HEAD")
	if err != nil {
		return "unknown"
	}
	if out, err := git(dir, "status", "--porcelain", "--untracked-files=no"); err != nil || out != "" {
		hash += "+dirty"
	}
	return hash
}

// git runs git in dir and returns its output, trimmed.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return strings.TrimSpace(string(out)), nil
}

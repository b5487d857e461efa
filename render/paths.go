package render

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/check"
)

// repo is the scanned root: an absolute, symlink-free directory. Every read
// goes through it so that nothing outside the root, and nothing too large,
// is ever read.
type repo struct {
	root     string // absolute, symlinks evaluated
	maxBytes int64
}

// Errors a repository read can fail with; each maps to a finding check.
var (
	errEscape   = errors.New("leaves the repository root")
	errSymlink  = errors.New("is a symlink that points outside the repository")
	errTooLarge = errors.New("is too large")
)

// pathError ties one of the errors above to a root-relative path.
type pathError struct {
	rel    string // slash path relative to the root (or as given)
	err    error
	detail string
}

func (e *pathError) Error() string {
	if e.detail != "" {
		return fmt.Sprintf("%s %v (%s)", e.rel, e.err, e.detail)
	}
	return fmt.Sprintf("%s %v", e.rel, e.err)
}

func (e *pathError) Unwrap() error { return e.err }

// checkForPathError maps a pathError to the stable finding check.
func checkForPathError(err error) string {
	switch {
	case errors.Is(err, errSymlink):
		return check.SymlinkEscape
	case errors.Is(err, errEscape):
		return check.PathEscape
	case errors.Is(err, errTooLarge):
		return check.FileTooLarge
	}
	return ""
}

// rel returns the slash path of abs relative to the root ("." for the root).
func (r *repo) rel(abs string) string {
	p, err := filepath.Rel(r.root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(p)
}

// abs joins a root-relative path to the root.
func (r *repo) abs(rel string) string {
	return filepath.Join(r.root, filepath.FromSlash(rel))
}

// within reports whether abs (clean, absolute) is the root or below it.
func (r *repo) within(abs string) bool {
	if abs == r.root {
		return true
	}
	return strings.HasPrefix(abs, r.root+string(filepath.Separator))
}

// resolve checks that abs lies inside the root lexically and after
// evaluating symlinks, and returns the evaluated path.
func (r *repo) resolve(abs string) (string, error) {
	abs = filepath.Clean(abs)
	if !r.within(abs) {
		return "", &pathError{rel: filepath.ToSlash(abs), err: errEscape}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if !r.within(real) {
		return "", &pathError{rel: r.rel(abs), err: errSymlink, detail: "target " + real}
	}
	return real, nil
}

// readFile reads a file inside the root, refusing escapes and files over
// the size limit (checked before reading and enforced while reading).
func (r *repo) readFile(abs string) ([]byte, error) {
	real, err := r.resolve(abs)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory", r.rel(abs))
	}
	if fi.Size() > r.maxBytes {
		return nil, &pathError{rel: r.rel(abs), err: errTooLarge, detail: fmt.Sprintf("%d bytes, limit %d", fi.Size(), r.maxBytes)}
	}
	data, err := io.ReadAll(io.LimitReader(f, r.maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > r.maxBytes {
		return nil, &pathError{rel: r.rel(abs), err: errTooLarge, detail: fmt.Sprintf("limit %d bytes", r.maxBytes)}
	}
	return data, nil
}

// maxTreeDepth bounds the symlinked directories one chart may chain.
const maxTreeDepth = 32

// checkTree walks dir and refuses the first symlink that points outside
// the root, the first file over the size limit, and any directory reached
// twice through symlinks (a cycle, or a fan-out that multiplies what is
// read). Helm's chart loader follows symlinks and reads every file, without
// a visited set, so a chart is checked with this before it is loaded.
func (r *repo) checkTree(dir string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	return r.walkTree(dir, map[string]bool{real: true}, 0)
}

func (r *repo) walkTree(dir string, visited map[string]bool, depth int) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&os.ModeSymlink != 0 {
			return r.checkLink(p, visited, depth)
		}
		if d.Type().IsRegular() {
			return r.checkChartFile(p, d)
		}
		return nil
	})
}

// checkLink checks one symlink of a chart tree; a directory it points to
// is walked once.
func (r *repo) checkLink(p string, visited map[string]bool, depth int) error {
	real, err := r.resolve(p)
	if err != nil {
		return err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		if fi.Size() > r.maxBytes {
			return &pathError{rel: r.rel(p), err: errTooLarge, detail: fmt.Sprintf("%d bytes, limit %d", fi.Size(), r.maxBytes)}
		}
		return nil
	}
	if visited[real] {
		return fmt.Errorf("%s: symlink loop: %s is reached again through symlinks, and Helm's loader would read it without end", r.rel(p), r.rel(real))
	}
	if depth >= maxTreeDepth {
		return fmt.Errorf("%s: more than %d symlinked directories in a chain", r.rel(p), maxTreeDepth)
	}
	visited[real] = true
	return r.walkTree(real, visited, depth+1)
}

// checkChartFile refuses a file over the size limit and a values or
// Chart.yaml file that is an alias bomb (Helm's loader would expand it).
func (r *repo) checkChartFile(p string, d os.DirEntry) error {
	fi, err := d.Info()
	if err != nil {
		return err
	}
	if fi.Size() > r.maxBytes {
		return &pathError{rel: r.rel(p), err: errTooLarge, detail: fmt.Sprintf("%d bytes, limit %d", fi.Size(), r.maxBytes)}
	}
	if isYAMLName(p) && !strings.Contains(filepath.ToSlash(p), "/templates/") {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := checkYAMLAliases(data); err != nil {
			return &docError{file: r.rel(p), err: err}
		}
	}
	return nil
}

// Package repofs is the repository root render reads: every read of a
// source goes through a Repo so that nothing outside the root, and nothing
// too large, is read. It is apart from render so that what is built on it
// (the kustomization scan) can be fuzzed in a test binary without Helm and
// krusty.
package repofs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/check"
)

// Repo is the scanned root: an absolute, symlink-free directory. Every read
// goes through it so that nothing outside the root, and nothing too large,
// is ever read.
type Repo struct {
	Root     string // absolute, symlinks evaluated
	MaxBytes int64
}

// Errors a repository read can fail with; each maps to a finding check.
var (
	ErrEscape   = errors.New("leaves the repository root")
	ErrSymlink  = errors.New("is a symlink that points outside the repository")
	ErrTooLarge = errors.New("is too large")
)

// PathError ties one of the errors above to a root-relative path.
type PathError struct {
	Rel    string // slash path relative to the root (or as given)
	Err    error
	Detail string
}

func (e *PathError) Error() string {
	if e.Detail != "" {
		return fmt.Sprintf("%s %v (%s)", e.Rel, e.Err, e.Detail)
	}
	return fmt.Sprintf("%s %v", e.Rel, e.Err)
}

func (e *PathError) Unwrap() error { return e.Err }

// CheckFor maps a PathError to the stable finding check.
func CheckFor(err error) string {
	switch {
	case errors.Is(err, ErrSymlink):
		return check.SymlinkEscape
	case errors.Is(err, ErrEscape):
		return check.PathEscape
	case errors.Is(err, ErrTooLarge):
		return check.FileTooLarge
	}
	return ""
}

// Rel returns the slash path of abs relative to the root ("." for the root).
func (r *Repo) Rel(abs string) string {
	p, err := filepath.Rel(r.Root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(p)
}

// Abs joins a root-relative path to the root.
func (r *Repo) Abs(rel string) string {
	return filepath.Join(r.Root, filepath.FromSlash(rel))
}

// Within reports whether abs (clean, absolute) is the root or below it.
func (r *Repo) Within(abs string) bool {
	if abs == r.Root {
		return true
	}
	return strings.HasPrefix(abs, r.Root+string(filepath.Separator))
}

// Resolve checks that abs lies inside the root lexically and after
// evaluating symlinks, and returns the evaluated path.
func (r *Repo) Resolve(abs string) (string, error) {
	abs = filepath.Clean(abs)
	if !r.Within(abs) {
		return "", &PathError{Rel: filepath.ToSlash(abs), Err: ErrEscape}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if !r.Within(real) {
		return "", &PathError{Rel: r.Rel(abs), Err: ErrSymlink, Detail: "target " + real}
	}
	return real, nil
}

// ReadFile reads a file inside the root, refusing escapes and files over
// the size limit (checked before reading and enforced while reading).
func (r *Repo) ReadFile(abs string) ([]byte, error) {
	real, err := r.Resolve(abs)
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
		return nil, fmt.Errorf("%s is a directory", r.Rel(abs))
	}
	if fi.Size() > r.MaxBytes {
		return nil, &PathError{Rel: r.Rel(abs), Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", fi.Size(), r.MaxBytes)}
	}
	data, err := io.ReadAll(io.LimitReader(f, r.MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > r.MaxBytes {
		return nil, &PathError{Rel: r.Rel(abs), Err: ErrTooLarge, Detail: fmt.Sprintf("limit %d bytes", r.MaxBytes)}
	}
	return data, nil
}

// Open makes the Repo of root (default "."): absolute, symlinks evaluated,
// and a directory.
func Open(root string, maxBytes int64) (*Repo, error) {
	if root == "" {
		root = "."
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("render root %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("render root %q: %w", root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("render root %q: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("render root %q is not a directory", root)
	}
	return &Repo{Root: real, MaxBytes: maxBytes}, nil
}

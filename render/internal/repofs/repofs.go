// Package repofs is the repository root render reads: every read of a
// source goes through a Repo so that nothing outside the root, and nothing
// too large, is read. A Repo reads through a file system (kyaml's
// filesys.FileSystem in render: the disk, or memory in tests); it is apart
// from render so that what is built on it (the kustomization scan) can be
// fuzzed in a test binary without Helm and krusty.
package repofs

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/check"
)

// FS is what a Repo reads through: the read methods of kyaml's
// filesys.FileSystem, which every filesys.FileSystem has (named here so
// that this package links no kustomize code). Paths are absolute.
type FS interface {
	ReadFile(path string) ([]byte, error)
	ReadDir(path string) ([]string, error) // the names in a directory
	IsDir(path string) bool
	Exists(path string) bool
}

// Repo is the scanned root: an absolute directory of its file system,
// symlinks evaluated. Every read goes through it so that nothing outside
// the root, and nothing too large, is ever read.
//
// On disk (New with onDisk), paths are this machine's: symlinks are
// evaluated, and files and directories looked at, on the disk itself,
// while contents and listings are read through the FS. Any other FS (kyaml's
// in-memory one) has no symlinks, and a Repo learns everything through it.
type Repo struct {
	Root     string // absolute, symlinks evaluated; "" until At
	MaxBytes int64
	fs       FS
	disk     bool
}

// New is a Repo over fsys with no root yet: it can look at paths (Stat,
// Absolute) but reads nothing until At gives it one. onDisk says that
// fsys reads this machine's disk, so that symlinks must be evaluated.
func New(fsys FS, onDisk bool, maxBytes int64) *Repo {
	return &Repo{MaxBytes: maxBytes, fs: fsys, disk: onDisk}
}

// Open is New(fsys, onDisk, maxBytes).At(root).
func Open(fsys FS, onDisk bool, root string, maxBytes int64) (*Repo, error) {
	return New(fsys, onDisk, maxBytes).At(root)
}

// At returns the Repo rooted at root (default "."): absolute, symlinks
// evaluated, and a directory.
func (r *Repo) At(root string) (*Repo, error) {
	if root == "" {
		root = "."
	}
	abs, err := r.Absolute(root)
	if err != nil {
		return nil, fmt.Errorf("render root %q: %w", root, err)
	}
	real, err := r.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("render root %q: %w", root, err)
	}
	fi, err := r.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("render root %q: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("render root %q is not a directory", root)
	}
	out := *r
	out.Root = real
	return &out, nil
}

// WithFS returns a copy of r that reads through fsys, with r's root and
// checks (fsys must see the same files: a wrapper of r.FS() that records
// or counts what is read).
func (r *Repo) WithFS(fsys FS) *Repo {
	out := *r
	out.fs = fsys
	return &out
}

// FS is the file system r reads through.
func (r *Repo) FS() FS { return r.fs }

// OnDisk reports whether r's paths are this machine's.
func (r *Repo) OnDisk() bool { return r.disk }

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

// Within reports whether abs (clean, absolute) is the root or below it; a
// Repo without a root has nothing within it.
func (r *Repo) Within(abs string) bool {
	if r.Root == "" {
		return false
	}
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
	real, err := r.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if !r.Within(real) {
		return "", &PathError{Rel: r.Rel(abs), Err: ErrSymlink, Detail: "target " + real}
	}
	return real, nil
}

// ReadFile reads a file inside the root, refusing escapes, what is not a
// regular file, and files over the size limit (checked before reading on
// disk, and on what was read).
//
// A refusal is told to the Observer (the refused read reaches no FS
// read): what a render gives depends on it.
func (r *Repo) ReadFile(abs string) ([]byte, error) {
	real, err := r.Resolve(abs)
	if err != nil {
		return nil, r.refused(abs, err)
	}
	if r.disk {
		fi, err := r.Stat(real)
		if err != nil {
			return nil, r.refused(abs, err)
		}
		if err := r.checkFile(abs, fi); err != nil {
			return nil, r.refused(abs, err)
		}
	} else if r.fs.IsDir(real) {
		return nil, r.refused(abs, fmt.Errorf("%s is a directory", r.Rel(abs)))
	}
	data, err := r.fs.ReadFile(real)
	if err != nil {
		return nil, err
	}
	if n := int64(len(data)); n > r.MaxBytes {
		// (The FS read it, and told what it gave.)
		return nil, &PathError{Rel: r.Rel(abs), Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", n, r.MaxBytes)}
	}
	return data, nil
}

// checkFile refuses, before it is read, a directory, an irregular file (a
// device or a pipe would never end) and a file over the size limit.
func (r *Repo) checkFile(abs string, fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		return fmt.Errorf("%s is a directory", r.Rel(abs))
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", r.Rel(abs))
	case fi.Size() > r.MaxBytes:
		return &PathError{Rel: r.Rel(abs), Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", fi.Size(), r.MaxBytes)}
	}
	return nil
}

// ReadTrusted reads a file the caller vouches for (a command-line values
// file): anywhere its file system reaches, within the size limit.
func (r *Repo) ReadTrusted(p string) ([]byte, error) {
	fi, err := r.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.Size() > r.MaxBytes {
		return nil, &PathError{Rel: p, Err: ErrTooLarge}
	}
	return r.fs.ReadFile(p)
}

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
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/check"
)

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
	memo     *diskMemo // on disk; shared by the copies At and WithFS make
}

// New is a Repo over fsys with no root yet: it can look at paths (Stat,
// Absolute) but reads nothing until At gives it one. onDisk says that
// fsys reads this machine's disk, so that symlinks must be evaluated.
func New(fsys FS, onDisk bool, maxBytes int64) *Repo {
	if !onDisk {
		return &Repo{MaxBytes: maxBytes, fs: fsys}
	}
	return &Repo{MaxBytes: maxBytes, fs: newMemoFS(fsys), disk: true, memo: &diskMemo{}}
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

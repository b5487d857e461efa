// Package kustomize builds one kustomization as `kustomize build` does,
// reading the repository only through repofs.
package kustomize

import (
	"bytes"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/render/internal/kustread"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// check confines a path to the root; it returns the evaluated path.
func (fs *FS) check(p string) (string, error) {
	abs, err := fs.r.Absolute(p)
	if err != nil {
		return "", err
	}
	if _, ok := fs.overlay[abs]; ok {
		return abs, nil
	}
	if real, ok := fs.clonePath(abs); ok {
		return real, nil
	}
	real, err := fs.r.Resolve(abs)
	if err != nil {
		var pe *repofs.PathError
		if errors.As(err, &pe) {
			return "", fs.violate(err)
		}
		return "", err
	}
	return real, nil
}

// isClone reports whether a checked path is in one of krusty's clones.
func (fs *FS) isClone(real string) bool {
	_, ok := fs.clonePath(real)
	return ok
}

func (fs *FS) Create(string) (filesys.File, error) { return nil, errReadOnly }
func (fs *FS) Mkdir(string) error                  { return errReadOnly }
func (fs *FS) MkdirAll(string) error               { return errReadOnly }
func (fs *FS) RemoveAll(p string) error            { return fs.removeClone(p) }
func (fs *FS) WriteFile(string, []byte) error      { return errReadOnly }

// Open opens a file as ReadFile reads it (krusty reads files with
// ReadFile; nothing it runs opens one).
func (fs *FS) Open(p string) (filesys.File, error) {
	real, err := fs.check(p)
	if err != nil {
		return nil, err
	}
	if _, ok := fs.overlay[real]; ok {
		return fs.mem.Open(real)
	}
	if fs.isClone(real) {
		fi, err := os.Stat(real)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() && fi.Size() > fs.r.MaxBytes {
			return nil, fs.violate(&repofs.PathError{Rel: real, Err: repofs.ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", fi.Size(), fs.r.MaxBytes)})
		}
		return fs.disk.Open(real)
	}
	data, err := fs.ReadFile(real)
	if err != nil {
		return nil, err
	}
	fi, err := fs.r.Stat(real)
	if err != nil {
		return nil, err
	}
	return readOnlyFile{Reader: bytes.NewReader(data), info: fi}, nil
}

// readOnlyFile is a file read whole.
type readOnlyFile struct {
	*bytes.Reader
	info os.FileInfo
}

func (f readOnlyFile) Write([]byte) (int, error)  { return 0, errReadOnly }
func (f readOnlyFile) Close() error               { return nil }
func (f readOnlyFile) Stat() (os.FileInfo, error) { return f.info, nil }

func (fs *FS) IsDir(p string) bool {
	real, err := fs.check(p)
	if err != nil {
		return false
	}
	if _, ok := fs.overlay[real]; ok {
		return false
	}
	if fs.isClone(real) {
		return fs.disk.IsDir(real)
	}
	return fs.r.IsDir(real)
}

func (fs *FS) ReadDir(p string) ([]string, error) {
	real, err := fs.check(p)
	if err != nil {
		return nil, err
	}
	var names []string
	if fs.isClone(real) {
		names, err = fs.disk.ReadDir(real)
	} else {
		names, err = fs.r.ReadDirNames(real)
	}
	if err != nil {
		return nil, err
	}
	for o := range fs.overlay {
		if filepath.Dir(o) == real {
			base := filepath.Base(o)
			found := false
			for _, n := range names {
				if n == base {
					found = true
				}
			}
			if !found {
				names = append(names, base)
			}
		}
	}
	return names, nil
}

func (fs *FS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	abs, err := fs.r.Absolute(p)
	if err != nil {
		return "", "", err
	}
	if _, ok := fs.overlay[abs]; ok {
		return filesys.ConfirmedDir(filepath.Dir(abs)), filepath.Base(abs), nil
	}
	real, err := fs.check(abs)
	if err != nil {
		return "", "", err
	}
	if fs.isClone(real) {
		return fs.disk.CleanedAbs(abs)
	}
	// as kyaml's on-disk CleanedAbs: the evaluated path, split unless a directory
	if fs.r.IsDir(real) {
		return filesys.ConfirmedDir(real), "", nil
	}
	return filesys.ConfirmedDir(filepath.Dir(real)), filepath.Base(real), nil
}

func (fs *FS) Exists(p string) bool {
	real, err := fs.check(p)
	if err != nil {
		return false
	}
	if _, ok := fs.overlay[real]; ok {
		return true
	}
	if fs.isClone(real) {
		return fs.disk.Exists(real)
	}
	return fs.r.Exists(real)
}

// Glob is kyaml's on-disk Glob (hidden files only when the pattern names
// them) inside the root.
func (fs *FS) Glob(pattern string) ([]string, error) {
	abs, err := fs.r.Absolute(pattern)
	if err != nil {
		return nil, err
	}
	if !fs.r.Within(filepath.Clean(abs)) {
		return nil, fs.violate(&repofs.PathError{Rel: pattern, Err: repofs.ErrEscape})
	}
	matches, err := fs.r.Glob(abs)
	if err != nil {
		return nil, err
	}
	if !filesys.IsHiddenFilePath(abs) {
		matches = filesys.RemoveHiddenFiles(matches)
	}
	var out []string
	for _, m := range matches {
		if _, err := fs.check(m); err == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

func (fs *FS) ReadFile(p string) ([]byte, error) {
	real, err := fs.check(p)
	if err != nil {
		return nil, err
	}
	if data, ok := fs.overlay[real]; ok {
		return append([]byte(nil), data...), nil
	}
	if fs.isClone(real) {
		return fs.readClone(real)
	}
	data, err := fs.r.ReadFile(real)
	if err != nil {
		var pe *repofs.PathError
		if errors.As(err, &pe) {
			return nil, fs.violate(err)
		}
		return nil, err
	}
	rewrite := fs.RewriteFile != nil && fs.RewriteFile(real)
	w := kustread.Rewrite{Stub: rewrite && fs.Rewrite.Stub}
	if rewrite && fs.Rewrite.Annotate {
		w.File = real
	}
	read := fs.Memo.read(readKey{real: real, stub: w.Stub, annotate: w.File != ""}, data, func() *memoRead {
		e := &memoRead{out: data, aliases: yamldoc.CheckAliases(data)}
		if e.aliases == nil && rewrite {
			e.out, e.res = w.Apply(data)
		}
		return e
	})
	if read.aliases != nil {
		return nil, fs.violate(&yamldoc.DocError{File: fs.r.Rel(real), Line: 0, Err: read.aliases})
	}
	if !rewrite {
		return data, nil
	}
	fs.mu.Lock()
	fs.rewrote.Stubbed = fs.rewrote.Stubbed || read.res.Stubbed > 0
	fs.rewrote.Unsure = fs.rewrote.Unsure || read.res.Unsure
	fs.mu.Unlock()
	// A copy: the memo's bytes serve other builds.
	return append([]byte(nil), read.out...), nil
}

func (fs *FS) Walk(p string, walkFn filepath.WalkFunc) error {
	real, err := fs.check(p)
	if err != nil {
		return err
	}
	walk := fs.walkRepo
	if fs.isClone(real) {
		walk = fs.disk.Walk
	}
	return walk(real, func(path string, info os.FileInfo, err error) error {
		if err == nil && info != nil && info.Mode()&os.ModeSymlink != 0 {
			if _, cerr := fs.check(path); cerr != nil {
				return walkFn(path, info, cerr)
			}
		}
		return walkFn(path, info, err)
	})
}

// walkRepo is filepath.Walk through the Repo.
func (fs *FS) walkRepo(root string, walkFn filepath.WalkFunc) error {
	return fs.r.WalkDir(root, func(p string, d iofs.DirEntry, err error) error {
		if err != nil || d == nil {
			return walkFn(p, nil, err)
		}
		info, err := d.Info()
		return walkFn(p, info, err)
	})
}

// FirstViolation returns the first refusal recorded, if any.
func (fs *FS) FirstViolation() error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.violations) == 0 {
		return nil
	}
	return fs.violations[0]
}

// Rewrote is what the FS rewrote in its build.
func (fs *FS) Rewrote() Rewritten {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.rewrote
}

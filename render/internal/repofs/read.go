package repofs

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// Opening a Repo at a root, resolving paths in it and reading files: the
// reads that ask the stat and observation layers (stat.go, observe.go).

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

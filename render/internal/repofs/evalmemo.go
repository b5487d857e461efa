package repofs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// evalMemo holds where each directory a Repo has evaluated on disk leads.
// filepath.EvalSymlinks looks at every element of a path, ten or more
// lstat calls for a file deep in a repository, and a run evaluates every
// file it reads, in the parent and in each render worker, most of them in
// a few hundred directories: a tenth of a worker's time on a large Flux
// repository. With the directory known, a path costs one lstat of its last
// element, and a directory not yet known one lstat more than its parent.
// A Repo lives for one render (a worker's for one setup), over a tree
// that does not change under it (diskMemo keeps each path's answer).
type evalMemo struct {
	dirs memoTable[string, string] // directory as filepath.Split leaves it → its evaluated path
}

// evalOnDisk is filepath.EvalSymlinks(p), the same path or the same error,
// evaluating p's directory once a memo.
func (m *evalMemo) evalOnDisk(p string) (string, error) {
	dir, base := filepath.Split(p)
	if m == nil || !filepath.IsAbs(p) || base == "" {
		return filepath.EvalSymlinks(p)
	}
	realDir, ok := m.realDir(dir)
	if !ok {
		return filepath.EvalSymlinks(p) // its own words for the error
	}
	// A last element "." or ".." is taken from the evaluated directory,
	// as EvalSymlinks takes it.
	real := filepath.Join(realDir, base)
	fi, err := os.Lstat(real)
	switch {
	case err != nil && base != "." && base != "..":
		// EvalSymlinks reaches the same lstat of the same path (the
		// evaluated directory and the last element) and returns its
		// error: a missing file costs one lstat, not one an element.
		return "", err
	case err != nil || fi.Mode()&fs.ModeSymlink != 0:
		return filepath.EvalSymlinks(p) // a symlink to follow
	}
	return real, nil
}

// realDir is filepath.EvalSymlinks(dir) for a directory as filepath.Split
// leaves it (absolute, ending in a separator), when it succeeds. A
// directory not yet evaluated is its parent's evaluation and one lstat of
// its own name, when that is a plain directory; anything else (a symlink,
// a dot element, a doubled separator, a file, an error) is evaluated
// whole.
func (m *evalMemo) realDir(dir string) (string, bool) {
	if d, ok := m.dirs.m.Load(dir); ok {
		return d.(string), true
	}
	d, ok := m.evalDir(dir)
	if ok {
		m.dirs.put(dir, d)
	}
	return d, ok
}

func (m *evalMemo) evalDir(dir string) (string, bool) {
	sep := string(filepath.Separator)
	if dir == sep {
		return dir, true
	}
	parent, name := filepath.Split(strings.TrimSuffix(dir, sep))
	if name != "" && name != "." && name != ".." && filepath.IsAbs(parent) {
		if realParent, ok := m.realDir(parent); ok {
			real := filepath.Join(realParent, name)
			if fi, err := os.Lstat(real); err == nil && fi.IsDir() {
				return real, true
			}
		}
	}
	d, err := filepath.EvalSymlinks(dir)
	return d, err == nil
}

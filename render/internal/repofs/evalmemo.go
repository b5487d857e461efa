package repofs

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// evalMemo holds where each directory a Repo has evaluated on disk leads.
// filepath.EvalSymlinks looks at every element of a path, ten or more
// lstat calls for a file deep in a repository, and a run evaluates every
// file it reads, in the parent and in each render worker, most of them in
// a few hundred directories: a tenth of a worker's time on a large Flux
// repository. With the directory known, a path costs one lstat of its last
// element. A Repo lives for one render (a worker's for one setup), over a
// tree that does not change under it.
type evalMemo struct {
	dirs sync.Map // clean absolute directory → its evaluated path
	n    atomic.Int32
}

// maxEvalDirs bounds the directories remembered.
const maxEvalDirs = 1 << 16

// evalOnDisk is filepath.EvalSymlinks(p), the same path or the same error,
// evaluating p's directory once a memo.
func (m *evalMemo) evalOnDisk(p string) (string, error) {
	dir, base := filepath.Split(p)
	if m == nil || !filepath.IsAbs(p) || base == "" {
		return filepath.EvalSymlinks(p)
	}
	realDir, ok := m.dirs.Load(dir)
	if !ok {
		d, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return filepath.EvalSymlinks(p) // its own words for the error
		}
		if m.n.Add(1) <= maxEvalDirs {
			m.dirs.Store(dir, d)
		}
		realDir = d
	}
	// A last element "." or ".." is taken from the evaluated directory,
	// as EvalSymlinks takes it.
	real := filepath.Join(realDir.(string), base)
	if fi, err := os.Lstat(real); err != nil || fi.Mode()&fs.ModeSymlink != 0 {
		return filepath.EvalSymlinks(p) // missing, or a symlink to follow
	}
	return real, nil
}

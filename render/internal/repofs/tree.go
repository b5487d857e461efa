package repofs

import (
	"fmt"
	"io/fs"
)

// maxTreeDepth bounds the symlinked directories one tree may chain.
const maxTreeDepth = 32

// CheckTree walks dir and refuses the first symlink that points outside
// the root, the first file over the size limit, and any directory reached
// twice through symlinks (a cycle, or a fan-out that multiplies what is
// read). Helm's chart loader follows symlinks and reads every file, without
// a visited set, so a chart is checked with this before it is loaded.
// checkFile, when not nil, sees every regular file within the size limit
// (render refuses alias bombs in a chart's values with it).
func (r *Repo) CheckTree(dir string, checkFile func(path string) error) error {
	real, err := r.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	t := treeWalk{r: r, checkFile: checkFile, visited: map[string]bool{real: true}}
	return t.walk(dir, 0)
}

// treeWalk is one CheckTree: the directories reached so far, by real path.
type treeWalk struct {
	r         *Repo
	checkFile func(path string) error
	visited   map[string]bool
}

func (t *treeWalk) walk(dir string, depth int) error {
	return t.r.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return t.link(p, depth)
		}
		if d.Type().IsRegular() {
			return t.file(p, d)
		}
		return nil
	})
}

// link checks one symlink of the tree; a directory it points to is walked
// once.
func (t *treeWalk) link(p string, depth int) error {
	real, err := t.r.Resolve(p)
	if err != nil {
		return err
	}
	fi, err := t.r.Stat(real)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		if fi.Size() > t.r.MaxBytes {
			return &PathError{Rel: t.r.Rel(p), Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", fi.Size(), t.r.MaxBytes)}
		}
		return nil
	}
	if t.visited[real] {
		return fmt.Errorf("%s: symlink loop: %s is reached again through symlinks, and Helm's loader would read it without end", t.r.Rel(p), t.r.Rel(real))
	}
	if depth >= maxTreeDepth {
		return fmt.Errorf("%s: more than %d symlinked directories in a chain", t.r.Rel(p), maxTreeDepth)
	}
	t.visited[real] = true
	return t.walk(real, depth+1)
}

// file refuses a file over the size limit, then hands it to checkFile.
func (t *treeWalk) file(p string, d fs.DirEntry) error {
	fi, err := d.Info()
	if err != nil {
		return err
	}
	if fi.Size() > t.r.MaxBytes {
		return &PathError{Rel: t.r.Rel(p), Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", fi.Size(), t.r.MaxBytes)}
	}
	if t.checkFile != nil {
		return t.checkFile(p)
	}
	return nil
}

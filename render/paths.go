package render

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// repo is the scanned root (see repofs).
type repo = repofs.Repo

// maxTreeDepth bounds the symlinked directories one chart may chain.
const maxTreeDepth = 32

// checkTree walks dir and refuses the first symlink that points outside
// the root, the first file over the size limit, and any directory reached
// twice through symlinks (a cycle, or a fan-out that multiplies what is
// read). Helm's chart loader follows symlinks and reads every file, without
// a visited set, so a chart is checked with this before it is loaded.
func checkTree(r *repo, dir string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	return walkTree(r, dir, map[string]bool{real: true}, 0)
}

func walkTree(r *repo, dir string, visited map[string]bool, depth int) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&os.ModeSymlink != 0 {
			return checkLink(r, p, visited, depth)
		}
		if d.Type().IsRegular() {
			return checkChartFile(r, p, d)
		}
		return nil
	})
}

// checkLink checks one symlink of a chart tree; a directory it points to
// is walked once.
func checkLink(r *repo, p string, visited map[string]bool, depth int) error {
	real, err := r.Resolve(p)
	if err != nil {
		return err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		if fi.Size() > r.MaxBytes {
			return &repofs.PathError{Rel: r.Rel(p), Err: repofs.ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", fi.Size(), r.MaxBytes)}
		}
		return nil
	}
	if visited[real] {
		return fmt.Errorf("%s: symlink loop: %s is reached again through symlinks, and Helm's loader would read it without end", r.Rel(p), r.Rel(real))
	}
	if depth >= maxTreeDepth {
		return fmt.Errorf("%s: more than %d symlinked directories in a chain", r.Rel(p), maxTreeDepth)
	}
	visited[real] = true
	return walkTree(r, real, visited, depth+1)
}

// checkChartFile refuses a file over the size limit and a values or
// Chart.yaml file that is an alias bomb (Helm's loader would expand it).
func checkChartFile(r *repo, p string, d os.DirEntry) error {
	fi, err := d.Info()
	if err != nil {
		return err
	}
	if fi.Size() > r.MaxBytes {
		return &repofs.PathError{Rel: r.Rel(p), Err: repofs.ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", fi.Size(), r.MaxBytes)}
	}
	if isYAMLName(p) && !strings.Contains(filepath.ToSlash(p), "/templates/") {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := yamldoc.CheckAliases(data); err != nil {
			return &docError{file: r.Rel(p), err: err}
		}
	}
	return nil
}

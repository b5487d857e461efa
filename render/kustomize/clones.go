package kustomize

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Remote kustomize bases are fetched by krusty's own loader under
// --fetch: it clones a git URL with the git binary (depth 1, the ?ref=
// given) into a directory it makes with os.MkdirTemp("", "kustomize-"),
// and reads an https file with its own HTTP client. capreport lets the
// build read those clones, and nothing else outside the root.

// cloneRoot is where krusty makes its clones.
func cloneRoot() string {
	t, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		return os.TempDir()
	}
	return t
}

// clonePath accepts a path inside one of krusty's clone directories.
func (fs *FS) clonePath(abs string) (string, bool) {
	if !fs.Clones {
		return "", false
	}
	root := cloneRoot()
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = filepath.Clean(abs) // not yet there: krusty asks before it clones
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	first := strings.Split(rel, string(filepath.Separator))[0]
	if !strings.HasPrefix(first, "kustomize-") {
		return "", false
	}
	return real, true
}

// readClone reads a file of a clone within the file size limit.
func (fs *FS) readClone(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, fs.r.MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > fs.r.MaxBytes {
		return nil, fs.violate(&repofs.PathError{Rel: p, Err: repofs.ErrTooLarge, Detail: fmt.Sprintf("limit %d", fs.r.MaxBytes)})
	}
	if err := yamldoc.CheckAliases(data); err != nil {
		return nil, fs.violate(&yamldoc.DocError{File: p, Err: err})
	}
	return data, nil
}

// removeClone lets krusty clean its clone up; everything else is read-only.
func (fs *FS) removeClone(p string) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return errReadOnly
	}
	if real, ok := fs.clonePath(abs); ok {
		return os.RemoveAll(real)
	}
	return errReadOnly
}

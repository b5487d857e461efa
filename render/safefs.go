package render

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// safeFS is the filesystem krusty sees: the disk, read-only, confined to
// the repository root (after evaluating symlinks), with the size limit and
// the YAML alias budget applied to every file read, plus an overlay of
// in-memory files (rewritten kustomizations, inflated Helm charts).
// Every refusal is recorded so that it can become a precise finding even
// when krusty wraps the error.
type safeFS struct {
	r       *repo
	disk    filesys.FileSystem
	mem     filesys.FileSystem
	overlay map[string][]byte // by real absolute path

	mu         sync.Mutex
	violations []error
	// clones lets krusty read and remove its own git clones of remote
	// bases (--fetch); see kustremote.go.
	clones bool
}

var _ filesys.FileSystem = (*safeFS)(nil)

var errReadOnly = errors.New("capreport renders read-only")

func newSafeFS(r *repo, overlay map[string][]byte) *safeFS {
	fs := &safeFS{r: r, disk: filesys.MakeFsOnDisk(), mem: filesys.MakeFsInMemory(), overlay: overlay}
	for p, data := range overlay {
		_ = fs.mem.MkdirAll(filepath.Dir(p))
		_ = fs.mem.WriteFile(p, data)
	}
	return fs
}

func (fs *safeFS) violate(err error) error {
	fs.mu.Lock()
	fs.violations = append(fs.violations, err)
	fs.mu.Unlock()
	return err
}

// check confines a path to the root; it returns the evaluated path.
func (fs *safeFS) check(p string) (string, error) {
	abs, err := filepath.Abs(p)
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

func (fs *safeFS) Create(string) (filesys.File, error) { return nil, errReadOnly }
func (fs *safeFS) Mkdir(string) error                  { return errReadOnly }
func (fs *safeFS) MkdirAll(string) error               { return errReadOnly }
func (fs *safeFS) RemoveAll(p string) error            { return fs.removeClone(p) }
func (fs *safeFS) WriteFile(string, []byte) error      { return errReadOnly }

func (fs *safeFS) Open(p string) (filesys.File, error) {
	real, err := fs.check(p)
	if err != nil {
		return nil, err
	}
	if _, ok := fs.overlay[real]; ok {
		return fs.mem.Open(real)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() && fi.Size() > fs.r.MaxBytes {
		return nil, fs.violate(&repofs.PathError{Rel: fs.r.Rel(real), Err: repofs.ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", fi.Size(), fs.r.MaxBytes)})
	}
	return fs.disk.Open(real)
}

func (fs *safeFS) IsDir(p string) bool {
	real, err := fs.check(p)
	if err != nil {
		return false
	}
	if _, ok := fs.overlay[real]; ok {
		return false
	}
	return fs.disk.IsDir(real)
}

func (fs *safeFS) ReadDir(p string) ([]string, error) {
	real, err := fs.check(p)
	if err != nil {
		return nil, err
	}
	names, err := fs.disk.ReadDir(real)
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

func (fs *safeFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", "", err
	}
	if _, ok := fs.overlay[abs]; ok {
		return filesys.ConfirmedDir(filepath.Dir(abs)), filepath.Base(abs), nil
	}
	if _, err := fs.check(abs); err != nil {
		return "", "", err
	}
	return fs.disk.CleanedAbs(abs)
}

func (fs *safeFS) Exists(p string) bool {
	real, err := fs.check(p)
	if err != nil {
		return false
	}
	if _, ok := fs.overlay[real]; ok {
		return true
	}
	return fs.disk.Exists(real)
}

func (fs *safeFS) Glob(pattern string) ([]string, error) {
	abs, err := filepath.Abs(pattern)
	if err != nil {
		return nil, err
	}
	if !fs.r.Within(filepath.Clean(abs)) {
		return nil, fs.violate(&repofs.PathError{Rel: pattern, Err: repofs.ErrEscape})
	}
	matches, err := fs.disk.Glob(abs)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		if _, err := fs.check(m); err == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

func (fs *safeFS) ReadFile(p string) ([]byte, error) {
	real, err := fs.check(p)
	if err != nil {
		return nil, err
	}
	if data, ok := fs.overlay[real]; ok {
		return append([]byte(nil), data...), nil
	}
	if _, ok := fs.clonePath(real); ok {
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
	if err := yamldoc.CheckAliases(data); err != nil {
		return nil, fs.violate(&docError{file: fs.r.Rel(real), line: 0, err: err})
	}
	return data, nil
}

func (fs *safeFS) Walk(p string, walkFn filepath.WalkFunc) error {
	real, err := fs.check(p)
	if err != nil {
		return err
	}
	return fs.disk.Walk(real, func(path string, info os.FileInfo, err error) error {
		if err == nil && info != nil && info.Mode()&os.ModeSymlink != 0 {
			if _, cerr := fs.check(path); cerr != nil {
				return walkFn(path, info, cerr)
			}
		}
		return walkFn(path, info, err)
	})
}

// firstViolation returns the first refusal recorded, if any.
func (fs *safeFS) firstViolation() error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.violations) == 0 {
		return nil
	}
	return fs.violations[0]
}

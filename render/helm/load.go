package helm

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/ignore"

	"github.com/capreport/capreport/render/internal/repofs"
)

// LoadDir is Helm's loader.LoadDir reading through the repository:
// the chart's files, less what .helmignore and Helm's defaults leave out,
// walked as Helm walks them (internal/sympath: in lexical order, following
// symlinks, which the caller has vetted with repofs.CheckTree), then loader.LoadFiles.
func LoadDir(r *repofs.Repo, dir string) (*chart.Chart, error) {
	topdir, err := r.Absolute(dir)
	if err != nil {
		return nil, err
	}
	c := &chart.Chart{} // just used for errors, as LoadDir returns it
	rules := ignore.Empty()
	ifile := filepath.Join(topdir, ignore.HelmIgnore)
	if _, err := r.Stat(ifile); err == nil {
		data, err := r.ReadFile(ifile)
		if err != nil {
			return c, err
		}
		if rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return c, err
		}
	}
	rules.AddDefaults()
	topdir += string(filepath.Separator)
	var files []*loader.BufferedFile
	walk := func(name string, fi os.FileInfo, err error) error {
		f, err := chartFile(r, rules, topdir, name, fi, err)
		if f != nil {
			files = append(files, f)
		}
		return err
	}
	if err := symWalk(r, topdir, walk); err != nil {
		return c, err
	}
	return loader.LoadFiles(files)
}

// utf8BOM is what LoadDir trims from the start of every file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// chartFile is LoadDir's walk function: the file at name, or nil (and
// filepath.SkipDir for an ignored directory).
func chartFile(r *repofs.Repo, rules *ignore.Rules, topdir, name string, fi os.FileInfo, err error) (*loader.BufferedFile, error) {
	n := strings.TrimPrefix(name, topdir)
	if n == "" {
		// No need to process top level. Avoid bug with helmignore .* matching
		// empty names. See Helm's issue 1779.
		return nil, nil
	}
	n = filepath.ToSlash(n)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		if rules.Ignore(n, fi) {
			return nil, filepath.SkipDir
		}
		return nil, nil
	}
	if rules.Ignore(n, fi) {
		return nil, nil
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("cannot load irregular file %s as it has file mode type bits set", name)
	}
	if fi.Size() > loader.MaxDecompressedFileSize {
		return nil, fmt.Errorf("chart file %q is larger than the maximum file size %d", fi.Name(), loader.MaxDecompressedFileSize)
	}
	data, err := r.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("error reading %s: %w", n, err)
	}
	return &loader.BufferedFile{Name: n, Data: bytes.TrimPrefix(data, utf8BOM)}, nil
}

// symWalk is Helm's internal/sympath.Walk through the repository.
func symWalk(r *repofs.Repo, root string, walkFn filepath.WalkFunc) error {
	info, err := r.Lstat(root)
	if err != nil {
		err = walkFn(root, nil, err)
	} else {
		err = symWalkAt(r, root, info, walkFn)
	}
	if err == filepath.SkipDir {
		return nil
	}
	return err
}

// symWalkAt is sympath's symwalk: a symlink is walked as what it points to,
// under its own path.
func symWalkAt(r *repofs.Repo, path string, info os.FileInfo, walkFn filepath.WalkFunc) error {
	if info.Mode()&os.ModeSymlink != 0 {
		resolved, err := r.EvalSymlinks(path)
		if err != nil {
			return fmt.Errorf("error evaluating symlink %s: %w", path, err)
		}
		// Helm logs every symlink it follows; a worker reports the line.
		log.Printf("found symbolic link in path: %s resolves to %s. Contents of linked file included and used", path, resolved)
		if info, err = r.Lstat(resolved); err != nil {
			return err
		}
		if err := symWalkAt(r, path, info, walkFn); err != nil && err != filepath.SkipDir {
			return err
		}
		return nil
	}
	if err := walkFn(path, info, nil); err != nil {
		return err
	}
	if !info.IsDir() {
		return nil
	}
	names, err := r.ReadDirNames(path)
	if err != nil {
		return walkFn(path, info, err)
	}
	for _, name := range names {
		filename := filepath.Join(path, name)
		fileInfo, err := r.Lstat(filename)
		if err != nil {
			if err := walkFn(filename, fileInfo, err); err != nil && err != filepath.SkipDir {
				return err
			}
			continue
		}
		err = symWalkAt(r, filename, fileInfo, walkFn)
		if err != nil && ((!fileInfo.IsDir() && fileInfo.Mode()&os.ModeSymlink == 0) || err != filepath.SkipDir) {
			return err
		}
	}
	return nil
}

package repofs

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The looking half of a Repo: paths, symlinks, file information and
// directory listings. None of it is confined to the root (a symlink may be
// looked at before Resolve refuses it); what is read is.

// Absolute makes p absolute: on disk against the working directory, in
// any other file system against its root ("/").
func (r *Repo) Absolute(p string) (string, error) {
	if r.disk {
		return filepath.Abs(p)
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return filepath.Join(string(filepath.Separator), p), nil
}

// EvalSymlinks is filepath.EvalSymlinks on disk. A file system without
// symlinks returns p cleaned when it exists, else the error
// filepath.EvalSymlinks gives for a missing path: it names the first
// missing prefix.
func (r *Repo) EvalSymlinks(p string) (string, error) {
	if r.disk {
		real, err := r.memo.eval(p)
		r.observe(OpEval, p, r.evalAnswer(real, err))
		return real, err
	}
	p = filepath.Clean(p)
	if r.fs.Exists(p) {
		return p, nil
	}
	prefix, err := r.missing(p)
	if err == syscall.ENOTDIR {
		return "", err
	}
	return "", &fs.PathError{Op: "lstat", Path: prefix, Err: err}
}

// missing finds why p does not exist: the first missing prefix of p and
// ENOENT, or ENOTDIR when a prefix is a file.
func (r *Repo) missing(p string) (string, error) {
	sep := string(filepath.Separator)
	cur := sep
	parts := strings.Split(strings.TrimPrefix(p, sep), sep)
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		if !r.fs.Exists(cur) {
			return cur, syscall.ENOENT
		}
		if i < len(parts)-1 && !r.fs.IsDir(cur) {
			return cur, syscall.ENOTDIR
		}
	}
	return p, syscall.ENOENT
}

// Stat is os.Stat on disk; elsewhere what the file system says of p.
func (r *Repo) Stat(p string) (fs.FileInfo, error) {
	if r.disk {
		fi, err := r.memo.stat(p)
		r.observe(OpStat, p, typeAnswer(fi, err))
		return fi, err
	}
	return r.info("stat", p)
}

// Lstat is os.Lstat on disk; elsewhere (no symlinks) Stat.
func (r *Repo) Lstat(p string) (fs.FileInfo, error) {
	if r.disk {
		fi, err := r.memo.lstat(p)
		r.observe(OpLstat, p, typeAnswer(fi, err))
		return fi, err
	}
	return r.info("lstat", p)
}

// info is the file information of p in a file system without symlinks.
// A file's size is read when asked for: listing a directory reads nothing.
func (r *Repo) info(op, p string) (fs.FileInfo, error) {
	p = filepath.Clean(p)
	if !r.fs.Exists(p) {
		_, err := r.missing(p)
		return nil, &fs.PathError{Op: op, Path: p, Err: err}
	}
	if r.fs.IsDir(p) {
		return fileInfo{name: filepath.Base(p), mode: fs.ModeDir | 0o755}, nil
	}
	return fileInfo{name: filepath.Base(p), mode: 0o644, fs: r.fs, path: p}, nil
}

// fileInfo describes a file or directory of a file system without
// symlinks; a file's size is the length of its content.
type fileInfo struct {
	name string
	mode fs.FileMode
	fs   FS
	path string // a file's
}

func (fi fileInfo) Name() string { return fi.name }
func (fi fileInfo) Size() int64 {
	if fi.fs == nil {
		return 0
	}
	data, err := fi.fs.ReadFile(fi.path)
	if err != nil {
		return 0
	}
	return int64(len(data))
}
func (fi fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi fileInfo) ModTime() time.Time { return time.Time{} }
func (fi fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi fileInfo) Sys() any           { return nil }

// IsDir reports whether p is a directory (after symlinks).
func (r *Repo) IsDir(p string) bool { return r.fs.IsDir(p) }

// Exists reports whether p exists (after symlinks).
func (r *Repo) Exists(p string) bool { return r.fs.Exists(p) }

// ReadDirNames lists the names in dir, sorted.
func (r *Repo) ReadDirNames(dir string) ([]string, error) {
	names, err := r.fs.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names = slices.Clone(names)
	slices.Sort(names)
	return names, nil
}

// ReadDir is os.ReadDir: the entries of dir, sorted by name, each typed as
// Lstat sees it (an entry that vanished meanwhile is left out).
func (r *Repo) ReadDir(dir string) ([]fs.DirEntry, error) {
	names, err := r.ReadDirNames(dir)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, 0, len(names))
	for _, n := range names {
		fi, err := r.Lstat(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		out = append(out, fs.FileInfoToDirEntry(fi))
	}
	return out, nil
}

// WalkDir is filepath.WalkDir through the Repo: root first, then each
// directory's entries in lexical order; symlinks are not followed.
func (r *Repo) WalkDir(root string, fn fs.WalkDirFunc) error {
	info, err := r.Lstat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = r.walkDir(root, fs.FileInfoToDirEntry(info), fn)
	}
	if err == filepath.SkipDir || err == filepath.SkipAll {
		return nil
	}
	return err
}

// walkDir is filepath.WalkDir's walkDir.
func (r *Repo) walkDir(p string, d fs.DirEntry, fn fs.WalkDirFunc) error {
	if err := fn(p, d, nil); err != nil || !d.IsDir() {
		if err == filepath.SkipDir && d.IsDir() {
			err = nil
		}
		return err
	}
	entries, err := r.ReadDir(p)
	if err != nil {
		if err = fn(p, d, err); err != nil {
			if err == filepath.SkipDir && d.IsDir() {
				err = nil
			}
			return err
		}
	}
	for _, e := range entries {
		if err := r.walkDir(filepath.Join(p, e.Name()), e, fn); err != nil {
			if err == filepath.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// Glob is filepath.Glob through the Repo.
func (r *Repo) Glob(pattern string) ([]string, error) {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	if !hasMeta(pattern) {
		if _, err := r.Lstat(pattern); err != nil {
			return nil, nil
		}
		return []string{pattern}, nil
	}
	dir, file := filepath.Split(pattern)
	dir = cleanGlobPath(dir)
	if !hasMeta(dir) {
		return r.glob(dir, file, nil)
	}
	if dir == pattern {
		return nil, filepath.ErrBadPattern
	}
	dirs, err := r.Glob(dir)
	if err != nil {
		return nil, err
	}
	var matches []string
	for _, d := range dirs {
		if matches, err = r.glob(d, file, matches); err != nil {
			return nil, err
		}
	}
	return matches, nil
}

// glob adds the names in dir that match pattern to matches.
func (r *Repo) glob(dir, pattern string, matches []string) ([]string, error) {
	if fi, err := r.Stat(dir); err != nil || !fi.IsDir() {
		return matches, nil
	}
	names, err := r.ReadDirNames(dir)
	if err != nil {
		return matches, nil
	}
	for _, n := range names {
		ok, err := filepath.Match(pattern, n)
		if err != nil {
			return matches, err
		}
		if ok {
			matches = append(matches, filepath.Join(dir, n))
		}
	}
	return matches, nil
}

func hasMeta(path string) bool { return strings.ContainsAny(path, `*?[\`) }

// cleanGlobPath is filepath's: the directory part of a pattern, cleaned.
func cleanGlobPath(path string) string {
	switch path {
	case "":
		return "."
	case string(filepath.Separator):
		return path
	}
	return path[:len(path)-1]
}

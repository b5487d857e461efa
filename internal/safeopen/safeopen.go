// Package safeopen opens and reads files a run did not write itself and
// must not trust: the entries of a cache directory that another run (a
// pull request's, restored by actions/cache) filled. Only a regular file,
// reached without following a symlink at its name, within a size bound, is
// read. A FIFO, a device, a symlink to /dev/zero or to a file outside the
// cache, or a sparse file of gigabytes is refused at once: never read
// whole, never waited on.
package safeopen

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRegular is returned for anything but a regular file, a symlink at
// the name included.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a file over the caller's bound.
var ErrTooLarge = errors.New("too large")

// Open opens the regular file at p for reading, refusing a symlink at p
// (on Unix the open itself refuses it, O_NOFOLLOW), anything but a regular
// file (opened without blocking, O_NONBLOCK, so a FIFO with no writer
// returns at once and is then refused) and a file over max bytes.
func Open(p string, max int64) (*os.File, fs.FileInfo, error) {
	if err := checkName(p); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s: %w", p, ErrNotRegular)
	case fi.Size() > max:
		err = fmt.Errorf("%s: %w (%d bytes, limit %d)", p, ErrTooLarge, fi.Size(), max)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadFile reads the regular file at p (Open's refusals) and at most max
// bytes of it: a file that grows past max while it is read is refused too.
func ReadFile(p string, max int64) ([]byte, error) {
	f, fi, err := Open(p, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, 0, fi.Size())
	data, err = readAll(io.LimitReader(f, max+1), data)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w (limit %d)", p, ErrTooLarge, max)
	}
	return data, nil
}

// readAll is io.ReadAll into a buffer sized by the caller.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// OwnDir reports whether dir, below root, is reached through directories
// only: each of its path elements under root that exists is a directory,
// not a symlink (which could send a read or a write outside the cache) and
// not a special file. What does not exist yet is fine: the caller creates
// it as a directory. root itself is the user's choice and is not checked.
func OwnDir(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	if rel == "." {
		return true
	}
	cur := root
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, elem)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return true
		}
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// Package safefile reads a file someone else may have put in place (a
// pull request's .capreport.yaml, a report from an artifact): only a
// regular file is read, so a FIFO or device cannot block the run or
// feed it without end, and, unless the caller accepts one, never a
// symlink, which could name any file of the machine.
package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is a path that is not a regular file. Its message
// names the path and what it is, never what a symlink points at.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string { return e.Path + " " + Describe(e.Mode) }

// Describe says what a file that is not a regular one is, completing
// "PATH ...": "is a symlink", "is not a regular file (a named pipe)".
func Describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "is a regular file"
	case m&fs.ModeSymlink != 0:
		return "is a symlink"
	case m.IsDir():
		return "is not a regular file (a directory)"
	case m&fs.ModeNamedPipe != 0:
		return "is not a regular file (a named pipe)"
	case m&fs.ModeSocket != 0:
		return "is not a regular file (a socket)"
	case m&fs.ModeDevice != 0:
		return "is not a regular file (a device)"
	}
	return "is not a regular file"
}

// TooLargeError is a regular file larger than the reader's bound.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes", e.Path, e.Limit)
}

// Open opens path for reading if it is a regular file. With follow, a
// symlink at path is followed (the person running capreport named the
// file); without, it is refused. The type is checked before the open
// (stat), which cannot block, and again on the open file (fstat), since
// the path may have been swapped in between; the open itself neither
// waits for a FIFO's writer nor, without follow, follows a link.
func Open(path string, follow bool) (*os.File, fs.FileInfo, error) {
	stat, flags := os.Lstat, os.O_RDONLY|nonBlock|noFollow
	if follow {
		stat, flags = os.Stat, os.O_RDONLY|nonBlock
	}
	before, err := stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, Mode: before.Mode()}
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		if !follow && isLoop(err) {
			return nil, nil, &NotRegularError{Path: path, Mode: fs.ModeSymlink}
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadFile reads path, a regular file (Open) of at most limit bytes; a
// larger one is a *TooLargeError, refused before it is read when its
// size says so and after limit+1 bytes when it grows meanwhile.
func ReadFile(path string, limit int64, follow bool) ([]byte, error) {
	r, err := OpenLimited(path, limit, follow)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// Reader reads an open regular file within a bound: past limit bytes,
// its reads fail with a *TooLargeError.
type Reader struct {
	f     *os.File
	path  string
	limit int64
	n     int64 // bytes read so far
}

// OpenLimited opens path, a regular file (Open), to be read within limit
// bytes; a file whose size is over limit is refused before it is read.
func OpenLimited(path string, limit int64, follow bool) (*Reader, error) {
	f, fi, err := Open(path, follow)
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		f.Close()
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return &Reader{f: f, path: path, limit: limit}, nil
}

func (r *Reader) Read(p []byte) (int, error) {
	if left := r.limit + 1 - r.n; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := r.f.Read(p)
	r.n += int64(n)
	if r.n > r.limit {
		return 0, &TooLargeError{Path: r.path, Limit: r.limit}
	}
	return n, err
}

// N is how many bytes have been read.
func (r *Reader) N() int64 { return r.n }

func (r *Reader) Close() error { return r.f.Close() }

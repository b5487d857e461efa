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
	f, fi, err := Open(path, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return b, nil
}

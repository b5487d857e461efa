package repofs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Observer, when the FS a Repo reads through implements it, is told what
// the Repo learns of the disk beside the FS's own reads: each Stat, Lstat
// and EvalSymlinks answer (Answer's words), and each read it refuses (a
// symlink out of the root, a special file, a file too large). A render
// cache keys a render on them: a refusal, or a file that became a symlink,
// changes what a render gives as surely as changed bytes do, and a key
// without them serves one side of a pull request the other side's render.
type Observer interface {
	Observed(op, abs, answer string)
	Refused(abs string, err error)
}

// Ops an Observer is told of.
const (
	OpStat  = "stat"
	OpLstat = "lstat"
	OpEval  = "eval"
)

func (r *Repo) observe(op, abs, answer string) {
	if o, ok := r.fs.(Observer); ok {
		o.Observed(op, abs, answer)
	}
}

func (r *Repo) refused(abs string, err error) error {
	if o, ok := r.fs.(Observer); ok {
		o.Refused(abs, err)
	}
	return err
}

// Answer is what op (OpStat, OpLstat, OpEval) on the disk path abs gives
// now, in the words an Observer was told: a render cache asks it again to
// learn whether a stored render still holds.
func (r *Repo) Answer(op, abs string) string {
	switch op {
	case OpStat:
		fi, err := os.Stat(abs)
		return typeAnswer(fi, err)
	case OpLstat:
		fi, err := os.Lstat(abs)
		return typeAnswer(fi, err)
	case OpEval:
		real, err := filepath.EvalSymlinks(abs)
		return r.evalAnswer(real, err)
	}
	return "unknown op"
}

// typeAnswer is a path's type: sizes and times are left out (a file's
// bytes are keyed by their digest, when read).
func typeAnswer(fi fs.FileInfo, err error) string {
	switch {
	case err != nil:
		return "error: " + errWord(err)
	case fi.Mode().IsRegular():
		return "file"
	case fi.IsDir():
		return "dir"
	case fi.Mode()&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "other"
}

// evalAnswer is where a path's symlinks lead: a root-relative path, "out"
// of the root, or the error.
func (r *Repo) evalAnswer(real string, err error) string {
	switch {
	case err != nil:
		return "error: " + errWord(err)
	case r.Within(real):
		return "in: " + r.Rel(real)
	}
	return "out"
}

// errWord is an error without the machine's paths in it.
func errWord(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "not found"
	case errors.Is(err, fs.ErrPermission):
		return "permission"
	}
	return "failed"
}

// Package atomicfile writes a file whole or not at all, as the caches
// (fetched charts, renders, bills) and the .capreport.yaml that init and
// calibrate write need: a reader, in this run or another running beside
// it, sees either the old file or the new one.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/capreport/capreport/internal/safefile"
)

// Write writes data to p through a temporary file in p's directory
// (made if missing), synced and then renamed over p.
func Write(p string, data []byte) error { return write(p, data, true, 0) }

// WriteUnsynced is Write without the sync, for a file whose readers
// check it whole (a checksum) and take a damaged one for a missing one,
// as the render cache's entries and memos do: readers running beside the
// writer still see the old file or the new one, and after a crash the
// file may be torn, which costs a render, not a wrong report. The sync
// took a millisecond or more of a warm diff's last steps for each render it
// stored.
func WriteUnsynced(p string, data []byte) error { return write(p, data, false, 0) }

// WriteFile is Write for a file a person keeps, which gets perm: what is
// at p already must be a regular file, else it is refused as a
// *safefile.NotRegularError. A symlink there is neither written through
// (in a pull request's checkout it may name any file of the machine) nor
// replaced (it is not capreport's to remove); a FIFO or device is never
// opened, which could wait for a reader forever. Should p become a link
// after the check, the rename replaces the link itself: nothing is ever
// written through one.
func WriteFile(p string, data []byte, perm fs.FileMode) error {
	fi, err := os.Lstat(p)
	if err == nil && !fi.Mode().IsRegular() {
		return &safefile.NotRegularError{Path: p, Mode: fi.Mode()}
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return write(p, data, true, perm)
}

// write writes through a temporary file; perm, unless 0, replaces the
// temporary file's 0600.
func write(p string, data []byte, sync bool, perm fs.FileMode) error {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if perm != 0 {
		if err := tmp.Chmod(perm); err != nil {
			tmp.Close()
			return err
		}
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

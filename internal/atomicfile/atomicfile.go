// Package atomicfile writes a file whole or not at all, as the caches
// (fetched charts, renders, bills) need: a reader, in this run or another
// running beside it, sees either the old file or the new one.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to p through a temporary file in p's directory
// (made if missing), synced and then renamed over p.
func Write(p string, data []byte) error { return write(p, data, true) }

// WriteUnsynced is Write without the sync, for a file whose readers
// check it whole (a checksum) and take a damaged one for a missing one,
// as the render cache's entries and memos do: readers running beside the
// writer still see the old file or the new one, and after a crash the
// file may be torn, which costs a render, not a wrong report. The sync
// took a millisecond or more of a warm diff's last steps for each render it
// stored.
func WriteUnsynced(p string, data []byte) error { return write(p, data, false) }

func write(p string, data []byte, sync bool) error {
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

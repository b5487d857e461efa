//go:build !linux

package render

// statOf is Linux-only (the change time's field differs by system);
// elsewhere every check reads and hashes the file.
func statOf(string, bool) (fileStat, bool) { return fileStat{}, false }

//go:build !linux

package digestmemo

// StatOf is Linux-only (the change time's field differs by system);
// elsewhere every check reads and hashes the file.
func StatOf(string, bool) (Stat, bool) { return Stat{}, false }

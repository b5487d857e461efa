package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// OwnDir reports whether dir, below root, is reached through directories
// only: each of its path elements under root that exists is a directory,
// not a symlink (which could send a cache's reads and writes anywhere) and
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

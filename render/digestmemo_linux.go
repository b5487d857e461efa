//go:build linux

package render

import (
	"os"
	"syscall"
)

// statOf is the stat of the regular file, or the directory when dir, at
// abs (following symbolic links, as reading it does).
func statOf(abs string, dir bool) (fileStat, bool) {
	fi, err := os.Stat(abs)
	if err != nil || fi.IsDir() != dir || !dir && !fi.Mode().IsRegular() {
		return fileStat{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}, false
	}
	return fileStat{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: uint64(st.Dev)}, true
}

//go:build linux

package digestmemo

import "syscall"

// StatOf is the stat of the regular file, or the directory when dir, at
// abs (following symbolic links, as reading it does). It calls stat(2)
// itself: os.Stat also builds a FileInfo, one allocation more for each of
// the inputs a warm run checks (tens of thousands in a diff).
func StatOf(abs string, dir bool) (Stat, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(abs, &st); err != nil {
		return Stat{}, false // EINTR too: the file is then read and hashed
	}
	want := uint32(syscall.S_IFREG)
	if dir {
		want = syscall.S_IFDIR
	}
	if st.Mode&syscall.S_IFMT != want {
		return Stat{}, false
	}
	return Stat{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: uint64(st.Dev)}, true
}

// Package cachefile holds what the render cache's files share: each is
// read whole into one string (its decoded strings are cut from it) with
// the checksum of its bytes, and a directory of them is pruned to the
// most recently used.
package cachefile

import (
	"cmp"
	"hash/crc32"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// copyBuffers are what ReadString reads through (io.Copy would allocate a
// buffer each time: 32 KiB for every entry a run reads).
var copyBuffers = sync.Pool{New: func() any { return new([16 << 10]byte) }}

// ReadString reads size bytes of f into a string, and returns the CRC-32
// (IEEE) of all but the last unsummed of them. A Builder's string is its
// buffer, not a copy of it.
func ReadString(f io.Reader, size int64, unsummed int) (string, uint32, error) {
	buf := copyBuffers.Get().(*[16 << 10]byte)
	defer copyBuffers.Put(buf)
	var text strings.Builder
	text.Grow(int(size))
	var sum uint32
	for left := size; left > 0; {
		n, err := f.Read(buf[:min(int64(len(buf)), left)])
		summed := min(n, max(0, int(left)-unsummed))
		sum = crc32.Update(sum, crc32.IEEETable, buf[:summed])
		text.Write(buf[:n])
		left -= int64(n)
		if err == nil && n == 0 {
			err = io.ErrNoProgress
		}
		if err != nil && left > 0 {
			return "", 0, err
		}
	}
	return text.String(), sum, nil
}

// KeepNewest removes all but the n most recently modified files of dir
// whose names end in ext.
func KeepNewest(dir, ext string, n int) {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) <= n {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var all []aged
	for _, e := range ents {
		if info, err := e.Info(); err == nil && path.Ext(e.Name()) == ext {
			all = append(all, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(b.mod, a.mod) })
	for _, a := range all[min(n, len(all)):] {
		_ = os.Remove(filepath.Join(dir, a.name))
	}
}

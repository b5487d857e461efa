// Package buildid names the running build for the caches, so that a
// rebuilt capreport never reuses what an older one stored (a development
// build has no version that would change): the Go build ID the linker
// writes into the executable (a hash of everything that went into it),
// else the SHA-256 of the whole executable.
package buildid

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"
	"os"
	"sync"
)

// Digest names the running executable, computed once per process: the
// hex SHA-256 of its Go build ID note, else of the whole file; "unknown"
// when it cannot be read (the caches then still key on everything else).
var Digest = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	if note := goBuildIDNote(exe); note != nil {
		sum := sha256.Sum256(note)
		return "go-build-id:" + hex.EncodeToString(sum[:])
	}
	return fileDigest(exe)
})

// goBuildIDNote is the ELF note the Go linker writes the build ID into,
// nil when exe has none (another object format, or a stripped note).
func goBuildIDNote(exe string) []byte {
	f, err := elf.Open(exe)
	if err != nil {
		return nil
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil {
		return nil
	}
	data, err := sec.Data()
	if err != nil || len(data) == 0 {
		return nil
	}
	return data
}

// fileDigest is the hex SHA-256 of the file at p.
func fileDigest(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown"
	}
	return hex.EncodeToString(h.Sum(nil))
}

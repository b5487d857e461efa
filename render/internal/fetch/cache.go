package fetch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/internal/atomicfile"
	"github.com/capreport/capreport/internal/safefile"
)

// Cache is a content-addressed store on disk: blobs/sha256/<hex> holds
// bytes whose SHA-256 is <hex>; refs/<sha256 of a key> holds the digest a
// key (a chart version in a repository, a repository's index) last
// resolved to. Several workers write to one cache at once, so every write
// goes to a temporary file in the cache directory, is synced, then
// renamed into place: a reader sees a whole file or none.
type Cache struct {
	dir string
}

// OpenCache returns the cache in dir ("" disables caching).
func OpenCache(dir string) *Cache {
	if dir == "" {
		return nil
	}
	return &Cache{dir: dir}
}

func digestOf(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func (c *Cache) blobPath(digest string) string {
	return filepath.Join(c.dir, "blobs", "sha256", strings.TrimPrefix(digest, "sha256:"))
}

// ValidDigest reports whether digest is a SHA-256 in hex, with or without
// "sha256:": 64 lower-case hex digits and nothing else. A digest comes from
// a repository's index or an OCI manifest, which anyone can write; checked
// by its grammar before it becomes a path, "../../outside/secret.txt"
// never names a file outside the cache.
func ValidDigest(digest string) bool {
	h := strings.TrimPrefix(digest, "sha256:")
	if len(h) != sha256.Size*2 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func (c *Cache) refPath(key string) string {
	s := sha256.Sum256([]byte(key))
	return filepath.Join(c.dir, "refs", hex.EncodeToString(s[:]))
}

// Put stores data and returns its hex digest.
func (c *Cache) Put(data []byte) (string, error) {
	d := digestOf(data)
	if c == nil {
		return d, nil
	}
	p := c.blobPath(d)
	if !safefile.OwnDir(c.dir, filepath.Dir(p)) {
		return d, nil // not stored: the directory leads out of the cache
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
		return d, nil
	}
	return d, c.writeAtomic(p, data)
}

// Get returns the blob of a hex digest if present and intact; max bounds
// what is read, so a planted huge file cannot exhaust memory.
func (c *Cache) Get(digest string, max int64) ([]byte, bool) {
	if c == nil || !ValidDigest(digest) || !safefile.OwnDir(c.dir, filepath.Join(c.dir, "blobs", "sha256")) {
		return nil, false
	}
	// A regular file only, within max: a planted FIFO or link to
	// /dev/zero is refused at once.
	data, err := safefile.ReadFile(c.blobPath(digest), max, false)
	if err != nil || digestOf(data) != strings.TrimPrefix(digest, "sha256:") {
		return nil, false
	}
	return data, true
}

// SetRef records that key resolved to digest.
func (c *Cache) SetRef(key, digest string) error {
	if c == nil {
		return nil
	}
	if !ValidDigest(digest) || !safefile.OwnDir(c.dir, filepath.Join(c.dir, "refs")) {
		return nil
	}
	return c.writeAtomic(c.refPath(key), []byte(digest+"\n"+key+"\n"))
}

// Ref returns the digest key last resolved to.
func (c *Cache) Ref(key string) (string, bool) {
	if c == nil {
		return "", false
	}
	if !safefile.OwnDir(c.dir, filepath.Join(c.dir, "refs")) {
		return "", false
	}
	data, err := safefile.ReadFile(c.refPath(key), 4096+int64(len(key)), false)
	if err != nil {
		return "", false
	}
	lines := strings.SplitN(string(data), "\n", 3)
	if len(lines) < 2 || lines[1] != key || !ValidDigest(lines[0]) {
		return "", false
	}
	return lines[0], true
}

func (c *Cache) writeAtomic(p string, data []byte) error {
	if err := atomicfile.Write(p, data); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

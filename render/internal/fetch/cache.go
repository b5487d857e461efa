package fetch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/internal/atomicfile"
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
	if _, err := os.Stat(p); err == nil {
		return d, nil
	}
	return d, c.writeAtomic(p, data)
}

// Get returns the blob of a hex digest if present and intact; max bounds
// what is read, so a planted huge file cannot exhaust memory.
func (c *Cache) Get(digest string, max int64) ([]byte, bool) {
	if c == nil || digest == "" {
		return nil, false
	}
	f, err := os.Open(c.blobPath(digest))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || int64(len(data)) > max || digestOf(data) != strings.TrimPrefix(digest, "sha256:") {
		return nil, false
	}
	return data, true
}

// SetRef records that key resolved to digest.
func (c *Cache) SetRef(key, digest string) error {
	if c == nil {
		return nil
	}
	return c.writeAtomic(c.refPath(key), []byte(digest+"\n"+key+"\n"))
}

// Ref returns the digest key last resolved to.
func (c *Cache) Ref(key string) (string, bool) {
	if c == nil {
		return "", false
	}
	data, err := os.ReadFile(c.refPath(key))
	if err != nil || len(data) > 4096 {
		return "", false
	}
	lines := strings.SplitN(string(data), "\n", 3)
	if len(lines) < 2 || lines[1] != key {
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

//go:build unix

package fetch

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileCache: what a hostile index or a planted cache directory
// holds never makes the cache read outside its directory, wait on a FIFO
// or read a file whole (issue 31).
func TestHostileCache(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "cache")
	c := OpenCache(root)
	good, err := c.Put([]byte("chart"))
	if err != nil {
		t.Fatal(err)
	}
	if data, ok := c.Get(good, 1<<20); !ok || string(data) != "chart" {
		t.Fatalf("a stored blob is not read back: %q %v", data, ok)
	}
	// An index digest that walks out of the cache, to a FIFO: refused by
	// its grammar, at once.
	secret := filepath.Join(dir, "secret.txt")
	if err := syscall.Mkfifo(secret, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"../../../secret.txt", "sha256:../../../secret.txt", strings.Repeat("A", 64), good + "/", ""} {
		start := time.Now()
		if _, ok := c.Get(d, 1<<20); ok || time.Since(start) > time.Second {
			t.Errorf("Get(%q): ok=%v after %v", d, ok, time.Since(start))
		}
	}
	// A planted FIFO, and a link to /dev/zero, in blobs' places.
	fifo := strings.Repeat("a", 64)
	if err := syscall.Mkfifo(c.blobPath(fifo), 0o644); err != nil {
		t.Fatal(err)
	}
	zero := strings.Repeat("b", 64)
	if err := os.Symlink("/dev/zero", c.blobPath(zero)); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{fifo, zero} {
		start := time.Now()
		if _, ok := c.Get(d, 1<<30); ok || time.Since(start) > time.Second {
			t.Errorf("planted %s: ok=%v after %v", d[:1], ok, time.Since(start))
		}
	}
	// A ref pointing the key at a walk out of the cache is not followed,
	// and a refs directory that is a symlink is neither read nor written.
	if err := c.SetRef("k", "../../secret.txt"); err != nil {
		t.Fatal(err)
	}
	if d, ok := c.Ref("k"); ok {
		t.Errorf("a ref to %q was stored and read back", d)
	}
	outside := filepath.Join(dir, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.RemoveAll(filepath.Join(root, "refs"))
	if err := os.Symlink(outside, filepath.Join(root, "refs")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetRef("k", good)
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("a ref was written through the refs symlink: %v", ents)
	}
	if _, ok := c.Ref("k"); ok {
		t.Errorf("a ref was read through the refs symlink")
	}
}

// FuzzValidDigest: whatever an index says, a digest the grammar accepts
// names a file directly in the cache's blob directory.
func FuzzValidDigest(f *testing.F) {
	for _, s := range []string{strings.Repeat("0", 64), "sha256:" + strings.Repeat("f", 64), "../../x", "sha256:", "/etc/passwd", strings.Repeat("a", 63) + "/"} {
		f.Add(s)
	}
	c := OpenCache("/cache")
	f.Fuzz(func(t *testing.T, d string) {
		if !ValidDigest(d) {
			return
		}
		if p := c.blobPath(d); filepath.Dir(p) != "/cache/blobs/sha256" || filepath.Base(p) != strings.TrimPrefix(d, "sha256:") {
			t.Fatalf("digest %q names %s", d, p)
		}
	})
}

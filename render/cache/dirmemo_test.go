//go:build linux

package cache

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/capreport/capreport/render/internal/digestmemo"
)

// A directory's listing is memoized under the directory's stat, as a
// file's bytes are: given back while no entry is added, removed or
// renamed, and never after.
func TestDirListingMemo(t *testing.T) {
	cacheDir, root := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(root, "d")
	cache := func() *Cache {
		c := Open(Options{Dir: cacheDir, Repo: diskRepo(t, root), OnDisk: true})
		t.Cleanup(c.Close)
		return c
	}
	before, ok := digestmemo.StatOf(abs, true)
	if !ok {
		t.Fatal("no stat of the directory")
	}
	c := cache()
	c.memo.Plant("dir:d", digestmemo.Entry{Stat: before, Digest: "planted"})
	if got := c.current("dir", "d"); got != "planted" {
		t.Fatalf("an unchanged directory was listed again: %q, want the memo's digest", got)
	}
	time.Sleep(10 * time.Millisecond) // past the clock's resolution
	if err := os.WriteFile(filepath.Join(abs, "new.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c = cache()
	c.memo.Plant("dir:d", digestmemo.Entry{Stat: before, Digest: "planted"})
	want := dirDigest(c.repo.FS().ReadDir(abs))
	if got := c.current("dir", "d"); got != want {
		t.Errorf("after a file was added the listing's digest is %q, want %q", got, want)
	}
}

package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOwnDir: a key directory that is a symlink, or a file, is not the
// cache's own; one not made yet is.
func TestOwnDir(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "render", "ab"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "render", "cd")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "render", "ef"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{
		"render/ab/key": true, "render/new/key": true, ".": true,
		"render/cd/key": false, "render/cd": false, "render/ef/key": false, "../x": false,
	} {
		if got := OwnDir(root, filepath.Join(root, dir)); got != want {
			t.Errorf("OwnDir(%s) = %v, want %v", dir, got, want)
		}
	}
}

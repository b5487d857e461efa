package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Write makes the directory, replaces an existing file, and leaves no
// temporary file behind; a directory it cannot write is an error and
// leaves the old file as it was; WriteUnsynced alike.
func TestWrite(t *testing.T) {
	for name, write := range map[string]func(string, []byte) error{"Write": Write, "WriteUnsynced": WriteUnsynced} {
		t.Run(name, func(t *testing.T) { testWrite(t, write) })
	}
}

func testWrite(t *testing.T, Write func(string, []byte) error) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "entry")
	for _, want := range []string{"first", "second"} {
		if err := Write(p, []byte(want)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	ents, err := os.ReadDir(filepath.Dir(p))
	if err != nil || len(ents) != 1 {
		t.Errorf("directory holds %v (%v), want only the entry", ents, err)
	}
	// A path under a regular file cannot be made, by root either.
	if err := Write(filepath.Join(p, "x"), []byte("x")); err == nil {
		t.Error("Write under a regular file succeeded")
	}
	// A rename over a directory that holds something fails: that
	// directory stays as it was, and no temporary file is left beside it.
	busy := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(busy, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(busy, []byte("x")); err == nil {
		t.Error("Write over a non-empty directory succeeded")
	}
	if fi, err := os.Stat(filepath.Join(busy, "inside")); err != nil || !fi.IsDir() {
		t.Errorf("the directory written over changed: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%s holds %v, want only a and busy", dir, ents)
	}
}

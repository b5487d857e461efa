//go:build unix

package safeopen

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestRefusals: each file a hostile cache can plant is refused at once,
// and a regular file within the bound is read.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "entry")
	if err := os.WriteFile(regular, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil { // 3 GB, no blocks
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct {
		name, path string
		ok         bool
	}{
		{"regular", regular, true},
		{"FIFO without a writer", fifo, false},
		{"symlink to /dev/zero", zero, false},
		{"symlink to a regular file", link, false},
		{"3 GB sparse file", sparse, false},
		{"directory", dir, false},
		{"missing", filepath.Join(dir, "none"), false},
	} {
		start := time.Now()
		data, err := ReadFile(c.path, 1<<20)
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s: took %v", c.name, took)
		}
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok=%v", c.name, err, c.ok)
		}
		if c.ok && string(data) != "hello" {
			t.Errorf("%s: read %q", c.name, data)
		}
	}
	if _, err := ReadFile(sparse, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("sparse: %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile(fifo, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("fifo: %v, want ErrNotRegular", err)
	}
}

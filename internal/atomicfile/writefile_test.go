//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/capreport/capreport/internal/safefile"
)

// WriteFile replaces a regular file with perm, and refuses a symlink
// (dangling or not) or a FIFO at the path without writing through it,
// replacing it or blocking on it.
func TestWriteFileRefusesLinksAndPipes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "file")
	if err := WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v (%v), want 0644", fi.Mode(), err)
	}
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"link": victim, "dangling": filepath.Join(outside, "new")} {
		link := filepath.Join(dir, name)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		err := WriteFile(link, []byte("evil"), 0o644)
		var nr *safefile.NotRegularError
		if !errors.As(err, &nr) || err.Error() != link+" is a symlink" {
			t.Errorf("%s: err %v, want %q", name, err, link+" is a symlink")
		}
		if got, _ := os.Readlink(link); got != target {
			t.Errorf("%s: the link was replaced", name)
		}
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep" {
		t.Errorf("written through the link: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(outside, "new")); err == nil {
		t.Error("written through the dangling link")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(fifo, []byte("x"), 0o644); err == nil || err.Error() != fifo+" is not a regular file (a named pipe)" {
		t.Errorf("FIFO: err %v", err)
	}
}

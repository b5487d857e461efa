//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ReadFile reads a regular file and refuses, by name and without
// blocking, a symlink (unless followed), a FIFO, a directory, a device
// and a file over the bound; a followed link must still end at a regular
// file.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(p("file"), []byte("twelve bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link": "file", "dangling": "none", "fifolink": "fifo", "zero": "/dev/zero"} {
		if err := os.Symlink(target, p(link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		follow bool
		limit  int64
		want   string // "" for the contents
	}{
		{"file", false, 12, ""},
		{"file", false, 11, "is larger than 11 bytes"},
		{"link", false, 100, "link is a symlink"},
		{"dangling", false, 100, "dangling is a symlink"},
		{"fifo", false, 100, "fifo is not a regular file (a named pipe)"},
		{"fifo", true, 100, "fifo is not a regular file (a named pipe)"},
		{".", false, 100, "is not a regular file (a directory)"},
		{"zero", false, 100, "zero is a symlink"},
		{"link", true, 100, ""},
		{"fifolink", true, 100, "fifolink is not a regular file (a named pipe)"},
		{"zero", true, 100, "zero is not a regular file (a device)"},
		{"none", false, 100, "no such file"},
	} {
		b, err := ReadFile(p(c.name), c.limit, c.follow)
		switch {
		case c.want == "" && (err != nil || string(b) != "twelve bytes"):
			t.Errorf("%s (follow %v): %q, %v; want the contents", c.name, c.follow, b, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s (follow %v): err %v, want %q", c.name, c.follow, err, c.want)
		case err != nil && strings.Contains(err.Error(), "/dev/zero"):
			t.Errorf("%s: the error names the link's target: %v", c.name, err)
		}
	}
	var nr *NotRegularError
	if _, err := ReadFile(p("link"), 100, false); !errors.As(err, &nr) || nr.Mode&os.ModeSymlink == 0 {
		t.Errorf("a link's error is %T %v, want a *NotRegularError of a symlink", err, err)
	}
}

package repofs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// diskCount is an FS on this machine's disk that counts what it is asked.
type diskCount struct {
	reads, lists, isDirs, exists int
}

func (d *diskCount) ReadFile(p string) ([]byte, error) { d.reads++; return os.ReadFile(p) }
func (d *diskCount) ReadDir(p string) ([]string, error) {
	d.lists++
	ents, err := os.ReadDir(p)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, err
}
func (d *diskCount) IsDir(p string) bool {
	d.isDirs++
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
func (d *diskCount) Exists(p string) bool { d.exists++; _, err := os.Stat(p); return err == nil }

// A Repo on disk asks the disk once for each file, listing and question
// in its render; every caller gets a copy of its own, and a wrapper made
// with WithFS (a render cache's recorder) still sees every read.
func TestDiskRepoAsksOnce(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	testutil.WriteTree(t, root, map[string]string{"a/b.yaml": "b: 1\n", "a/c.yaml": "c: 1\n"})
	d := &diskCount{}
	r, err := Open(d, true, root, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		data, err := r.ReadFile(r.Abs("a/b.yaml"))
		if err != nil || string(data) != "b: 1\n" {
			t.Fatalf("a/b.yaml: %q, %v", data, err)
		}
		data[0] = 'X' // the caller's own copy
		if _, err := r.ReadFile(r.Abs("a/missing.yaml")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("a/missing.yaml: %v", err)
		}
		if names, err := r.ReadDirNames(r.Abs("a")); err != nil || !slices.Equal(names, []string{"b.yaml", "c.yaml"}) {
			t.Fatalf("a: %v, %v", names, err)
		}
		if !r.IsDir(r.Abs("a")) || r.Exists(r.Abs("a/missing.yaml")) {
			t.Fatal("IsDir or Exists is wrong")
		}
	}
	if d.reads != 1 || d.lists != 1 || d.isDirs != 1 || d.exists != 1 {
		t.Errorf("the disk was asked %d reads, %d listings, %d IsDir, %d Exists; want 1 each", d.reads, d.lists, d.isDirs, d.exists)
	}
	c := &countingFS{FS: r.FS()}
	w := r.WithFS(c)
	for range 2 {
		if _, err := w.ReadFile(w.Abs("a/b.yaml")); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.reads) != 2 || d.reads != 1 {
		t.Errorf("through the wrapper: it saw %d reads (want 2), the disk %d (want 1)", len(c.reads), d.reads)
	}
}

// Past its budget, memoFS reads from the disk every time.
func TestMemoFSBudget(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, map[string]string{"a": "a", "b": "b"})
	d := &diskCount{}
	m := newMemoFS(d)
	m.bytes.Store(maxMemoBytes) // full
	for range 2 {
		if data, err := m.ReadFile(filepath.Join(root, "a")); err != nil || string(data) != "a" {
			t.Fatalf("a: %q, %v", data, err)
		}
	}
	if d.reads != 2 {
		t.Errorf("a full memo read the disk %d times, want 2", d.reads)
	}
}

package repofs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// statFiles is a small repository: on disk under a temporary directory
// named "repo", in memory under /repo.
var statFiles = map[string]string{
	"a.yaml":         "a: 1\n",
	"b/c.yaml":       "c: 1\n",
	"b/d/e.yml":      "e: 1\n",
	"b/d/f.txt":      "f\n",
	"z/.hidden.yaml": "h: 1\n",
	"big.yaml":       strings.Repeat("x", 100),
}

// bothRepos returns the repository on disk and in memory, with a 64-byte
// size limit; the disk's also has link -> b (a directory symlink).
func bothRepos(t *testing.T, links bool) (disk, mem *Repo) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	testutil.WriteTree(t, root, statFiles)
	m := filesys.MakeFsInMemory()
	for name, content := range statFiles {
		if err := m.WriteFile("/repo/"+name, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if links {
		if err := os.Symlink("b", filepath.Join(root, "link")); err != nil {
			t.Fatal(err)
		}
	}
	disk, err := Open(filesys.MakeFsOnDisk(), true, root, 64)
	if err != nil {
		t.Fatal(err)
	}
	mem, err = Open(m, false, "/repo", 64)
	if err != nil {
		t.Fatal(err)
	}
	return disk, mem
}

// walkOf lists what a walk visits, root-relative, with each entry's type,
// skipping what is below the directories named d.
func walkOf(r *Repo, walk func(string, fs.WalkDirFunc) error) []string {
	var out []string
	_ = walk(r.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			out = append(out, "error "+r.Rel(p))
			return nil
		}
		out = append(out, r.Rel(p)+" "+d.Type().String())
		if d.IsDir() && d.Name() == "d" {
			return filepath.SkipDir
		}
		return nil
	})
	return out
}

// WalkDir walks as filepath.WalkDir does on disk (symlinks as entries,
// not followed), and the same in memory.
func TestWalkDirAsFilepath(t *testing.T) {
	disk, mem := bothRepos(t, true)
	want := walkOf(disk, filepath.WalkDir)
	if got := walkOf(disk, disk.WalkDir); !slices.Equal(got, want) {
		t.Errorf("on disk: walked\n%v\nfilepath.WalkDir\n%v", got, want)
	}
	noLink := slices.DeleteFunc(slices.Clone(want), func(s string) bool { return strings.HasPrefix(s, "link ") })
	if got := walkOf(mem, mem.WalkDir); !slices.Equal(got, noLink) {
		t.Errorf("in memory: walked\n%v\nwant\n%v", got, noLink)
	}
}

// In memory, a missing path fails as it fails on disk, word for word
// (after the root), and reading refuses what it refuses on disk.
func TestMemoryAsDisk(t *testing.T) {
	disk, mem := bothRepos(t, false)
	text := func(r *Repo, err error) string {
		if err == nil {
			return "<nil>"
		}
		return strings.ReplaceAll(err.Error(), r.Root, "ROOT")
	}
	for _, rel := range []string{"a.yaml", "b", "missing.yaml", "nodir/x.yaml", "a.yaml/x", "b/d/nothing/x"} {
		for op, f := range map[string]func(r *Repo, p string) error{
			"EvalSymlinks": func(r *Repo, p string) error { _, err := r.EvalSymlinks(p); return err },
			"Stat":         func(r *Repo, p string) error { _, err := r.Stat(p); return err },
			"Lstat":        func(r *Repo, p string) error { _, err := r.Lstat(p); return err },
			"ReadFile":     func(r *Repo, p string) error { _, err := r.ReadFile(p); return err },
		} {
			w, g := text(disk, f(disk, disk.Abs(rel))), text(mem, f(mem, mem.Abs(rel)))
			if w != g {
				t.Errorf("%s(%s): in memory %q, on disk %q", op, rel, g, w)
			}
		}
	}
	for _, r := range []*Repo{disk, mem} {
		if _, err := r.ReadFile(r.Abs("big.yaml")); !errors.Is(err, ErrTooLarge) {
			t.Errorf("big.yaml: %v, want too large", err)
		}
		if _, err := r.ReadFile(filepath.Dir(r.Root)); !errors.Is(err, ErrEscape) {
			t.Errorf("the root's parent: %v, want an escape", err)
		}
		if fi, err := r.Stat(r.Abs("b/c.yaml")); err != nil || fi.Size() != 5 || fi.IsDir() {
			t.Errorf("Stat b/c.yaml: %v %v", fi, err)
		}
		for _, pattern := range []string{"*.yaml", "b/*/*.y*ml", "[ab]*", "z/*", "nothing*"} {
			got, err := r.Glob(r.Abs(pattern))
			want, _ := filepath.Glob(disk.Abs(pattern))
			for i := range want {
				want[i] = disk.Rel(want[i])
			}
			for i := range got {
				got[i] = r.Rel(got[i])
			}
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("Glob %s: %v %v, filepath.Glob %v", pattern, got, err, want)
			}
		}
	}
	if unrooted := New(filesys.MakeFsInMemory(), false, 64); unrooted.Within("/") || unrooted.Within("/x") {
		t.Errorf("a Repo without a root has something within it")
	}
}

// countingFS counts the files read through it.
type countingFS struct {
	FS
	reads []string
}

func (c *countingFS) ReadFile(p string) ([]byte, error) {
	c.reads = append(c.reads, p)
	return c.FS.ReadFile(p)
}

// A Repo WithFS reads through the wrapper, with the checks of the Repo it
// was made from (the disk's symlink evaluation, and its size check before
// reading, included).
func TestWithFSSeesEveryRead(t *testing.T) {
	disk, mem := bothRepos(t, true)
	for _, r := range []*Repo{disk, mem} {
		c := &countingFS{FS: r.FS()}
		w := r.WithFS(c)
		if _, err := w.ReadFile(w.Abs("b/c.yaml")); err != nil {
			t.Fatal(err)
		}
		if _, err := w.ReadFile(w.Abs("big.yaml")); !errors.Is(err, ErrTooLarge) {
			t.Errorf("big.yaml through the wrapper: %v", err)
		}
		want := []string{w.Abs("b/c.yaml")}
		if !r.OnDisk() {
			want = append(want, w.Abs("big.yaml")) // in memory: refused once read
		}
		if !slices.Equal(c.reads, want) {
			t.Errorf("reads %v, want %v", c.reads, want)
		}
		if w.OnDisk() != r.OnDisk() || w.Root != r.Root {
			t.Errorf("the wrapper's Repo lost its root or checks")
		}
	}
	c := &countingFS{FS: disk.FS()}
	if _, err := disk.WithFS(c).ReadFile(disk.Abs("link/c.yaml")); err != nil || !slices.Equal(c.reads, []string{disk.Abs("b/c.yaml")}) {
		t.Errorf("through a symlink: read %v (%v), want the evaluated path", c.reads, err)
	}
}

package repofs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// evalOnDisk gives what filepath.EvalSymlinks gives, path and error, for
// every kind of path, asked cold and again with its directory remembered.
func TestEvalOnDiskIsEvalSymlinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/b/file.yaml", "c/other.yaml"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"a/to-file":  "b/file.yaml",  // a file symlink
		"a/to-dir":   "../c",         // a directory symlink
		"a/chain":    "to-file",      // a symlink to a symlink
		"a/dangling": "nowhere.yaml", // a symlink to nothing
		"a/loop":     "loop",         // a symlink to itself
		"c/up":       "..",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(root, l)); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{
		"a/b/file.yaml", "a/b", "a", ".", "a/to-file", "a/to-dir", "a/to-dir/other.yaml", "a/chain",
		"a/dangling", "a/loop", "a/missing.yaml", "a/missing/deeper.yaml", "a/b/file.yaml/below",
		"c/up/a/b/file.yaml", "a/to-dir/../a/b", "a/b/../b/file.yaml", "a/b/",
		"a/to-dir/..", "a/to-dir/.", "a//b/file.yaml", "a/./b", "a/to-dir/../b",
		// directories first met deep down, evaluated through their parents
		"a/to-dir/up/a/b/file.yaml", "a/b/../../c/other.yaml", "a/to-dir/missing/x.yaml",
		"a/b/file.yaml/x/y", "a/dangling/x", "a/loop/x", "c/up/c/up/a/to-file",
	}
	for _, rel := range paths { // each cold, its directories evaluated from the root down
		p := root + "/" + rel
		want, werr := filepath.EvalSymlinks(p)
		got, err := (&evalMemo{}).evalOnDisk(p)
		if got != want || fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Errorf("cold, %s: got %q, %v; filepath.EvalSymlinks gives %q, %v", rel, got, err, want, werr)
		}
	}
	m := &evalMemo{}
	for round := range 2 {
		for _, rel := range paths {
			p := root + "/" + rel
			want, werr := filepath.EvalSymlinks(p)
			got, err := m.evalOnDisk(p)
			if got != want || fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Errorf("round %d, %s: got %q, %v; filepath.EvalSymlinks gives %q, %v", round, rel, got, err, want, werr)
			}
		}
	}
	if _, ok := m.dirs.m.Load(filepath.Join(root, "a", "b") + "/"); !ok {
		t.Error("a/b/ was evaluated and not remembered")
	}
	if got, err := m.evalOnDisk("relative/path"); got != "" || err == nil {
		t.Errorf("a relative path: %q, %v; want filepath.EvalSymlinks's error", got, err)
	}
}

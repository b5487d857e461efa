// Package testutil holds the helpers tests of several packages share.
package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot walks up from the test's working directory to the module root
// (the directory holding go.mod).
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// Corpus returns ../shared/corpus beside the module root, skipping the test
// with a message where it is absent (it is on every machine and in CI).
func Corpus(tb testing.TB) string {
	tb.Helper()
	corpus := filepath.Join(RepoRoot(tb), "..", "shared", "corpus")
	if st, err := os.Stat(corpus); err != nil || !st.IsDir() {
		tb.Skipf("corpus not present at %s", corpus)
	}
	return corpus
}

// Shared returns ../shared/NAME beside the module root, the developers'
// corpus (not part of this repository), and whether it is there. Absent,
// it fails the test, unless CAPREPORT_CI_WITHOUT_CORPUS=1 says the corpus
// is left out on purpose (GitHub's runners, .github/workflows/ci.yml):
// then the caller goes on with what the repository holds, or skips.
func Shared(tb testing.TB, name string) (string, bool) {
	tb.Helper()
	dir := filepath.Join(RepoRoot(tb), "..", "shared", name)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir, true
	}
	if os.Getenv("CAPREPORT_CI_WITHOUT_CORPUS") != "1" {
		tb.Fatalf("%s is not beside the repository (the developers' corpus); CAPREPORT_CI_WITHOUT_CORPUS=1 runs without it", dir)
	}
	return dir, false
}

// CountFiles counts the files (not directories) under dir; 0 when it
// does not exist.
func CountFiles(tb testing.TB, dir string) int {
	tb.Helper()
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// WriteTree writes files (slash paths relative to root, with their
// contents) under root, making the directories they need.
func WriteTree(tb testing.TB, root string, files map[string]string) {
	tb.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// CopyTree copies the regular files and directories under src to dst,
// keeping each file's permissions.
func CopyTree(tb testing.TB, src, dst string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, fi.Mode().Perm())
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// Symlink makes link point at target, making link's directory first.
func Symlink(tb testing.TB, target, link string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		tb.Fatal(err)
	}
}

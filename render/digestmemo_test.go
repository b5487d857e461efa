//go:build linux

package render

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDigestMemo: a recorded digest is given back while the file's stat is
// unchanged, across runs, and never once the file is written or its mode
// changed, nor for a file that changed just before the run.
func TestDigestMemo(t *testing.T) {
	dir, repo := t.TempDir(), t.TempDir()
	f := filepath.Join(repo, "values.yaml")
	if err := os.WriteFile(f, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recordAs := func(m *digestMemo, digest string) {
		st, ok := statOf(f)
		if !ok {
			t.Fatal("no stat")
		}
		m.record(f, st, digest)
		m.save()
	}
	m := openDigestMemo(dir)
	recordAs(m, "fresh") // changed just now: not trusted
	if _, ok := memoDigest(t, openDigestMemo(dir), f); ok {
		t.Fatal("a file changed just before the run was memoized")
	}
	m = openDigestMemo(dir)
	m.start = time.Now().Add(time.Hour) // the run starts long after the write
	recordAs(m, "settled")
	if d, ok := memoDigest(t, openDigestMemo(dir), f); !ok || d != "settled" {
		t.Fatalf("unchanged file: %q %v, want the recorded digest", d, ok)
	}
	for name, change := range map[string]func() error{
		"same-size write": func() error { return os.WriteFile(f, []byte("a: 2\n"), 0o644) },
		"chmod":           func() error { return os.Chmod(f, 0o600) },
	} {
		m = openDigestMemo(dir)
		m.start = time.Now().Add(time.Hour)
		recordAs(m, "before "+name)
		time.Sleep(10 * time.Millisecond) // past the clock's resolution
		if err := change(); err != nil {
			t.Fatal(err)
		}
		if d, ok := memoDigest(t, openDigestMemo(dir), f); ok {
			t.Errorf("after a %s the memo still gives %q", name, d)
		}
	}
}

// memoDigest is what the memo gives for the file at f as it is now.
func memoDigest(t *testing.T, m *digestMemo, f string) (string, bool) {
	t.Helper()
	st, ok := statOf(f)
	if !ok {
		t.Fatal("no stat")
	}
	return m.digest(f, st)
}

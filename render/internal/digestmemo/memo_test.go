//go:build linux

package digestmemo

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"
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
	recordAs := func(m *Memo, digest string) {
		st, ok := StatOf(f, false)
		if !ok {
			t.Fatal("no stat")
		}
		m.Record(f, st, digest)
		m.save()
	}
	m := openMemo(File(dir, "/repo"), nil)
	recordAs(m, "fresh") // changed just now: not trusted
	if _, ok := memoDigest(t, openMemo(File(dir, "/repo"), nil), f); ok {
		t.Fatal("a file changed just before the run was memoized")
	}
	m = openMemo(File(dir, "/repo"), nil)
	m.start = time.Now().Add(time.Hour) // the run starts long after the write
	recordAs(m, "settled")
	if d, ok := memoDigest(t, openMemo(File(dir, "/repo"), nil), f); !ok || d != "settled" {
		t.Fatalf("unchanged file: %q %v, want the recorded digest", d, ok)
	}
	for name, change := range map[string]func() error{
		"same-size write": func() error { return os.WriteFile(f, []byte("a: 2\n"), 0o644) },
		"chmod":           func() error { return os.Chmod(f, 0o600) },
	} {
		m = openMemo(File(dir, "/repo"), nil)
		m.start = time.Now().Add(time.Hour)
		recordAs(m, "before "+name)
		time.Sleep(10 * time.Millisecond) // past the clock's resolution
		if err := change(); err != nil {
			t.Fatal(err)
		}
		if d, ok := memoDigest(t, openMemo(File(dir, "/repo"), nil), f); ok {
			t.Errorf("after a %s the memo still gives %q", name, d)
		}
	}
}

// memoDigest is what the memo gives for the file at f as it is now.
func memoDigest(t *testing.T, m *Memo, f string) (string, bool) {
	t.Helper()
	st, ok := StatOf(f, false)
	if !ok {
		t.Fatal("no stat")
	}
	return m.Digest(f, st)
}

// The head and the base of a diff build at once and share one memo: read
// once, and saved once by the last to close, with what both learnt.
func TestDigestMemoShared(t *testing.T) {
	dir := t.TempDir()
	a, b := Acquire(File(dir, "/repo"), nil), Acquire(File(dir, "/repo"), nil)
	if a != b {
		t.Fatal("two caches of one process opened the memo twice")
	}
	a.start = time.Now().Add(time.Hour)
	a.Record("/head/values.yaml", Stat{Size: 1, Mtime: 1, Ctime: 1}, "h")
	b.Record("/base/values.yaml", Stat{Size: 2, Mtime: 1, Ctime: 1}, "b")
	Release(a)
	if _, err := os.Stat(File(dir, "/repo")); err == nil {
		t.Fatal("the memo was saved while the other build still had it open")
	}
	Release(b)
	saved := openMemo(File(dir, "/repo"), nil)
	if saved.old["/head/values.yaml"].Digest != "h" || saved.old["/base/values.yaml"].Digest != "b" {
		t.Errorf("the saved memo holds %v, want both builds' digests", saved.old)
	}
	if c := Acquire(File(dir, "/repo"), nil); c == a {
		t.Error("a memo released by all was handed out again")
	} else {
		Release(c)
	}
}

// A run that learnt a few digests appends them to the memo file as one
// batch; the file is written whole again only when it holds
// memoMaxBatches; a torn last batch loses only itself.
func TestDigestMemoAppends(t *testing.T) {
	dir := t.TempDir()
	path := File(dir, "/repo")
	learn := func(paths ...string) {
		m := openMemo(File(dir, "/repo"), nil)
		m.start = time.Now().Add(time.Hour)
		for i, p := range paths {
			m.Record(p, Stat{Size: int64(i + 1), Mtime: 1, Ctime: 1}, "digest of "+p)
		}
		m.save()
	}
	stat := func() os.FileInfo {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	var many []string
	for i := range 500 {
		many = append(many, fmt.Sprintf("/repo/charts/c%d/values.yaml", i))
	}
	learn(many...)
	first := stat()
	learn("/repo/new.yaml")
	second := stat()
	if !os.SameFile(first, second) || second.Size()-first.Size() > 100 {
		t.Fatalf("learning one digest rewrote the memo (%d -> %d bytes, same file %v)", first.Size(), second.Size(), os.SameFile(first, second))
	}
	m := openMemo(File(dir, "/repo"), nil)
	if len(m.old) != 501 || m.batches != 2 || m.old["/repo/new.yaml"].Digest != "digest of /repo/new.yaml" {
		t.Fatalf("after an append the memo holds %d entries in %d batches", len(m.old), m.batches)
	}
	for i := 2; i < memoMaxBatches; i++ {
		learn(fmt.Sprintf("/repo/more%d.yaml", i))
	}
	if m := openMemo(File(dir, "/repo"), nil); m.batches != memoMaxBatches {
		t.Fatalf("%d batches, want %d", m.batches, memoMaxBatches)
	}
	learn("/repo/last.yaml")
	if m := openMemo(File(dir, "/repo"), nil); m.batches != 1 || len(m.old) != 501+memoMaxBatches-2+1 {
		t.Fatalf("after compaction: %d batches, %d entries", m.batches, len(m.old))
	}
	learn("/repo/torn.yaml")
	if err := os.Truncate(path, stat().Size()-2); err != nil {
		t.Fatal(err)
	}
	if m := openMemo(File(dir, "/repo"), nil); m.batches != 1 || m.intact || len(m.old) != 501+memoMaxBatches-1 || m.old["/repo/torn.yaml"].Digest != "" {
		t.Errorf("a torn batch: %d batches (intact %v), %d entries", m.batches, m.intact, len(m.old))
	}
	learn("/repo/after-tear.yaml") // the next save writes the file whole again
	learn("/repo/after-that.yaml") // and appends to it after
	if m := openMemo(File(dir, "/repo"), nil); !m.intact || m.batches != 2 || m.old["/repo/after-tear.yaml"].Digest == "" || m.old["/repo/after-that.yaml"].Digest == "" {
		t.Errorf("after a tear the memo did not recover: %d batches (intact %v), %d entries", m.batches, m.intact, len(m.old))
	}
	if err := os.WriteFile(path, []byte("not a memo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if m := openMemo(File(dir, "/repo"), nil); len(m.old) != 0 {
		t.Errorf("a foreign file gave %d entries", len(m.old))
	}
}

// FuzzMemoFile: whatever the memo file holds, reading it returns what its
// intact batches say, and what it returns writes and reads back the same.
func FuzzMemoFile(f *testing.F) {
	f.Add(appendMemoBatch([]byte(memoMagic), map[string]Entry{"/a": {Stat: Stat{Size: 1, Mtime: -2, Ino: 3}, Digest: "d"}}))
	f.Add([]byte(memoMagic + "\x05hello\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _, _ := parseMemoFile(string(data))
		again, batches, intact := parseMemoFile(string(appendMemoBatch([]byte(memoMagic), got)))
		if batches != 1 || !intact || !reflect.DeepEqual(got, again) {
			t.Fatalf("read %v, wrote it, read back %v in %d batches", got, again, batches)
		}
	})
}

// Each repository root has its own memo file, keyed by root-relative path:
// a run reads the memos of the roots it renders and no other. The memos
// of the roots used least recently go once there are more than
// memoMaxFiles, and the single memo of earlier releases goes at the first
// save.
func TestDigestMemoPerRoot(t *testing.T) {
	dir := t.TempDir()
	legacy := filepath.Join(dir, "file-digests.bin")
	if err := os.WriteFile(legacy, []byte(memoMagic), 0o644); err != nil {
		t.Fatal(err)
	}
	learn := func(root string) {
		m := openMemo(File(dir, root), nil)
		m.start = time.Now().Add(time.Hour)
		m.Record("values.yaml", Stat{Size: 1, Mtime: 1, Ctime: 1}, "digest in "+root)
		m.save()
	}
	learn("/a")
	learn("/b")
	for _, root := range []string{"/a", "/b"} {
		got := openMemo(File(dir, root), nil).old
		if len(got) != 1 || got["values.yaml"].Digest != "digest in "+root {
			t.Fatalf("the memo of %s holds %v, want its own digest alone", root, got)
		}
	}
	if _, err := os.Stat(legacy); err == nil {
		t.Error("the earlier releases' memo is still there after a save")
	}
	long := time.Now().Add(-time.Hour)
	for i := range memoMaxFiles - 2 {
		root := fmt.Sprintf("/tmp/worktree%d", i)
		learn(root)
		at := long.Add(time.Duration(i+2) * time.Second)
		_ = os.Chtimes(File(dir, root), at, at)
	}
	_ = os.Chtimes(File(dir, "/a"), long, long)
	_ = os.Chtimes(File(dir, "/b"), long.Add(time.Second), long.Add(time.Second))
	openMemo(File(dir, "/a"), nil).save() // used again, learning nothing
	learn("/tmp/one-more")
	if _, err := os.Stat(File(dir, "/a")); err != nil {
		t.Errorf("the memo of a root used by the last runs was pruned: %v", err)
	}
	if _, err := os.Stat(File(dir, "/b")); err == nil {
		t.Error("the memo of the root used least recently was kept past memoMaxFiles")
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, memoDirName)); len(ents) != memoMaxFiles {
		t.Errorf("%d memo files, want %d", len(ents), memoMaxFiles)
	}
}

// A memo read ahead (Preread) is the memo the render cache then
// opens, read once.
func TestPreread(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	testutil.WriteTree(t, root, map[string]string{"a.yaml": "a: 1\n"})
	m := openMemo(File(dir, root), nil)
	e := Entry{Stat: Stat{Size: 5, Ino: 9}, Digest: "d"}
	m.learnt["a.yaml"], m.now["a.yaml"] = e, e
	m.save()
	drop := Preread(dir, root)
	prereads.Lock()
	_, waiting := prereads.byPath[File(dir, root)]
	prereads.Unlock()
	if !waiting {
		t.Fatal("Preread left nothing to take")
	}
	got := openMemo(File(dir, root), nil)
	want, _, _ := readMemoFile(File(dir, root))
	if !reflect.DeepEqual(got.old, want) || len(want) != 1 {
		t.Errorf("the preread memo holds %v, the file %v", got.old, want)
	}
	drop() // taken: nothing to drop
	prereads.Lock()
	if len(prereads.byPath) != 0 {
		t.Errorf("%d prereads left after the memo was opened", len(prereads.byPath))
	}
	prereads.Unlock()
	// One no Render takes (the path was not there at the revision) goes
	// when dropped.
	Preread(dir, root)()
	prereads.Lock()
	defer prereads.Unlock()
	if len(prereads.byPath) != 0 {
		t.Errorf("%d prereads left after an untaken one was dropped", len(prereads.byPath))
	}
}

package repofs

import (
	"os"
	"path/filepath"
	"testing"
)

// treeNames and treeTargets are what FuzzCheckTree's trees are made of:
// each op byte picks a name and a kind (file, directory, symlink), the next
// byte a symlink's target (relative, into the root, up and out, or to the
// directory outside).
var (
	treeNames   = []string{"a", "b", "a/c", "b/d", "a/c/e", "t"}
	treeTargets = []string{".", "..", "../..", "../../..", "a", "b/d", "x", "OUTSIDE", "../a", "c"}
)

// buildTree makes root afresh from ops; outside is a directory beside it.
func buildTree(t *testing.T, root, outside string, ops []byte) {
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	_ = os.MkdirAll(root, 0o755)
	for i := 0; i+1 < len(ops) && i < 16; i += 2 {
		p := filepath.Join(root, treeNames[int(ops[i])%len(treeNames)])
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		switch ops[i] / 64 % 3 {
		case 0:
			_ = os.WriteFile(p, []byte("x: 1\n"), 0o644)
		case 1:
			_ = os.MkdirAll(p, 0o755)
		default:
			target := treeTargets[int(ops[i+1])%len(treeTargets)]
			if target == "OUTSIDE" {
				target = outside
			}
			_ = os.Symlink(target, p)
		}
	}
}

// followAll walks dir as Helm's loader does, following every symlink, and
// reports whether it reached anything outside root or went on past budget
// entries (a cycle).
func followAll(r *Repo, dir string, budget *int) (escaped, endless bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, false
	}
	for _, e := range entries {
		if *budget--; *budget < 0 {
			return false, true
		}
		p := filepath.Join(dir, e.Name())
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // dangling: the loader fails, reads nothing
		}
		if !r.Within(real) {
			return true, false
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			if esc, end := followAll(r, p, budget); esc || end {
				return esc, end
			}
		}
	}
	return false, false
}

// FuzzCheckTree: on any tree of files, directories and symlinks, CheckTree
// returns, and when it accepts the tree, a walk that follows every symlink
// (Helm's loader) stays inside the root and ends.
func FuzzCheckTree(f *testing.F) {
	base := memTempDir(f)
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(filepath.Join(outside, "d"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.yaml"), []byte("s: 1\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{64, 0, 128 + 1, 0})     // a/, b -> .
	f.Add([]byte{64, 0, 128 + 2, 1})     // a/, a/c -> ..
	f.Add([]byte{128 + 5, 7})            // t -> outside
	f.Add([]byte{65, 0, 128 + 3, 8, 64}) // b/, b/d -> ../a, a/
	f.Add([]byte{0, 0, 128 + 4, 9})      // a (file), a/c/e -> c
	root := filepath.Join(base, "root")
	f.Fuzz(func(t *testing.T, ops []byte) {
		buildTree(t, root, outside, ops)
		r, err := Open(osFS{}, true, root, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if r.CheckTree(r.Root, nil) != nil {
			return
		}
		budget := 10000
		if esc, end := followAll(r, r.Root, &budget); esc || end {
			t.Fatalf("CheckTree accepted a tree whose full walk escapes (%v) or never ends (%v): ops %v", esc, end, ops)
		}
	})
}

// memTempDir is a temporary directory in memory (/dev/shm) where the
// machine has one: each input rebuilds a small tree, and on a disk the
// file system calls, not CheckTree, would set the pace.
func memTempDir(f *testing.F) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "capreport-fuzz-"); err == nil {
			f.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return f.TempDir()
}

// osFS is the disk, as kyaml's filesys.MakeFsOnDisk reads it.
type osFS struct{}

func (osFS) ReadFile(p string) ([]byte, error) { return os.ReadFile(p) }
func (osFS) IsDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
func (osFS) Exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
func (osFS) ReadDir(p string) ([]string, error) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names, nil
}

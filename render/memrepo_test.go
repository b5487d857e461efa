package render

import (
	"context"
	"path"
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// The in-memory harness, like kustomize's kusttest: a repository is a map
// of slash paths to contents, written to kyaml's in-memory file system
// under memRoot, and rendered from there through Options.FS. Tests that
// need the disk itself (symlinks, worker processes, fetching, paths
// outside the repository) write a temporary directory instead.

// memRoot is the repository's directory in its in-memory file system.
const memRoot = "/repo"

// memFS is an in-memory file system holding files under memRoot.
func memFS(t testing.TB, files map[string]string) filesys.FileSystem {
	t.Helper()
	return memFSAt(t, memRoot, files)
}

// memFSAt is an in-memory file system holding files under root.
func memFSAt(t testing.TB, root string, files map[string]string) filesys.FileSystem {
	t.Helper()
	fsys := filesys.MakeFsInMemory()
	if err := fsys.MkdirAll(root); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := fsys.WriteFile(path.Join(root, name), []byte(content)); err != nil {
			t.Fatalf("writing %s: %v", name, err)
		}
	}
	return fsys
}

// memPath is the path of a repository file in memFS's file system.
func memPath(rel string) string {
	return path.Join(memRoot, filepath.ToSlash(rel))
}

// inMemory returns opts reading the repository files from memory, and the
// repository's path there.
func inMemory(t testing.TB, files map[string]string, opts Options) (Options, string) {
	t.Helper()
	opts.FS = memFS(t, files)
	return opts, memRoot
}

// renderMem renders files as a repository in memory, from rel inside it.
func renderMem(t testing.TB, files map[string]string, rel string, opts Options) *Result {
	t.Helper()
	opts.FS = memFS(t, files)
	res, err := Render(context.Background(), memPath(rel), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

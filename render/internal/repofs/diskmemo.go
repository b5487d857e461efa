package repofs

import (
	"io/fs"
	"os"
	"slices"
	"sync/atomic"
)

// A render reads the same files many times: every delivered build of a
// Flux repository reads the components it shares with the others (a
// home-ops repository's volsync component, four files, was opened 44
// times and looked at 186 times a run), krusty probes each directory for
// its three kustomization file names, and Flux's generator looks for a
// .sourceignore in every directory below each Kustomization's path. A
// Repo on disk lives for one render (a worker's for one setup), over a
// tree that does not change under it, so what the disk answered once is
// the answer for the rest of the render: each path's evaluation, stat and
// lstat (diskMemo), and each file's contents and directory's names
// (memoFS, under any FS that records reads, so that a render cache still
// sees every read). Each table is bounded; past its bound the disk is
// asked every time, as before.

// pathAnswer is what the disk said of a path: its evaluation or its file
// information, or the error.
type pathAnswer struct {
	real string
	fi   fs.FileInfo
	err  error
}

// diskMemo holds a Repo's answers from the disk (shared by the copies At
// and WithFS make).
type diskMemo struct {
	evals  evalMemo
	paths  memoTable[string, pathAnswer] // EvalSymlinks
	stats  memoTable[string, pathAnswer]
	lstats memoTable[string, pathAnswer]
}

func (m *diskMemo) eval(p string) (string, error) {
	a := m.paths.get(p, func() pathAnswer {
		real, err := m.evals.evalOnDisk(p)
		return pathAnswer{real: real, err: err}
	})
	return a.real, a.err
}

func (m *diskMemo) stat(p string) (fs.FileInfo, error) {
	a := m.stats.get(p, func() pathAnswer {
		fi, err := os.Stat(p)
		return pathAnswer{fi: fi, err: err}
	})
	return a.fi, a.err
}

func (m *diskMemo) lstat(p string) (fs.FileInfo, error) {
	a := m.lstats.get(p, func() pathAnswer {
		fi, err := os.Lstat(p)
		return pathAnswer{fi: fi, err: err}
	})
	return a.fi, a.err
}

// memoFS is an FS that reads each file and lists each directory once. A
// file's contents are kept while their total stays under maxMemoBytes;
// every caller gets a copy of its own.
type memoFS struct {
	fs    FS
	bytes atomic.Int64
	files memoTable[string, fileAnswer]
	dirs  memoTable[string, dirAnswer]
	isDir memoTable[string, bool]
	exist memoTable[string, bool]
}

// maxMemoBytes bounds the file contents a memoFS keeps.
const maxMemoBytes = 16 << 20

type fileAnswer struct {
	data []byte
	err  error
}

type dirAnswer struct {
	names []string
	err   error
}

func newMemoFS(fsys FS) *memoFS { return &memoFS{fs: fsys} }

func (m *memoFS) ReadFile(p string) ([]byte, error) {
	if v, ok := m.files.m.Load(p); ok {
		a := v.(fileAnswer)
		return slices.Clone(a.data), a.err
	}
	data, err := m.fs.ReadFile(p)
	if err != nil || m.bytes.Add(int64(len(data))) <= maxMemoBytes {
		m.files.put(p, fileAnswer{data: slices.Clone(data), err: err})
	}
	return data, err
}

func (m *memoFS) ReadDir(p string) ([]string, error) {
	a := m.dirs.get(p, func() dirAnswer {
		names, err := m.fs.ReadDir(p)
		return dirAnswer{names: names, err: err}
	})
	return slices.Clone(a.names), a.err
}

func (m *memoFS) IsDir(p string) bool {
	return m.isDir.get(p, func() bool { return m.fs.IsDir(p) })
}

func (m *memoFS) Exists(p string) bool {
	return m.exist.get(p, func() bool { return m.fs.Exists(p) })
}

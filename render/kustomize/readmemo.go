package kustomize

import (
	"bytes"
	"sync"

	"github.com/capreport/capreport/render/internal/kustread"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// A ReadMemo keeps, across the builds one process makes, what reading a
// resource file costs beyond the read: its alias check, its rewrite
// (kustread) and the documents LineIndex finds in it. Builds read the same
// files again and again: a Flux Kustomization's components go into every
// app that lists them (home-ops-tscibilia's kopiur/backup into 16 builds),
// and a delivered directory was built on its own first. Each of those
// parses the file with yaml.v3 two or three times before krusty parses it
// once, a fifth of a delivered build's CPU.
//
// An entry is used only while the file reads the same bytes (the read
// itself still goes through the repository, which vouches for it and
// records it for the cache), and the memo holds at most memoBudget bytes
// of files, each at most memoFileMax: its memory is a constant, not the
// repository's size.
type ReadMemo struct {
	mu    sync.Mutex
	used  int64
	reads map[readKey]*memoRead
	lines map[string]*memoLines
}

const (
	memoBudget  = 16 << 20
	memoFileMax = 1 << 20
)

// readKey is a file read as a rewrite makes it.
type readKey struct {
	real     string
	stub     bool
	annotate bool
}

// memoRead is a file's bytes, and what checking and rewriting them gave.
type memoRead struct {
	raw, out []byte
	res      kustread.Result
	aliases  error
}

// memoLines is a file's bytes and the documents LineIndex found in them.
type memoLines struct {
	raw  []byte
	docs []docPos
}

// NewReadMemo is an empty memo.
func NewReadMemo() *ReadMemo {
	return &ReadMemo{reads: map[readKey]*memoRead{}, lines: map[string]*memoLines{}}
}

// read returns what make gives for the file real read as data under key,
// made once while the file reads the same.
func (m *ReadMemo) read(key readKey, data []byte, make func() *memoRead) *memoRead {
	if m == nil {
		return make()
	}
	m.mu.Lock()
	e, ok := m.reads[key]
	m.mu.Unlock()
	if ok && bytes.Equal(e.raw, data) {
		return e
	}
	e = make()
	e.raw = data
	if m.admit(int64(len(data) + len(e.out))) {
		m.mu.Lock()
		m.reads[key] = e
		m.mu.Unlock()
	}
	return e
}

// docs returns the documents LineIndex finds in the file real read as
// data, found once while the file reads the same.
func (m *ReadMemo) docs(real string, data []byte, maxObjects int) []docPos {
	find := func() []docPos {
		var docs []docPos
		raws, _, _ := yamldoc.Decode(data, maxObjects)
		for _, raw := range raws {
			docs = append(docs, docPosOf(raw))
		}
		return docs
	}
	if m == nil {
		return find()
	}
	m.mu.Lock()
	e, ok := m.lines[real]
	m.mu.Unlock()
	if ok && bytes.Equal(e.raw, data) {
		return e.docs
	}
	docs := find()
	if m.admit(int64(len(data))) {
		m.mu.Lock()
		m.lines[real] = &memoLines{raw: data, docs: docs}
		m.mu.Unlock()
	}
	return docs
}

// admit reserves n bytes of the budget for one entry.
func (m *ReadMemo) admit(n int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n > memoFileMax || m.used+n > memoBudget {
		return false
	}
	m.used += n
	return true
}

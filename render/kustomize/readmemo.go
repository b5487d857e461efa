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
	reads map[readKey]*memoEntry[*memoRead]
	lines map[string]*memoEntry[[]docPos]
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

// memoRead is what checking and rewriting a file's bytes gave.
type memoRead struct {
	out     []byte
	res     kustread.Result
	aliases error
}

// memoEntry is a file's bytes and what was made of them.
type memoEntry[V any] struct {
	raw  []byte
	made V
}

// NewReadMemo is an empty memo.
func NewReadMemo() *ReadMemo {
	return &ReadMemo{reads: map[readKey]*memoEntry[*memoRead]{}, lines: map[string]*memoEntry[[]docPos]{}}
}

// read returns what make gives for the file real read as data under key,
// made once while the file reads the same.
func (m *ReadMemo) read(key readKey, data []byte, make func() *memoRead) *memoRead {
	if m == nil {
		return make()
	}
	return recall(m, m.reads, key, data, make, func(e *memoRead) int { return len(e.out) })
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
	return recall(m, m.lines, real, data, find, func([]docPos) int { return 0 })
}

// recall returns the entry of entries under key when it was made from the
// same bytes as data, else what make gives, kept when the budget admits
// data and extra bytes of what was made.
func recall[K comparable, V any](m *ReadMemo, entries map[K]*memoEntry[V], key K, data []byte, make func() V, extra func(V) int) V {
	m.mu.Lock()
	e, ok := entries[key]
	m.mu.Unlock()
	if ok && bytes.Equal(e.raw, data) {
		return e.made
	}
	made := make()
	if m.admit(int64(len(data) + extra(made))) {
		m.mu.Lock()
		entries[key] = &memoEntry[V]{raw: data, made: made}
		m.mu.Unlock()
	}
	return made
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

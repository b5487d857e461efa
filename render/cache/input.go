package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/capreport/capreport/render/internal/repofs"
)

// Input is one read a source's render made, by root-relative path: a
// file's contents (or its refusal), a directory's names, whether a path is
// a directory or exists, and on disk what a path is (stat, lstat) and
// where its symlinks lead (eval). Digest is what it gave.
type Input struct {
	Op     string // "file", "dir", "isdir", "exists", "stat", "lstat", "eval"
	Path   string
	Digest string
}

// Recorder wraps a Repo's file system for one source's render and notes
// every read. A read outside the root (which the Repo refuses, but a probe
// may still ask) makes the render uncacheable.
type Recorder struct {
	base repofs.FS
	root string
	mu   sync.Mutex
	seen map[Input]bool
	away bool
}

// NewRecorder notes the reads through base of a render of the repository
// at root.
func NewRecorder(base repofs.FS, root string) *Recorder {
	return &Recorder{base: base, root: root, seen: map[Input]bool{}}
}

func (r *Recorder) ReadFile(p string) ([]byte, error) {
	data, err := r.base.ReadFile(p)
	r.note("file", p, fileDigest(data, err))
	return data, err
}

func (r *Recorder) ReadDir(p string) ([]string, error) {
	names, err := r.base.ReadDir(p)
	r.note("dir", p, dirDigest(names, err))
	return names, err
}

func (r *Recorder) IsDir(p string) bool {
	ok := r.base.IsDir(p)
	r.note("isdir", p, boolDigest(ok))
	return ok
}

func (r *Recorder) Exists(p string) bool {
	ok := r.base.Exists(p)
	r.note("exists", p, boolDigest(ok))
	return ok
}

// Observed notes what the Repo learnt of a path on disk (repofs.Observer).
// A path outside the root is not a read of the repository: the Repo
// refuses to read there (and tells Refused), or the caller vouched for it
// (a command-line values file, in the key's salt).
func (r *Recorder) Observed(op, p, answer string) {
	if _, ok := RelTo(r.root, p); ok {
		r.note(op, p, answer)
	}
}

// Refused notes a read the Repo refused: a symlink out of the root, a
// special file, a file too large. The next run's reading of the same path
// (Cache.current) is refused the same way, or differs.
func (r *Recorder) Refused(p string, err error) {
	r.note("file", p, fileDigest(nil, err))
}

func (r *Recorder) note(op, p, digest string) {
	rel, ok := RelTo(r.root, p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok {
		r.away = true
		return
	}
	r.seen[Input{Op: op, Path: rel, Digest: digest}] = true
}

// Inputs are the reads in a stable order; ok is false when one left the
// root.
func (r *Recorder) Inputs() ([]Input, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Input, 0, len(r.seen))
	for in := range r.seen {
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b Input) int {
		return strings.Compare(a.Op+"\x00"+a.Path+"\x00"+a.Digest, b.Op+"\x00"+b.Path+"\x00"+b.Digest)
	})
	return out, !r.away
}

// RelTo is p relative to root, slash-separated; ok is false outside it.
func RelTo(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func fileDigest(data []byte, err error) string {
	if err != nil {
		return "error: " + errKind(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func dirDigest(names []string, err error) string {
	if err != nil {
		return "error: " + errKind(err)
	}
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func boolDigest(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// errKind is what a failed read says without the machine's paths in it.
func errKind(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "not found"
	case errors.Is(err, os.ErrPermission):
		return "permission"
	}
	return "failed"
}

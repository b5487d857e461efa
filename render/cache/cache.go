package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/atomicfile"
	"github.com/capreport/capreport/internal/buildid"
	"github.com/capreport/capreport/internal/safefile"
	"github.com/capreport/capreport/render/internal/cachefile"
	"github.com/capreport/capreport/render/internal/digestmemo"
	"github.com/capreport/capreport/render/internal/repofs"
)

// The render cache (Options.CacheDir) keeps each source's render keyed by
// what decides it: the capreport build, the options every render shares,
// the source's spec (its GitOps delivery included), and the bytes of every
// file its render read and the names of every directory it listed, all by
// root-relative path. A later run, or the other side of a diff, takes a
// source from the cache when every one of those reads gives the same
// answer again; it re-renders only the sources whose inputs changed. Paths
// are relative to the root, so a base checked out in a temporary worktree
// finds what the head stored.

// maxCacheCandidates bounds the entries one key keeps (a base and a head
// that differ in one chart keep one entry each for it).
const maxCacheCandidates = 8

// Input is one read a source's render made, by root-relative path: a
// file's contents (or its refusal), a directory's names, whether a path is
// a directory or exists, and on disk what a path is (stat, lstat) and
// where its symlinks lead (eval). Digest is what it gave.
type Input struct {
	Op     string // "file", "dir", "isdir", "exists", "stat", "lstat", "eval"
	Path   string
	Digest string
}

// recorder wraps a Repo's file system for one source's render and notes
// every read. A read outside the root (which the Repo refuses, but a probe
// may still ask) makes the render uncacheable.
type recorder struct {
	base repofs.FS
	root string
	mu   sync.Mutex
	seen map[Input]bool
	away bool
}

func newRecorder(base repofs.FS, root string) *recorder {
	return &recorder{base: base, root: root, seen: map[Input]bool{}}
}

func (r *recorder) ReadFile(p string) ([]byte, error) {
	data, err := r.base.ReadFile(p)
	r.note("file", p, fileDigest(data, err))
	return data, err
}

func (r *recorder) ReadDir(p string) ([]string, error) {
	names, err := r.base.ReadDir(p)
	r.note("dir", p, dirDigest(names, err))
	return names, err
}

func (r *recorder) IsDir(p string) bool {
	ok := r.base.IsDir(p)
	r.note("isdir", p, boolDigest(ok))
	return ok
}

func (r *recorder) Exists(p string) bool {
	ok := r.base.Exists(p)
	r.note("exists", p, boolDigest(ok))
	return ok
}

// Observed notes what the Repo learnt of a path on disk (repofs.Observer).
// A path outside the root is not a read of the repository: the Repo
// refuses to read there (and tells Refused), or the caller vouched for it
// (a command-line values file, in the key's salt).
func (r *recorder) Observed(op, p, answer string) {
	if _, ok := relTo(r.root, p); ok {
		r.note(op, p, answer)
	}
}

// Refused notes a read the Repo refused: a symlink out of the root, a
// special file, a file too large. The next run's reading of the same path
// (renderCache.current) is refused the same way, or differs.
func (r *recorder) Refused(p string, err error) {
	r.note("file", p, fileDigest(nil, err))
}

func (r *recorder) note(op, p, digest string) {
	rel, ok := relTo(r.root, p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok {
		r.away = true
		return
	}
	r.seen[Input{Op: op, Path: rel, Digest: digest}] = true
}

// inputs are the reads in a stable order; ok is false when one left the root.
func (r *recorder) inputs() ([]Input, bool) {
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

// relTo is p relative to root, slash-separated; ok is false outside it.
func relTo(root, p string) (string, bool) {
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

// renderCache is one run's view of the cache directory. Each file's
// digest is computed once per run, however many entries ask for it.
type renderCache struct {
	dir  string
	salt string // the build and the shared options, hashed
	repo *repo
	mu   sync.Mutex
	now  map[Input]string // an input without its Digest → what it gives this run
	// memo is the files' digests by stat, for a repository on disk.
	memo *digestmemo.Memo
}

// newRenderCache is the run's cache, nil when Options.RenderCacheDir is
// empty. A render that fetches is never stored (what it downloads is not
// in the key); the other sources of a fetching run are.
func newRenderCache(dir string, rd *renderer) *renderCache {
	if dir == "" {
		return nil
	}
	c := &renderCache{dir: dir, salt: cacheSalt(rd), repo: rd.repo}
	size := 1024
	if isDisk(rd.opts.FS) {
		c.memo = digestmemo.Acquire(digestmemo.File(dir, rd.repo.Root), rd.opts.Checkout)
		if !c.memo.Vouched() { // what git vouches for is not noted in now
			size = max(size, c.memo.Known()) // a warm run checks what the last one did
		}
	}
	c.now = make(map[Input]string, size)
	openEntries()
	return c
}

// close saves what the run learnt of the files' digests.
func (c *renderCache) close() {
	if c == nil {
		return
	}
	closeEntries()
	if c.memo != nil {
		digestmemo.Release(c.memo)
	}
}

// key is the directory of spec's entries, "" when spec cannot be encoded.
// The spec is written as JSON, which orders map keys: gob writes maps in
// Go's random order, and a delivered source's spec holds maps.
func (c *renderCache) key(spec SourceSpec) string {
	data, err := json.Marshal(toWire(spec))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(append([]byte(c.salt+"\x00"), data...))
	k := hex.EncodeToString(sum[:])
	return filepath.Join(c.dir, k[:2], k)
}

// lookup returns the render under key (a spec's, from key) when one of
// its entries' inputs all read the same now.
func (c *renderCache) lookup(dir string) (sourceOut, bool) {
	entry := c.find(dir)
	if entry == nil {
		return sourceOut{}, false
	}
	return c.load(entry)
}

// find is the entry under key whose inputs all read the same now, nil
// when none does; only the entries' headers are decoded. A damaged entry,
// or one of another format, is skipped.
func (c *renderCache) find(dir string) *cacheEntry {
	if dir == "" || !safefile.OwnDir(c.dir, dir) {
		return nil // a key directory that is a symlink may lead anywhere
	}
	for _, name := range sharedListing(dir) {
		if entry, ok := sharedEntry(filepath.Join(dir, name)); ok && c.fresh(entry.inputs) {
			return entry
		}
	}
	return nil
}

// load is the render the entry (from find) holds; false when its body is
// damaged.
func (c *renderCache) load(entry *cacheEntry) (sourceOut, bool) {
	out, ok := entry.sharedBody()
	out.result.Cached = true
	return out, ok
}

// checkOrder is the order in which renderAll checks specs' entries: the
// sources a change is under come first, since they are the likeliest to
// render: the changes git reports since the last run on a root it vouches
// for (Checkout), and those the caller expects (hint, Options.CheckFirst).
func (c *renderCache) checkOrder(specs []SourceSpec, hint []string) []int {
	hinted := map[string]bool{}
	for _, p := range hint {
		for ; !hinted[p]; p = path.Dir(p) {
			hinted[p] = true
		}
	}
	order := make([]int, 0, len(specs))
	var later []int
	for i, spec := range specs {
		if hinted[spec.Path] || c.memo != nil && c.memo.ChangedUnder(spec.Path) {
			order = append(order, i)
		} else {
			later = append(later, i)
		}
	}
	return append(order, later...)
}

// fresh reports whether every input reads the same now.
func (c *renderCache) fresh(inputs []Input) bool {
	for _, in := range inputs {
		if c.current(in.Op, in.Path) != in.Digest {
			return false
		}
	}
	return true
}

// current is what op on the root-relative path p gives in this run.
func (c *renderCache) current(op, p string) string {
	key := memoKey(p, op == "dir")
	if c.memo != nil && (op == "file" || op == "dir") {
		// What git vouches for needs no note of its own: the memo has it.
		if d, ok := c.memo.Trusted(key); ok {
			return d
		}
	}
	k := Input{Op: op, Path: p}
	c.mu.Lock()
	d, ok := c.now[k]
	c.mu.Unlock()
	if ok {
		return d
	}
	fsys := c.repo.FS()
	switch op {
	case "file":
		// Through the Repo's checks: a path that is now a symlink out of
		// the root, or a FIFO, is refused as the render would be.
		d = c.viaMemo(p, key, false, func(abs string) (string, bool) {
			data, err := c.repo.ReadFile(abs)
			return fileDigest(data, err), err == nil
		})
	case "dir":
		d = c.viaMemo(p, key, true, func(abs string) (string, bool) {
			names, err := fsys.ReadDir(abs)
			return dirDigest(names, err), err == nil
		})
	case "isdir":
		d = boolDigest(fsys.IsDir(c.abs(p)))
	case "exists":
		d = boolDigest(fsys.Exists(c.abs(p)))
	case repofs.OpStat, repofs.OpLstat, repofs.OpEval:
		d = c.repo.Answer(op, c.abs(p))
	default:
		d = "unknown op" // an entry of another build: never fresh
	}
	c.mu.Lock()
	c.now[k] = d
	c.mu.Unlock()
	return d
}

// abs is the root-relative, slash-separated path p on the disk. A path
// the cache recorded is clean, and is joined without filepath.Join's
// cleaning (a fifth of a warm diff's checks); any other is cleaned.
func (c *renderCache) abs(p string) string {
	if filepath.Separator == '/' && len(c.repo.Root) > 1 && cleanRel(p) {
		return c.repo.Root + "/" + p
	}
	return filepath.Join(c.repo.Root, filepath.FromSlash(p))
}

// cleanRel reports whether p is a relative slash path that filepath.Clean
// leaves as it is and that stays below its root: no empty, "." or ".."
// element.
func cleanRel(p string) bool {
	if p == "" || p[0] == '/' {
		return false
	}
	for {
		elem, rest, more := strings.Cut(p, "/")
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
		if !more {
			return true
		}
		p = rest
	}
}

// viaMemo is what compute gives for the file or directory rel (inside the
// root; key in the memo) now: the memo's digest when its stat is
// unchanged, else computed (the stat taken first, so that a change during
// the read is not recorded under the new stat). A directory's stat
// changes whenever an entry is added, removed or renamed, so its listing
// is memoized as a file's bytes are, under "dir:" and its path.
func (c *renderCache) viaMemo(rel, key string, dir bool, compute func(abs string) (string, bool)) string {
	abs := c.abs(rel)
	if c.memo == nil {
		d, _ := compute(abs)
		return d
	}
	st, statted := digestmemo.StatOf(abs, dir)
	if statted {
		if d, ok := c.memo.Digest(key, st); ok {
			return d
		}
	}
	d, ok := compute(abs)
	if statted && ok {
		c.memo.Record(key, st, d)
	}
	return d
}

// memoKey is the memo's key of the file or directory rel.
func memoKey(rel string, dir bool) string {
	if dir {
		return "dir:" + rel
	}
	return rel
}

// store keeps out under key when it can be reused: a render that
// finished and read only inside the root.
func (c *renderCache) store(dir string, out sourceOut) {
	if dir == "" || !cacheable(out) || !safefile.OwnDir(c.dir, dir) {
		return
	}
	b, err := encodeEntry(out)
	if err != nil {
		return
	}
	h := sha256.New()
	for _, in := range out.inputs {
		h.Write([]byte(in.Op + "\x00" + in.Path + "\x00" + in.Digest + "\x00"))
	}
	name := hex.EncodeToString(h.Sum(nil))[:32] + entryExt
	if atomicfile.WriteUnsynced(filepath.Join(dir, name), b) == nil {
		forgetListing(dir)
		pruneEntries(dir, maxCacheCandidates)
	}
}

func cacheable(out sourceOut) bool {
	if !out.recorded {
		return false
	}
	switch out.result.Status {
	case StatusRendered, StatusSkipped:
	default:
		return false
	}
	for _, f := range out.result.Findings {
		switch f.Check {
		case check.RenderTimeout, check.RenderCancelled, check.RenderPanic, check.RenderCrashed, check.RenderMemory:
			return false
		}
	}
	return true
}

// pruneEntries keeps the n newest entries of a key.
func pruneEntries(dir string, n int) { cachefile.KeepNewest(dir, entryExt, n) }

// cacheSalt is what every key of a run shares: the capreport build (its
// executable's digest, so that a rebuilt binary never reads an older
// one's renders), the options every source renders with, and the scope.
func cacheSalt(rd *renderer) string {
	o := rd.opts
	shared := struct {
		Format, Build, Scope  string
		KubeVersion           string
		APIVersions, RepoURLs []string
		SourceMaps            []SourceMap
		Helm                  HelmValues
		MaxFileBytes          int64
		MaxObjects            int
		NoGitOps, LocatedOnly bool
		// Kept: entries hold what Keep kept (one Keep per directory).
		Kept, StubCRDs bool
	}{cacheFormat, buildid.Digest(), "", o.KubeVersion, o.APIVersions, o.RepoURLs, o.SourceMaps, o.Helm, o.MaxFileBytes, o.MaxObjects, o.NoGitOps, o.LocatedOnly, o.Keep != nil, o.StubCRDs}
	if rel, ok := relTo(rd.repo.Root, rd.scope); ok {
		shared.Scope = rel
	}
	data, err := json.Marshal(shared) // JSON: map keys in order
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Package cache is the render cache (render's Options.RenderCacheDir). It
// keeps each source's render keyed by what decides it: the capreport
// build, the options every render shares, the source's spec (its GitOps
// delivery included), and the bytes of every file its render read and the
// names of every directory it listed, all by root-relative path. A later
// run, or the other side of a diff, takes a source from the cache when
// every one of those reads gives the same answer again; it re-renders only
// the sources whose inputs changed. Paths are relative to the root, so a
// base checked out in a temporary worktree finds what the head stored.
package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/capreport/capreport/internal/atomicfile"
	"github.com/capreport/capreport/internal/safefile"
	"github.com/capreport/capreport/render/internal/cachefile"
	"github.com/capreport/capreport/render/internal/digestmemo"
	"github.com/capreport/capreport/render/internal/repofs"
)

// maxCandidates bounds the entries one key keeps (a base and a head that
// differ in one chart keep one entry each for it).
const maxCandidates = 8

// A Cache is one run's view of the cache directory. Each file's digest is
// computed once per run, however many entries ask for it.
type Cache struct {
	dir  string
	salt string // the build and the shared options, hashed
	repo *repofs.Repo
	mu   sync.Mutex
	now  map[Input]string // an input without its Digest → what it gives this run
	// memo is the files' digests by stat, for a repository on disk.
	memo *digestmemo.Memo
}

// Options say where a run's cache is and what its keys share.
type Options struct {
	// Dir is the cache's directory; "" means no cache.
	Dir string
	// Salt is what every key of the run shares: the build, the options
	// every source renders with (render's cacheSalt).
	Salt string
	// Repo is the root whose files the entries' inputs name.
	Repo *repofs.Repo
	// OnDisk says Repo is the disk itself, whose files' digests are
	// memoized by stat (digestmemo), or by git when Checkout is set.
	OnDisk   bool
	Checkout *digestmemo.Checkout
}

// Open is the run's cache, nil when o.Dir is empty. A render that fetches
// is never stored (what it downloads is not in the key); the other
// sources of a fetching run are.
func Open(o Options) *Cache {
	if o.Dir == "" {
		return nil
	}
	c := &Cache{dir: o.Dir, salt: o.Salt, repo: o.Repo}
	size := 1024
	if o.OnDisk {
		c.memo = digestmemo.Acquire(digestmemo.File(o.Dir, o.Repo.Root), o.Checkout)
		if !c.memo.Vouched() { // what git vouches for is not noted in now
			size = max(size, c.memo.Known()) // a warm run checks what the last one did
		}
	}
	c.now = make(map[Input]string, size)
	openEntries()
	return c
}

// Close saves what the run learnt of the files' digests.
func (c *Cache) Close() {
	if c == nil {
		return
	}
	closeEntries()
	if c.memo != nil {
		digestmemo.Release(c.memo)
	}
}

// Key is the directory of the entries of a source whose spec encodes as
// spec. The caller writes the spec as JSON, which orders map keys: gob
// writes maps in Go's random order, and a delivered source's spec holds
// maps.
func (c *Cache) Key(spec []byte) string {
	sum := sha256.Sum256(append([]byte(c.salt+"\x00"), spec...))
	k := hex.EncodeToString(sum[:])
	return filepath.Join(c.dir, k[:2], k)
}

// Lookup returns the render under key (a spec's, from Key) when one of
// its entries' inputs all read the same now.
func (c *Cache) Lookup(dir string) (Entry, bool) {
	entry := c.Find(dir)
	if entry == nil {
		return Entry{}, false
	}
	return c.Load(entry)
}

// Find is the entry under key whose inputs all read the same now, nil
// when none does; only the entries' headers are decoded. A damaged entry,
// or one of another format, is skipped.
func (c *Cache) Find(dir string) *Stored {
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

// Load is the render the entry (from Find) holds; false when its body is
// damaged.
func (c *Cache) Load(entry *Stored) (Entry, bool) {
	out, ok := entry.sharedBody()
	out.Result.Cached = true
	return out, ok
}

// CheckOrder is the order in which a run checks the entries of the
// sources at paths (root-relative): the sources a change is under come
// first, since they are the likeliest to render: the changes git reports
// since the last run on a root it vouches for (Checkout), and those the
// caller expects (hint, render's Options.CheckFirst).
func (c *Cache) CheckOrder(paths []string, hint []string) []int {
	hinted := map[string]bool{}
	for _, p := range hint {
		for ; !hinted[p]; p = path.Dir(p) {
			hinted[p] = true
		}
	}
	order := make([]int, 0, len(paths))
	var later []int
	for i, p := range paths {
		if hinted[p] || c.memo != nil && c.memo.ChangedUnder(p) {
			order = append(order, i)
		} else {
			later = append(later, i)
		}
	}
	return append(order, later...)
}

// fresh reports whether every input reads the same now.
func (c *Cache) fresh(inputs []Input) bool {
	for _, in := range inputs {
		if c.current(in.Op, in.Path) != in.Digest {
			return false
		}
	}
	return true
}

// current is what op on the root-relative path p gives in this run.
func (c *Cache) current(op, p string) string {
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
func (c *Cache) abs(p string) string {
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
func (c *Cache) viaMemo(rel, key string, dir bool, compute func(abs string) (string, bool)) string {
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

// Store keeps out under key (from Key); the caller has checked that it
// can be reused: a render that finished and read only inside the root.
func (c *Cache) Store(dir string, out Entry) {
	if dir == "" || !safefile.OwnDir(c.dir, dir) {
		return
	}
	b, err := Encode(out)
	if err != nil {
		return
	}
	h := sha256.New()
	for _, in := range out.Inputs {
		h.Write([]byte(in.Op + "\x00" + in.Path + "\x00" + in.Digest + "\x00"))
	}
	name := hex.EncodeToString(h.Sum(nil))[:32] + Ext
	if atomicfile.WriteUnsynced(filepath.Join(dir, name), b) == nil {
		forgetListing(dir)
		pruneEntries(dir, maxCandidates)
	}
}

// pruneEntries keeps the n newest entries of a key.
func pruneEntries(dir string, n int) { cachefile.KeepNewest(dir, Ext, n) }

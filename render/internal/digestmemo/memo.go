// Package digestmemo remembers, in the render cache's directory, the
// digest of each file the cache checked, under what stat says of it, as
// git's index does, so that a warm run stats its inputs instead of
// reading and hashing them; on a root that is a Checkout (a worktree only
// capreport moves), git's word on what changed between two commits stands
// for the stats. docs/architecture.md gives what it saves and why it is
// kept.
package digestmemo

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/capreport/capreport/internal/atomicfile"
	"github.com/capreport/capreport/render/internal/cachefile"
)

const (
	memoSettle     = 2 * time.Second
	memoMaxEntries = 500_000 // past it the memo keeps only one run's files
	memoDirName    = "digests"
	// memoMaxFiles is how many roots' memos the cache directory keeps, the
	// most recently used: a temporary worktree's root is new every run.
	memoMaxFiles = 32
)

// legacyMemoFiles are the single memos of earlier releases, one for every
// root, removed at the next save.
var legacyMemoFiles = []string{"file-digests.bin", "file-digests.gob"}

// File is the memo file, in the cache directory dir, of the
// repository at root.
func File(dir, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(dir, memoDirName, hex.EncodeToString(sum[:8])+".bin")
}

// openMemo reads the memo file at path, of a root that is co when
// co is not nil; a missing or damaged one is empty.
func openMemo(path string, co *Checkout) *Memo {
	m := &Memo{path: path, start: time.Now(), learnt: map[string]Entry{}}
	m.old, m.batches, m.intact = takePreread(m.path)
	m.vouch(co)
	if !m.vouched && m.notesHits() {
		m.now = make(map[string]Entry, len(m.old)) // a warm run checks what the last one did
	} else {
		m.now = map[string]Entry{}
	}
	return m
}

// prereads are memo files being read ahead of the render cache that opens
// them (Preread), by file.
var prereads = struct {
	sync.Mutex
	byPath map[string]*preread
}{byPath: map[string]*preread{}}

type preread struct {
	done    chan struct{}
	entries map[string]Entry
	batches int
	intact  bool
}

// Preread starts reading the digest memo of the repository at root,
// in the render cache directory cacheDir (Options.RenderCacheDir), for the
// next Render of that root to take: a diff's base reads its worktree's
// memo while git moves the worktree, instead of after. drop forgets it if
// no Render took it (the path was not there at the revision).
func Preread(cacheDir, root string) (drop func()) {
	path := File(cacheDir, root)
	p := &preread{done: make(chan struct{})}
	prereads.Lock()
	prereads.byPath[path] = p
	prereads.Unlock()
	go func() {
		p.entries, p.batches, p.intact = readMemoFile(path)
		close(p.done)
	}()
	return func() {
		prereads.Lock()
		if prereads.byPath[path] == p {
			delete(prereads.byPath, path)
		}
		prereads.Unlock()
	}
}

// takePreread is readMemoFile of path, read ahead when Preread was
// asked to.
func takePreread(path string) (map[string]Entry, int, bool) {
	prereads.Lock()
	p := prereads.byPath[path]
	delete(prereads.byPath, path)
	prereads.Unlock()
	if p == nil {
		return readMemoFile(path)
	}
	<-p.done
	return p.entries, p.batches, p.intact
}

// openMemos are the memos the process has open, by file: a diff builds its
// head and its base at once, and they share one memo, read once and
// written once.
var openMemos = struct {
	sync.Mutex
	byPath map[string]*sharedMemo
}{byPath: map[string]*sharedMemo{}}

type sharedMemo struct {
	once  sync.Once
	memo  *Memo
	users int
}

// Acquire is the memo file at path (File), of a root that is co
// when co is not nil, shared with every other render cache of the process
// that has it open; Release gives it back, and the last user saves it.
func Acquire(path string, co *Checkout) *Memo {
	openMemos.Lock()
	sm := openMemos.byPath[path]
	if sm == nil {
		sm = &sharedMemo{}
		openMemos.byPath[path] = sm
	}
	sm.users++
	openMemos.Unlock()
	// Read outside the lock: a diff's head and base open their memos at
	// once, and a Checkout root's asks git what changed.
	sm.once.Do(func() { sm.memo = openMemo(path, co) })
	return sm.memo
}

func Release(m *Memo) {
	openMemos.Lock()
	sm := openMemos.byPath[m.path]
	if sm == nil || sm.memo != m {
		openMemos.Unlock()
		return
	}
	if sm.users--; sm.users > 0 {
		openMemos.Unlock()
		return
	}
	delete(openMemos.byPath, m.path)
	openMemos.Unlock()
	m.save()
}

// digest is the recorded digest of the file under key (its root-relative
// path), when st (its stat now) is the one recorded.
func (m *Memo) Digest(key string, st Stat) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.now[key]; ok && e.Stat == st { // recorded by another build of this run
		return e.Digest, true
	}
	e, ok := m.old[key]
	if !ok || e.Stat != st || e.Digest == "" {
		return "", false
	}
	if m.notesHits() {
		m.now[key] = e
	}
	return e.Digest, true
}

// Vouched reports whether git vouches for the entries this run did not
// see change (Trusted answers then).
func (m *Memo) Vouched() bool { return m.vouched }

// Known is how many entries the previous runs recorded.
func (m *Memo) Known() int { return len(m.old) }

// StartedAt says the run started at t, for the tests that write files
// and cannot wait for them to settle: a t long after the writes makes
// every stat settled.
func (m *Memo) StartedAt(t time.Time) { m.start = t }

// Plant sets what the previous runs recorded under key, for the tests of
// a reader that trusts the memo.
func (m *Memo) Plant(key string, e Entry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.old[key] = e
}

// notesHits reports whether an entry found unchanged is noted in now: a
// whole write keeps only what the run checked on a Checkout root
// (checkoutEntry) and past memoMaxEntries (save); any other keeps old.
func (m *Memo) notesHits() bool { return m.co != nil || len(m.old) > memoMaxEntries/2 }

// record notes the digest of the file under key, read after st was taken,
// unless the file changed too recently for its stat to be trusted.
func (m *Memo) Record(key string, st Stat, digest string) {
	settled := m.start.Add(-memoSettle).UnixNano()
	if st.Mtime >= settled || st.Ctime >= settled {
		return
	}
	e := Entry{Stat: st, Digest: digest}
	m.mu.Lock()
	m.now[key] = e
	if m.old[key] != e {
		m.learnt[key] = e
	}
	m.mu.Unlock()
}

// save adds what this run learnt to the memo file: as one more batch, or,
// once the file holds memoMaxBatches (or none, or a torn batch), by writing
// the whole memo again as one batch, with what this run checked over what
// it held. A Checkout root's memo also says which commit it holds for
// (checkoutEntry).
func (m *Memo) save() {
	m.mu.Lock()
	defer m.mu.Unlock()
	co, whole := m.checkoutEntry()
	if m.old[memoCheckoutKey] != co || whole {
		m.learnt[memoCheckoutKey], m.now[memoCheckoutKey] = co, co
	}
	if len(m.learnt) == 0 {
		now := time.Now()
		_ = os.Chtimes(m.path, now, now) // still in use: pruneMemos keeps the newest
		return
	}
	if !whole && m.intact && m.batches > 0 && m.batches < memoMaxBatches && appendMemoFile(m.path, m.learnt) == nil {
		return
	}
	all := make(map[string]Entry, len(m.old)+len(m.now))
	if !whole && len(m.old)+len(m.now) <= memoMaxEntries {
		for k, e := range m.old {
			all[k] = e
		}
	}
	for k, e := range m.now {
		all[k] = e
	}
	for k, e := range all {
		if e.Digest == "" { // a tombstone (checkout.go)
			delete(all, k)
		}
	}
	dir := filepath.Dir(m.path)
	if os.MkdirAll(dir, 0o755) == nil && atomicfile.WriteUnsynced(m.path, appendMemoBatch([]byte(memoMagic), all)) == nil {
		pruneMemos(dir)
	}
}

// pruneMemos keeps the memoMaxFiles most recently used memo files in dir,
// and removes the earlier releases' memo beside it.
func pruneMemos(dir string) {
	for _, name := range legacyMemoFiles {
		_ = os.Remove(filepath.Join(filepath.Dir(dir), name))
	}
	cachefile.KeepNewest(dir, ".bin", memoMaxFiles)
}

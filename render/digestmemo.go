package render

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/capreport/capreport/internal/atomicfile"
)

// digestMemo remembers, in the cache directory, the digest of each file
// the render cache checked, under the file's path and what stat says of it
// (size, modification and change times, inode, device), as git's index
// does: a warm run then stats each input instead of reading and hashing
// it, which was two thirds of a warm diff on a 117-chart repository. The
// change time is set by the kernel on every write, rename and chmod, so a
// file cannot change under the same stat but within the clock's
// resolution; a file changed less than memoSettle before the run started is
// hashed again every time until it settles, as git treats racily clean
// entries. Directory listings are kept the same way, under "dir:" and the
// directory's path (renderCache.viaMemo).
//
// Each repository root has its own memo file, keyed by root-relative path:
// a run reads the memos of the roots it renders (a diff, its head's and
// its base worktree's), not of every repository the cache directory has
// seen, which on a shared cache was most of a warm diff's start.
type digestMemo struct {
	path  string
	start time.Time
	mu    sync.Mutex
	old   map[string]memoEntry // what the previous runs recorded
	now   map[string]memoEntry // what this run checked
	// learnt are the digests this run recorded that old did not hold.
	learnt map[string]memoEntry
	// batches is how many batches the file held when it was read, and
	// intact whether it held nothing else (appending to it is then safe).
	batches int
	intact  bool
	// co is the root's Checkout, if any, and vouched whether git vouches
	// for the entries the run did not see change (checkoutmemo.go).
	co      *Checkout
	vouched bool
	// changedAt holds each path git said changed, when vouched, and the
	// directories above it.
	changedAt map[string]bool
}

// memoEntry is one file's digest and the stat it was taken under.
type memoEntry struct {
	Stat   fileStat
	Digest string
}

// fileStat is what a change to a file changes in its stat.
type fileStat struct {
	Size, Mtime, Ctime int64
	Ino, Dev           uint64
}

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

// memoFile is the memo file, in the cache directory dir, of the
// repository at root.
func memoFile(dir, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(dir, memoDirName, hex.EncodeToString(sum[:8])+".bin")
}

// openDigestMemo reads the memo file at path, of a root that is co when
// co is not nil; a missing or damaged one is empty.
func openDigestMemo(path string, co *Checkout) *digestMemo {
	m := &digestMemo{path: path, start: time.Now(), learnt: map[string]memoEntry{}}
	m.old, m.batches, m.intact = takePreread(m.path)
	m.vouch(co)
	if !m.vouched && m.notesHits() {
		m.now = make(map[string]memoEntry, len(m.old)) // a warm run checks what the last one did
	} else {
		m.now = map[string]memoEntry{}
	}
	return m
}

// prereads are memo files being read ahead of the render cache that opens
// them (PrereadMemo), by file.
var prereads = struct {
	sync.Mutex
	byPath map[string]*preread
}{byPath: map[string]*preread{}}

type preread struct {
	done    chan struct{}
	entries map[string]memoEntry
	batches int
	intact  bool
}

// PrereadMemo starts reading the digest memo of the repository at root,
// in the render cache directory cacheDir (Options.RenderCacheDir), for the
// next Render of that root to take: a diff's base reads its worktree's
// memo while git moves the worktree, instead of after. drop forgets it if
// no Render took it (the path was not there at the revision).
func PrereadMemo(cacheDir, root string) (drop func()) {
	path := memoFile(cacheDir, root)
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

// takePreread is readMemoFile of path, read ahead when PrereadMemo was
// asked to.
func takePreread(path string) (map[string]memoEntry, int, bool) {
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
	memo  *digestMemo
	users int
}

// acquireMemo is the memo file at path (memoFile), of a root that is co
// when co is not nil, shared with every other render cache of the process
// that has it open; releaseMemo gives it back, and the last user saves it.
func acquireMemo(path string, co *Checkout) *digestMemo {
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
	sm.once.Do(func() { sm.memo = openDigestMemo(path, co) })
	return sm.memo
}

func releaseMemo(m *digestMemo) {
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
func (m *digestMemo) digest(key string, st fileStat) (string, bool) {
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

// notesHits reports whether an entry found unchanged is noted in now: a
// whole write keeps only what the run checked on a Checkout root
// (checkoutEntry) and past memoMaxEntries (save); any other keeps old.
func (m *digestMemo) notesHits() bool { return m.co != nil || len(m.old) > memoMaxEntries/2 }

// record notes the digest of the file under key, read after st was taken,
// unless the file changed too recently for its stat to be trusted.
func (m *digestMemo) record(key string, st fileStat, digest string) {
	settled := m.start.Add(-memoSettle).UnixNano()
	if st.Mtime >= settled || st.Ctime >= settled {
		return
	}
	e := memoEntry{Stat: st, Digest: digest}
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
func (m *digestMemo) save() {
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
	all := make(map[string]memoEntry, len(m.old)+len(m.now))
	if !whole && len(m.old)+len(m.now) <= memoMaxEntries {
		for k, e := range m.old {
			all[k] = e
		}
	}
	for k, e := range m.now {
		all[k] = e
	}
	for k, e := range all {
		if e.Digest == "" { // a tombstone (checkoutmemo.go)
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
	keepNewest(dir, ".bin", memoMaxFiles)
}

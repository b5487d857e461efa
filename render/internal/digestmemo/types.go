package digestmemo

import (
	"sync"
	"time"
)

// Memo remembers, in the cache directory, the digest of each file
// the render cache checked, under the file's path and what stat says of it
// (size, modification and change times, inode, device), as git's index
// does: a warm run then stats each input instead of reading and hashing
// it, which was two thirds of a warm diff on a 117-chart repository. The
// change time is set by the kernel on every write, rename and chmod, so a
// file cannot change under the same stat but within the clock's
// resolution; a file changed less than memoSettle before the run started is
// hashed again every time until it settles, as git treats racily clean
// entries. Directory listings are kept the same way, under "dir:" and the
// directory's path (render/cache's Cache.viaMemo).
//
// Each repository root has its own memo file, keyed by root-relative path:
// a run reads the memos of the roots it renders (a diff, its head's and
// its base worktree's), not of every repository the cache directory has
// seen, which on a shared cache was most of a warm diff's start.
type Memo struct {
	path  string
	start time.Time
	mu    sync.Mutex
	old   map[string]Entry // what the previous runs recorded
	now   map[string]Entry // what this run checked
	// learnt are the digests this run recorded that old did not hold.
	learnt map[string]Entry
	// batches is how many batches the file held when it was read, and
	// intact whether it held nothing else (appending to it is then safe).
	batches int
	intact  bool
	// co is the root's Checkout, if any, and vouched whether git vouches
	// for the entries the run did not see change (checkout.go).
	co      *Checkout
	vouched bool
	// changedAt holds each path git said changed, when vouched, and the
	// directories above it.
	changedAt map[string]bool
}

// Entry is one file's digest and the stat it was taken under.
type Entry struct {
	Stat   Stat
	Digest string
}

// Stat is what a change to a file changes in its stat.
type Stat struct {
	Size, Mtime, Ctime int64
	Ino, Dev           uint64
}

// Checkout says that the root is a checkout of a git commit that only
// capreport writes to: pipeline's kept worktree, moved to each base with
// `git checkout --force` and `git clean -ffdx`. Its files' bytes then
// change only where two commits differ, so the digest memo of such a root
// trusts what it recorded at an earlier commit for every path git says is
// the same at this one, without a stat: a warm diff's base checks its
// 12,000 inputs with one git diff instead of 12,000 stats.
type Checkout struct {
	// Commit is the commit the root holds.
	Commit string
	// Changes lists the root-relative paths that differ between an
	// earlier commit and Commit (slash-separated), and whether all of them
	// are plain: none a symbolic link, a submodule or a .gitattributes on
	// either side.
	Changes func(since string) (paths []string, plain bool, err error)
	// Plain reports whether Commit's tree holds no symbolic link or
	// submodule: a link's target can change while the link does not, and
	// a submodule's files are not the tree's. (A changed .gitattributes,
	// which can make git rewrite files whose blobs did not change, is not
	// plain in Changes.)
	Plain func() (bool, error)
	// Fresh: the root was checked out anew, not moved from an earlier
	// commit. Its files are written again, through filters and attributes
	// that may differ from when the memo was recorded, so nothing is
	// trusted this run.
	Fresh bool
}

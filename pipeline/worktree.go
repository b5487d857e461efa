package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// baseTree is where BuildAtRef renders a revision: a temporary worktree,
// or the one the cache keeps.
type baseTree struct {
	wt string
	// kept: the cache's worktree; moved: kept, and moved there from an
	// earlier commit rather than added afresh.
	kept, moved bool
	// diff is what git said differs between the commit the kept worktree
	// was moved from and the one it holds, when the move asked.
	diff *rawDiff
	done func()
}

// checkoutAt checks sha out for BuildAtRef. Without the cache it is a
// temporary worktree, removed by done. With it (Settings.Cache), it is
// one worktree kept in the cache directory for the repository and moved
// to sha, rewriting only the files that differ: on a chart monorepo a
// fresh checkout takes seconds, far more than a warm render cache leaves
// of the run. A run that finds the kept worktree in use by another falls
// back to a temporary one.
func checkoutAt(ctx context.Context, git gitFunc, top, sha string, s Settings, warn io.Writer) (baseTree, error) {
	if s.Cache {
		if b, ok := keptWorktree(ctx, git, top, sha, s.cacheDir()); ok {
			return b, nil
		}
	}
	tmp, err := os.MkdirTemp("", "capreport-base-")
	if err != nil {
		return baseTree{}, err
	}
	b := baseTree{wt: filepath.Join(tmp, "worktree")}
	b.done = func() {
		// Clean up even when the run was cancelled: a stale worktree would
		// stay registered in the user's repository.
		cctx := context.WithoutCancel(ctx)
		if _, err := git(cctx, top, "worktree", "remove", "--force", b.wt); err != nil {
			fmt.Fprintf(warn, "capreport: warning: removing the base worktree %s: %v\n", b.wt, err)
			_ = os.RemoveAll(tmp)
			_, _ = git(cctx, top, "worktree", "prune")
		}
		_ = os.RemoveAll(tmp)
	}
	if _, err := git(ctx, top, "worktree", "add", "--detach", "--quiet", b.wt, sha); err != nil {
		b.done()
		return baseTree{}, err
	}
	return b, nil
}

// staleLock is the age past which a kept worktree's lock is taken to be
// left by a run that died: no run holds one that long.
const staleLock = 6 * time.Hour

// keptWorktree moves the cache's worktree of top to sha (adding it the
// first time, or again when git cannot move it: moved is false then),
// holding a lock file beside it until done; ok is false when another run
// holds the lock or git refuses, and the caller checks out a temporary
// worktree instead.
func keptWorktree(ctx context.Context, git gitFunc, top, sha, cacheDir string) (b baseTree, ok bool) {
	b.wt, b.kept = keptWorktreePath(top, cacheDir), true
	wt := b.wt
	if err := os.MkdirAll(filepath.Dir(wt), 0o755); err != nil {
		return baseTree{}, false
	}
	if fi, err := os.Stat(wt + ".lock"); err == nil && time.Since(fi.ModTime()) > staleLock {
		_ = os.Remove(wt + ".lock") // left by a run that was killed
	}
	lock, err := os.OpenFile(wt+".lock", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return baseTree{}, false
	}
	_ = lock.Close()
	b.done = func() { _ = os.Remove(wt + ".lock") }
	// The marker says the worktree holds exactly its commit: a move
	// finished, and nothing writes to it (renders read through a
	// read-only file system; the lock keeps other runs out). The marker
	// names the commit, and holds only while git's HEAD for the worktree
	// is that commit (a cache directory restored apart from the
	// repository); it goes before the move starts, so one that does not
	// finish leaves none.
	marker := wt + ".clean"
	from, wasClean := markedClean(wt, marker)
	_ = os.Remove(marker)
	if _, err := os.Stat(filepath.Join(wt, ".git")); err == nil {
		if b.diff, err = moveKept(ctx, git, wt, from, sha, wasClean); err == nil {
			_ = os.WriteFile(marker, []byte(sha), 0o600)
			b.moved = true
			return b, true
		}
		_, _ = git(context.WithoutCancel(ctx), top, "worktree", "remove", "--force", wt)
	}
	_ = os.RemoveAll(wt)
	_, _ = git(ctx, top, "worktree", "prune")
	if _, err := git(ctx, top, "worktree", "add", "--detach", "--quiet", wt, sha); err != nil {
		b.done()
		return baseTree{}, false
	}
	_ = os.WriteFile(marker, []byte(sha), 0o600)
	return b, true
}

// keptWorktreePath is where the cache directory keeps the worktree of the
// repository whose top is top.
func keptWorktreePath(top, cacheDir string) string {
	sum := sha256.Sum256([]byte(top))
	return filepath.Join(cacheDir, "worktrees", hex.EncodeToString(sum[:8]))
}

// moveKept moves the kept worktree wt to the commit to. A worktree that
// was clean at the commit from is moved by restoring only the paths that
// differ (restoreChanges); any other, or one restoreChanges declines, by
// a checkout, then a clean unless it was clean before (a checkout from a
// clean worktree leaves no untracked file, and git clean reads every
// directory). diff is what git said differs from from, when it was asked.
func moveKept(ctx context.Context, git gitFunc, wt, from, to string, wasClean bool) (diff *rawDiff, err error) {
	if wasClean {
		diff, err = restoreChanges(ctx, git, wt, from, to)
		if err == nil {
			return diff, nil
		}
		// A restore that failed part way left files git wrote: clean.
		wasClean = wasClean && errors.Is(err, errNotRestorable)
	}
	if _, err := git(ctx, wt, "checkout", "--detach", "--force", "--quiet", to); err != nil {
		return diff, err
	}
	if !wasClean {
		if _, err := git(ctx, wt, "clean", "-ffdxq"); err != nil {
			return diff, err
		}
	}
	return diff, nil
}

// maxRestorePaths is the most changed paths restoreChanges moves; a
// larger change is a checkout's work anyway.
const maxRestorePaths = 1000

// errNotRestorable: the change is one a checkout must make.
var errNotRestorable = errors.New("not a plain change")

// restoreChanges moves the worktree wt, clean at the commit from, to the
// commit to: git restores the index entries and files of the paths that
// differ between the two (deleting the ones to lacks, through the same
// filters a checkout applies), then HEAD moves. A checkout of one commit
// from another compares the index with every file first (over 11,000 on
// a chart monorepo: most of a warm diff's base); the paths outside the
// change are already right. A change that is not plain (a symbolic link,
// a submodule, a .gitattributes or .gitmodules) or too large is left to a
// checkout (errNotRestorable).
func restoreChanges(ctx context.Context, git gitFunc, wt, from, to string) (*rawDiff, error) {
	if !commitName.MatchString(from) {
		return nil, errNotRestorable
	}
	out, err := git(ctx, wt, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--ignore-submodules=none", from, to)
	if err != nil {
		return nil, errNotRestorable
	}
	paths, plain, err := parseRawDiff(out)
	if err != nil {
		return nil, errNotRestorable
	}
	diff := &rawDiff{since: from, paths: paths, plain: plain}
	if !plain || len(paths) > maxRestorePaths {
		return diff, errNotRestorable
	}
	// HEAD moves while the files do: they take different locks, and a
	// move that fails part way leaves no marker, so the next run checks
	// the worktree out and cleans it whatever HEAD says.
	moved := make(chan error, 1)
	go func() {
		_, err := git(ctx, wt, "update-ref", "--no-deref", "HEAD", to)
		moved <- err
	}()
	if len(paths) > 0 {
		args := append(make([]string, 0, len(paths)+5), "restore", "--source="+to, "--staged", "--worktree", "--")
		for _, p := range outermost(paths) {
			args = append(args, ":(literal)"+p) // a path, never a pattern
		}
		_, err = git(ctx, wt, args...)
	}
	if headErr := <-moved; err == nil {
		err = headErr
	}
	return diff, err
}

// outermost is paths without those under another of them: a file that
// became a directory is one change at its path and one under it, and git
// restore names a path under another as a pathspec that matched nothing
// (the other took its index entry first).
func outermost(paths []string) []string {
	set := make(map[string]bool, len(paths))
	for _, p := range paths {
		set[p] = true
	}
	var out []string
	for _, p := range paths {
		dir := path.Dir(p)
		for dir != "." && !set[dir] {
			dir = path.Dir(dir)
		}
		if dir == "." {
			out = append(out, p)
		}
	}
	return out
}

// markedClean returns the commit the marker beside the worktree wt names,
// and whether git's HEAD for it is that commit, read from the worktree's
// git directory (a file read, not a git process).
func markedClean(wt, marker string) (string, bool) {
	mark, err := os.ReadFile(marker)
	if err != nil || len(mark) == 0 {
		return "", false
	}
	link, err := os.ReadFile(filepath.Join(wt, ".git"))
	gitDir, ok := strings.CutPrefix(strings.TrimSpace(string(link)), "gitdir: ")
	if err != nil || !ok {
		return "", false
	}
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(wt, gitDir)
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	return string(mark), err == nil && strings.TrimSpace(string(head)) == string(mark)
}

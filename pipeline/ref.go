package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
)

// BuildAtRef prices path as it was at a git revision: it checks the
// revision out into a detached worktree of the repository that holds path
// (a temporary one, removed after; with Settings.Cache the one the cache
// keeps) and builds the same relative path there, so the user's checkout
// and index are never touched. flag
// names the option that gave ref, for errors. The configuration is the
// revision's (nil when PATH did not exist there).
func BuildAtRef(ctx context.Context, path, ref, flag string, s Settings) (*contract.Report, *config.Config, error) {
	git := s.Git
	if git == nil {
		git = RunGit
	}
	warn := s.Warnings
	if warn == nil {
		warn = io.Discard
	}
	top, rel, sha, err := resolveRef(ctx, git, path, ref, flag)
	if err != nil {
		return nil, nil, err
	}
	wt, moved, kept, done, err := checkoutAt(ctx, git, top, sha, s, warn)
	if err != nil {
		return nil, nil, fmt.Errorf("check out --%s %s: %w", flag, ref, err)
	}
	defer done()
	if kept {
		co := checkoutOf(ctx, git, wt, sha)
		co.Fresh = !moved
		s.checkout = &keptCheckout{top: wt, co: co}
	}

	at := filepath.Join(wt, rel)
	display := path + "@" + ref
	if _, err := os.Stat(at); errors.Is(err, os.ErrNotExist) {
		// The pull request adds PATH: every autoscaler under it is new.
		fmt.Fprintf(warn, "capreport: %s does not exist at %s; its report there is empty\n", path, ref)
		return &contract.Report{SchemaVersion: contract.SchemaVersion, Tool: s.Tool,
			Root: display, Workloads: []contract.Workload{},
			Sources: []contract.Source{}, Findings: []contract.Finding{}}, nil, nil
	}
	r, cfg, err := Build(ctx, []string{at}, s)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", display, err)
	}
	r.Root = display
	return r, cfg, nil
}

// checkoutAt checks sha out for BuildAtRef. Without the cache it is a
// temporary worktree, removed by done. With it (Settings.Cache), it is
// one worktree kept in the cache directory for the repository and moved
// to sha with a checkout, which rewrites only the files that differ: on a
// chart monorepo a fresh checkout takes seconds, far more than a warm
// render cache leaves of the run. A run that finds the kept worktree in
// use by another falls back to a temporary one; kept says which it is.
func checkoutAt(ctx context.Context, git gitFunc, top, sha string, s Settings, warn io.Writer) (wt string, moved, kept bool, done func(), err error) {
	if s.Cache {
		if wt, moved, done, ok := keptWorktree(ctx, git, top, sha, s.cacheDir()); ok {
			return wt, moved, true, done, nil
		}
	}
	tmp, err := os.MkdirTemp("", "capreport-base-")
	if err != nil {
		return "", false, false, nil, err
	}
	wt = filepath.Join(tmp, "worktree")
	done = func() {
		// Clean up even when the run was cancelled: a stale worktree would
		// stay registered in the user's repository.
		cctx := context.WithoutCancel(ctx)
		if _, err := git(cctx, top, "worktree", "remove", "--force", wt); err != nil {
			fmt.Fprintf(warn, "capreport: warning: removing the base worktree %s: %v\n", wt, err)
			_ = os.RemoveAll(tmp)
			_, _ = git(cctx, top, "worktree", "prune")
		}
		_ = os.RemoveAll(tmp)
	}
	if _, err := git(ctx, top, "worktree", "add", "--detach", "--quiet", wt, sha); err != nil {
		done()
		return "", false, false, nil, err
	}
	return wt, false, false, done, nil
}

// staleLock is the age past which a kept worktree's lock is taken to be
// left by a run that died: no run holds one that long.
const staleLock = 6 * time.Hour

// keptWorktree moves the cache's worktree of top to sha (adding it the
// first time, or again when git cannot move it: moved is false then),
// holding a lock file beside it until done; ok is false when another run
// holds the lock or git refuses, and the caller checks out a temporary
// worktree instead.
func keptWorktree(ctx context.Context, git gitFunc, top, sha, cacheDir string) (wt string, moved bool, done func(), ok bool) {
	sum := sha256.Sum256([]byte(top))
	wt = filepath.Join(cacheDir, "worktrees", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(filepath.Dir(wt), 0o755); err != nil {
		return "", false, nil, false
	}
	if fi, err := os.Stat(wt + ".lock"); err == nil && time.Since(fi.ModTime()) > staleLock {
		_ = os.Remove(wt + ".lock") // left by a run that was killed
	}
	lock, err := os.OpenFile(wt+".lock", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", false, nil, false
	}
	_ = lock.Close()
	done = func() { _ = os.Remove(wt + ".lock") }
	// The marker says the worktree holds exactly its commit: a checkout and
	// a clean finished, and nothing writes to it (renders read through a
	// read-only file system; the lock keeps other runs out). A checkout
	// from there leaves no untracked file, so its clean, which reads every
	// directory, is skipped. The marker names the commit, and holds only
	// while git's HEAD for the worktree is that commit (a cache directory
	// restored apart from the repository); it goes before the checkout
	// starts, so one that does not finish leaves none.
	marker := wt + ".clean"
	wasClean := markedClean(wt, marker)
	_ = os.Remove(marker)
	if _, err := os.Stat(filepath.Join(wt, ".git")); err == nil {
		_, err = git(ctx, wt, "checkout", "--detach", "--force", "--quiet", sha)
		if err == nil && !wasClean {
			_, err = git(ctx, wt, "clean", "-ffdxq")
		}
		if err == nil {
			_ = os.WriteFile(marker, []byte(sha), 0o600)
			return wt, true, done, true
		}
		_, _ = git(context.WithoutCancel(ctx), top, "worktree", "remove", "--force", wt)
	}
	_ = os.RemoveAll(wt)
	_, _ = git(ctx, top, "worktree", "prune")
	if _, err := git(ctx, top, "worktree", "add", "--detach", "--quiet", wt, sha); err != nil {
		done()
		return "", false, nil, false
	}
	_ = os.WriteFile(marker, []byte(sha), 0o600)
	return wt, false, done, true
}

// markedClean reports whether the marker beside the worktree wt names the
// commit git's HEAD for it holds, read from the worktree's git directory
// (a file read, not a git process).
func markedClean(wt, marker string) bool {
	mark, err := os.ReadFile(marker)
	if err != nil || len(mark) == 0 {
		return false
	}
	link, err := os.ReadFile(filepath.Join(wt, ".git"))
	gitDir, ok := strings.CutPrefix(strings.TrimSpace(string(link)), "gitdir: ")
	if err != nil || !ok {
		return false
	}
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(wt, gitDir)
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	return err == nil && strings.TrimSpace(string(head)) == string(mark)
}

// resolveRef finds the work tree that holds path, path's place in it and
// the commit ref names, refusing what git would read as an option.
func resolveRef(ctx context.Context, git gitFunc, path, ref, flag string) (top, rel, sha string, err error) {
	if strings.HasPrefix(ref, "-") {
		// It would reach git as an option.
		return "", "", "", inputErrorf(flag, "%q is not a git revision", ref)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", "", inputErrorf(flag, "needs git on PATH; use --base-dir or --base-json without it")
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", "", "", &InputError{Msg: fmt.Sprintf("%s: no such file or directory", path)}
	}
	top, err = git(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", "", inputErrorf(flag, "%s is not inside a git repository (%v)", path, err)
	}
	if top, err = filepath.EvalSymlinks(top); err != nil {
		return "", "", "", err
	}
	rel, err = filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", "", fmt.Errorf("%s is outside its repository %s", path, top)
	}
	// Resolve first: the error names the revision, and the worktree is
	// then created from a hash that cannot be mistaken for anything else.
	sha, err = git(ctx, top, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return "", "", "", inputErrorf(flag, "%q is not a commit of %s", ref, top)
	}
	return top, rel, sha, nil
}

// RunGit runs one git command in dir without a shell and returns its
// trimmed stdout; the error carries git's stderr. Hooks are disabled: a
// checkout must not run the repository's post-checkout hook on a pull
// request's behalf.
func RunGit(ctx context.Context, dir string, args ...string) (string, error) {
	full := append([]string{"-C", dir, "-c", "core.hooksPath=" + os.DevNull}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	return strings.TrimSpace(stdout.String()), nil
}

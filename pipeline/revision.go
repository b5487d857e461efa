package pipeline

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Revision is a git revision of the repository that holds a path,
// resolved once however many parts of a command ask: a diff's base builds
// at it and its head checks first what changed since (ChangedSince), at
// the same time.
type Revision struct {
	git             gitFunc
	path, ref, flag string

	once          sync.Once
	top, rel, sha string
	err           error
}

// NewRevision is ref of the repository that holds path; flag names the
// option that gave ref, for errors; git nil runs the git binary (RunGit).
func NewRevision(git gitFunc, path, ref, flag string) *Revision {
	if git == nil {
		git = RunGit
	}
	return &Revision{git: git, path: path, ref: ref, flag: flag}
}

// resolve is resolveRef of the revision, run by the first caller.
func (r *Revision) resolve(ctx context.Context) (top, rel, sha string, err error) {
	r.once.Do(func() { r.top, r.rel, r.sha, r.err = resolveRef(ctx, r.git, r.path, r.ref, r.flag) })
	return r.top, r.rel, r.sha, r.err
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
	// One git asked for both: the repository's top and the commit. Resolve
	// first: the error names the revision, and the worktree is then
	// created from a hash that cannot be mistaken for anything else.
	out, err := git(ctx, abs, "rev-parse", "--show-toplevel", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) != 2 {
		// Ask again one at a time, for the error that says which failed.
		if top, err = git(ctx, abs, "rev-parse", "--show-toplevel"); err != nil {
			return "", "", "", inputErrorf(flag, "%s is not inside a git repository (%v)", path, err)
		}
		if sha, err = git(ctx, top, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}"); err != nil {
			return "", "", "", inputErrorf(flag, "%q is not a commit of %s", ref, top)
		}
	} else {
		top, sha = lines[0], lines[1]
	}
	if top, err = filepath.EvalSymlinks(top); err != nil {
		return "", "", "", err
	}
	rel, err = filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", "", fmt.Errorf("%s is outside its repository %s", path, top)
	}
	return top, rel, sha, nil
}

// ChangedSince starts git comparing rev's tree with HEAD's in the
// repository that holds its path, and returns what waits for the paths
// that differ (nil when git cannot say): for a pull request's diff, the
// changes whose sources the head checks first (render.Options.CheckFirst).
// It is a hint: what is not committed is not in it, and the cache checks
// every source whatever it says.
func ChangedSince(ctx context.Context, rev *Revision) func() []string {
	done := make(chan []string, 1)
	go func() {
		top, _, sha, err := rev.resolve(ctx)
		var out string
		if err == nil {
			out, err = rev.git(ctx, top, "diff", "--name-only", "-z", "--no-renames", sha, "HEAD")
		}
		if err != nil || out == "" {
			done <- nil
			return
		}
		done <- strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	}()
	var once sync.Once
	var paths []string
	return func() []string {
		once.Do(func() { paths = <-done })
		return paths
	}
}

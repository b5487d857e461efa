package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/render"
)

// BuildAtRef prices path as it was at a git revision: it checks the
// revision out into a detached worktree of the repository that holds path
// (a temporary one, removed after; with Settings.Cache the one the cache
// keeps) and builds the same relative path there, so the user's checkout
// and index are never touched. flag
// names the option that gave ref, for errors. The configuration is the
// revision's (nil when PATH did not exist there).
func BuildAtRef(ctx context.Context, path, ref, flag string, s Settings) (*contract.Report, *config.Config, error) {
	return BuildAtRevision(ctx, NewRevision(s.Git, path, ref, flag), s)
}

// BuildAtRevision is BuildAtRef of a Revision, which other parts of the
// command may resolve too (a diff's head asks what changed since it).
func BuildAtRevision(ctx context.Context, rev *Revision, s Settings) (*contract.Report, *config.Config, error) {
	git := s.Git
	if git == nil {
		git = RunGit
	}
	warn := s.Warnings
	if warn == nil {
		warn = io.Discard
	}
	path, ref, flag := rev.path, rev.ref, rev.flag
	top, rel, sha, err := rev.resolve(ctx)
	if err != nil {
		return nil, nil, err
	}
	if s.Cache {
		// Read the kept worktree's memo while git moves the worktree.
		defer render.PrereadMemo(s.renderCacheDir(), keptWorktreePath(top, s.cacheDir()))()
	}
	base, err := checkoutAt(ctx, git, top, sha, s, warn)
	if err != nil {
		return nil, nil, fmt.Errorf("check out --%s %s: %w", flag, ref, err)
	}
	defer base.done()
	wt := base.wt
	if base.kept {
		co := checkoutOf(ctx, git, wt, sha, base.diff)
		co.Fresh = !base.moved
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

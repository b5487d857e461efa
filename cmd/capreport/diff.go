package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/diff"
)

// diffOptions are the inputs of `capreport diff`.
type diffOptions struct {
	ios      *streams
	ctx      context.Context // the command's, set before runF
	git      gitRunner
	path     string
	render   renderFlags
	baseRef  string
	baseDir  string
	baseJSON string
	headJSON string
	format   string
}

var diffFormats = []string{"markdown", "json", "text"}

// newDiffCmd builds the command; runF, when set, receives the parsed
// options instead of running (flag-parsing tests).
func newDiffCmd(f *factory, runF func(*diffOptions) error) *cobra.Command {
	o := &diffOptions{ios: f.ios, git: f.git}
	cmd := &cobra.Command{
		Use:   "diff [PATH] (--base-ref REF | --base-dir DIR | --base-json FILE)",
		Short: "Compare the autoscalers' bills of a base and a head: the pull-request comment",
		Long: "diff prices PATH (the head; or loads --head-json) and a base, and lists the autoscalers\n" +
			"that changed: added, removed, or with a bill figure, verdict, live finding, replica bound or\n" +
			"metric target that moved, each before → after. The base is PATH at a git revision\n" +
			"(--base-ref, checked out in a temporary worktree), another directory (--base-dir) or a\n" +
			"saved JSON report (--base-json); exactly one is required.\n\n" +
			"Exit codes: 0 no autoscaler newly fails, 1 one does (fails in head, did not in base),\n" +
			"2 usage or tool error.",
		Example: "  capreport diff deploy --base-ref origin/main --format markdown > comment.md\n" +
			"  capreport diff --base-json main.json --head-json pr.json --format json",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx, o.path = cmd.Context(), argPath(args)
			if runF != nil {
				return runF(o)
			}
			return runDiff(o)
		},
	}
	o.render.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&o.baseRef, "base-ref", "", "git revision of the base: PATH as it was at REF (e.g. origin/main, HEAD~1)")
	fl.StringVar(&o.baseDir, "base-dir", "", "directory holding the base (rendered with the same flags as PATH)")
	fl.StringVar(&o.baseJSON, "base-json", "", "saved JSON report of the base (capreport --format json)")
	fl.StringVar(&o.headJSON, "head-json", "", "saved JSON report of the head, instead of rendering PATH")
	fl.StringVarP(&o.format, "format", "o", "markdown", "output format: markdown, json or text")
	return cmd
}

func runDiff(o *diffOptions) error {
	ctx, ios := o.ctx, o.ios
	if err := checkFormat(o.format, diffFormats...); err != nil {
		return err
	}
	n := 0
	for _, s := range []string{o.baseRef, o.baseDir, o.baseJSON} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return &usageError{msg: "exactly one of --base-ref, --base-dir or --base-json is required"}
	}

	// Only the JSON diff carries the workloads whole, rounds curve included.
	o.render.noPlotCurves = o.format != "json"
	var head *contract.Report
	var err error
	if o.headJSON != "" {
		head, err = readReport(o.headJSON)
	} else {
		head, _, err = buildReport(ctx, ios, o.path, &o.render)
	}
	if err != nil {
		return err
	}

	var base *contract.Report
	switch {
	case o.baseJSON != "":
		base, err = readReport(o.baseJSON)
	case o.baseDir != "":
		base, _, err = buildReport(ctx, ios, filepath.Clean(o.baseDir), &o.render)
	default:
		base, _, err = reportAtRef(ctx, ios, o.git, "base-ref", o.path, o.baseRef, &o.render)
	}
	if err != nil {
		return err
	}

	res := diff.Compare(*base, *head)
	var out []byte
	switch o.format {
	case "json":
		out, err = diff.JSON(res)
	case "text":
		out, err = diff.Text(res)
	default:
		out, err = diff.Markdown(res, diff.Options{})
	}
	if err != nil {
		return err
	}
	if _, err := ios.Out.Write(out); err != nil {
		return err
	}
	if res.Counts.NewFailures > 0 {
		return &checksFailedError{failed: res.Counts.NewFailures}
	}
	return nil
}

// reportAtRef prices path as it was at a git revision: it checks the
// revision out into a temporary detached worktree of the repository that
// holds path, renders the same relative path there, and removes the
// worktree, so the user's checkout and index are never touched.
// The configuration is the revision's (nil when PATH did not exist there).
func reportAtRef(ctx context.Context, ios *streams, git gitRunner, flag, path, ref string, f *renderFlags) (*contract.Report, *config.Config, error) {
	if strings.HasPrefix(ref, "-") {
		// It would reach git as an option.
		return nil, nil, flagErrorf(flag, "%q is not a git revision", ref)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, nil, flagErrorf(flag, "needs git on PATH; use --base-dir or --base-json without it")
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, nil, &usageError{msg: fmt.Sprintf("%s: no such file or directory", path)}
	}
	top, err := git(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, nil, flagErrorf(flag, "%s is not inside a git repository (%v)", path, err)
	}
	if top, err = filepath.EvalSymlinks(top); err != nil {
		return nil, nil, err
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, nil, fmt.Errorf("%s is outside its repository %s", path, top)
	}
	// Resolve first: the error names the revision, and the worktree is
	// then created from a hash that cannot be mistaken for anything else.
	sha, err := git(ctx, top, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return nil, nil, flagErrorf(flag, "%q is not a commit of %s", ref, top)
	}

	tmp, err := os.MkdirTemp("", "capreport-base-")
	if err != nil {
		return nil, nil, err
	}
	wt := filepath.Join(tmp, "worktree")
	defer func() {
		// Clean up even when the run was cancelled: a stale worktree would
		// stay registered in the user's repository.
		cctx := context.WithoutCancel(ctx)
		if _, err := git(cctx, top, "worktree", "remove", "--force", wt); err != nil {
			fmt.Fprintf(ios.ErrOut, "capreport: warning: removing the base worktree %s: %v\n", wt, err)
			_ = os.RemoveAll(tmp)
			_, _ = git(cctx, top, "worktree", "prune")
		}
		_ = os.RemoveAll(tmp)
	}()
	if _, err := git(ctx, top, "worktree", "add", "--detach", "--quiet", wt, sha); err != nil {
		return nil, nil, fmt.Errorf("check out --%s %s: %w", flag, ref, err)
	}

	at := filepath.Join(wt, rel)
	display := path + "@" + ref
	if _, err := os.Stat(at); errors.Is(err, os.ErrNotExist) {
		// The pull request adds PATH: every autoscaler under it is new.
		fmt.Fprintf(ios.ErrOut, "capreport: %s does not exist at %s; its report there is empty\n", path, ref)
		return &contract.Report{SchemaVersion: contract.SchemaVersion, Tool: contract.Tool{Name: "capreport", Version: version},
			Root: display, Workloads: []contract.Workload{},
			Sources: []contract.Source{}, Findings: []contract.Finding{}}, nil, nil
	}
	r, cfg, err := buildReport(ctx, ios, at, f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", display, err)
	}
	r.Root = display
	return r, cfg, nil
}

// git runs one git command in dir without a shell and returns its trimmed
// stdout; the error carries git's stderr. Hooks are disabled: a checkout
// must not run the repository's post-checkout hook on a pull request's
// behalf.
func git(ctx context.Context, dir string, args ...string) (string, error) {
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

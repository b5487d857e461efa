package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/render"
)

// Phases a run reports to Settings.Progress.
const (
	PhaseRender = "rendering sources"
	PhasePrice  = "pricing autoscalers"
)

// MinRenderMemory is the least memory a render worker starts in.
const MinRenderMemory = 64 << 20

// Settings are what a command says about a run: helm template's flags for
// the charts capreport discovers, the configuration file, the render and
// fetch limits, and who the report says made it. The zero value renders
// with the defaults, in-process.
type Settings struct {
	Values      []string // values files for discovered charts, merged in order
	Set         []string // k=v values, like helm --set
	ReleaseName string
	Namespace   string
	KubeVersion string // "" for the config's, else 1.34.0
	ConfigFile  string // "" for PATH's .capreport.yaml, else the root's; outside Root, the user's own (loadConfig)
	Root        string // "" for the top of the git work tree, else PATH
	RepoURLs    []string
	// Sources are --source NAME=PATH mappings of GitOps sources of other
	// repositories to local directories (PATH from the working directory).
	Sources     []string
	APIVersions []string
	// NoGitOps renders Flux and Argo CD objects as inert objects, every
	// source on its own, instead of following them (render.Options').
	NoGitOps bool
	// Strict: findings that rest on built-in defaults fail like any other.
	Strict bool
	// RenderTimeout and RenderMemory bound each source's render;
	// Isolate renders each source in a worker process (this executable,
	// started again), which RenderMemory needs.
	RenderTimeout time.Duration
	RenderMemory  int64
	Isolate       bool
	// Include and Exclude, when non-nil, replace the config's
	// checks.include and checks.exclude.
	Include, Exclude []string
	// Stdin is read for the PATH "-".
	Stdin io.Reader
	// Fetch, when non-nil and true, lets the run download what the
	// repository points at (--fetch); nothing else turns it on.
	Fetch        *bool
	CacheDir     string
	FetchTimeout time.Duration
	// Cache reuses a source's render from CacheDir's render cache when
	// every read it made gives the same answer (render.Options'
	// RenderCacheDir), and an autoscaler's bill from its bill cache when
	// it was priced before (rules.Options' CacheDir).
	Cache bool
	// NoPlotCurves leaves out the rounds and Φ curves, for outputs that
	// show neither.
	NoPlotCurves bool
	// Tool is who the report says made it.
	Tool contract.Tool
	// Progress, when set, is told how far each phase is: PhaseRender
	// (discovered sources rendered) and PhasePrice (autoscalers priced),
	// done of total; it is called from several goroutines at once.
	Progress func(phase string, done, total int)
	// Warnings receives what a run says without failing (a base worktree
	// left behind); nil discards it.
	Warnings io.Writer
	// Git runs one git command in a directory, for BuildAtRef; nil runs
	// the git binary (RunGit). It is called from several goroutines at
	// once.
	Git func(ctx context.Context, dir string, args ...string) (string, error)
	// CheckFirst, when set, says which paths are likely to have changed
	// since the render cache was filled (ChangedSince; render.Options).
	CheckFirst func() []string
	// checkout is the kept worktree BuildAtRef renders, if it does.
	checkout *keptCheckout
	// foundConfig says ConfigFile was found beside the run (standard
	// input's working directory's), not named by the user: it is read as
	// the repository's file, never through a symlink.
	foundConfig bool
}

// InputError is bad input from the command line: a flag's value, or a
// PATH. It reads "--flag: reason", or the reason alone when no flag is
// at fault.
type InputError struct {
	Flag string
	Msg  string
	Err  error // the cause, when there is one
}

func (e *InputError) Error() string {
	if e.Flag == "" {
		return e.Msg
	}
	return "--" + e.Flag + ": " + e.Msg
}

func (e *InputError) Unwrap() error { return e.Err }

// inputErrorf names the flag and the reason; a %w verb keeps the cause.
func inputErrorf(flag, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &InputError{Flag: flag, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// renderCacheDir is the render cache's directory (render.Options).
func (s *Settings) renderCacheDir() string { return filepath.Join(s.cacheDir(), "render") }

// cacheDir is where the caches live: CacheDir, else capreport's directory
// in the user cache directory (as the fetch cache).
func (s *Settings) cacheDir() string {
	if s.CacheDir != "" {
		return s.CacheDir
	}
	return render.DefaultCacheDir()
}

// keptCheckout is the kept worktree a BuildAtRef renders: its top and
// what git says of it to the render cache.
type keptCheckout struct {
	top string
	co  *render.Checkout
}

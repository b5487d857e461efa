package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"helm.sh/helm/v3/pkg/strvals"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
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

// validate refuses, before anything renders, what helm template refuses
// as a usage error (a values file that does not exist, a --set it cannot
// parse) and limits that would stop every render.
func (s *Settings) validate(path, root string) error {
	for _, v := range s.Values {
		if !valuesFileExists(v, path, root) {
			return inputErrorf("values", "%s: not found in the working directory, PATH, the root or any chart directory under PATH", v)
		}
	}
	for flag, ids := range map[string][]string{"include": s.Include, "exclude": s.Exclude} {
		for _, id := range ids {
			if _, ok := check.Lookup(id); !ok {
				return inputErrorf(flag, "%q is not a check ID (capreport checks lists them)", id)
			}
		}
	}
	for _, kv := range s.Set {
		if err := strvals.ParseInto(kv, map[string]any{}); err != nil {
			return inputErrorf("set", "%q: %v", kv, err)
		}
	}
	if _, err := parseSourceMaps(s.Sources, root); err != nil {
		return err
	}
	if err := s.validateHelmFlags(); err != nil {
		return err
	}
	if s.RenderTimeout < 0 {
		return inputErrorf("render-timeout", "%s is negative", s.RenderTimeout)
	}
	if s.FetchTimeout < 0 {
		return inputErrorf("fetch-timeout", "%s is negative", s.FetchTimeout)
	}
	if s.RenderMemory != 0 && s.RenderMemory < MinRenderMemory {
		return inputErrorf("render-memory", "%s is below the %s a render worker needs to start", quantity(s.RenderMemory), quantity(MinRenderMemory))
	}
	return nil
}

// quantity writes bytes as a Kubernetes quantity, as the flag takes them.
func quantity(b int64) string { return resource.NewQuantity(b, resource.BinarySI).String() }

// applyChecks puts Include and Exclude in place of the config's lists.
func (s *Settings) applyChecks(cfg *config.Config) {
	if s.Include != nil {
		cfg.Checks.Include = s.Include
	}
	if s.Exclude != nil {
		cfg.Checks.Exclude = s.Exclude
	}
}

// renderOptions are the settings' render options for a repository at
// root, on top of the config's.
func (s *Settings) renderOptions(root string, cfg *config.Config) render.Options {
	opts := render.DefaultOptions()
	opts.FS = filesys.MakeFsOnDisk() // the repository on disk, rendered in worker processes
	opts.Keep = analyze.MayNeed      // what extraction never reads is dropped as each source finishes
	opts.StubCRDs = true             // ... and it drops every CRD, so krusty reads them as stubs
	opts.LocatedOnly = true          // only what the report points at is traced to its file
	opts.NoGitOps = s.NoGitOps
	if s.Progress != nil {
		opts.Progress = func(done, total int) { s.Progress(PhaseRender, done, total) }
	}
	opts.Root = root
	opts.SourceTimeout = s.RenderTimeout
	opts.Isolation = s.isolation()
	opts.Helm = render.HelmValues{ValuesFiles: s.Values, Set: s.Set, ReleaseName: s.ReleaseName, Namespace: s.Namespace}
	opts.RepoURLs = append(gitRemoteURLs(root), s.RepoURLs...)
	opts.SourceMaps = append(opts.SourceMaps, s.sourceMaps(root)...)
	opts.APIVersions = append(opts.APIVersions, s.APIVersions...)
	opts = cfg.RenderOptions(opts)
	opts.Fetch = s.fetchOptions(opts.Fetch)
	if s.KubeVersion != "" {
		opts.KubeVersion = s.KubeVersion
	}
	if s.Cache {
		opts.RenderCacheDir = s.renderCacheDir()
		if s.checkout != nil && sameDir(root, s.checkout.top) {
			opts.Checkout = s.checkout.co
		}
		opts.CheckFirst = s.CheckFirst
	}
	return opts
}

// sameDir reports whether two paths name one directory, by their absolute
// forms.
func sameDir(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && a == b
}

// fetchOptions puts the settings over the render options: fetching is on
// only when Fetch says so (the config's fetch: is not read).
func (s *Settings) fetchOptions(fo render.FetchOptions) render.FetchOptions {
	if s.Fetch != nil {
		fo.Enabled = *s.Fetch
	}
	fo.CacheDir = s.CacheDir
	if s.FetchTimeout > 0 {
		fo.RunTimeout = s.FetchTimeout
	}
	return fo
}

func (s *Settings) isolation() render.Isolation {
	if !s.Isolate {
		return render.Isolation{}
	}
	return WorkerIsolation(s.RenderMemory)
}

// Prestart starts n render workers with these settings before any build
// begins (render.Prestart), so that a command that does more before its
// first build than a plain run (a diff asks git for the base first) has a
// worker ready sooner; release stops the ones left unused.
func (s Settings) Prestart(n int) (release func()) {
	return render.Prestart(s.isolation(), n)
}

// WorkerIsolation renders every source in a worker process of at most
// maxMemory bytes: this executable, started again (its main serves it),
// so a runaway render can be stopped.
func WorkerIsolation(maxMemory int64) render.Isolation {
	exe, err := os.Executable()
	if err != nil {
		return render.Isolation{} // in-process: only the timeout, which cannot stop the work
	}
	return render.Isolation{Command: []string{exe}, MaxMemory: maxMemory}
}

// valuesFileExists finds a command-line values file where render looks
// for it: as given (absolute, or relative to the working directory), else
// in PATH, the root, or a chart directory under PATH.
func valuesFileExists(v, path, root string) bool {
	if fileExists(v) || filepath.IsAbs(v) {
		return fileExists(v)
	}
	for _, dir := range []string{path, root} {
		if fileExists(filepath.Join(dir, v)) {
			return true
		}
	}
	found := false
	_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		switch {
		case found:
			return filepath.SkipAll
		case err != nil:
			return filepath.SkipDir
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case d.Name() == "Chart.yaml" && fileExists(filepath.Join(filepath.Dir(p), v)):
			found = true
		}
		return nil
	})
	return found
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
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

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"helm.sh/helm/v3/pkg/strvals"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// renderFlags are helm template's flags for the charts capreport discovers,
// plus the configuration file; every command that renders takes them.
type renderFlags struct {
	values      []string
	set         []string
	releaseName string
	namespace   string
	kubeVersion string
	configFile  string
	root        string
	repoURLs    []string
	apiVersions []string
	strict      bool
	// renderTimeout and renderMemory bound each source's render worker.
	renderTimeout time.Duration
	renderMemory  byteSize
	// include and exclude replace the config's checks.include/exclude.
	include, exclude []string
	// stdin is read for the PATH "-".
	stdin io.Reader
	// fetch downloads what the repository points at; fetchFlags tells
	// whether --fetch was given (it then wins over the config's fetch:).
	fetch        bool
	cacheDir     string
	fetchTimeout time.Duration
	fetchFlags   *pflag.FlagSet
	// noPlotCurves is set by a command whose output shows neither the
	// rounds curve nor the Φ curve (rules.Options.NoRoundsCurve and
	// NoPhiCurve); it is not a flag.
	noPlotCurves bool
}

func (f *renderFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.values, "values", "f", nil, "values file for discovered charts (repeatable, merged in order)")
	fl.StringArrayVar(&f.set, "set", nil, "k=v value for discovered charts (repeatable, like helm --set)")
	fl.StringVar(&f.releaseName, "release-name", "", "release name for discovered charts (default \"capreport\")")
	fl.StringVarP(&f.namespace, "namespace", "n", "", "namespace for discovered charts (default \"default\")")
	fl.StringVar(&f.kubeVersion, "kube-version", "", "Kubernetes version charts render for (default 1.34.0, or the config's cluster.kubeVersion)")
	fl.StringVar(&f.configFile, "config", "", "configuration file (default: PATH/.capreport.yaml, else ROOT/.capreport.yaml, when present)")
	fl.StringVar(&f.root, "root", "", "repository root: bounds what may be read, and paths are shown relative to it (default: the top of the git work tree holding PATH, else PATH)")
	fl.StringArrayVar(&f.repoURLs, "repo-url", nil, "a git URL that names this repository, for Flux GitRepositories and Argo CD sources (repeatable; the checkout's remotes are added)")
	fl.BoolVar(&f.strict, "strict", false, "findings that rest on built-in defaults fail like any other (like failOnDefaults: true); by default they are at most warnings")
	fl.StringArrayVarP(&f.apiVersions, "api-versions", "a", nil, "API version charts see in .Capabilities.APIVersions, on top of the defaults (repeatable, like helm template -a)")
	fl.StringSliceVar(&f.include, "include", nil, "run only these checks (IDs from capreport checks; repeatable or comma-separated; replaces the config's checks.include)")
	fl.StringSliceVar(&f.exclude, "exclude", nil, "never run these checks (repeatable or comma-separated; replaces the config's checks.exclude)")
	f.renderMemory = render.DefaultSourceMemory
	fl.DurationVar(&f.renderTimeout, "render-timeout", render.DefaultSourceTimeout, "time one source may take to render before it is stopped")
	fl.Var(&f.renderMemory, "render-memory", "memory one source's render may hold before it is stopped (e.g. 768Mi, 2Gi)")
	fl.BoolVar(&f.fetch, "fetch", false, "download chart dependencies, remote charts (Helm repositories, OCI registries) and remote kustomize bases, through the cache (default off: nothing is fetched; also .capreport.yaml fetch:)")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "content-addressed cache of fetched charts (default: capreport in the user cache directory)")
	fl.DurationVar(&f.fetchTimeout, "fetch-timeout", render.DefaultFetchRunTimeout, "time all of a run's fetches may take together")
	f.fetchFlags = fl
}

// fetchOptions maps the fetch flags onto the options the config made:
// --fetch, when given, wins over the config's fetch:.
func (f *renderFlags) fetchOptions(opts render.Options) render.FetchOptions {
	fo := opts.Fetch
	if f.fetchFlags != nil && f.fetchFlags.Changed("fetch") {
		fo.Enabled = f.fetch
	}
	fo.CacheDir = f.cacheDir
	if f.fetchTimeout > 0 {
		fo.RunTimeout = f.fetchTimeout
	}
	return fo
}

// check refuses, before anything renders, what helm template refuses as a
// usage error (a values file that does not exist, a --set it cannot
// parse) and limits that would stop every render.
func (f *renderFlags) check(path, root string) error {
	for _, v := range f.values {
		if !valuesFileExists(v, path, root) {
			return flagErrorf("values", "%s: not found in the working directory, PATH, the root or any chart directory under PATH", v)
		}
	}
	for flag, ids := range map[string][]string{"include": f.include, "exclude": f.exclude} {
		for _, id := range ids {
			if _, ok := check.Lookup(id); !ok {
				return flagErrorf(flag, "%q is not a check ID (capreport checks lists them)", id)
			}
		}
	}
	for _, kv := range f.set {
		if err := strvals.ParseInto(kv, map[string]any{}); err != nil {
			return flagErrorf("set", "%q: %v", kv, err)
		}
	}
	if f.renderTimeout < 0 {
		return flagErrorf("render-timeout", "%s is negative", f.renderTimeout)
	}
	if f.fetchTimeout < 0 {
		return flagErrorf("fetch-timeout", "%s is negative", f.fetchTimeout)
	}
	if f.renderMemory != 0 && f.renderMemory < minRenderMemory {
		return flagErrorf("render-memory", "%s is below the %s a render worker needs to start", f.renderMemory, byteSize(minRenderMemory))
	}
	return nil
}

// applyChecks puts --include and --exclude in place of the config's lists.
func (f *renderFlags) applyChecks(cfg *config.Config) {
	if f.include != nil {
		cfg.Checks.Include = f.include
	}
	if f.exclude != nil {
		cfg.Checks.Exclude = f.exclude
	}
}

// valuesFile finds a command-line values file where render looks for it:
// as given (absolute, or relative to the working directory), else in PATH,
// the root, or a chart directory under PATH.
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

// isolation renders every source in a worker process: capreport itself,
// started again (main serves it), so a runaway render can be stopped.
func (f *renderFlags) isolation() render.Isolation {
	exe, err := os.Executable()
	if err != nil {
		return render.Isolation{} // in-process: only the timeout, which cannot stop the work
	}
	return render.Isolation{Command: []string{exe}, MaxMemory: int64(f.renderMemory)}
}

// repo is one rendered and analyzed repository.
type repo struct {
	root     string
	cfg      *config.Config
	rendered *render.Result
	inv      *analyze.Inventory
}

// loadRepo runs the front half of the pipeline: configuration, render,
// extraction. Per-source problems are findings in the result; an error means
// the run cannot start (a missing path, a broken config file).
func loadRepo(ctx context.Context, path string, f *renderFlags) (*repo, error) {
	return loadRepos(ctx, []string{path}, f)
}

// renderRepo is loadRepo without the extraction.
func renderRepo(ctx context.Context, path string, f *renderFlags) (*repo, error) {
	if path == stdinPath {
		return loadStdin(ctx, f)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, &usageError{msg: fmt.Sprintf("%s: no such file or directory", path)}
	}
	root, err := repoRoot(path, f.root)
	if err != nil {
		return nil, err
	}
	if err := f.check(path, root); err != nil {
		return nil, err
	}
	cfg, cfgPath, err := loadConfig(path, root, f.configFile)
	if err != nil {
		return nil, err
	}
	f.applyChecks(cfg)
	opts := f.renderOptions(root)
	opts = cfg.RenderOptions(opts)
	opts.Fetch = f.fetchOptions(opts)
	rebaseSources(opts.Sources, cfgPath, root)
	if f.kubeVersion != "" {
		opts.KubeVersion = f.kubeVersion
	}
	rendered, err := render.Render(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	return &repo{root: root, cfg: cfg, rendered: rendered}, nil
}

// renderOptions are the flags' render options for a repository at root.
func (f *renderFlags) renderOptions(root string) render.Options {
	opts := render.DefaultOptions()
	opts.FS = filesys.MakeFsOnDisk() // the repository on disk, rendered in worker processes
	opts.Root = root
	opts.SourceTimeout = f.renderTimeout
	opts.Isolation = f.isolation()
	opts.Helm = render.HelmValues{ValuesFiles: f.values, Set: f.set, ReleaseName: f.releaseName, Namespace: f.namespace}
	opts.RepoURLs = append(gitRemoteURLs(root), f.repoURLs...)
	opts.APIVersions = append(opts.APIVersions, f.apiVersions...)
	return opts
}

// loadRepos loads several PATH arguments (directories, files, - for
// standard input) as one repository: their objects are extracted together,
// so an autoscaler in one file finds its workload in another. The first
// path's root and configuration stand for the whole.
func loadRepos(ctx context.Context, paths []string, f *renderFlags) (*repo, error) {
	var all *repo
	for _, p := range paths {
		rp, err := renderRepo(ctx, p, f)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = rp
			continue
		}
		all.rendered.Objects = append(all.rendered.Objects, rp.rendered.Objects...)
		all.rendered.Sources = append(all.rendered.Sources, rp.rendered.Sources...)
		all.rendered.Findings = append(all.rendered.Findings, rp.rendered.Findings...)
	}
	all.inv = analyze.Extract(all.rendered.Objects, all.cfg)
	return all, nil
}

// loadConfig reads --config, else PATH's .capreport.yaml, else the root's.
func loadConfig(path, root, flag string) (*config.Config, string, error) {
	cfgPath := flag
	if cfgPath == "" {
		if p, ok := config.Find(path); ok {
			cfgPath = p
		} else if p, ok := config.Find(root); ok {
			cfgPath = p
		}
	}
	if cfgPath == "" {
		return config.Default(), "", nil
	}
	cfg, err := config.Load(cfgPath)
	return cfg, cfgPath, err
}

// rebaseSources makes the config's source paths, written relative to the
// config file's directory, relative to the repository root.
func rebaseSources(specs []render.SourceSpec, cfgPath, root string) {
	if cfgPath == "" {
		return
	}
	dir, err := filepath.Abs(filepath.Dir(cfgPath))
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	rootAbs, err2 := filepath.Abs(root)
	if err2 == nil {
		rootAbs, err2 = filepath.EvalSymlinks(rootAbs)
	}
	if err != nil || err2 != nil {
		return
	}
	base, err := filepath.Rel(rootAbs, dir)
	if err != nil || base == "." || strings.HasPrefix(base, "..") {
		return
	}
	for i := range specs {
		specs[i].Path = filepath.ToSlash(filepath.Join(base, filepath.FromSlash(specs[i].Path)))
	}
}

// repoRoot is --root when given, else the top of the git work tree that
// holds path (the nearest directory with a .git), else path itself.
func repoRoot(path, flag string) (string, error) {
	if flag != "" {
		st, err := os.Stat(flag)
		if err != nil || !st.IsDir() {
			return "", flagErrorf("root", "%s is not a directory", flag)
		}
		return flag, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path, nil
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return path, nil
		}
	}
}

// argPath is the PATH argument, "." when absent.
func argPath(args []string) string {
	if len(args) == 0 {
		return "."
	}
	return cleanPath(args[0])
}

// argPaths are the PATH arguments, "." when there are none.
func argPaths(args []string) []string {
	if len(args) == 0 {
		return []string{"."}
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = cleanPath(a)
	}
	return out
}

// cleanPath cleans a path argument; "-" (standard input) stays as it is.
func cleanPath(p string) string {
	if p == stdinPath {
		return p
	}
	return filepath.Clean(p)
}

var errNoWorkload = errors.New("no such workload")

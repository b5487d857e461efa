package main

import (
	"errors"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/pipeline"
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
	sources     []string
	apiVersions []string
	strict      bool
	// gitops follows Flux and Argo CD objects into what they deliver
	// (--gitops, default on).
	gitops bool
	// renderTimeout and renderMemory bound each source's render worker.
	renderTimeout time.Duration
	renderMemory  byteSize
	// include and exclude replace the config's checks.include/exclude.
	include, exclude []string
	// stdin is read for the PATH "-".
	stdin io.Reader
	// fetch downloads what the repository points at; fetchFlags tells
	// whether --fetch was given (without it, a config's fetch: true is
	// ignored with a warning).
	fetch        bool
	cacheDir     string
	fetchTimeout time.Duration
	fetchFlags   *pflag.FlagSet
	// cache reuses unchanged sources' renders and autoscalers' bills (--cache).
	cache bool
	// quiet prints no progress (--quiet); progress is the run's reporter,
	// made by settings, which later phases (plots) report to as well.
	quiet    bool
	progress *progress
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
	fl.StringVar(&f.configFile, "config", "", "configuration file (default: PATH/.capreport.yaml, else ROOT/.capreport.yaml, when present); one inside ROOT must be a regular file, not a symlink, as the repository's own must; one outside ROOT is yours and may be a symlink, to a regular file")
	fl.StringVar(&f.root, "root", "", "repository root: bounds what may be read, and paths are shown relative to it (default: the top of the git work tree holding PATH, else PATH)")
	fl.StringArrayVar(&f.repoURLs, "repo-url", nil, "a git URL that names this repository, for Flux GitRepositories and Argo CD sources (repeatable; the checkout's remotes are added)")
	fl.StringArrayVar(&f.sources, "source", nil, "NAME=PATH: read a GitOps source of another repository from a local clone (repeatable, like flux-local's --sources): NAME is a Flux GitRepository, OCIRepository or Bucket as [Kind/][namespace/]name, or an Argo CD repoURL; PATH must be inside the repository root")
	fl.BoolVar(&f.gitops, "gitops", true, "follow Flux and Argo CD objects into what they deliver, as the controllers build it; --gitops=false renders every chart, overlay and file on its own, as helm template and kustomize build would")
	fl.BoolVar(&f.strict, "strict", false, "findings that rest on built-in defaults fail like any other (like failOnDefaults: true); by default they are at most warnings")
	fl.StringArrayVarP(&f.apiVersions, "api-versions", "a", nil, "API version charts see in .Capabilities.APIVersions, on top of the defaults (repeatable, like helm template -a)")
	fl.StringSliceVar(&f.include, "include", nil, "run only these checks (IDs from capreport checks; repeatable or comma-separated; replaces the config's checks.include)")
	fl.StringSliceVar(&f.exclude, "exclude", nil, "never run these checks (repeatable or comma-separated; replaces the config's checks.exclude)")
	f.renderMemory = render.DefaultSourceMemory
	fl.DurationVar(&f.renderTimeout, "render-timeout", render.DefaultSourceTimeout, "time one source may take to render before it is stopped")
	fl.Var(&f.renderMemory, "render-memory", "memory one source's render may hold before it is stopped (e.g. 768Mi, 2Gi)")
	fl.BoolVar(&f.fetch, "fetch", false, "download chart dependencies, remote charts (Helm repositories, OCI registries) and remote kustomize bases, through the cache (default off: nothing is fetched; .capreport.yaml cannot turn it on)")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "content-addressed cache of fetched charts (default: capreport in the user cache directory)")
	fl.DurationVar(&f.fetchTimeout, "fetch-timeout", render.DefaultFetchRunTimeout, "time all of a run's fetches may take together")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print no progress on standard error (by default a long run says how far each phase is: a bar on a terminal, a line every few seconds elsewhere)")
	fl.BoolVar(&f.cache, "cache", false, "reuse renders and bills from --cache-dir: a source whose files are unchanged is not rendered again, an autoscaler priced before is not simulated again, so a diff or a second run costs what changed (renders are not cached with --fetch)")
	f.fetchFlags = fl
}

// settings are the flags as the pipeline takes them; tool is who the
// report says made it, ios where progress and warnings go.
func (f *renderFlags) settings(ios *streams, tool contract.Tool, git gitRunner) pipeline.Settings {
	s := pipeline.Settings{
		Values: f.values, Set: f.set, ReleaseName: f.releaseName, Namespace: f.namespace,
		KubeVersion: f.kubeVersion, ConfigFile: f.configFile, Root: f.root,
		RepoURLs: f.repoURLs, Sources: f.sources, APIVersions: f.apiVersions, Strict: f.strict,
		NoGitOps: !f.gitops, RenderTimeout: f.renderTimeout, RenderMemory: int64(f.renderMemory), Isolate: true,
		Include: f.include, Exclude: f.exclude, Stdin: f.stdin,
		CacheDir: f.cacheDir, FetchTimeout: f.fetchTimeout, Cache: f.cache,
		NoPlotCurves: f.noPlotCurves, Tool: tool, Git: git,
	}
	if f.fetchFlags != nil && f.fetchFlags.Changed("fetch") {
		s.Fetch = &f.fetch
	}
	if ios != nil {
		s.Warnings = ios.ErrOut
		f.progress = newProgress(ios, f.quiet, time.Now)
		s.Progress = f.progress.fn()
	}
	return s
}

// loadSettings are the settings of a command that renders without
// pricing (list, init, calibrate): no progress, warnings to errOut.
func (f *renderFlags) loadSettings(errOut io.Writer) pipeline.Settings {
	s := f.settings(nil, contract.Tool{}, nil)
	s.Warnings = errOut
	return s
}

// toolOf is the tool a report names: capreport at the build's version.
func toolOf(version string) contract.Tool { return contract.Tool{Name: "capreport", Version: version} }

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
	if p == pipeline.StdinPath {
		return p
	}
	return filepath.Clean(p)
}

var errNoWorkload = errors.New("no such workload")

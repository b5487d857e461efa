package cmdutil

import (
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/render"
)

// RenderFlags are helm template's flags for the charts capreport discovers,
// plus the configuration file; every command that renders takes them.
type RenderFlags struct {
	Values      []string
	Set         []string
	ReleaseName string
	Namespace   string
	KubeVersion string
	ConfigFile  string
	Root        string
	RepoURLs    []string
	Sources     []string
	APIVersions []string
	Strict      bool
	// GitOps follows Flux and Argo CD objects into what they deliver
	// (--gitops, default on).
	GitOps bool
	// RenderTimeout and RenderMemory bound each source's render worker.
	RenderTimeout time.Duration
	RenderMemory  byteSize
	// Include and Exclude replace the config's checks.include/exclude.
	Include, Exclude []string
	// Stdin is read for the PATH "-".
	Stdin io.Reader
	// Fetch downloads what the repository points at; FetchFlags tells
	// whether --fetch was given (without it, a config's fetch: true is
	// ignored with a warning).
	Fetch        bool
	CacheDir     string
	FetchTimeout time.Duration
	FetchFlags   *pflag.FlagSet
	// Cache reuses unchanged sources' renders and autoscalers' bills (--cache).
	Cache bool
	// Quiet prints no progress (--quiet); Progress is the run's reporter,
	// made by Settings, which later phases (plots) report to as well.
	Quiet    bool
	Progress *Progress
	// NoPlotCurves is set by a command whose output shows neither the
	// rounds curve nor the Φ curve (rules.Options.NoRoundsCurve and
	// NoPhiCurve); it is not a flag.
	NoPlotCurves bool
}

// Register adds the render flags to cmd.
func (f *RenderFlags) Register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.Values, "values", "f", nil, "values file for discovered charts (repeatable, merged in order)")
	fl.StringArrayVar(&f.Set, "set", nil, "k=v value for discovered charts (repeatable, like helm --set)")
	fl.StringVar(&f.ReleaseName, "release-name", "", "release name for discovered charts (default \"capreport\")")
	fl.StringVarP(&f.Namespace, "namespace", "n", "", "namespace for discovered charts (default \"default\")")
	fl.StringVar(&f.KubeVersion, "kube-version", "", "Kubernetes version charts render for (default 1.34.0, or the config's cluster.kubeVersion)")
	fl.StringVar(&f.ConfigFile, "config", "", "configuration file (default: PATH/.capreport.yaml, else ROOT/.capreport.yaml, when present); one inside ROOT must be a regular file, not a symlink, as the repository's own must; one outside ROOT is yours and may be a symlink, to a regular file")
	fl.StringVar(&f.Root, "root", "", "repository root: bounds what may be read, and paths are shown relative to it (default: the top of the git work tree holding PATH, else PATH)")
	fl.StringArrayVar(&f.RepoURLs, "repo-url", nil, "a git URL that names this repository, for Flux GitRepositories and Argo CD sources (repeatable; the checkout's remotes are added)")
	fl.StringArrayVar(&f.Sources, "source", nil, "NAME=PATH: read a GitOps source of another repository from a local clone (repeatable, like flux-local's --sources): NAME is a Flux GitRepository, OCIRepository or Bucket as [Kind/][namespace/]name, or an Argo CD repoURL; PATH must be inside the repository root")
	fl.BoolVar(&f.GitOps, "gitops", true, "follow Flux and Argo CD objects into what they deliver, as the controllers build it; --gitops=false renders every chart, overlay and file on its own, as helm template and kustomize build would")
	fl.BoolVar(&f.Strict, "strict", false, "findings that rest on built-in defaults fail like any other (like failOnDefaults: true); by default they are at most warnings")
	fl.StringArrayVarP(&f.APIVersions, "api-versions", "a", nil, "API version charts see in .Capabilities.APIVersions, on top of the defaults (repeatable, like helm template -a)")
	fl.StringSliceVar(&f.Include, "include", nil, "run only these checks (IDs from capreport checks; repeatable or comma-separated; replaces the config's checks.include)")
	fl.StringSliceVar(&f.Exclude, "exclude", nil, "never run these checks (repeatable or comma-separated; replaces the config's checks.exclude)")
	f.RenderMemory = render.DefaultSourceMemory
	fl.DurationVar(&f.RenderTimeout, "render-timeout", render.DefaultSourceTimeout, "time one source may take to render before it is stopped")
	fl.Var(&f.RenderMemory, "render-memory", "memory one source's render may hold before it is stopped (e.g. 768Mi, 2Gi)")
	fl.BoolVar(&f.Fetch, "fetch", false, "download chart dependencies, remote charts (Helm repositories, OCI registries) and remote kustomize bases, through the cache (default off: nothing is fetched; .capreport.yaml cannot turn it on)")
	fl.StringVar(&f.CacheDir, "cache-dir", "", "content-addressed cache of fetched charts (default: capreport in the user cache directory)")
	fl.DurationVar(&f.FetchTimeout, "fetch-timeout", render.DefaultFetchRunTimeout, "time all of a run's fetches may take together")
	fl.BoolVarP(&f.Quiet, "quiet", "q", false, "print no progress on standard error (by default a long run says how far each phase is: a bar on a terminal, a line every few seconds elsewhere)")
	fl.BoolVar(&f.Cache, "cache", false, "reuse renders and bills from --cache-dir: a source whose files are unchanged is not rendered again, an autoscaler priced before is not simulated again, so a diff or a second run costs what changed (renders are not cached with --fetch)")
	f.FetchFlags = fl
}

// Settings are the flags as the pipeline takes them; tool is who the
// report says made it, ios where progress and warnings go.
func (f *RenderFlags) Settings(ios *IOStreams, tool contract.Tool, git GitRunner) pipeline.Settings {
	s := pipeline.Settings{
		Values: f.Values, Set: f.Set, ReleaseName: f.ReleaseName, Namespace: f.Namespace,
		KubeVersion: f.KubeVersion, ConfigFile: f.ConfigFile, Root: f.Root,
		RepoURLs: f.RepoURLs, Sources: f.Sources, APIVersions: f.APIVersions, Strict: f.Strict,
		NoGitOps: !f.GitOps, RenderTimeout: f.RenderTimeout, RenderMemory: int64(f.RenderMemory), Isolate: true,
		Include: f.Include, Exclude: f.Exclude, Stdin: f.Stdin,
		CacheDir: f.CacheDir, FetchTimeout: f.FetchTimeout, Cache: f.Cache,
		NoPlotCurves: f.NoPlotCurves, Tool: tool, Git: git,
	}
	if f.FetchFlags != nil && f.FetchFlags.Changed("fetch") {
		s.Fetch = &f.Fetch
	}
	if ios != nil {
		s.Warnings = ios.ErrOut
		f.Progress = NewProgress(ios, f.Quiet, time.Now)
		s.Progress = f.Progress.Fn()
	}
	return s
}

// LoadSettings are the settings of a command that renders without
// pricing (list, init, calibrate): no progress, warnings to errOut.
func (f *RenderFlags) LoadSettings(errOut io.Writer) pipeline.Settings {
	s := f.Settings(nil, contract.Tool{}, nil)
	s.Warnings = errOut
	return s
}

// ToolOf is the tool a report names: capreport at the build's version.
func ToolOf(version string) contract.Tool { return contract.Tool{Name: "capreport", Version: version} }

// ArgPath is the PATH argument, "." when absent.
func ArgPath(args []string) string {
	if len(args) == 0 {
		return "."
	}
	return cleanPath(args[0])
}

// ArgPaths are the PATH arguments, "." when there are none.
func ArgPaths(args []string) []string {
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

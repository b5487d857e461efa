package pipeline

import (
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

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

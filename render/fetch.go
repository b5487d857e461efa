package render

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/fetch"
)

// FetchOptions let a run download what the repository points at: Helm
// chart dependencies, the remote charts of Flux and Argo CD objects and
// kustomize helmCharts, and remote kustomize bases. Off by default: an
// untrusted repository then makes the runner fetch nothing. Plain data,
// since Options cross to the render workers with gob.
type FetchOptions struct {
	// Enabled turns fetching on (--fetch).
	Enabled bool
	// CacheDir is the content-addressed cache ("": DefaultCacheDir).
	CacheDir string
	// RequestTimeout bounds one HTTP request; RunTimeout every fetch of
	// the run together.
	RequestTimeout, RunTimeout time.Duration
	// Deadline is when RunTimeout ends; Render sets it.
	Deadline time.Time
	// MaxArchiveBytes bounds one download, MaxTotalBytes all of a run's.
	MaxArchiveBytes, MaxTotalBytes int64
	// MaxUnpackedBytes and MaxFiles bound one archive's contents.
	MaxUnpackedBytes int64
	MaxFiles         int
	// MaxDependencies bounds the dependencies fetched for one chart.
	MaxDependencies int
}

// Defaults of fetching.
const (
	DefaultFetchRequestTimeout = 30 * time.Second
	DefaultFetchRunTimeout     = 5 * time.Minute
	DefaultMaxArchiveBytes     = 20 << 20
	DefaultMaxFetchTotalBytes  = 512 << 20
	DefaultMaxUnpackedBytes    = 64 << 20
	DefaultMaxArchiveFiles     = 5000
	DefaultMaxDependencies     = 100
	// maxIndexBytes bounds a repository index.yaml (bitnami's is tens of MiB).
	maxIndexBytes = 128 << 20
)

// DefaultCacheDir is capreport's directory in the user cache directory.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "capreport-cache")
	}
	return filepath.Join(d, "capreport")
}

func (f FetchOptions) withDefaults() FetchOptions {
	if f.CacheDir == "" {
		f.CacheDir = DefaultCacheDir()
	}
	if f.RequestTimeout <= 0 {
		f.RequestTimeout = DefaultFetchRequestTimeout
	}
	if f.RunTimeout <= 0 {
		f.RunTimeout = DefaultFetchRunTimeout
	}
	if f.MaxArchiveBytes <= 0 {
		f.MaxArchiveBytes = DefaultMaxArchiveBytes
	}
	if f.MaxTotalBytes <= 0 {
		f.MaxTotalBytes = DefaultMaxFetchTotalBytes
	}
	if f.MaxUnpackedBytes <= 0 {
		f.MaxUnpackedBytes = DefaultMaxUnpackedBytes
	}
	if f.MaxFiles <= 0 {
		f.MaxFiles = DefaultMaxArchiveFiles
	}
	if f.MaxDependencies <= 0 {
		f.MaxDependencies = DefaultMaxDependencies
	}
	return f
}

// fetchState is one process's fetcher and what the run may still
// download; a worker's budget is refreshed by every request.
type fetchState struct {
	mu      sync.Mutex
	fetcher *fetch.Fetcher
	budget  atomic.Int64
	started bool
}

func (rd *renderer) fetchOn() bool { return rd.opts.Fetch.Enabled }

func (rd *renderer) limits() fetch.Limits {
	o := rd.opts.Fetch
	return fetch.Limits{RequestTimeout: o.RequestTimeout, Deadline: o.Deadline,
		MaxArchiveBytes: o.MaxArchiveBytes, MaxIndexBytes: maxIndexBytes, Budget: &rd.fx.budget,
		MaxUnpackedBytes: o.MaxUnpackedBytes, MaxFiles: o.MaxFiles}
}

// fetcher returns the process's fetcher, made on first use.
func (rd *renderer) fetcher() *fetch.Fetcher {
	rd.noteFetch()
	rd.fx.mu.Lock()
	defer rd.fx.mu.Unlock()
	if rd.fx.fetcher == nil {
		if !rd.fx.started {
			rd.fx.budget.Store(rd.opts.Fetch.MaxTotalBytes)
			rd.fx.started = true
		}
		rd.fx.fetcher = fetch.New(rd.limits(), fetch.OpenCache(rd.opts.Fetch.CacheDir))
	}
	return rd.fx.fetcher
}

// noteFetch marks a recorded render as one that fetches.
func (rd *renderer) noteFetch() {
	if rd.fetched != nil {
		rd.fetched.Store(true)
	}
}

// setFetchBudget is what a worker may download for the next request.
func (rd *renderer) setFetchBudget(b int64) {
	rd.fx.mu.Lock()
	rd.fx.started = true
	rd.fx.mu.Unlock()
	rd.fx.budget.Store(b)
}

// remoteChart is a chart in a chart repository or OCI registry
// (helm.Remote).
type remoteChart = helm.Remote

// charts is the chart renderer of rd's view of the repository.
func (rd *renderer) charts() *helm.Renderer {
	h := &helm.Renderer{Repo: rd.repo, Scope: rd.scope, KubeVersion: rd.opts.KubeVersion, APIVersions: rd.opts.APIVersions,
		MaxObjects: rd.opts.MaxObjects, MaxDependencies: rd.maxDependencies(), Tidy: rd.tidy}
	if rd.fetchOn() {
		h.Fetch = chartFetcher{rd}
	}
	return h
}

func (rd *renderer) maxDependencies() int {
	if rd.opts.Fetch.MaxDependencies > 0 {
		return rd.opts.Fetch.MaxDependencies
	}
	return DefaultMaxDependencies
}

// chartFetcher downloads charts through the process's fetcher, within the
// run's budget; a render that uses it is not cached.
type chartFetcher struct{ rd *renderer }

func (f chartFetcher) Fetch(ref fetch.Ref) (*chart.Chart, error) {
	got, err := f.rd.fetcher().Fetch(ref)
	if err != nil {
		return nil, err
	}
	return fetch.LoadChart(ref.String(), got.Data, f.rd.limits())
}

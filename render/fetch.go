package render

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/capreport/capreport/check"
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

// remoteChart is a chart in a chart repository or OCI registry that a
// GitOps object or a helmCharts entry names (exported fields: it crosses
// to the workers with gob).
type remoteChart struct {
	RepoURL, Name, Version, Tag, Digest string
	// ValuesFiles are files inside the chart merged over its values.yaml
	// (Flux valuesFiles, Argo CD valueFiles of a repository chart).
	ValuesFiles []string
}

func (c remoteChart) ref() fetch.Ref {
	return fetch.Ref{RepoURL: c.RepoURL, Name: c.Name, Version: c.Version, Tag: c.Tag, Digest: c.Digest}
}

// label names a remote chart in source paths and origins.
func (c remoteChart) label() string {
	return c.ref().String()
}

// loadRemote fetches and loads a remote chart.
func (rd *renderer) loadRemote(c remoteChart) (*chart.Chart, error) {
	if !rd.fetchOn() {
		return nil, fmt.Errorf("%s is remote and fetching is off (--fetch)", c.label())
	}
	got, err := rd.fetcher().Fetch(c.ref())
	if err != nil {
		return nil, err
	}
	return fetch.LoadChart(c.label(), got.Data, rd.limits())
}

// fetchCheck is the check ID of a fetch error ("" for other errors).
func fetchCheck(err error) string {
	k, ok := fetch.KindOf(err)
	if !ok {
		return ""
	}
	return map[fetch.Kind]string{fetch.Failed: check.FetchFailed, fetch.Limit: check.FetchLimit,
		fetch.Unsafe: check.FetchUnsafe, fetch.Digest: check.FetchDigest}[k]
}

// fetchSeverity: a refusal, a breached limit and a digest mismatch are
// errors (something is wrong with what the repository points at); a
// download that failed is a warning, like a dependency not vendored.
func fetchSeverity(id string) string {
	if id == check.FetchFailed {
		return check.SeverityWarning
	}
	return check.SeverityError
}

// templateDirs maps template keys to files: a remote chart has no
// directory in the repository.
func (rd *renderer) templateDirs(req helmRequest) *helm.Tree {
	if req.remote != nil {
		return &helm.Tree{} // no templates of its own to name
	}
	return helm.Dirs(rd.repo, req.chartDir)
}

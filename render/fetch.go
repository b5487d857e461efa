package render

import (
	"helm.sh/helm/v3/pkg/chart"

	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/fetch"
)

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

package render

import (
	"context"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/gitops"
	"github.com/capreport/capreport/render/internal/kustscan"
)

// followGitOps expands the Flux and Argo CD objects of the standalone
// renders outs (render/gitops) and returns the renders to report; the
// engine's findings and withheld autoscalers go to res.
func (rd *renderer) followGitOps(ctx context.Context, outs []sourceOut, res *Result) []sourceOut {
	f := gitops.Follow(ctx, gitopsSources{rd}, gitops.Config{Repo: rd.repo, RepoURLs: rd.opts.RepoURLs, SourceMaps: rd.opts.SourceMaps,
		Parallelism: rd.opts.Parallelism, Fetch: rd.fetchOn()}, outs)
	res.Findings = append(res.Findings, f.Findings...)
	res.Withheld = append(res.Withheld, f.Withheld...)
	return f.Outs
}

// gitopsSources is what the GitOps engine renders its deliveries with:
// the run's renderer.
type gitopsSources struct{ rd *renderer }

func (s gitopsSources) Render(ctx context.Context, spec SourceSpec) sourceOut {
	return s.rd.renderWithLimits(ctx, spec)
}

func (s gitopsSources) Failed(spec SourceSpec, id string, err error) sourceOut {
	return s.rd.failedOut(spec, id, err)
}

func (s gitopsSources) ScanKustomize(spec SourceSpec, dir string) (*kustscan.Scan, []check.Finding, error) {
	return s.rd.scanKustomizeSource(spec, dir)
}

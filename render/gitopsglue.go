package render

import (
	"context"
	"slices"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/gitops"
	"github.com/capreport/capreport/render/internal/kustscan"
)

// followGitOps expands the Flux and Argo CD objects of the standalone
// renders outs (render/gitops) and returns the renders to report, and why
// the sources left to their delivery were rendered after all (deferral.go;
// "": they were not); the engine's findings and withheld autoscalers go
// to res.
func (rd *renderer) followGitOps(ctx context.Context, outs []sourceOut, res *Result) (_ []sourceOut, redo string) {
	cfg := gitops.Config{Repo: rd.repo, RepoURLs: rd.opts.RepoURLs, SourceMaps: rd.opts.SourceMaps,
		Parallelism: rd.opts.Parallelism, Fetch: rd.fetchOn(), Builds: gitops.NewBuilds(rd.opts.Parallelism)}
	var standalone []sourceOut
	if slices.ContainsFunc(outs, func(o sourceOut) bool { return o.Deferred }) {
		standalone = standaloneCopies(outs)
	}
	f := gitops.Follow(ctx, gitopsSources{rd}, cfg, outs)
	if redo = f.Redo; f.Redo != "" {
		f = gitops.Follow(ctx, gitopsSources{rd}, cfg, rd.renderDeferred(ctx, standalone))
	}
	res.Findings = append(res.Findings, f.Findings...)
	res.Withheld = append(res.Withheld, f.Withheld...)
	return f.Outs, redo
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

package pipeline

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/rules"
)

// Build renders, extracts and prices paths as one repository (see Load)
// and returns the report with the configuration it was priced under.
func Build(ctx context.Context, paths []string, s Settings) (*contract.Report, *config.Config, error) {
	rp, err := Load(ctx, paths, s)
	if err != nil {
		return nil, nil, err
	}
	path := reportPath(paths)
	opts := rules.Options{Tool: s.Tool, FailOnDefaults: s.Strict, NoRoundsCurve: s.NoPlotCurves, NoPhiCurve: s.NoPlotCurves}
	if s.Progress != nil {
		opts.Progress = func(done, total int) { s.Progress(PhasePrice, done, total) }
	}
	if s.Cache {
		opts.CacheDir = filepath.Join(s.cacheDir(), "bills")
	}
	r, err := rules.Build(ctx, path, rp.Rendered, rp.Inventory, rp.Config, opts)
	if err != nil {
		return nil, nil, err
	}
	if filepath.Clean(rp.Root) != filepath.Clean(path) && path != StdinPath {
		r.RepoRoot = filepath.ToSlash(rp.Root)
	}
	return r, rp.Config, nil
}

// reportPath is what a report says it priced: the one PATH, or the
// directory that holds them all.
func reportPath(paths []string) string {
	if len(paths) == 1 {
		return paths[0]
	}
	common := filepath.Dir(paths[0])
	for _, p := range paths[1:] {
		for common != "." && common != string(filepath.Separator) && !strings.HasPrefix(p, common+string(filepath.Separator)) {
			common = filepath.Dir(common)
		}
	}
	return common
}

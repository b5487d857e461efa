package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/plot"
	"golang.org/x/sync/errgroup"
)

// workloadPlots are the figures of one workload: the SVG documents the HTML
// page inlines and the relative paths report.md links.
type workloadPlots struct {
	svgs  [][]byte
	paths []string
}

// drawPlots draws every workload's figures in each format, the workloads
// spread over the cores: plots are most of the cost of --out (a PNG is
// rasterized and deflated), and each workload's figures depend on nothing
// else. With dir set, every figure is written to dir/plots as it is drawn,
// so PNGs never pile up in memory. The result is in workload order, and
// the first error in that order wins, whatever finished first. p (nil:
// none) is told as each workload's plots are done.
func drawPlots(r contract.Report, formats []string, dir string, p *progress) ([]workloadPlots, error) {
	out := make([]workloadPlots, len(r.Workloads))
	errs := make([]error, len(r.Workloads))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	var drawn atomic.Int64
	for i := range r.Workloads {
		g.Go(func() error {
			out[i], errs[i] = drawWorkload(r.Workloads[i], formats, dir)
			p.update(phasePlots, int(drawn.Add(1)), len(r.Workloads))
			return nil // every workload is drawn; the first error in order is returned below
		})
	}
	_ = g.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// drawWorkload draws one workload's figures in each format (writing them
// under dir/plots when dir is set) and keeps the SVGs.
func drawWorkload(w contract.Workload, formats []string, dir string) (workloadPlots, error) {
	var p workloadPlots
	for _, format := range formats {
		figs, err := plot.ForWorkload(w, format)
		if err != nil {
			return p, fmt.Errorf("plot %s: %w", w.ID, err)
		}
		for _, fg := range figs {
			if dir != "" {
				if err := os.WriteFile(filepath.Join(dir, "plots", fg.Name), fg.Data, 0o644); err != nil {
					return p, err
				}
			}
			if format == plot.FormatSVG {
				p.svgs = append(p.svgs, fg.Data)
				p.paths = append(p.paths, "plots/"+fg.Name)
			}
		}
	}
	return p, nil
}

package cmdutil

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/plot"
)

// workloadPlots are the figures of one workload: the SVG documents the HTML
// page inlines, the relative paths report.md links, and every figure
// drawn, to write once the workload is known to be shown.
type workloadPlots struct {
	svgs  [][]byte
	paths []string
	figs  []plot.Figure
}

func (p workloadPlots) svgBytes() int {
	n := 0
	for _, s := range p.svgs {
		n += len(s)
	}
	return n
}

// drawPlots draws the figures of the workloads the reports show: the
// worst first, whole workloads, while their SVGs stay within
// report.PagePlotBudget (what the HTML page inlines; report.md links the
// same files). A repository of 1,000 autoscalers is not 4,000 plot files
// nobody opens: the rest is in report.json. Workloads are drawn a batch
// at a time, one per core (a PNG is rasterized and deflated, most of the
// cost of --out), and kept in worst-first order, so the set does not
// depend on which finished first; the first error in that order wins.
// With dir set, the kept figures are written to dir/plots. p (nil: none)
// is told as workloads are done.
func drawPlots(r contract.Report, formats []string, dir string, p *Progress) (map[string]workloadPlots, error) {
	ws := report.WorstFirst(r.Workloads)
	out := map[string]workloadPlots{}
	used, batch := 0, runtime.GOMAXPROCS(0)
	for from := 0; from < len(ws); from += batch {
		drawn, err := drawBatch(ws[from:min(from+batch, len(ws))], formats)
		if err != nil {
			return nil, err
		}
		for i, d := range drawn {
			if used+d.svgBytes() > report.PagePlotBudget {
				p.Update(phasePlots, len(ws), len(ws))
				return out, nil
			}
			used += d.svgBytes()
			if err := writeFigures(dir, d.figs); err != nil {
				return nil, err
			}
			d.figs = nil
			out[ws[from+i].ID] = d
		}
		p.Update(phasePlots, min(from+batch, len(ws)), len(ws))
	}
	return out, nil
}

// drawBatch draws the workloads ws in parallel, the result in their order.
func drawBatch(ws []contract.Workload, formats []string) ([]workloadPlots, error) {
	out := make([]workloadPlots, len(ws))
	errs := make([]error, len(ws))
	var g errgroup.Group
	for i := range ws {
		g.Go(func() error {
			out[i], errs[i] = drawWorkload(ws[i], formats)
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

// drawWorkload draws one workload's figures in each format and keeps the
// SVGs.
func drawWorkload(w contract.Workload, formats []string) (workloadPlots, error) {
	var p workloadPlots
	for _, format := range formats {
		figs, err := plot.ForWorkload(w, format)
		if err != nil {
			return p, fmt.Errorf("plot %s: %w", w.ID, err)
		}
		p.figs = append(p.figs, figs...)
		for _, fg := range figs {
			if format == plot.FormatSVG {
				p.svgs = append(p.svgs, fg.Data)
				p.paths = append(p.paths, "plots/"+fg.Name)
			}
		}
	}
	return p, nil
}

// writeFigures writes figures under dir/plots ("" writes nothing).
func writeFigures(dir string, figs []plot.Figure) error {
	if dir == "" {
		return nil
	}
	for _, fg := range figs {
		if err := os.WriteFile(filepath.Join(dir, "plots", fg.Name), fg.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

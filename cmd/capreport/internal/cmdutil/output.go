package cmdutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/plot"
)

// FormatOptions are the command-line choices every format reads.
type FormatOptions struct {
	Color  bool // ANSI colour in text
	Pretty bool // indented JSON
}

// RenderFormat renders the report in one format.
func RenderFormat(r contract.Report, format string, fo FormatOptions) ([]byte, error) {
	o := report.DefaultOptions()
	o.Color, o.Pretty = fo.Color, fo.Pretty
	switch format {
	case "json":
		return report.JSON(r, o)
	case "markdown":
		return report.Markdown(r, o)
	case "html":
		svgs, err := SVGPlots(r)
		if err != nil {
			return nil, err
		}
		o.SVGPlots = svgs
		return report.HTML(r, o)
	case "sarif":
		// Code scanning resolves paths against the repository, not the
		// scanned directory.
		return report.SARIF(r, report.SARIFOptions{BaseDir: RepoBaseDir(contract.PathBase(r))})
	}
	return report.Text(r, o)
}

// SVGPlots draws the figures the HTML page shows (drawPlots).
func SVGPlots(r contract.Report) (map[string][][]byte, error) {
	plots, err := drawPlots(r, []string{plot.FormatSVG}, "", nil)
	if err != nil {
		return nil, err
	}
	out := map[string][][]byte{}
	for id, p := range plots {
		if len(p.svgs) > 0 {
			out[id] = p.svgs
		}
	}
	return out, nil
}

// WriteOutDir writes every format and the plot files of the workloads the
// reports show (drawPlots; telling p, nil for none, how far it is);
// report.md links the plots relatively and report.html inlines the same
// SVGs, drawn once.
// report.json is compact unless pretty: it is the artifact the later jobs
// read.
func WriteOutDir(dir string, r contract.Report, pretty bool, p *Progress) error {
	if err := os.MkdirAll(filepath.Join(dir, "plots"), 0o755); err != nil {
		return err
	}
	plots, err := drawPlots(r, []string{plot.FormatSVG, plot.FormatPNG}, dir, p)
	if err != nil {
		return err
	}
	o := report.DefaultOptions()
	o.Plots = map[string][]string{}
	o.SVGPlots = map[string][][]byte{}
	o.Pretty = pretty
	for id, p := range plots {
		if len(p.svgs) > 0 {
			o.Plots[id], o.SVGPlots[id] = p.paths, p.svgs
		}
	}
	return writeFormats(dir, r, o)
}

// writeFormats renders every format into dir, each on a goroutine of its
// own: they read the same report and plots and write different files, and
// the page (goldmark over every workload's details) would otherwise run
// alone on one core after the plots. Errors are joined in the list's
// order.
func writeFormats(dir string, r contract.Report, o report.Options) error {
	outs := []struct {
		name   string
		render func(contract.Report, report.Options) ([]byte, error)
	}{
		{"report.json", report.JSON},
		{"report.md", report.Markdown},
		{"report.html", report.HTML},
		{"report.txt", report.Text},
		{"report.sarif", func(r contract.Report, _ report.Options) ([]byte, error) {
			return report.SARIF(r, report.SARIFOptions{BaseDir: RepoBaseDir(contract.PathBase(r))})
		}},
	}
	errs := make([]error, len(outs))
	var wg sync.WaitGroup
	for i, out := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := out.render(r, o)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", out.name, err)
				return
			}
			errs[i] = os.WriteFile(filepath.Join(dir, out.name), b, 0o644)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// RepoBaseDir is the scanned directory relative to the top of the git
// repository holding it ("" when it is the top or not in a repository).
func RepoBaseDir(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return ""
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			rel, err := filepath.Rel(dir, abs)
			if err != nil || rel == "." {
				return ""
			}
			return filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// Failing counts the findings of r that fail a run under failOn
// ("error", "warning" or "never").
func Failing(r *contract.Report, failOn string) int {
	n := 0
	switch failOn {
	case config.FailOnNever:
		return 0
	case config.FailOnWarning:
		n = r.Summary.Errors + r.Summary.Warnings
	default:
		n = r.Summary.Errors
	}
	return n
}

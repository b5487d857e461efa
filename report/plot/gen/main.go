// Command gen writes the example plots of docs/plots from the sample
// workloads of report/plot/internal/sample (the Size specimen at 10x and a
// hunting KEDA consumer). The figures are samples: their timelines are
// shaped after the essays, not simulated by capreport.
//
//	go run ./report/plot/gen            # writes docs/plots/
//	go run ./report/plot/gen -out DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/capreport/capreport/report/plot"
	"github.com/capreport/capreport/report/plot/internal/sample"
	"github.com/capreport/capreport/rules"
)

func main() {
	out := flag.String("out", "docs/plots", "directory to write the example plots to")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	size, hunt := sample.Specimen(), sample.Hunting()
	jobs := []struct {
		file string
		w    rules.Workload
		fn   func(rules.Workload, string) (plot.Figure, error)
	}{
		{"size", size, plot.Size},
		{"rounds", size, plot.Rounds},
		{"time", hunt, plot.Time},
		{"phi", hunt, plot.Phi},
	}
	for _, j := range jobs {
		for _, format := range []string{plot.FormatSVG, plot.FormatPNG} {
			f, err := j.fn(j.w, format)
			if err != nil {
				return err
			}
			path := filepath.Join(dir, j.file+"."+format)
			if err := os.WriteFile(path, f.Data, 0o644); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
			fmt.Printf("%s\t%d bytes\t%s\n", path, len(f.Data), f.Title)
		}
	}
	return nil
}

package render_test

import (
	"context"
	"testing"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// BenchmarkRenderExtractCorpus is BenchmarkRenderCorpus plus the extraction
// of every autoscaler from each render: what scripts/bench-render.sh holds
// against one helm template / kustomize build process per render.
func BenchmarkRenderExtractCorpus(b *testing.B) {
	jobs := render.CorpusJobs(b)
	cfg := config.Default()
	b.ReportMetric(float64(len(jobs)), "renders/op")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, j := range jobs {
			res, err := render.Render(context.Background(), j.Root, j.Opts)
			if err != nil {
				b.Fatal(err)
			}
			analyze.Extract(res.Objects, cfg)
		}
	}
}

package analyze

import (
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/internal/genrepo"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render"
)

// BenchmarkRenderExtract renders and extracts generated repositories of
// each source kind (a Helm chart, a Kustomize overlay over a base, plain
// YAML, a Flux Kustomization, an Argo CD Application delivering the chart)
// in-process, at 100 and 1,000 autoscalers, and reports the cost per
// autoscaler: wall and CPU time, bytes allocated (-benchmem's B/op over
// the autoscalers) and the peak heap. -bench 'RenderExtract/helm/' picks
// one kind. Every kind yields the same autoscalers, so the figures compare
// the kinds' render paths.
func BenchmarkRenderExtract(b *testing.B) {
	for _, kind := range genrepo.Kinds {
		for _, n := range []int{100, 1000} {
			b.Run(string(kind)+"/"+strconv.Itoa(n), func(b *testing.B) {
				dir := filepath.Join(b.TempDir(), "repo")
				if err := genrepo.WriteKind(dir, kind, n); err != nil {
					b.Fatal(err)
				}
				benchRenderExtract(b, dir, n)
			})
		}
	}
}

func benchRenderExtract(b *testing.B, dir string, n int) {
	opts := render.DefaultOptions()
	opts.RepoURLs = []string{genrepo.RepoURL}
	cfg := config.Default()
	b.ReportAllocs()
	runtime.GC()
	heap := testutil.StartHeapPeak()
	cpu0 := testutil.CPUTime()
	for b.Loop() {
		res, err := render.Render(context.Background(), dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		if got := len(Extract(res.Objects, cfg).Autoscalers); got != n {
			b.Fatalf("extracted %d autoscalers of %d (findings: %v)", got, n, res.Findings)
		}
	}
	cpu := testutil.CPUTime() - cpu0
	peak := heap.Stop()
	per := func(v float64) float64 { return v / float64(b.N) / float64(n) }
	b.ReportMetric(per(float64(b.Elapsed().Nanoseconds())), "ns/autoscaler")
	b.ReportMetric(per(float64(cpu.Nanoseconds())), "cpu-ns/autoscaler")
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(float64(peak)/float64(n), "peak-heap-B/autoscaler")
}

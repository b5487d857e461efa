package rules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
)

const measuredConfig = `workloads:
  - namespace: shop
    kind: Deployment
    name: api
    deadTime: 47s
    podRate: 85
    measured:
      deadTime: {query: "q", window: 7d, quantile: 0.9, samples: 312, at: 2026-12-01T10:00:00Z}
`

// A value with a measured: record reaches the report with provenance
// "measured" and the record; a value beside it without one stays "config".
func TestMeasuredProvenanceInReport(t *testing.T) {
	dir := t.TempDir()
	manifests, err := os.ReadFile(filepath.Join("..", "testdata", "measured", "app.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app.yaml"), manifests, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(filepath.Join(dir, config.FileName), []byte(measuredConfig))
	if err != nil {
		t.Fatal(err)
	}
	w := workload(t, buildDir(t, dir, cfg), "shop/HorizontalPodAutoscaler/api")
	dt := w.Assumptions["deadTime"]
	if dt.From != "measured" || dt.Value != "47s" || dt.Measured == nil {
		t.Fatalf("deadTime = %+v", dt)
	}
	want := contract.Measured{Query: "q", Window: "7d", Quantile: 0.9, Samples: 312, At: "2026-12-01T10:00:00Z"}
	if *dt.Measured != want {
		t.Fatalf("measured = %+v, want %+v", *dt.Measured, want)
	}
	if got := dt.Measured.Summary("deadTime"); got != "measured p90 over 7d, 312 pods, 2026-12-01" {
		t.Fatalf("Summary = %q", got)
	}
	if pr := w.Assumptions["podRate"]; pr.From != "config" || pr.Measured != nil {
		t.Fatalf("podRate = %+v", pr)
	}
}

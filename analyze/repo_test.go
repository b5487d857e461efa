package analyze

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// TestExtractRenderedRepo goes through the renderer: a chart rendered with
// two value sets from .capreport.yaml, and an overlay that patches an HPA
// of its base (bounds and a dead-time annotation).
func TestExtractRenderedRepo(t *testing.T) {
	root := filepath.Join("..", "testdata", "extract", "repo")
	cfgPath, ok := config.Find(root)
	if !ok {
		t.Fatal("no .capreport.yaml in the fixture repo")
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := render.Render(context.Background(), root, cfg.RenderOptions(render.DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sources {
		if s.Status != render.StatusRendered {
			t.Errorf("source %s@%s: %s %s", s.Path, s.ValueSet, s.Status, s.Reason)
		}
	}
	inv := Extract(res.Objects, cfg)
	type row struct {
		source   string
		min, max int32
		metric   string
		dead     time.Duration
		deadFrom string
	}
	want := map[string]row{
		// The overlay's patch wins over the base; its annotation gives the
		// dead time; the origin is the base file the HPA was written in.
		"batch/HorizontalPodAutoscaler/worker": {"deploy/overlays/prod", 2, 12, "cpu:80%", 75 * time.Second, FromAnnotation},
		// Value sets: prod's file and --set pair, and the workloads entry.
		"prod/HorizontalPodAutoscaler/api-server":    {"charts/api@prod", 3, 30, "cpu:65%", 40 * time.Second, FromConfig},
		"staging/HorizontalPodAutoscaler/api-server": {"charts/api@staging", 1, 4, "cpu:80%", DefaultDeadTime, FromDefault},
	}
	if len(inv.Autoscalers) != len(want) {
		t.Fatalf("got %d autoscalers, want %d", len(inv.Autoscalers), len(want))
	}
	for _, a := range inv.Autoscalers {
		w, ok := want[a.ID]
		if !ok {
			t.Errorf("unexpected autoscaler %s", a.ID)
			continue
		}
		if a.Origin.Source != w.source || *a.HPA.MinReplicas != w.min || a.HPA.MaxReplicas != w.max || a.Metrics[0].Short() != w.metric {
			t.Errorf("%s: source %s min %d max %d metric %s, want %+v", a.ID, a.Origin.Source, *a.HPA.MinReplicas, a.HPA.MaxReplicas, a.Metrics[0].Short(), w)
		}
		if a.Assumptions.DeadTime.Value != w.dead || a.Assumptions.DeadTime.From != w.deadFrom {
			t.Errorf("%s: dead time %+v, want %v from %s", a.ID, a.Assumptions.DeadTime, w.dead, w.deadFrom)
		}
		if !a.Target.Found || a.Target.CPURequestMilli == 0 {
			t.Errorf("%s: target %+v", a.ID, a.Target)
		}
		if a.Assumptions.PodRate.Value != 80 || a.Assumptions.PodRate.From != FromConfig {
			t.Errorf("%s: pod rate %+v", a.ID, a.Assumptions.PodRate)
		}
		if a.Assumptions.SyncPeriod.Value != 30*time.Second || a.Assumptions.SyncPeriod.From != FromCluster {
			t.Errorf("%s: sync period %+v", a.ID, a.Assumptions.SyncPeriod)
		}
		if hasFinding(a.Findings, check.DuplicateAutoscaler) {
			t.Errorf("%s: renders of two value sets are not duplicates", a.ID)
		}
	}
	worker := findAutoscaler(inv, "batch/HorizontalPodAutoscaler/worker")
	if worker != nil && (worker.Origin.File != "deploy/base/hpa.yaml" || worker.Assumptions.DeadTime.Where == nil ||
		worker.Assumptions.DeadTime.Where.File != "deploy/base/hpa.yaml") {
		t.Errorf("worker origin %+v, dead time where %+v", worker.Origin, worker.Assumptions.DeadTime.Where)
	}
}

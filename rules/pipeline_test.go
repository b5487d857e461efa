package rules

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render"
)

// buildDir runs the whole pipeline on a directory: render, extract, price.
func buildDir(t testing.TB, dir string, cfg *config.Config) *contract.Report {
	t.Helper()
	if cfg == nil {
		cfg = config.Default()
	}
	res, err := render.Render(context.Background(), dir, cfg.RenderOptions(render.DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(context.Background(), dir, res, analyze.Extract(res.Objects, cfg), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func workload(t *testing.T, r *contract.Report, id string) contract.Workload {
	t.Helper()
	for _, w := range r.Workloads {
		if w.ID == id {
			return w
		}
	}
	ids := []string{}
	for _, w := range r.Workloads {
		ids = append(ids, w.ID)
	}
	t.Fatalf("no workload %s in %v", id, ids)
	return contract.Workload{}
}

// The essays' specimens, written as manifests, give through the whole
// pipeline the figures the core gives.
func TestSpecimensThroughThePipeline(t *testing.T) {
	r := buildDir(t, filepath.Join(testutil.RepoRoot(t), "testdata", "specimen"), nil)

	size := workload(t, r, "essays/HorizontalPodAutoscaler/specimen")
	if size.Size == nil {
		t.Fatalf("specimen unpriced: %s", size.UnpricedReason)
	}
	var tenfold *contract.SizeOverload
	for i, o := range size.Size.Overloads {
		if o.K == 10 {
			tenfold = &size.Size.Overloads[i]
		}
	}
	if tenfold == nil {
		t.Fatalf("no 10x overload in %+v", size.Size.Overloads)
	}
	if tenfold.TimeToCapacitySeconds == nil || *tenfold.TimeToCapacitySeconds != 345 || tenfold.PeakReplicas != 317 {
		t.Errorf("10x: capacity %v s, peak %d; essay: 345 s, 317 pods", tenfold.TimeToCapacitySeconds, tenfold.PeakReplicas)
	}
	if tenfold.RoundsBound == nil || *tenfold.RoundsBound != 3 || size.Size.GrowthFactor != 2 || size.Size.DeadBand {
		t.Errorf("bound %d g %v dead band %v; want 3, 2, false", tenfold.RoundsBound, size.Size.GrowthFactor, size.Size.DeadBand)
	}

	hunts := workload(t, r, "essays/ScaledObject/kit-d60")
	if hunts.Time == nil {
		t.Fatalf("kit-d60 unpriced: %s", hunts.UnpricedReason)
	}
	if !hunts.Time.Hunts || hunts.Time.ReplicasMin != 6 || hunts.Time.ReplicasMax != 35 {
		t.Errorf("D=60 s: %d..%d hunts=%v; essay: 6..35, hunts", hunts.Time.ReplicasMin, hunts.Time.ReplicasMax, hunts.Time.Hunts)
	}
	if hunts.Verdict != contract.VerdictFail || !hasCheck(hunts, check.Hunting) {
		t.Errorf("D=60 s verdict %s, findings %+v; want fail with hunting", hunts.Verdict, hunts.Findings)
	}
	rests := workload(t, r, "essays/ScaledObject/kit-d150")
	if rests.Time == nil || rests.Time.Hunts || rests.Time.ReplicasMin != 19 || rests.Time.ReplicasMax != 21 {
		t.Errorf("D=150 s: %+v; essay: 19..21, rests", rests.Time)
	}
	if hasCheck(rests, check.Hunting) {
		t.Errorf("D=150 s raised hunting")
	}
	if req := rests.Time.RequiredStandingDelaySeconds; req < 89 || req > 90.2 {
		t.Errorf("required delay %v, essay: 89.6 s", req)
	}
}

func hasCheck(w contract.Workload, id string) bool {
	for _, f := range w.Findings {
		if f.Check == id && !f.Ignored {
			return true
		}
	}
	return false
}

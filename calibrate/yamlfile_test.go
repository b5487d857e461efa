package calibrate

import (
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/config"
)

func applyResult(q int) Result {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return Result{Workload: Workload{Namespace: "shop", Kind: "Deployment", Name: "api"}, Values: []Value{
		{Key: config.KeyDeadTime, Text: "47s", Record: config.Measurement{Query: "q", Window: "7d", Quantile: 0.9, Samples: q, At: at}},
		{Key: config.KeyOverload, Text: "2.5x", Record: config.Measurement{Query: "r", Window: "7d", Quantile: 1, Samples: 100, At: at}},
	}}
}

// No file yet: Apply writes one that loads, with provenance measured.
func TestApplyNewFile(t *testing.T) {
	out, changed, err := Apply("c.yaml", nil, []Result{applyResult(12)})
	if err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	cfg, err := config.Parse("c.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := cfg.WorkloadAssumptions("shop", config.ObjectRef{Kind: "Deployment", Name: "api"})
	if a.DeadTime.Value != 47*time.Second || a.DeadTime.Measured == nil || a.DeadTime.Measured.Samples != 12 ||
		len(a.Overload.Value) != 1 || a.Overload.Value[0] != 2.5 || a.Overload.Measured == nil {
		t.Fatalf("assumptions = %+v\n%s", a, out)
	}
	again, changed, _ := Apply("c.yaml", out, []Result{applyResult(12)})
	if changed || string(again) != string(out) {
		t.Fatal("a second Apply of the same values changed the file")
	}
	third, changed, _ := Apply("c.yaml", out, []Result{applyResult(13)})
	if !changed || !strings.Contains(string(third), "samples: 13") || strings.Count(string(third), "deadTime:") != 2 {
		t.Fatalf("a new sample count is not rewritten in place:\n%s", third)
	}
}

// A flow-style entry and a glob entry: the exact entry is edited, the
// glob left alone, and the comment above it kept.
func TestApplyEditsTheExactEntry(t *testing.T) {
	in := "workloads:\n  # everything in shop\n  - {namespace: shop, name: \"*\", deadTime: 90s}\n  - {namespace: shop, kind: deployment, name: api, podRate: 10}\n"
	out, _, err := Apply("c.yaml", []byte(in), []Result{applyResult(12)})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.Contains(s, "# everything in shop") || !strings.Contains(s, `name: "*", deadTime: 90s}`) || strings.Count(s, "namespace: shop") != 2 {
		t.Fatalf("edited the wrong entry or lost the comment:\n%s", s)
	}
}

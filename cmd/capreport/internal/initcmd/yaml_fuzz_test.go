package initcmd

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// FuzzInitConfig: whatever an autoscaler's namespace, name and file, and a
// chart's path and ci value set, the file init writes loads as exactly the
// entries meant (checkRoundTrip, which init runs itself, never fails), and
// independently of what init meant: the one workloads entry names exactly
// that autoscaler and sets nothing, and a source, when written, is that
// chart with that value set. What YAML cannot hold (text that is not
// UTF-8) and an empty name are left out, never written otherwise.
func FuzzInitConfig(f *testing.F) {
	for _, s := range cmdtest.HostileNames {
		f.Add("shop", s, "hpa.yaml", "charts/web", "hpa")
		f.Add(s, "web", s+".yaml", "charts/"+s, s)
	}
	f.Fuzz(func(t *testing.T, ns, name, file, chart, set string) {
		a := analyze.Autoscaler{ID: ns + "/HorizontalPodAutoscaler/" + name, Kind: "HorizontalPodAutoscaler", Name: name,
			Namespace: ns, Signal: analyze.SignalSaturating, Origin: render.Origin{File: file, Line: 3}}
		sets := []ciValueSet{{chart: chart, name: set, file: chart + "/ci/" + set + "-values.yaml", autoscalers: 1}}
		body, want := initConfig(&analyze.Inventory{Autoscalers: []analyze.Autoscaler{a}}, sets)
		if err := checkRoundTrip(body, want); err != nil {
			t.Fatalf("%v\n%s", err, body)
		}
		cfg, err := config.Parse(config.FileName, body)
		if err != nil {
			t.Fatal(err)
		}
		checkFuzzedEntry(t, cfg, body, ns, name)
		checkFuzzedSource(t, cfg, body, sets[0])
	})
}

func checkFuzzedEntry(t *testing.T, cfg *config.Config, body []byte, ns, name string) {
	t.Helper()
	writable := name != "" && utf8.ValidString(ns) && utf8.ValidString(name)
	if !writable {
		if len(cfg.Workloads) != 0 {
			t.Fatalf("an entry was written for %q/%q:\n%s", ns, name, body)
		}
		return
	}
	if len(cfg.Workloads) != 1 {
		t.Fatalf("%d entries, want 1:\n%s", len(cfg.Workloads), body)
	}
	w := cfg.Workloads[0]
	if !w.Matches(ns, "HorizontalPodAutoscaler", name) || w.Matches(ns, "HorizontalPodAutoscaler", name+"x") ||
		ns != "" && w.Matches(ns+"x", "HorizontalPodAutoscaler", name) {
		t.Fatalf("the entry %q/%q does not name exactly %q/%q:\n%s", w.Namespace, w.Name, ns, name, body)
	}
	if w.Assumptions.DeadTime.Set || w.Assumptions.PodRate.Set || w.Assumptions.Overload.Set || w.Assumptions.Signal.Set ||
		w.Queries != (config.Queries{}) || cfg.Defaults.DeadTime.Set || cfg.Defaults.PodRate.Set {
		t.Fatalf("a name set an assumption:\n%s", body)
	}
}

func checkFuzzedSource(t *testing.T, cfg *config.Config, body []byte, s ciValueSet) {
	t.Helper()
	if len(cfg.Sources) == 0 {
		if strings.Contains(string(body), "\n  - path:") {
			t.Fatalf("a source was written that does not load:\n%s", body)
		}
		return
	}
	src := cfg.Sources[0]
	if len(cfg.Sources) != 1 || src.Path != s.chart || len(src.ValueSets) != 1 ||
		src.ValueSets[0].Name != s.name || len(src.ValueSets[0].Values) != 1 || src.ValueSets[0].Values[0] != s.file {
		t.Fatalf("sources %+v, want %q with %q = %q:\n%s", cfg.Sources, s.chart, s.name, s.file, body)
	}
}

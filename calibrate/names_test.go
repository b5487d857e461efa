package calibrate

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/capreport/capreport/config"
)

// names are workload names and namespaces a manifest may hold that YAML or
// a glob would read as something else.
var names = []string{
	"api", "- item", "? key", "~", "null", "Null", "true", "no", "1e3", "0x10", "<<", "#x", "a: b", "'q'", "\"dq\"",
	"*", "api-*", "a?c", "[", "[ab]", "{a,b}", "}", "\\", "a\\*", " lead", "trail ", "a\nb", "a\r\nb", "a\u2028b",
	"x\n  - deadTime: 1s", "\ufeffbom", "a\x7fb", "é",
}

// checkApplied: out loads and holds, after the entries of before, one
// new entry that names exactly ns/kind/name and has r's dead time.
func checkApplied(t *testing.T, out []byte, before int, r Result) {
	t.Helper()
	cfg, err := config.Parse("c.yaml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(cfg.Workloads) != before+1 {
		t.Fatalf("%d entries, want %d\n%s", len(cfg.Workloads), before+1, out)
	}
	w, wl := cfg.Workloads[before], r.Workload
	if !w.Matches(wl.Namespace, wl.Kind, wl.Name) || w.Matches(wl.Namespace, wl.Kind, wl.Name+"x") {
		t.Errorf("the entry %q/%q/%q does not name exactly %s\n%s", w.Namespace, w.Kind, w.Name, wl.Ref(), out)
	}
	if w.Assumptions.DeadTime.Value != 47*time.Second || w.Assumptions.DeadTime.Measured == nil {
		t.Errorf("deadTime %+v\n%s", w.Assumptions.DeadTime, out)
	}
	var rest config.Assumptions
	rest.DeadTime = w.Assumptions.DeadTime
	if !reflect.DeepEqual(w.Assumptions, rest) || w.Queries != (config.Queries{}) {
		t.Errorf("the entry sets more than deadTime: %+v\n%s", w.Assumptions, out)
	}
}

func nameResult(ns, name string) Result {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return Result{Workload: Workload{Namespace: ns, Kind: "Deployment", Name: name}, Values: []Value{
		{Key: config.KeyDeadTime, Text: "47s", Record: config.Measurement{Query: "q", Window: "7d", Quantile: 0.9, Samples: 12, At: at}}}}
}

// TestApplyWritesNamesAsData: whatever a workload is called, calibrate
// writes an entry that loads, names exactly that workload (a literal
// glob) and holds only what was measured; a second run finds that entry
// and changes nothing.
func TestApplyWritesNamesAsData(t *testing.T) {
	const existing = "workloads:\n  - {namespace: shop, name: web, podRate: 10}\n"
	for _, s := range names {
		for _, r := range []Result{nameResult("shop", s), nameResult(s, "api")} {
			t.Run(strconv.Quote(r.Workload.Ref()), func(t *testing.T) {
				out, changed, err := Apply("c.yaml", []byte(existing), []Result{r})
				if err != nil || !changed {
					t.Fatalf("changed %v, err %v", changed, err)
				}
				checkApplied(t, out, 1, r)
				again, changed, err := Apply("c.yaml", out, []Result{r})
				if err != nil || changed || string(again) != string(out) {
					t.Errorf("a second run changed the file (err %v):\n%s\n---\n%s", err, out, again)
				}
			})
		}
	}
}

package analyze

import (
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render"
)

// FuzzAnnotations: any annotation key and value yields findings or values,
// never a panic, and a bad value never leaks into the assumptions.
func FuzzAnnotations(f *testing.F) {
	f.Add("capreport.io/dead-time", "ninety")
	f.Add("capreport.io/overload", "3x,10x,30x")
	f.Add("capreport.io/saturated-efficiency", "80%")
	f.Add("capreport.io/signal", "rate")
	f.Add("ignore-check.capreport.io/", "x")
	f.Add("capreport.io/partitions", "-1")
	f.Fuzz(func(t *testing.T, key, value string) {
		o := render.Origin{File: "f.yaml", Line: 3}
		a, fs := parseAnnotations(map[string]string{key: value}, o, "x")
		for _, f := range fs {
			if f.File() != "f.yaml" || f.Line() != 3 || f.Message == "" {
				t.Fatalf("finding without place: %+v", f)
			}
		}
		if len(fs) > 0 && (a.DeadTime.Set || a.PodRate.Set || a.Overload.Set || a.Signal.Set || a.Step.Set) {
			t.Fatalf("a rejected value was kept: %+v", a)
		}
		ign := map[string]string{}
		for _, f := range parseIgnores(map[string]string{key: value}, o, "x", ign) {
			if f.Check != check.IgnoreWithoutReason {
				t.Fatalf("unexpected finding %+v", f)
			}
		}
		for id, reason := range ign {
			if id == "" || strings.TrimSpace(reason) == "" {
				t.Fatalf("ignore kept without id or reason: %q=%q", id, reason)
			}
		}
	})
}

// smallSeeds cuts the fixtures into runs of whole documents of at most
// limit bytes (a longer document stands alone). The fuzzer minimizes every
// input it finds interesting, for up to a minute each and in time that
// grows with its length: whole multi-kilobyte fixtures as seeds left it
// minimizing instead of fuzzing (8 executions in 60 s).
func smallSeeds(f testing.TB, limit int, names ...string) [][]byte {
	var out [][]byte
	for _, name := range names {
		var run []string
		size := 0
		for _, doc := range strings.Split(string(readFixture(f, name)), "\n---\n") {
			if len(run) > 0 && size+len(doc) > limit {
				out = append(out, []byte(strings.Join(run, "\n---\n")))
				run, size = nil, 0
			}
			run, size = append(run, doc), size+len(doc)
		}
		out = append(out, []byte(strings.Join(run, "\n---\n")))
	}
	return out
}

// FuzzExtract: any YAML stream of objects is extracted without a panic, and
// every autoscaler keeps its metric descriptions aligned with its HPA.
func FuzzExtract(f *testing.F) {
	for _, seed := range smallSeeds(f, 250, "hpa-versions.yaml", "keda-triggers.yaml", "keda-features.yaml", "targets.yaml", "annotations.yaml") {
		f.Add(seed)
	}
	f.Add([]byte("apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: a}\nspec: {triggers: [{type: kafka, metadata: {lagThreshold: 1e99}}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := decodeObjects("f.yaml", data)
		if err != nil {
			return
		}
		inv := Extract(objs, nil)
		for _, a := range inv.Autoscalers {
			if len(a.Metrics) != len(a.HPA.Metrics) || a.ID == "" || a.HPA.MinReplicas == nil {
				t.Fatalf("%s: inconsistent autoscaler", a.ID)
			}
		}
	})
}

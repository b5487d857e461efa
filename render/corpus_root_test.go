package render

import (
	"context"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// TestCorpusFromRenderRoot points capreport at each case's render root
// inside the case folder, with the case folder as the repository root,
// as a user runs `capreport overlays/prod` in a checkout: the same
// autoscalers come out as when the whole case folder is scanned (an
// overlay's bases beside it included), and a chart's namespace-less
// objects carry the release namespace.
func TestCorpusFromRenderRoot(t *testing.T) {
	testutil.SkipIfShort(t)
	dir, ok := findCorpus()
	if !ok {
		t.Fatal("corpus not found at ../shared/corpus next to the module root")
	}
	for _, c := range parseCorpusREADME(t, dir) {
		t.Run(c.name, func(t *testing.T) {
			caseDir := filepath.Join(dir, c.name)
			entry := caseDir
			if c.kind == "kustomize" {
				entry = filepath.Join(caseDir, c.renderRoot)
			}
			opts := DefaultOptions()
			opts.Helm = HelmValues{ReleaseName: "rel", Namespace: "demo"}
			if c.hasValues {
				opts.Helm.ValuesFiles = []string{filepath.Join(caseDir, "capreport-values.yaml")}
			}
			fromCase := renderAutoscalers(t, caseDir, caseDir, opts)
			opts.Root = caseDir
			fromEntry := renderAutoscalers(t, entry, caseDir, opts)
			if !reflect.DeepEqual(fromEntry, fromCase) {
				t.Errorf("from %s:\n  %v\nfrom the case folder:\n  %v", entry, fromEntry, fromCase)
			}
			if len(fromEntry) == 0 {
				t.Errorf("no autoscaler from %s", entry)
			}
			if c.kind == "helm" {
				want := append([]corpusAutoscaler(nil), c.autoscalers...)
				for i := range want {
					want[i].apiVersion = ""
				}
				sort.Slice(want, func(i, j int) bool { return want[i].kind+want[i].name < want[j].kind+want[j].name })
				if !reflect.DeepEqual(fromEntry, want) {
					t.Errorf("chart autoscalers %v, want the README's %v (namespace demo included)", fromEntry, want)
				}
			}
		})
	}
}

// renderAutoscalers renders path and returns its autoscalers (kind, name,
// namespace), failing the test on a failed source.
func renderAutoscalers(t *testing.T, path, caseDir string, opts Options) []corpusAutoscaler {
	t.Helper()
	res, err := Render(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sources {
		if s.Status == StatusFailed {
			t.Errorf("%s (from %s): failed: %s", s.Path, path, s.Reason)
		}
	}
	var out []corpusAutoscaler
	for _, o := range res.Objects {
		if o.Kind == "HorizontalPodAutoscaler" || o.Kind == "ScaledObject" {
			out = append(out, corpusAutoscaler{kind: o.Kind, name: o.Name, namespace: o.Namespace})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].kind+out[i].name < out[j].kind+out[j].name })
	return out
}
